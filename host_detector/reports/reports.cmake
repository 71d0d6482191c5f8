# Race reports (owner: reports): the report context (side tables a writer
# needs), text / JSON / SARIF writers, suppressions and --max-reports.
# See REPORTS.md and README.md. include()d from host_detector/CMakeLists.txt.
add_library(barracuda_reports STATIC)
target_sources(barracuda_reports PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/report_context.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_errors.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stream_order_races.cpp
  ${CMAKE_CURRENT_LIST_DIR}/race_fingerprint.cpp
  ${CMAKE_CURRENT_LIST_DIR}/race_grouping.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_sarif.cpp
  ${CMAKE_CURRENT_LIST_DIR}/suppressions.cpp)
target_include_directories(barracuda_reports PUBLIC ${PROJECT_SOURCE_DIR})
target_compile_definitions(barracuda_reports PRIVATE BARRACUDA_VERSION="${PROJECT_VERSION}")
target_link_libraries(barracuda_reports
  PUBLIC barracuda_detector barracuda_ptx barracuda_transport nlohmann_json::nlohmann_json absl::status absl::statusor
         absl::flat_hash_map)

# Tests write every report they produce under this directory (or under
# $BARRACUDA_REPORT_OUTPUT_DIR); report_schemas validates them.
set(BARRACUDA_REPORT_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR}/report_outputs)
barracuda_unit_test(host_detector_report_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/report_fixture.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/report_context_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/report_writers_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/report_suppressions_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/race_grouping_test.cpp
  LIBS barracuda_reports)
target_compile_definitions(host_detector_report_tests PRIVATE
  BARRACUDA_REPORT_OUTPUT_DIR="${BARRACUDA_REPORT_OUTPUT_DIR}")

# Runs the test cases tagged [report-files] into a fresh directory, then
# validates every *.json against barracuda-report-v2 and every *.sarif against
# the official SARIF 2.1.0 schema (python3-jsonschema); also checks that a
# broken report is rejected, so the check itself can fail.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME report_schemas
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/tests/validate_reports.py
      --tests $<TARGET_FILE:host_detector_report_tests>
      --out ${BARRACUDA_REPORT_OUTPUT_DIR}/schemas
      --report-schema ${CMAKE_CURRENT_LIST_DIR}/schemas/barracuda-report-v2.schema.json
      --sarif-schema ${CMAKE_CURRENT_LIST_DIR}/schemas/sarif-schema-2.1.0.json)
  set_tests_properties(report_schemas PROPERTIES LABELS unit)
endif()

# libFuzzer target for the suppression file parser (BARRACUDA_FUZZ=ON, clang).
barracuda_fuzzer(suppressions_fuzzer SOURCES ${CMAKE_CURRENT_LIST_DIR}/fuzz/suppressions_fuzzer.cpp
  LIBS barracuda_reports)
