# exec/: warps, SIMT stack, control instructions, barriers, builtins,
# scheduler and Device::Launch. See exec/README.md.
target_sources(barracuda_emu PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/control_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/barriers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/builtins.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cluster.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fault_status.cpp
  ${CMAKE_CURRENT_LIST_DIR}/graph_conditions.cpp
  ${CMAKE_CURRENT_LIST_DIR}/interpreter.cpp
  ${CMAKE_CURRENT_LIST_DIR}/launch.cpp
  ${CMAKE_CURRENT_LIST_DIR}/deterministic_rounds.cpp
  ${CMAKE_CURRENT_LIST_DIR}/serial_phase.cpp
  ${CMAKE_CURRENT_LIST_DIR}/grid_barrier_watch.cpp
  ${CMAKE_CURRENT_LIST_DIR}/resident_growth.cpp
  ${CMAKE_CURRENT_LIST_DIR}/spin_watch.cpp
  ${CMAKE_CURRENT_LIST_DIR}/simt_stack.cpp)

barracuda_unit_test(emu_exec_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/../tests/exec_simt_tests.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/exec_kernel_tests.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/exec_divergent_barrier_tests.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/exec_cluster_tests.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/exec_deterministic_tests.cpp
  LIBS barracuda_emu)

if(BARRACUDA_BENCHMARKS)
  add_executable(emu_exec_bench ${CMAKE_CURRENT_LIST_DIR}/../tests/exec_bench.cpp)
  target_link_libraries(emu_exec_bench PRIVATE barracuda_emu benchmark::benchmark)
endif()
