# Memory-error programs (issue 18 item 3): kernels that access memory outside
# their allocations, freed memory, misaligned addresses or past their shared
# tile, each with a fixed twin. The header's "memory_errors" (per warp model:
# {kind, space, line}) must equal the report's memory_errors[]; the twins
# report nothing and print PASS. The seeded bugs ignore the launch's error, as
# careless code does: the emulator must fail the launch all the same.
# Included from test_suite/CMakeLists.txt when BARRACUDA_CUDA_TESTS is on.
barracuda_expected_programs(DIR ${CMAKE_CURRENT_LIST_DIR} PREFIX memcheck
  BUG_PASS_REGEX "sync: cudaError(IllegalAddress|MisalignedAddress)")
