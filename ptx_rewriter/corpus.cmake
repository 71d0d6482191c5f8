# PTX corpus tests (label "corpus"; run alone with `ctest -L corpus`).
#
# At test time, the fixture corpus_generate compiles every .cu of the source tree
# (examples/, test_suite/ including the CUB kernels in test_suite/corpus/,
# ptx_rewriter/tests/data/, ...) to PTX for compute_75 and compute_90, each with
# -lineinfo and with -G (suite programs, which carry a /*@barracuda header: for
# their own target only), and builds one CUB program three times (zstd, LZ4 and
# uncompressed embedded PTX). Outputs go to build/corpus/ and are rebuilt only
# when out of date. Then one test per group of files runs `barracuda-ptx print
# --check-roundtrip` and ptxas on every file (the extracted group first runs
# `barracuda-ptx extract` on the three executables). See scripts/corpus_*.py.
#
# Cost (measured 2026-11-21, CUDA 13.0, 2 cores, ctest -L corpus -j2 from
# scratch: 186 sources -> 738 PTX files, 63 MB): 6 min 13 s in all. The nvcc
# jobs take 342 s (578 s of CPU: a bug-suite program ~3 s of CPU for its 4 PTX
# files, the CUB kernels 10-25 s each); the checks 31 s (ptxas 50 s of CPU,
# print --check-roundtrip 6 s). A re-run with nothing changed: ~10 s + checks.
# The cost grows with test_suite/programs/. 2026-11-29: 279 sources -> 680 PTX
# files (992 before suite programs were compiled for their own target only).
# 2026-11-30: the PTX of a suite or CUB corpus program that the build already
# compiled with the same flags (programs/, programs-G/, corpus/ of
# build/test_suite) is extracted from its executable instead (--built-dir).
# 2026-11-30 (later): -G PTX only for a source's own target, and for a suite
# program only when the build made its -G twin: 575 outputs, 218 nvcc jobs
# (were 815 and 476; scripts/corpus_generate.py says why).
if(NOT BARRACUDA_CUDA_TESTS)
  return()
endif()

find_package(Python3 REQUIRED COMPONENTS Interpreter)
include(ProcessorCount)
ProcessorCount(_corpus_jobs)
if(_corpus_jobs LESS 1)
  set(_corpus_jobs 2)
endif()

set(BARRACUDA_CORPUS_DIR ${CMAKE_BINARY_DIR}/corpus)
set(_corpus_scripts ${PROJECT_SOURCE_DIR}/scripts)

add_test(NAME corpus_generate
  COMMAND ${Python3_EXECUTABLE} ${_corpus_scripts}/corpus_generate.py
    --source-dir ${PROJECT_SOURCE_DIR} --out-dir ${BARRACUDA_CORPUS_DIR}
    --nvcc ${NVCC_EXECUTABLE} --exe-source test_suite/corpus/block_reduce.cu
    --jobs ${_corpus_jobs}
    --built-dir ${CMAKE_BINARY_DIR}/test_suite --tool $<TARGET_FILE:barracuda-ptx>)
set_tests_properties(corpus_generate PROPERTIES
  FIXTURES_SETUP ptx_corpus LABELS corpus PROCESSORS ${_corpus_jobs} TIMEOUT 1800
  COST 1000)  # first: the corpus tests wait for it (test_suite/CMakeLists.txt: COST)

foreach(group sm75-lineinfo sm75-G sm90-lineinfo sm90-G extracted)
  add_test(NAME corpus_check_${group}
    COMMAND ${Python3_EXECUTABLE} ${_corpus_scripts}/corpus_check.py
      --manifest ${BARRACUDA_CORPUS_DIR}/manifest.json --group ${group}
      --tool $<TARGET_FILE:barracuda-ptx> --ptxas ${PTXAS_EXECUTABLE})
  set_tests_properties(corpus_check_${group} PROPERTIES
    FIXTURES_REQUIRED ptx_corpus LABELS corpus TIMEOUT 600)
endforeach()
