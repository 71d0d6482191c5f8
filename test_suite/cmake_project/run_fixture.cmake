# "cmake default project": configure and build this folder's project with
# CMake's defaults (static CUDA runtime, the compiler's default architecture
# with its PTX, no -lineinfo), then run the result under barracuda: the
# missing barrier must be reported (exit 1), the fixed run must be clean.
#   cmake -DSOURCE=<this dir> -DOUT=<build dir> -DBARRACUDA=<barracuda> -DNVCC=<nvcc> -P run_fixture.cmake
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${OUT} -G Ninja -DCMAKE_CUDA_COMPILER=${NVCC}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the fixture failed (${rc}):\n${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the fixture failed (${rc}):\n${out}\n${err}")
endif()
file(READ ${OUT}/CMakeCache.txt cache)
if(NOT cache MATCHES "CMAKE_CUDA_RUNTIME_LIBRARY:STRING=Static" AND cache MATCHES "CMAKE_CUDA_RUNTIME_LIBRARY:STRING=")
  message(FATAL_ERROR "the fixture was not built with the static CUDA runtime")
endif()

execute_process(COMMAND ${BARRACUDA} ${OUT}/block_scan RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "BARRACUDA SUMMARY: 1 race \\(1 RAW/WAR\\)" OR NOT err MATCHES "in scan\\(int const\\*, int\\*, bool\\)")
  message(FATAL_ERROR "racy run: exit ${rc}, expected 1 with one RAW/WAR race in scan:\n${out}\n${err}")
endif()
execute_process(COMMAND ${BARRACUDA} ${OUT}/block_scan fixed RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "block_scan: PASS" OR NOT err MATCHES "BARRACUDA SUMMARY: 0 races")
  message(FATAL_ERROR "fixed run: exit ${rc}, expected 0, PASS and 0 races:\n${out}\n${err}")
endif()
message(STATUS "cmake default project: race found, fixed twin clean")
