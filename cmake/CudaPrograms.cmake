# Builds a CUDA program the way barracuda needs it (shared cudart, line info,
# embedded PTX) and registers a CTest test that runs it on the emulator's
# replacement runtime (label "emu").
#
#   barracuda_cuda_program(NAME n SOURCE f.cu [ARCH 75|90] [OUTPUT_DIR d]
#                          [NVCC_FLAGS ...] [SOURCES more.cu ...] [INCLUDE_DIRS ...]
#                          [ARGS ...] [PASS_REGEX re] [REFUSAL_REGEX re] [TIMEOUT s]
#                          [NO_TEST] [TEST_NAME t] [STATIC_TWIN_DIR d])
# The executable lands in OUTPUT_DIR (default: the current binary dir) as `n`.
# STATIC_TWIN_DIR (one SOURCE only): the source is compiled once and linked
# twice, as `n` with -cudart shared and as d/n with -cudart static (nvcc's
# default), for the checks that both builds give the same verdicts.
# The test passes when the program exits 0 (and prints PASS_REGEX if given).
set(BARRACUDA_EMU_LIB_DIR ${CMAKE_BINARY_DIR}/ptx_emulator)
if(NOT TARGET cuda_programs)
  add_custom_target(cuda_programs ALL)
endif()

function(barracuda_cuda_program)
  cmake_parse_arguments(P "NO_TEST" "NAME;SOURCE;ARCH;OUTPUT_DIR;PASS_REGEX;REFUSAL_REGEX;TIMEOUT;TEST_NAME;STATIC_TWIN_DIR" "NVCC_FLAGS;SOURCES;ARGS;INCLUDE_DIRS" ${ARGN})
  if(NOT P_ARCH)
    set(P_ARCH 75)
  endif()
  if(NOT P_OUTPUT_DIR)
    set(P_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  if(NOT P_TIMEOUT)
    set(P_TIMEOUT 120)
  endif()
  if(NOT P_TEST_NAME)
    set(P_TEST_NAME ${P_NAME})
  endif()
  set(exe ${P_OUTPUT_DIR}/${P_NAME})
  set(_includes "")
  foreach(d ${P_INCLUDE_DIRS})
    list(APPEND _includes -I${d})
  endforeach()
  set(srcs ${P_SOURCE} ${P_SOURCES})
  set(_gencode -gencode "arch=compute_${P_ARCH},code=[sm_${P_ARCH},compute_${P_ARCH}]")
  set(outputs ${exe})
  if(P_STATIC_TWIN_DIR)
    set(obj ${exe}.o)
    set(twin ${P_STATIC_TWIN_DIR}/${P_NAME})
    add_custom_command(OUTPUT ${obj}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${P_OUTPUT_DIR}
      COMMAND ${NVCC_EXECUTABLE} -c -lineinfo ${_gencode} ${P_NVCC_FLAGS} ${_includes} ${P_SOURCE}
        -o ${obj} -MD -MF ${obj}.d
      DEPENDS ${P_SOURCE} DEPFILE ${obj}.d
      COMMENT "nvcc -c ${P_NAME}" VERBATIM)
    add_custom_command(OUTPUT ${exe}
      COMMAND ${NVCC_EXECUTABLE} -cudart shared ${_gencode} ${P_NVCC_FLAGS} ${obj} -o ${exe}
      DEPENDS ${obj} COMMENT "nvcc -cudart shared ${P_NAME}" VERBATIM)
    add_custom_command(OUTPUT ${twin}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${P_STATIC_TWIN_DIR}
      COMMAND ${NVCC_EXECUTABLE} -cudart static ${_gencode} ${P_NVCC_FLAGS} ${obj} -o ${twin}
      DEPENDS ${obj} COMMENT "nvcc -cudart static ${P_NAME}" VERBATIM)
    list(APPEND outputs ${twin})
  else()
    add_custom_command(OUTPUT ${exe}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${P_OUTPUT_DIR}
      COMMAND ${NVCC_EXECUTABLE} -cudart shared -lineinfo ${_gencode}
        ${P_NVCC_FLAGS} ${_includes} ${srcs} -o ${exe} -MD -MF ${exe}.d
      DEPENDS ${srcs} DEPFILE ${exe}.d
      COMMENT "nvcc ${P_NAME}" VERBATIM)
  endif()
  string(MAKE_C_IDENTIFIER "cuda_program_${P_TEST_NAME}" target)
  add_custom_target(${target} DEPENDS ${outputs})
  add_dependencies(cuda_programs ${target})
  if(P_NO_TEST OR NOT TARGET barracuda_cudart)
    return()
  endif()
  add_test(NAME "emu: ${P_TEST_NAME}" COMMAND ${exe} ${P_ARGS} WORKING_DIRECTORY ${P_OUTPUT_DIR})
  set_tests_properties("emu: ${P_TEST_NAME}" PROPERTIES LABELS emu TIMEOUT ${P_TIMEOUT}
    ENVIRONMENT "LD_LIBRARY_PATH=${BARRACUDA_EMU_LIB_DIR};BARRACUDA_EMU_WORKERS=2")
  if(P_REFUSAL_REGEX)
    # The emulator must refuse this program with a clear message (exit status
    # is the program's own reaction to the failed launch).
    set_tests_properties("emu: ${P_TEST_NAME}" PROPERTIES PASS_REGULAR_EXPRESSION "${P_REFUSAL_REGEX}")
  elseif(P_PASS_REGEX)
    # A pass regex alone would ignore the exit status: require both.
    set_tests_properties("emu: ${P_TEST_NAME}" PROPERTIES PASS_REGULAR_EXPRESSION "${P_PASS_REGEX}"
      FAIL_REGULAR_EXPRESSION "FAIL|CUDA error|barracuda emulator: .*error")
  endif()
endfunction()
