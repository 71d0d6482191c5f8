# The shared-memory transport (shm_transport.h): producers in the app (the
# emulator runtime, later the GPU agent) -> barracudad. include()d from
# device_logger/CMakeLists.txt.
add_library(barracuda_transport STATIC ${CMAKE_CURRENT_LIST_DIR}/shm_transport.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_error_message.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stream_op_message.cpp)
target_include_directories(barracuda_transport PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(barracuda_transport PUBLIC barracuda_protocol absl::status absl::statusor absl::strings
  Threads::Threads)

barracuda_unit_test(transport_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/shm_transport_test.cpp
  LIBS barracuda_transport)
