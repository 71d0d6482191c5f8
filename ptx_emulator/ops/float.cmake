# Floating-point and conversion instruction families (see float_ops.cpp,
# conversion_ops.cpp; fp_*.h/.cpp are their shared helpers).
target_sources(barracuda_emu PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/float_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fp_half_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fp_directed.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fp_narrow.cpp
  ${CMAKE_CURRENT_LIST_DIR}/conversion_ops.cpp)
# Directed-rounding handlers switch the FPU rounding mode around the arithmetic.
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/fp_directed.cpp PROPERTIES COMPILE_OPTIONS -frounding-math)

barracuda_unit_test(emu_float_tests
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/../tests/float_arith_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/float_half_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/float_cvt_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/float_narrow_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/float_kernel_test.cpp
  LIBS barracuda_emu)

if(BARRACUDA_BENCHMARKS)
  add_executable(emu_float_bench ${CMAKE_CURRENT_LIST_DIR}/../tests/float_handler_bench.cpp)
  target_link_libraries(emu_float_bench PRIVATE barracuda_emu benchmark::benchmark)
endif()
