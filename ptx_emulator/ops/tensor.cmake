# Tensor-core instruction family (wmma, mma.sync, wgmma, ldmatrix, stmatrix,
# movmatrix): selection (tensor_core_ops.cpp), fragment layouts
# (tensor_layouts.*), arithmetic (tensor_numerics.*), collective memory
# accesses (tensor_memory.*), handlers (tensor_mma.cpp, tensor_moves.cpp,
# tensor_wgmma.cpp).
# Tests: emu_tensor_tests.
target_sources(barracuda_emu PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/tensor_core_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tensor_layouts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tensor_numerics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tensor_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tensor_mma.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tensor_moves.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tensor_wgmma.cpp)
# The .f64 fma chain switches the host rounding mode (.rz/.rm/.rp).
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/tensor_numerics.cpp PROPERTIES COMPILE_OPTIONS -frounding-math)

barracuda_unit_test(emu_tensor_tests
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/../tests/tensor_core_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../tests/tensor_wgmma_test.cpp
  LIBS barracuda_emu barracuda_ptx)
