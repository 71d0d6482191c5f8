# barracuda-regress (issue 17): the nightly regression command, installed as
# build/bin/barracuda-regress beside barracuda, its shipped manifests and its tests.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(_regress_cmd ${CMAKE_BINARY_DIR}/bin/barracuda-regress)
add_custom_command(OUTPUT ${_regress_cmd}
  COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_CURRENT_LIST_DIR}/barracuda_regress.py ${_regress_cmd}
  COMMAND chmod +x ${_regress_cmd}
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/barracuda_regress.py
  COMMENT "barracuda-regress -> bin/" VERBATIM)
add_custom_target(barracuda_regress ALL DEPENDS ${_regress_cmd})

# The shipped manifests follow the programs' headers.
add_test(NAME "regress: shipped manifests match the headers"
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/manifests/generate_manifests.py --check)
set_tests_properties("regress: shipped manifests match the headers" PROPERTIES LABELS unit)

# The rest runs real programs on the emulator; added at the end of the top
# level, when the examples and the suite are known.
function(_barracuda_regress_tests)
  if(NOT (TARGET barracuda_cudart AND TARGET examples AND TARGET barracuda))
    return()
  endif()
  find_package(Python3 REQUIRED COMPONENTS Interpreter)  # this runs in the top directory's scope
  set(dir ${CMAKE_BINARY_DIR}/host_detector/regress)
  set(_regress_cmd ${CMAKE_BINARY_DIR}/bin/barracuda-regress)
  # A second build of the bundled example with an unrelated edit (fingerprint stability).
  set(edited_src ${dir}/edited/racy_reduction.cu)
  set(edited ${dir}/edited/racy_reduction)
  add_custom_command(OUTPUT ${edited}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}/edited
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/tests/unrelated_edit.py
      ${PROJECT_SOURCE_DIR}/examples/racy_reduction.cu ${edited_src}
    COMMAND ${NVCC_EXECUTABLE} -cudart shared -lineinfo -gencode "arch=compute_75,code=[sm_75,compute_75]"
      ${edited_src} -o ${edited}
    DEPENDS ${PROJECT_SOURCE_DIR}/examples/racy_reduction.cu ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/tests/unrelated_edit.py
    COMMENT "nvcc racy_reduction.cu with an unrelated edit -> host_detector/regress/edited/" VERBATIM)
  add_custom_target(regress_test_programs ALL DEPENDS ${edited})
  add_dependencies(regress_test_programs examples barracuda_regress barracuda barracudad barracuda_cudart)

  add_test(NAME "regress: barracuda-regress end to end"
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/tests/regress_test.py
      --regress ${_regress_cmd} --barracuda $<TARGET_FILE:barracuda> --examples ${PROJECT_BINARY_DIR}/examples
      --work ${dir}/regress_test)
  add_test(NAME "regress: fingerprints stable across seeds and an unrelated edit"
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/tests/fingerprint_stability_test.py
      --barracuda $<TARGET_FILE:barracuda> --original ${PROJECT_BINARY_DIR}/examples/racy_reduction
      --edited ${edited}
      --also ${CMAKE_BINARY_DIR}/test_suite/programs/global/grid_stride_wrong_stride_racy
      --also ${CMAKE_BINARY_DIR}/test_suite/programs/locks/cas_lock_plain_unlock_racy
      --also ${CMAKE_BINARY_DIR}/test_suite/programs/scoped_atomics/lock_block_scope_across_blocks_racy)
  # The Rodinia template's build script and compat header on a Rodinia-shaped tree of our own.
  add_test(NAME "regress: Rodinia template builds and runs legacy CUDA"
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/tests/rodinia_template_test.py
      --regress ${_regress_cmd} --barracuda $<TARGET_FILE:barracuda> --work ${dir}/rodinia_test)
  set_tests_properties("regress: barracuda-regress end to end"
    "regress: Rodinia template builds and runs legacy CUDA"
    "regress: fingerprints stable across seeds and an unrelated edit" PROPERTIES LABELS regress TIMEOUT 300)

  # The bug suite through barracuda-regress against its shipped baseline, as a
  # nightly job runs it; the JUnit file stays in build/regress/suite/.
  # Likewise the library corpus (Thrust, CUB, cooperative groups, libcu++): about 20 s.
  if(TARGET cuda_programs)
    foreach(pair "suite;bug suite;suite" "library;library corpus;library")
      list(GET pair 0 manifest)
      list(GET pair 1 what)
      list(GET pair 2 label)
      add_test(NAME "regress: ${what}"
        COMMAND ${_regress_cmd} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/manifests/${manifest}.toml
          --baseline ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/manifests/${manifest}.baseline.json
          -D build=${CMAKE_BINARY_DIR} -j 2 -q --output ${CMAKE_BINARY_DIR}/regress/${manifest}
          --barracuda $<TARGET_FILE:barracuda>)
      set_tests_properties("regress: ${what}" PROPERTIES LABELS "${label};regress" TIMEOUT 1800)
    endforeach()
  endif()
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL _barracuda_regress_tests)
