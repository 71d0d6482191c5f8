# The real-library corpus (issue 14 item 6): programs built from the CUDA toolkit's own
# Thrust, CUB, cooperative-groups and libcu++ headers. Included from
# test_suite/CMakeLists.txt when BARRACUDA_CUDA_TESTS is on.
#
# Every <topic>/<stem>.cu here starts with the bug suite's header (programs/README.md,
# "Header format"), optionally with "args": the algorithms the program runs, one per
# command-line argument. Each program is built once (build/test_suite/library/<topic>/
# <stem>) and, per argument (or once when it takes none), registered as
#   "emu: library/<topic>/<stem> [arg]"      label emu: runs on the emulator's libcudart;
#                                            race-free programs must print PASS
#   "library: <topic>/<stem> [arg]"          label library: barracuda under each warp model
#                                            of the header, races must equal the header's
#                                            (programs/check_verdicts.py --root library)
#   "library static cudart: <topic>/<stem> [arg]" label library: the -cudart static build,
#                                            first argument only
#   "library gpu path: <topic>/<stem> [arg]" labels library;gpu_emulated: the same through
#                                            the GPU backend's path with the emulator as
#                                            the GPU (instrumented PTX, device logger);
#                                            not Thrust (minutes per algorithm there)
# Arguments listed in "long_args" get the label library_long instead of library (and
# emu_long instead of emu): too slow for every CI run. "gpu_path_args" are appended
# to the arguments of the gpu path tests only (e.g. a smaller input: the device
# logger on the emulator is ~10x slower than the emulator alone).
if(NOT BARRACUDA_CUDA_TESTS)
  return()
endif()
find_package(Python3 REQUIRED COMPONENTS Interpreter)
include(${PROJECT_SOURCE_DIR}/cmake/CudaPrograms.cmake)

# out := the strings of the header's list `key` (empty when absent).
function(_library_header_list json key out)
  set(values "")
  string(JSON n ERROR_VARIABLE err LENGTH "${json}" ${key})
  if(NOT err AND n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON v GET "${json}" ${key} ${i})
      list(APPEND values ${v})
    endforeach()
  endif()
  set(${out} "${values}" PARENT_SCOPE)
endfunction()

file(GLOB _library_programs RELATIVE ${CMAKE_CURRENT_LIST_DIR} ${CMAKE_CURRENT_LIST_DIR}/*/*.cu)
list(SORT _library_programs)
foreach(rel ${_library_programs})
  get_filename_component(topic ${rel} DIRECTORY)
  get_filename_component(stem ${rel} NAME_WE)
  set(src ${CMAKE_CURRENT_LIST_DIR}/${rel})
  file(READ ${src} _text LIMIT 8000)
  string(FIND "${_text}" "\n@*/" _end)
  math(EXPR _len "${_end} - 13")
  string(SUBSTRING "${_text}" 13 ${_len} _json)   # between "/*@barracuda\n" and "\n@*/"
  string(JSON arch ERROR_VARIABLE _err GET "${_json}" arch)
  if(_err)
    message(FATAL_ERROR "${src}: invalid /*@barracuda header: ${_err}")
  endif()
  _library_header_list("${_json}" args args)
  _library_header_list("${_json}" long_args long_args)
  _library_header_list("${_json}" gpu_path_args gpu_path_args)
  set(gpu_path_checkargs "")
  foreach(g ${gpu_path_args})
    list(APPEND gpu_path_checkargs --arg ${g})
  endforeach()
  set(outdir ${CMAKE_CURRENT_BINARY_DIR}/library/${topic})
  set(static_outdir ${CMAKE_CURRENT_BINARY_DIR}/library-static/${topic})
  barracuda_cuda_program(NAME ${stem} SOURCE ${src} ARCH ${arch} OUTPUT_DIR ${outdir}
    STATIC_TWIN_DIR ${static_outdir} TEST_NAME library/${topic}/${stem} NO_TEST)
  if(NOT TARGET barracuda_cudart)
    continue()
  endif()
  if(NOT args)
    set(args "-")   # one run without an argument
  endif()
  set(first_arg TRUE)
  foreach(a ${args})
    if(a STREQUAL "-")
      set(name "${topic}/${stem}")
      set(argv "")
      set(checkargs "")
    else()
      set(name "${topic}/${stem} ${a}")
      set(argv ${a})
      set(checkargs --arg ${a})
    endif()
    set(emu_label emu)
    set(label library)
    if(a IN_LIST long_args)
      set(emu_label emu_long)
      set(label library_long)
    endif()
    add_test(NAME "emu: library/${name}" COMMAND ${outdir}/${stem} ${argv} WORKING_DIRECTORY ${outdir})
    set_tests_properties("emu: library/${name}" PROPERTIES LABELS ${emu_label} TIMEOUT 300
      ENVIRONMENT "LD_LIBRARY_PATH=${BARRACUDA_EMU_LIB_DIR};BARRACUDA_EMU_WORKERS=2")
    if(stem MATCHES "_ok$" OR NOT stem MATCHES "_racy$")
      # race-free: the program checks its own result
      set_tests_properties("emu: library/${name}" PROPERTIES PASS_REGULAR_EXPRESSION "PASS"
        FAIL_REGULAR_EXPRESSION "FAIL|CUDA error|barracuda emulator: .*error")
    endif()
    add_test(NAME "library: ${name}"
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/test_suite/programs/check_verdicts.py
        --root ${CMAKE_CURRENT_LIST_DIR} --build ${CMAKE_BINARY_DIR} --barracuda $<TARGET_FILE:barracuda>
        --timeout 280 --program ${outdir}/${stem} ${checkargs})
    set_tests_properties("library: ${name}" PROPERTIES LABELS ${label} TIMEOUT 600
      ENVIRONMENT "BARRACUDA_EMU_WORKERS=1")
    # The -cudart static build (nvcc's default), taken over at start: the same
    # races, checked once per program (its first algorithm).
    if(first_arg)
      add_test(NAME "library static cudart: ${name}"
        COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/test_suite/programs/check_verdicts.py
          --root ${CMAKE_CURRENT_LIST_DIR} --build ${CMAKE_BINARY_DIR} --barracuda $<TARGET_FILE:barracuda>
          --timeout 280 --program ${static_outdir}/${stem} ${checkargs})
      set_tests_properties("library static cudart: ${name}" PROPERTIES LABELS ${label} TIMEOUT 600
        ENVIRONMENT "BARRACUDA_EMU_WORKERS=1")
      set(first_arg FALSE)
    endif()
    # Known gap of the GPU path: an extra not-morally-strong race on the lock word
    # (host_detector/gpu_agent/README.md, "Not done").
    if(NOT topic STREQUAL "thrust" AND NOT name STREQUAL "libcupp/atomic_ref_block_scope_lock_racy")
      add_test(NAME "library gpu path: ${name}"
        COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/test_suite/programs/check_verdicts.py
          --root ${CMAKE_CURRENT_LIST_DIR} --build ${CMAKE_BINARY_DIR} --barracuda $<TARGET_FILE:barracuda>
          --timeout 280 --program ${outdir}/${stem} ${checkargs} ${gpu_path_checkargs}
          --barracuda-arg=--backend=gpu --barracuda-arg=--gpu-runtime=emulator)
      set_tests_properties("library gpu path: ${name}" PROPERTIES LABELS "library;gpu_emulated" TIMEOUT 600
        ENVIRONMENT "BARRACUDA_EMU_WORKERS=1")
    endif()
  endforeach()
endforeach()
