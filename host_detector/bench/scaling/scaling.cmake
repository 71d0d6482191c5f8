# Scaling benchmarks of the analysis (issue 16 item 4): three CUDA programs whose
# work grows linearly with their argument; scripts/scaling_benchmark.py runs them at
# 1x, 2x, 4x and 8x under barracuda and on the emulator alone. The smallest size of
# each is a correctness test (label "emu").
if(NOT BARRACUDA_CUDA_TESTS)
  return()
endif()
include(${PROJECT_SOURCE_DIR}/cmake/CudaPrograms.cmake)
set(_scaling_dir ${CMAKE_BINARY_DIR}/host_detector/bench/scaling)
set(_scaling_arg_hot_histogram 2)
set(_scaling_arg_spin_lock 2)
set(_scaling_arg_flag_poll 8)
foreach(name hot_histogram spin_lock flag_poll)
  barracuda_cuda_program(NAME ${name} SOURCE ${CMAKE_CURRENT_LIST_DIR}/${name}.cu OUTPUT_DIR ${_scaling_dir}
    TEST_NAME scaling/${name} ARGS ${_scaling_arg_${name}} PASS_REGEX "PASS" TIMEOUT 300)
endforeach()
