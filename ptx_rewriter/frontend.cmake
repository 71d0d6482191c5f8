# PTX front end: IR, lexer, parser, printer (owner: frontend). include()d by
# ptx_rewriter/CMakeLists.txt, so it shares that scope.
target_sources(barracuda_ptx PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ir.cpp
  ${CMAKE_CURRENT_LIST_DIR}/opcodes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/instruction_modifiers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lexer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/literals.cpp
  ${CMAKE_CURRENT_LIST_DIR}/parser.cpp
  ${CMAKE_CURRENT_LIST_DIR}/printer.cpp)

list(APPEND PTX_REWRITER_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/tests/lexer_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tests/parser_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tests/printer_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tests/roundtrip_test.cpp)

# libFuzzer target over ParseModule/PrintModule. With BARRACUDA_FUZZ=ON a CTest
# test runs it for 30 s on a writable copy of the seed corpus.
barracuda_fuzzer(ptx_parser_fuzzer SOURCES ${CMAKE_CURRENT_LIST_DIR}/fuzz/ptx_parser_fuzzer.cpp
  LIBS barracuda_ptx)
if(BARRACUDA_FUZZ)
  set(_ptx_fuzz_corpus ${CMAKE_CURRENT_BINARY_DIR}/fuzz_corpus_ptx)
  add_test(NAME fuzz.ptx_parser COMMAND sh -c "rm -rf '${_ptx_fuzz_corpus}' && cp -r '${CMAKE_CURRENT_LIST_DIR}/fuzz/corpus_ptx' '${_ptx_fuzz_corpus}' && chmod -R u+w '${_ptx_fuzz_corpus}' && exec '$<TARGET_FILE:ptx_parser_fuzzer>' -max_total_time=30 -timeout=10 -rss_limit_mb=2048 '${_ptx_fuzz_corpus}'")
  set_tests_properties(fuzz.ptx_parser PROPERTIES LABELS fuzz TIMEOUT 120)
endif()

if(BARRACUDA_BENCHMARKS)
  add_executable(ptx_parse_print_bench ${CMAKE_CURRENT_LIST_DIR}/bench/parse_print_bench.cpp)
  target_link_libraries(ptx_parse_print_bench PRIVATE barracuda_ptx benchmark::benchmark)
endif()

# barracuda-ptx print, end to end: "name|expected exit status|arguments|regex
# expected in the combined output".
set(_fe_data ${CMAKE_CURRENT_LIST_DIR}/tests/data)
foreach(_case
    "roundtrip|0|print --check-roundtrip ${_fe_data}/constructs.ptx|[.]branchtargets [$]L_c0, [$]L_c1.*@!%p2 bra"
    "missing_file|1|print ${_fe_data}/does-not-exist.ptx|cannot open '.*does-not-exist.ptx'"
    "malformed|1|print ${_fe_data}/frontend_cli/malformed.ptx|malformed.ptx:6:21: expected ',' or ';', found '[[]'"
    "directory|1|print ${_fe_data}|cannot read '.*': it is a directory"
    "no_file|2|print|file is required")
  string(REPLACE "|" ";" _case "${_case}")
  list(GET _case 0 _name)
  list(GET _case 1 _status)
  list(GET _case 2 _args)
  list(GET _case 3 _expect)
  add_test(NAME frontend_cli_print_${_name}
    COMMAND sh -c "\"$0\" ${_args} 2>&1; echo \"exit status $?\"" $<TARGET_FILE:barracuda-ptx>)
  set_tests_properties(frontend_cli_print_${_name} PROPERTIES LABELS unit
    PASS_REGULAR_EXPRESSION "${_expect}.*exit status ${_status}\n")
endforeach()
