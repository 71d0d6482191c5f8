# Memory and warp instruction families (owner: memory): ld/ldu/st, atom/red,
# cvta/isspacep, fences and cache hints, warp primitives. mem_access.* is their
# shared address-space resolution and record building. Tests: emu_memory_tests.
target_sources(barracuda_emu PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/mem_access.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/atomic_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/address_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/warp_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/async_copy_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bulk_copy_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/async_store_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bulk_copy_runs.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tensor_map.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tensor_map_copy_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/mbarrier_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hint_ops.cpp)

barracuda_unit_test(emu_memory_tests OPTIMIZED
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/../tests/memory_handler_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/memory_warp_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/memory_kernel_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/async_copy_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/tensor_copy_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/bulk_copy_test.cpp
  LIBS barracuda_emu barracuda_ptx)

if(BARRACUDA_BENCHMARKS)
  add_executable(emu_memory_bench ${CMAKE_CURRENT_LIST_DIR}/../tests/memory_handler_bench.cpp)
  target_link_libraries(emu_memory_bench PRIVATE barracuda_emu barracuda_ptx benchmark::benchmark)
endif()
