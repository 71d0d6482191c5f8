# Build time: with BARRACUDA_UNITY_BUILD=ON (scripts/setup.sh turns it on: the
# fresh builds of CI and of a new machine), the libraries, tools and tests with
# several C++ files compile as unity files of up to
# BARRACUDA_UNITY_BATCH_SIZE sources each: the headers a batch shares (Abseil,
# TBB, nlohmann, the project's own) are parsed once instead of per file. Off
# by default for incremental work, where a one-file edit would recompile its
# whole batch.
# Measured (2026-11-30, 2 cores, clang 19 Debug with ASan+UBSan, CI's second
# build, the 37 targets that compiled either way): 646 -> 369 s of compile job
# time (-43%). The full CI from a fresh clone, that day: release build wall
# 1822 -> 1419 s, ASan build 762 -> 411 s, the whole run 4255 -> 3249 s.
#
# A file that must stay alone (it declares what other files' headers declare
# differently) carries SKIP_UNITY_BUILD_INCLUSION. The test targets below keep
# one translation unit per file: their files each define small fixtures under
# the same names (kX, kAll, Run, ...) in anonymous namespaces, which a unity
# file would merge.
option(BARRACUDA_UNITY_BUILD "Compile targets with several C++ files as unity batches (CI, fresh builds)" OFF)
set(BARRACUDA_UNITY_BATCH_SIZE 8 CACHE STRING "C++ files per unity batch")
set(BARRACUDA_UNITY_MIN_SOURCES 3 CACHE STRING "C++ files a target needs to be built as unity batches")
set(_barracuda_unity_excluded
  host_detector_tests gpu_agent_tests reference_tests
  emu_float_tests emu_integer_tests emu_memory_tests emu_runtime_host_access_tests)

function(_barracuda_apply_unity)
  if(NOT BARRACUDA_UNITY_BUILD)
    return()
  endif()
  _barracuda_compiled_targets(${BARRACUDA_UNITY_MIN_SOURCES} targets)
  foreach(t ${targets})
    if(NOT t IN_LIST _barracuda_unity_excluded)
      set_target_properties(${t} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${BARRACUDA_UNITY_BATCH_SIZE})
    endif()
  endforeach()
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL _barracuda_apply_unity)
