# Integer, bit and video instruction families (see ops/int_lanes.h for the shared
# lane-loop helpers). Tests: emu_integer_tests.
target_sources(barracuda_emu PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/integer_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bit_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/int_compare.cpp
  ${CMAKE_CURRENT_LIST_DIR}/video_ops.cpp)

barracuda_unit_test(emu_integer_tests
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/../tests/integer_arith_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/integer_bit_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/integer_compare_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/integer_kernel_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/video_test.cpp
  LIBS barracuda_emu barracuda_ptx)

if(BARRACUDA_BENCHMARKS)
  add_executable(emu_integer_bench ${CMAKE_CURRENT_LIST_DIR}/../tests/integer_handler_bench.cpp)
  target_link_libraries(emu_integer_bench PRIVATE barracuda_emu barracuda_ptx benchmark::benchmark)
endif()
