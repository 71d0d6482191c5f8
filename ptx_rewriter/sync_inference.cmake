# Acquire/release inference shared by the emulator's tracer and the
# instrumentation pass (owner: memory). include()d by ptx_rewriter/CMakeLists.txt.
target_sources(barracuda_ptx PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sync_inference.cpp)
list(APPEND PTX_REWRITER_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/sync_inference_test.cpp)
