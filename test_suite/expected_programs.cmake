# Program folders checked like the bug suite but with findings other than races
# (memcheck/: memory errors; streams/: stream-order races). Each
# <dir>/<topic>/<stem>.cu starts with the suite's header (programs/README.md);
# it is built once and registered as
#   "emu: <prefix>/<topic>/<stem>"  label emu: a plain emulator run; an _ok twin
#                                    must print PASS, a seeded bug PASS_REGEX
#   "<prefix>: <topic>/<stem>"      label suite: check_verdicts.py --root <dir>
#                                    (findings must equal the header's)
#   "<prefix>: static cudart builds" label suite: the same with every program
#                                    linked -cudart static (<prefix>-static/)
include(${PROJECT_SOURCE_DIR}/cmake/CudaPrograms.cmake)

function(barracuda_expected_programs)
  cmake_parse_arguments(E "" "DIR;PREFIX;BUG_PASS_REGEX" "" ${ARGN})
  file(GLOB programs RELATIVE ${E_DIR} ${E_DIR}/*/*.cu)
  list(SORT programs)
  foreach(rel ${programs})
    get_filename_component(topic ${rel} DIRECTORY)
    get_filename_component(stem ${rel} NAME_WE)
    set(outdir ${CMAKE_CURRENT_BINARY_DIR}/${E_PREFIX}/${topic})
    # The header's "arch" (80 or 90: e.g. programmatic dependent launch), else 75.
    file(READ ${E_DIR}/${rel} _head LIMIT 600)
    set(arch 75)
    if(_head MATCHES "\"arch\": *(80|90)")
      set(arch ${CMAKE_MATCH_1})
    endif()
    # -g: host debug information, so that reports name the host line of an API call.
    barracuda_cuda_program(NAME ${stem} SOURCE ${E_DIR}/${rel} ARCH ${arch} OUTPUT_DIR ${outdir}
      STATIC_TWIN_DIR ${CMAKE_CURRENT_BINARY_DIR}/${E_PREFIX}-static/${topic}
      NVCC_FLAGS -g TEST_NAME ${E_PREFIX}/${topic}/${stem} NO_TEST)
    if(NOT TARGET barracuda_cudart)
      continue()
    endif()
    set(emu "emu: ${E_PREFIX}/${topic}/${stem}")
    add_test(NAME ${emu} COMMAND ${outdir}/${stem} WORKING_DIRECTORY ${outdir})
    set_tests_properties(${emu} PROPERTIES LABELS emu TIMEOUT 120 ENVIRONMENT "LD_LIBRARY_PATH=${BARRACUDA_EMU_LIB_DIR}")
    if(stem MATCHES "_ok$")
      set_tests_properties(${emu} PROPERTIES PASS_REGULAR_EXPRESSION "PASS"
        FAIL_REGULAR_EXPRESSION "FAIL|barracuda emulator: .*(fault|error)")
    else()
      set_tests_properties(${emu} PROPERTIES PASS_REGULAR_EXPRESSION "${E_BUG_PASS_REGEX}")
    endif()
    add_test(NAME "${E_PREFIX}: ${topic}/${stem}"
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/test_suite/programs/check_verdicts.py
        --root ${E_DIR} --build ${CMAKE_BINARY_DIR} --barracuda $<TARGET_FILE:barracuda>
        --timeout 110 --program ${outdir}/${stem})
    set_tests_properties("${E_PREFIX}: ${topic}/${stem}" PROPERTIES LABELS suite TIMEOUT 240)
  endforeach()
  # The -cudart static builds (nvcc's default) give the same findings.
  if(TARGET barracuda_cudart)
    add_test(NAME "${E_PREFIX}: static cudart builds"
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/test_suite/programs/check_verdicts.py
        --root ${E_DIR} --build ${CMAKE_BINARY_DIR} --barracuda $<TARGET_FILE:barracuda>
        --timeout 110 --jobs 2 --quiet --programs-dir ${CMAKE_CURRENT_BINARY_DIR}/${E_PREFIX}-static)
    set_tests_properties("${E_PREFIX}: static cudart builds" PROPERTIES LABELS suite TIMEOUT 600)
  endif()
endfunction()
