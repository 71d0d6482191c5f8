# The issue-6 check: every suite program runs through the real `barracuda` CLI (emulator
# backend) under each warp model its header states, and the races of the JSON report must
# be exactly the header's set (check_verdicts.py). One test per program,
# "suite: <topic>/<stem>", label "suite". Included from test_suite/CMakeLists.txt after
# the programs are built as executables (build/test_suite/programs/<topic>/<stem>).
#
# One emulator worker (BARRACUDA_EMU_WORKERS=1) keeps the schedule, and so which of a
# RAW/WAR pair is reported, deterministic. The whole suite takes a few seconds.
if(NOT BARRACUDA_CUDA_TESTS)
  return()
endif()
find_package(Python3 REQUIRED COMPONENTS Interpreter)
file(GLOB _verdict_programs RELATIVE ${CMAKE_CURRENT_LIST_DIR} ${CMAKE_CURRENT_LIST_DIR}/*/*.cu)
list(SORT _verdict_programs)
foreach(rel ${_verdict_programs})
  get_filename_component(topic ${rel} DIRECTORY)
  get_filename_component(stem ${rel} NAME_WE)
  add_test(NAME "suite: ${topic}/${stem}"
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_verdicts.py
      --build ${CMAKE_BINARY_DIR} --barracuda $<TARGET_FILE:barracuda> --timeout 55
      --program ${CMAKE_CURRENT_BINARY_DIR}/programs/${topic}/${stem})
  set_tests_properties("suite: ${topic}/${stem}" PROPERTIES LABELS suite TIMEOUT 120
    ENVIRONMENT "BARRACUDA_EMU_WORKERS=1")
endforeach()

# The -G builds of the programs with fences, atomics or volatile accesses
# (test_suite/CMakeLists.txt: _debug_programs): same headers, same verdicts.
foreach(prog ${_debug_programs})
  add_test(NAME "suite -G: ${prog}"
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_verdicts.py
      --build ${CMAKE_BINARY_DIR} --barracuda $<TARGET_FILE:barracuda> --timeout 55 --debug-build
      --program ${CMAKE_CURRENT_BINARY_DIR}/programs-G/${prog})
  set_tests_properties("suite -G: ${prog}" PROPERTIES LABELS suite TIMEOUT 120
    ENVIRONMENT "BARRACUDA_EMU_WORKERS=1")
endforeach()

# The same programs linked with -cudart static (nvcc's and CMake's default;
# test_suite/CMakeLists.txt): barracuda takes the static runtime over
# (host_detector/static_cudart/) and the verdicts must be the headers' too.
add_test(NAME "suite: static cudart builds"
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_verdicts.py
    --build ${CMAKE_BINARY_DIR} --barracuda $<TARGET_FILE:barracuda> --timeout 55 --jobs 2 --quiet
    --programs-dir ${CMAKE_CURRENT_BINARY_DIR}/programs-static)
set_tests_properties("suite: static cudart builds" PROPERTIES LABELS suite TIMEOUT 900
  ENVIRONMENT "BARRACUDA_EMU_WORKERS=1" COST 25)

# The GPU backend's path on a machine without a GPU (issue 7): the whole suite
# through `barracuda --backend=gpu --gpu-runtime=emulator`: the preloaded agent
# instruments each module and drains the logger's queues, the emulator runs
# the instrumented PTX. Verdicts must equal the headers too; the known gaps
# of the device logger are left out by name (device_logger/README.md).
# 2026-12-01: 410/430 checks match, the 20 others are the 10 programs skipped
# below; 160 s. 2026-12-03: the programs whose kernels use instructions the
# logger does not log are no longer skipped: their runs must end incomplete
# (--expect-unchecked); 5 programs skipped. 2026-12-03 (session 33): TMA
# tensor copies are logged (the agent's tensor map table): the six tma/
# programs are checked in full; so are the multicast and st.async programs.
if(TARGET barracuda_gpu)
  set(_gpu_path_skips
    "--skip=graphs/graph_kernel_race_racy: the GPU agent does not analyse launches captured into CUDA graphs"
    "--skip=graphs/graph_kernel_race_ok: the GPU agent does not analyse launches captured into CUDA graphs (an incomplete run, 118)"
    "--skip=dynamic_parallelism/child_grid_tile_sum_ok: the GPU backend cannot JIT-link -rdc modules (an incomplete run, 118)"
    "--skip=dynamic_parallelism/child_grid_tile_sum_racy: the GPU backend cannot JIT-link -rdc modules (an incomplete run, 118)"
    "--skip=locks/warp_lock_no_acquire_fence_racy: the logger's warp-wide record calls order the lanes of a divergent warp (only the inter-warp pairs are seen)"
    # Checked in part: the logger does not log these instructions, and the run
    # must say so (exit 116, "analysed in part"), never "0 races" alone.
    "--expect-unchecked=textures/surface_write_texture_read_racy: texture fetches and surface accesses are not logged"
    "--expect-unchecked=textures/surface_write_texture_read_ok: texture fetches and surface accesses are not logged")
  add_test(NAME "suite: gpu backend on the emulator"
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_verdicts.py
      --build ${CMAKE_BINARY_DIR} --barracuda $<TARGET_FILE:barracuda> --timeout 55 --jobs 2 --quiet
      --barracuda-arg=--backend=gpu --barracuda-arg=--gpu-runtime=emulator ${_gpu_path_skips})
  # The same for the -cudart static builds (issue 20: nvcc's default): the
  # static runtime reaches the driver through cuGetProcAddress, where the agent
  # instruments the modules it loads; the same skips.
  add_test(NAME "suite: static cudart builds, gpu backend on the emulator"
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_verdicts.py
      --build ${CMAKE_BINARY_DIR} --barracuda $<TARGET_FILE:barracuda> --timeout 55 --jobs 2 --quiet
      --programs-dir ${CMAKE_CURRENT_BINARY_DIR}/programs-static
      --barracuda-arg=--backend=gpu --barracuda-arg=--gpu-runtime=emulator ${_gpu_path_skips})
  # Alone (RUN_SERIAL; each runs two programs at a time): on the emulator a
  # lane spinning on the logger's stamp lock cannot let a lane of its warp
  # waiting in the caller's frame run (ptx_emulator/README.md, "Known gaps"),
  # so locks/warp_lock_fenced_ok takes ~9 s here (0.25 s on the emulator
  # backend), and past its 55 s when the two tests ran side by side.
  set_tests_properties("suite: gpu backend on the emulator"
    "suite: static cudart builds, gpu backend on the emulator" PROPERTIES LABELS "suite;gpu_emulated" TIMEOUT 600
    RUN_SERIAL TRUE ENVIRONMENT "BARRACUDA_EMU_WORKERS=1" COST 65)
endif()
