# End to end: barracuda --backend=gpu --gpu-runtime=emulator on a driver-API
# program. The emulator's libcuda.so.1 plays NVIDIA's driver, the GPU agent's
# driver hooks instrument the PTX the program loads, and the only records are
# the device logger's (the emulator does not trace under the GPU backend):
# a racy program's race must be found at its source line, the fixed twin
# must give 0 races, and either way the report must list the module the
# agent instrumented.
#   cmake -DBARRACUDA=... -DPROGRAM=... -DARGS="a|b" -DJSON=... -DEXPECT=racy|clean
#         [-DLINE=regex] [-DALSO=regex] [-DQUEUES=backend] -P gpu_agent_driver_e2e.cmake
# ALSO: a further regex the racy run's stderr must match (the allocation named).
# QUEUES: the backend the agent must have set its queues up through ("CUDA
# driver"), as its -v line says (run with BARRACUDA_GPU_VERBOSE=1).
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${BARRACUDA} --backend=gpu --gpu-runtime=emulator --report-json ${JSON} ${PROGRAM} ${args}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT out MATCHES "checked")
  message(FATAL_ERROR "FAIL: the program did not complete its driver calls")
endif()
if(EXPECT STREQUAL "racy")
  if(NOT rc EQUAL 1)
    message(FATAL_ERROR "FAIL: barracuda exited ${rc}, expected 1 (races found)")
  endif()
  if(NOT err MATCHES "${LINE}")
    message(FATAL_ERROR "FAIL: no race attributed to ${LINE}")
  endif()
  if(ALSO AND NOT err MATCHES "${ALSO}")
    message(FATAL_ERROR "FAIL: the report does not say ${ALSO}")
  endif()
else()
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "FAIL: barracuda exited ${rc}, expected 0 (no race)")
  endif()
endif()
if(QUEUES AND NOT err MATCHES "mapped pinned memory, through the ${QUEUES}\\)")
  message(FATAL_ERROR "FAIL: the agent did not set its queues up through the ${QUEUES}")
endif()
if(err MATCHES "not analysed")
  message(FATAL_ERROR "FAIL: a kernel or module was not analysed")
endif()
file(READ ${JSON} report)
string(JSON races GET "${report}" summary races)
string(JSON complete GET "${report}" run complete)
if(NOT report MATCHES "cu(Module|Library)Load[A-Za-z]*-module[0-9]+")
  message(FATAL_ERROR "FAIL: the report lists no module instrumented by the agent's driver hooks")
endif()
if(EXPECT STREQUAL "racy" AND races LESS 1)
  message(FATAL_ERROR "FAIL: the report has no race")
endif()
if(NOT EXPECT STREQUAL "racy" AND NOT races EQUAL 0)
  message(FATAL_ERROR "FAIL: the report has ${races} races")
endif()
if(NOT complete)
  message(FATAL_ERROR "FAIL: the analysis is incomplete")
endif()
message("PASS: ${races} race(s), as expected (${EXPECT})")
