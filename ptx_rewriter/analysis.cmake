# Analyses over the PTX IR (owner: analyses): CFG per function,
# post-dominators, reconvergence points of branches, and the static site
# table. See README.md, "Analyses". include()d by ptx_rewriter/CMakeLists.txt.
target_sources(barracuda_ptx PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/graph.cpp
  ${CMAKE_CURRENT_LIST_DIR}/postdominators.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cfg.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reconvergence.cpp
  ${CMAKE_CURRENT_LIST_DIR}/site_table.cpp)
# site_table.h exposes nlohmann::json, hence PUBLIC.
target_link_libraries(barracuda_ptx PUBLIC nlohmann_json::nlohmann_json)

set(_analysis_tests
  ${CMAKE_CURRENT_LIST_DIR}/tests/postdominators_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tests/cfg_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tests/reconvergence_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tests/site_table_test.cpp)
# The tests read small PTX files (nvcc output and hand-written) from here.
set_source_files_properties(${_analysis_tests} PROPERTIES COMPILE_DEFINITIONS
  BARRACUDA_ANALYSIS_TEST_DATA="${CMAKE_CURRENT_LIST_DIR}/tests/data/analysis")
list(APPEND PTX_REWRITER_TEST_SOURCES ${_analysis_tests})

# barracuda-ptx sites / cfg, end to end: output checked with FileCheck, exit
# codes with the shell (ctest alone only tells zero from non-zero).
set(_analysis_data ${CMAKE_CURRENT_LIST_DIR}/tests/data/analysis)
set(_ptx_tool $<TARGET_FILE:barracuda-ptx>)
if(FILECHECK_EXECUTABLE)
  foreach(_case
      "sites|sites ${_analysis_data}/sync.ptx|cli_sites.check"
      "cfg|cfg ${_analysis_data}/control.ptx --kernel multiway|cli_cfg.check"
      "cfg_dot|cfg ${_analysis_data}/control.ptx --kernel exits --dot|cli_cfg_dot.check")
    string(REPLACE "|" ";" _case "${_case}")
    list(GET _case 0 _name)
    list(GET _case 1 _args)
    list(GET _case 2 _check)
    add_test(NAME analysis_cli_${_name}
      COMMAND sh -c "set -e; \"$0\" ${_args} | \"$1\" \"$2\""
        ${_ptx_tool} ${FILECHECK_EXECUTABLE} ${_analysis_data}/${_check})
    set_tests_properties(analysis_cli_${_name} PROPERTIES LABELS unit)
  endforeach()
endif()
add_test(NAME analysis_cli_sites_json
  COMMAND ${_ptx_tool} sites --json ${_analysis_data}/kinds.ptx)
set_tests_properties(analysis_cli_sites_json PROPERTIES LABELS unit
  PASS_REGULAR_EXPRESSION "\"kind\": \"async-copy\",\n +\"opcode\": \"cp.async.ca.shared.global\"")
# "name|expected exit status|arguments|text expected on stderr"
foreach(_case
    "unknown_kernel|3|cfg ${_analysis_data}/control.ptx --kernel nope|no function named 'nope'.*  spin [(][.]entry[)]"
    "no_kernel|2|cfg ${_analysis_data}/control.ptx|needs --kernel NAME.*  twice [(][.]func[)]"
    "missing_file|1|sites ${_analysis_data}/does-not-exist.ptx|cannot open '.*does-not-exist.ptx'"
    "not_ptx|1|cfg ${_analysis_data}/sync.cu --kernel x|sync.cu:[0-9]+:[0-9]+: "
    "no_file|2|sites|file is required")
  string(REPLACE "|" ";" _case "${_case}")
  list(GET _case 0 _name)
  list(GET _case 1 _status)
  list(GET _case 2 _args)
  list(GET _case 3 _expect)
  add_test(NAME analysis_cli_exit_${_name}
    COMMAND sh -c "\"$0\" ${_args} 2>&1; echo \"exit status $?\"" ${_ptx_tool})
  set_tests_properties(analysis_cli_exit_${_name} PROPERTIES LABELS unit
    PASS_REGULAR_EXPRESSION "${_expect}.*exit status ${_status}\n")
endforeach()
