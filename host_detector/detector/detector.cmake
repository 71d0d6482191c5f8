# The BARRACUDA algorithm over records (owner: detector core): the detector,
# its parallel and streaming engines and the race report model. See README.md.
# include()d from host_detector/CMakeLists.txt.
add_library(barracuda_detector STATIC
  ${CMAKE_CURRENT_LIST_DIR}/detector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_access.cpp
  ${CMAKE_CURRENT_LIST_DIR}/synchronisation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/strong_access.cpp
  ${CMAKE_CURRENT_LIST_DIR}/parallel_engine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/record_feed.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis_pool.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/same_value.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shared_lifetime.cpp)
target_include_directories(barracuda_detector PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(barracuda_detector
  PUBLIC barracuda_vc barracuda_shadow barracuda_protocol absl::status absl::statusor absl::strings
         absl::flat_hash_map TBB::tbb)

barracuda_unit_test(host_detector_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/rules_memory_test.cpp ${CMAKE_CURRENT_LIST_DIR}/tests/rules_sync_test.cpp ${CMAKE_CURRENT_LIST_DIR}/tests/rules_async_test.cpp ${CMAKE_CURRENT_LIST_DIR}/tests/rules_proxy_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/rules_fences_test.cpp ${CMAKE_CURRENT_LIST_DIR}/tests/rules_observation_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/paper_examples_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/launch_test.cpp ${CMAKE_CURRENT_LIST_DIR}/tests/ring_interleaving_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/record_feed_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tests/memory_limit_test.cpp ${CMAKE_CURRENT_LIST_DIR}/tests/shadow_residency_test.cpp
  LIBS barracuda_detector)

if(BARRACUDA_BENCHMARKS)
  add_executable(detector_bench ${CMAKE_CURRENT_LIST_DIR}/bench/detector_bench.cpp)
  target_link_libraries(detector_bench PRIVATE barracuda_detector benchmark::benchmark)
endif()

# Adversarial record streams (label fuzz, 30 s in CI's sanitizer build): the
# detector never crashes on what a program's records may look like.
if(TARGET barracuda_trace_generator OR EXISTS ${PROJECT_SOURCE_DIR}/host_detector/reference/CMakeLists.txt)
  barracuda_fuzzer(record_stream_fuzzer SOURCES ${CMAKE_CURRENT_LIST_DIR}/fuzz/record_stream_fuzzer.cpp
    LIBS barracuda_detector barracuda_trace_generator)
  if(BARRACUDA_FUZZ)
    add_test(NAME fuzz.record_stream COMMAND sh -c "mkdir -p '${CMAKE_CURRENT_BINARY_DIR}/record_stream_corpus' && exec '$<TARGET_FILE:record_stream_fuzzer>' -max_total_time=30 -timeout=10 -rss_limit_mb=2048 '${CMAKE_CURRENT_BINARY_DIR}/record_stream_corpus'")
    set_tests_properties(fuzz.record_stream PROPERTIES LABELS fuzz TIMEOUT 120)
  endif()
endif()
