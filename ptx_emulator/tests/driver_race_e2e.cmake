# End to end: build/bin/barracuda on a driver-API program (driver_race.cpp,
# its kernel loaded as PTX text with cuModuleLoadData) must report the seeded
# shared-memory race in driver_race.cu, with its source line, through the
# emulator's libcuda.so.1 over libcudart.so.13.
#   cmake -DBARRACUDA=... -DPROGRAM=... -DPTX=... -DJSON=... -P driver_race_e2e.cmake
execute_process(COMMAND ${BARRACUDA} --report-json ${JSON} ${PROGRAM} ${PTX}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "FAIL: barracuda exited ${rc}, expected 1 (races found)")
endif()
if(NOT err MATCHES "race")
  message(FATAL_ERROR "FAIL: no race reported")
endif()
if(NOT err MATCHES "driver_race\\.cu:11")
  message(FATAL_ERROR "FAIL: the race is not attributed to driver_race.cu:11")
endif()
file(READ ${JSON} report)
string(JSON races GET "${report}" summary races)
string(JSON space GET "${report}" races 0 space)
if(races LESS 1 OR NOT space STREQUAL "shared")
  message(FATAL_ERROR "FAIL: report has ${races} races, first in ${space} memory")
endif()
message("PASS: ${races} shared-memory race(s) reported in the driver-API program")
