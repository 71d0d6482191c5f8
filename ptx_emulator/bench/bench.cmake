# Emulator benchmarks (issue 4): four CUDA programs and their plain C++
# counterparts. scripts/emu_benchmark.py runs them (tracing off/on, 1 and 2
# workers) and prints the comparison table. Small-size runs of the same
# programs are correctness tests (label "emu").
if(NOT BARRACUDA_CUDA_TESTS)
  return()
endif()
include(${PROJECT_SOURCE_DIR}/cmake/CudaPrograms.cmake)
set(_bench_dir ${CMAKE_BINARY_DIR}/ptx_emulator/bench)
set(_small_vector_add 100000)
set(_small_matmul 64)
set(_small_histogram 200000)
set(_small_radix_sort 50000)
foreach(name vector_add matmul histogram radix_sort)
  barracuda_cuda_program(NAME ${name} SOURCE ${CMAKE_CURRENT_LIST_DIR}/${name}.cu
    INCLUDE_DIRS ${CMAKE_CURRENT_LIST_DIR} OUTPUT_DIR ${_bench_dir}
    TEST_NAME bench/${name} ARGS ${_small_${name}} PASS_REGEX "PASS" TIMEOUT 300)
endforeach()
add_executable(emu_plain_reference ${CMAKE_CURRENT_LIST_DIR}/plain_reference.cpp)
target_compile_options(emu_plain_reference PRIVATE -O2)
set_target_properties(emu_plain_reference PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${_bench_dir})
