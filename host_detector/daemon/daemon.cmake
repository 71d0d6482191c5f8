# barracudad, the analysis daemon (README.md). include()d from
# host_detector/CMakeLists.txt.
add_library(barracuda_daemon STATIC
  ${CMAKE_CURRENT_LIST_DIR}/session.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stream_order_check.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_symbols.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_output.cpp)
target_include_directories(barracuda_daemon PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(barracuda_daemon PUBLIC barracuda_detector barracuda_transport barracuda_ptx
  nlohmann_json::nlohmann_json absl::status absl::statusor absl::flat_hash_map)

# The report writers (reports.cmake, included before this file) when present.
if(TARGET barracuda_reports)
  target_sources(barracuda_daemon PRIVATE ${CMAKE_CURRENT_LIST_DIR}/report_writers.cpp)
  target_link_libraries(barracuda_daemon PUBLIC barracuda_reports)
  target_compile_definitions(barracuda_daemon PUBLIC BARRACUDA_DAEMON_REPORT_WRITERS=1)
endif()

add_executable(barracudad ${CMAKE_CURRENT_LIST_DIR}/main.cpp)
target_link_libraries(barracudad PRIVATE barracuda_daemon CLI11::CLI11)

# The sink the emulator runtime uses (ptx_emulator/runtime/shm_sink.cpp) is
# the producer in these tests: it only needs record_sink.h (header-only) and
# the transport, so it is compiled in directly; the detector libraries do not
# depend on the emulator.
barracuda_unit_test(daemon_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/session_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/barracudad_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/racy_stream.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/stream_order_check_test.cpp
          ${PROJECT_SOURCE_DIR}/ptx_emulator/runtime/shm_sink.cpp
  LIBS barracuda_daemon)
add_dependencies(daemon_tests barracudad)
target_compile_definitions(daemon_tests PRIVATE BARRACUDAD_PATH="$<TARGET_FILE:barracudad>")
