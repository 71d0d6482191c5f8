# The CUDA device logger (logger.cu) compiled to PTX at build time by nvcc and
# embedded as text in barracuda_device_logger (logger_ptx.h), plus the host side
# of the GPU queues (gpu_queue.h). include()d from device_logger/CMakeLists.txt.
if(NOT NVCC_EXECUTABLE)
  find_program(NVCC_EXECUTABLE nvcc PATHS /usr/local/cuda/bin)
endif()
add_library(barracuda_gpu_queue STATIC ${CMAKE_CURRENT_LIST_DIR}/gpu_queue.cpp ${CMAKE_CURRENT_LIST_DIR}/tensor_map_table.cpp)
target_include_directories(barracuda_gpu_queue PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(barracuda_gpu_queue PUBLIC absl::strings)
if(NOT NVCC_EXECUTABLE)
  message(STATUS "nvcc not found: the device logger (barracuda_device_logger) is not built")
  return()
endif()
set(_logger_ptx ${CMAKE_CURRENT_BINARY_DIR}/logger.ptx)
set(_logger_cpp ${CMAKE_CURRENT_BINARY_DIR}/logger_ptx.cpp)
add_custom_command(OUTPUT ${_logger_ptx}
  COMMAND ${NVCC_EXECUTABLE} -ptx -rdc=true -arch=compute_75 -O3 --expt-relaxed-constexpr
    -I${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_LIST_DIR}/logger.cu -o ${_logger_ptx}
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/logger.cu ${CMAKE_CURRENT_LIST_DIR}/protocol.h
    ${CMAKE_CURRENT_LIST_DIR}/logger_abi.h ${CMAKE_CURRENT_LIST_DIR}/gpu_queue.h
  COMMENT "nvcc -ptx device_logger/logger.cu")
add_custom_command(OUTPUT ${_logger_cpp}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${_logger_ptx} -DOUTPUT=${_logger_cpp} -P ${CMAKE_CURRENT_LIST_DIR}/embed_ptx.cmake
  DEPENDS ${_logger_ptx} ${CMAKE_CURRENT_LIST_DIR}/embed_ptx.cmake)
add_library(barracuda_device_logger STATIC ${_logger_cpp})
target_include_directories(barracuda_device_logger PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(barracuda_device_logger PUBLIC barracuda_gpu_queue)

# Stage-2 test: instrumented kernels + merged logger run on the emulator, and
# the queues hold exactly the emulator's own records for the original kernels.
barracuda_unit_test(device_logger_emu_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/logger_emulator_test.cpp ${CMAKE_CURRENT_LIST_DIR}/tests/stamp_lock_test.cpp
  LIBS barracuda_device_logger barracuda_ptx barracuda_emu)

# Stage-3: the bug suite's PTX (corpus fixture), every kernel with synthetic
# arguments, emulator records vs the logger's queues (label `equivalence`).
add_executable(logger_equivalence_suite ${CMAKE_CURRENT_LIST_DIR}/tests/logger_equivalence_suite.cpp)
target_link_libraries(logger_equivalence_suite PRIVATE barracuda_device_logger barracuda_ptx barracuda_emu
  nlohmann_json::nlohmann_json)
if(BARRACUDA_CUDA_TESTS)
  add_test(NAME equivalence_bug_suite
    COMMAND logger_equivalence_suite --manifest ${CMAKE_BINARY_DIR}/corpus/manifest.json --group sm75-lineinfo)
  set_tests_properties(equivalence_bug_suite PROPERTIES FIXTURES_REQUIRED ptx_corpus LABELS "equivalence;corpus"
    TIMEOUT 3600)
endif()
