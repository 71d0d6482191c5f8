# Emulator -> detector end to end (no CLI): PTX from nvcc, run on the emulator,
# records analysed by the detector.
if(NOT BARRACUDA_CUDA_TESTS)
  return()
endif()
set(_e2e_ptx ${CMAKE_CURRENT_BINARY_DIR}/e2e/race_kernels.ptx)
add_custom_command(OUTPUT ${_e2e_ptx}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/e2e
  COMMAND ${NVCC_EXECUTABLE} -ptx -arch=compute_75 -lineinfo ${CMAKE_CURRENT_LIST_DIR}/race_kernels.cu -o ${_e2e_ptx}
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/race_kernels.cu
  COMMENT "nvcc -ptx race_kernels.cu" VERBATIM)
add_custom_target(e2e_ptx DEPENDS ${_e2e_ptx})
barracuda_unit_test(emulator_detector_tests SOURCES ${CMAKE_CURRENT_LIST_DIR}/emulator_detector_test.cpp
  LIBS barracuda_emu barracuda_detector)
add_dependencies(emulator_detector_tests e2e_ptx)
target_compile_definitions(emulator_detector_tests PRIVATE
  BARRACUDA_E2E_PTX="${_e2e_ptx}" BARRACUDA_E2E_SOURCE="${CMAKE_CURRENT_LIST_DIR}/race_kernels.cu")
