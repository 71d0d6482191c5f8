# Shared test plumbing: one Catch2 main compiled once, and a helper that makes a
# per-part test binary and registers its test cases with CTest (label "unit").
add_library(barracuda_catch_main STATIC ${CMAKE_CURRENT_LIST_DIR}/catch_main.cpp)
target_link_libraries(barracuda_catch_main PUBLIC Catch2::Catch2)

# OPTIMIZED: the test code itself does the heavy work (random traces, models)
# and keeps the build type's optimisation.
function(barracuda_unit_test name)
  cmake_parse_arguments(ARG "OPTIMIZED" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE barracuda_catch_main ${ARG_LIBS})
  # Build time (CI compiles ~120 test files): Catch2's header is precompiled per
  # test binary, and test code is compiled without optimisation in optimised
  # builds: the code under test lives in the parts' libraries, built with the
  # build type's flags. Measured (2026-11-30, g++ 12, 2 cores): a test file
  # -O2 20.4 s, -O0 7.6 s of CPU; including catch.hpp 3.4 s, precompiled 0.5 s;
  # the test files of the release build 1190 -> 634 s of CPU. Binaries marked
  # OPTIMIZED (their tests ran 230 s longer at -O0) keep -O2.
  target_precompile_headers(${name} PRIVATE <catch2/catch.hpp>)
  if(NOT ARG_OPTIMIZED AND CMAKE_BUILD_TYPE MATCHES "^(Release|RelWithDebInfo|MinSizeRel)$")
    target_compile_options(${name} PRIVATE -O0)
  endif()
  # --warn NoTests: a CTest entry whose name matches no test case fails instead of
  # passing silently (e.g. a name CMake split at a semicolon).
  catch_discover_tests(${name} TEST_PREFIX "${name}: " EXTRA_ARGS --warn NoTests PROPERTIES LABELS unit
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
endfunction()

# libFuzzer target: only built in a clang build with BARRACUDA_FUZZ=ON.
function(barracuda_fuzzer name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  if(BARRACUDA_FUZZ)
    add_executable(${name} ${ARG_SOURCES})
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
    target_link_libraries(${name} PRIVATE ${ARG_LIBS})
  endif()
endfunction()
