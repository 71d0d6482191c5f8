# Runs CMD (a list), checks its exit status is RC and that stdout+stderr match
# REGEX. Used by the barracuda-ptx extract CTest cases in ptx_rewriter/fatbin.cmake.
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc STREQUAL "${RC}")
  message(FATAL_ERROR "exit status ${rc}, expected ${RC}")
endif()
if(NOT "${out}${err}" MATCHES "${REGEX}")
  message(FATAL_ERROR "output does not match '${REGEX}'")
endif()
