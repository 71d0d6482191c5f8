# Shared test plumbing: one Catch2 main compiled once, and a helper that makes a
# per-part test binary and registers its test cases with CTest (label "unit").
add_library(barracuda_catch_main STATIC ${CMAKE_CURRENT_LIST_DIR}/catch_main.cpp)
target_link_libraries(barracuda_catch_main PUBLIC Catch2::Catch2)

function(barracuda_unit_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE barracuda_catch_main ${ARG_LIBS})
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
