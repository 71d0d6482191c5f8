# Static CUDA runtime redirection (README.md). include()d from
# host_detector/CMakeLists.txt.
add_library(barracuda_static_cudart_core STATIC
  ${CMAKE_CURRENT_LIST_DIR}/runtime_linkage.cpp
  ${CMAKE_CURRENT_LIST_DIR}/jump_patch.cpp
  ${CMAKE_CURRENT_LIST_DIR}/redirect.cpp)
target_include_directories(barracuda_static_cudart_core PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(barracuda_static_cudart_core PUBLIC barracuda_ptx absl::status absl::statusor absl::strings)

# The preload library: no exports at all (the constructor does the work).
add_library(barracuda_static_cudart SHARED ${CMAKE_CURRENT_LIST_DIR}/preload.cpp)
target_link_libraries(barracuda_static_cudart PRIVATE barracuda_static_cudart_core ${CMAKE_DL_LIBS})
set_target_properties(barracuda_static_cudart PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
target_link_options(barracuda_static_cudart PRIVATE -Wl,--exclude-libs,ALL)
if(NOT BARRACUDA_SANITIZE)
  target_link_options(barracuda_static_cudart PRIVATE -Wl,-z,defs)
endif()

barracuda_unit_test(static_cudart_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/jump_patch_test.cpp ${CMAKE_CURRENT_LIST_DIR}/tests/runtime_linkage_test.cpp
  LIBS barracuda_static_cudart_core)
