# Stream-order race programs (issue 18 item 2): kernels and async copies of two
# streams touching the same bytes with nothing ordering them, each with a twin
# that orders them (an event, a blocking stream); in host/, the host's own
# reads and writes of managed, mapped pinned and registered memory before it
# synchronises with the kernel, asynchronous copy or set using them, and host
# functions' (cudaLaunchHostFunc, graph host nodes) against other streams'
# work and the host's; kernels/ also has launches from two host threads and
# events recorded on the legacy default stream; graphs/graph_memory_nodes_*: a
# captured alloc -> kernels -> free graph launched twice. The header's
# "stream_order_races" (per warp model: {lines: [a, b]}, a kernel access's line
# or the host line of an API call) must equal the report's stream_order_races[].
# Included from test_suite/CMakeLists.txt when BARRACUDA_CUDA_TESTS is on.
barracuda_expected_programs(DIR ${CMAKE_CURRENT_LIST_DIR} PREFIX streams BUG_PASS_REGEX "done")
