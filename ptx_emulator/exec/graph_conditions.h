// The conditions of CUDA graph conditional nodes, as device code sets them
// (cudaGraphSetConditional, a device-runtime builtin that nvcc emits as an
// `.extern .func` call without -rdc). The runtime makes a condition per
// cudaGraphConditionalHandleCreate and registers it here under the handle it
// gives the program; the builtin stores into the registered condition, and a
// handle that is not registered (garbage, or one whose graphs are all gone)
// faults the kernel instead of writing anywhere.
#ifndef BARRACUDA_PTX_EMULATOR_EXEC_GRAPH_CONDITIONS_H_
#define BARRACUDA_PTX_EMULATOR_EXEC_GRAPH_CONDITIONS_H_

#include <atomic>
#include <cstdint>

namespace barracuda::emu {

void RegisterGraphCondition(uint64_t handle, std::atomic<uint32_t>* value);
void UnregisterGraphCondition(uint64_t handle);
// *value of `handle` := v; false when `handle` is not registered.
bool SetGraphCondition(uint64_t handle, uint32_t v);

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_EXEC_GRAPH_CONDITIONS_H_
