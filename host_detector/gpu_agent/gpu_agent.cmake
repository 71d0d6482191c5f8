# libbarracuda_gpu.so, the GPU backend's preload agent (README.md). include()d
# from host_detector/CMakeLists.txt. Needs the device logger (nvcc) and the CUDA
# toolkit's headers (the interposed signatures are exactly CUDA 13's).
find_path(BARRACUDA_CUDA_INCLUDE_DIR cuda_runtime_api.h
  PATHS /usr/local/cuda/include /usr/local/cuda-13.0/include /usr/include
  DOC "CUDA toolkit include directory (cuda_runtime_api.h, driver_types.h)")
if(NOT TARGET barracuda_device_logger OR NOT BARRACUDA_CUDA_INCLUDE_DIR)
  message(STATUS "barracuda: nvcc or the CUDA headers missing: the GPU agent (libbarracuda_gpu.so) is not built")
  return()
endif()

# Everything but the interposed entry points: testable without a runtime.
add_library(barracuda_gpu_agent_core STATIC
  ${CMAKE_CURRENT_LIST_DIR}/agent_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/driver_handles.cpp
  ${CMAKE_CURRENT_LIST_DIR}/driver_image.cpp
  ${CMAKE_CURRENT_LIST_DIR}/module_instrumenter.cpp
  ${CMAKE_CURRENT_LIST_DIR}/proc_address_table.cpp
  ${CMAKE_CURRENT_LIST_DIR}/queue_drainer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tensor_maps.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unchecked_kernels.cpp)
target_include_directories(barracuda_gpu_agent_core PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(barracuda_gpu_agent_core PUBLIC barracuda_ptx barracuda_device_logger barracuda_transport
  absl::flat_hash_map absl::flat_hash_set absl::status absl::statusor absl::strings)

add_library(barracuda_gpu SHARED
  ${CMAKE_CURRENT_LIST_DIR}/agent.cpp
  ${CMAKE_CURRENT_LIST_DIR}/agent_driver.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_hooks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/driver_hooks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/real_driver.cpp
  ${CMAKE_CURRENT_LIST_DIR}/real_runtime.cpp)
target_include_directories(barracuda_gpu PRIVATE ${BARRACUDA_CUDA_INCLUDE_DIR})
target_link_libraries(barracuda_gpu PRIVATE barracuda_gpu_agent_core ${CMAKE_DL_LIBS} Threads::Threads)
set_target_properties(barracuda_gpu PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON
  LINK_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/exports.map)
target_link_options(barracuda_gpu PRIVATE
  -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/exports.map -Wl,--exclude-libs,ALL)
# Every symbol resolved at link time, except in sanitizer builds, whose runtime
# only the executable links (the preloaded agent is not used there).
if(NOT BARRACUDA_SANITIZE)
  target_link_options(barracuda_gpu PRIVATE -Wl,-z,defs)
endif()

barracuda_unit_test(gpu_agent_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/module_instrumenter_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/queue_drainer_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/agent_config_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/driver_image_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/driver_handles_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/proc_address_table_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/tensor_maps_test.cpp
  LIBS barracuda_gpu_agent_core)

if(BARRACUDA_BENCHMARKS)
  add_executable(queue_drain_bench ${CMAKE_CURRENT_LIST_DIR}/bench/queue_drain_bench.cpp)
  target_link_libraries(queue_drain_bench PRIVATE barracuda_gpu_agent_core benchmark::benchmark)
endif()
