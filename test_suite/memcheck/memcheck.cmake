# Memory-error programs (issue 18 item 3): kernels that access memory outside
# their allocations, freed memory, misaligned addresses or past their shared
# tile, each with a fixed twin. The header's "memory_errors" (per warp model:
# {kind, space, line}) must equal the report's memory_errors[]
# (programs/check_verdicts.py --root memcheck); the twins report nothing and
# print PASS. Included from test_suite/CMakeLists.txt when BARRACUDA_CUDA_TESTS is on.
if(NOT BARRACUDA_CUDA_TESTS)
  return()
endif()
find_package(Python3 REQUIRED COMPONENTS Interpreter)
include(${PROJECT_SOURCE_DIR}/cmake/CudaPrograms.cmake)

file(GLOB _memcheck_programs RELATIVE ${CMAKE_CURRENT_LIST_DIR} ${CMAKE_CURRENT_LIST_DIR}/*/*.cu)
list(SORT _memcheck_programs)
foreach(rel ${_memcheck_programs})
  get_filename_component(topic ${rel} DIRECTORY)
  get_filename_component(stem ${rel} NAME_WE)
  set(outdir ${CMAKE_CURRENT_BINARY_DIR}/memcheck/${topic})
  barracuda_cuda_program(NAME ${stem} SOURCE ${CMAKE_CURRENT_LIST_DIR}/${rel} ARCH 75 OUTPUT_DIR ${outdir}
    TEST_NAME memcheck/${topic}/${stem} NO_TEST)
  if(NOT TARGET barracuda_cudart)
    continue()
  endif()
  add_test(NAME "emu: memcheck/${topic}/${stem}" COMMAND ${outdir}/${stem} WORKING_DIRECTORY ${outdir})
  set_tests_properties("emu: memcheck/${topic}/${stem}" PROPERTIES LABELS emu TIMEOUT 120
    ENVIRONMENT "LD_LIBRARY_PATH=${BARRACUDA_EMU_LIB_DIR}")
  if(stem MATCHES "_ok$")
    set_tests_properties("emu: memcheck/${topic}/${stem}" PROPERTIES PASS_REGULAR_EXPRESSION "PASS"
      FAIL_REGULAR_EXPRESSION "FAIL|barracuda emulator: .*(fault|error)")
  else()
    # The program ignores the launch's error, as careless code does; the
    # emulator must fail the launch all the same.
    set_tests_properties("emu: memcheck/${topic}/${stem}" PROPERTIES
      PASS_REGULAR_EXPRESSION "sync: cudaError(IllegalAddress|MisalignedAddress)")
  endif()
  add_test(NAME "memcheck: ${topic}/${stem}"
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/test_suite/programs/check_verdicts.py
      --root ${CMAKE_CURRENT_LIST_DIR} --build ${CMAKE_BINARY_DIR} --barracuda $<TARGET_FILE:barracuda>
      --timeout 110 --program ${outdir}/${stem})
  set_tests_properties("memcheck: ${topic}/${stem}" PROPERTIES LABELS suite TIMEOUT 240)
endforeach()
