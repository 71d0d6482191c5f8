// The CUDA runtime entry points libbarracuda_gpu.so interposes (LD_PRELOAD):
// registration (instrument, re-register), launches (frame and drain),
// allocations (attribution in reports) and cudaDeviceReset. Each forwards to
// the real runtime (real_runtime.h); a call made from inside another hook
// (a runtime calling its own exports) goes straight through.
#include "host_detector/gpu_agent/agent.h"
#include "host_detector/gpu_agent/cuda_declarations.h"
#include "host_detector/gpu_agent/real_runtime.h"

using barracuda::gpu_agent::Agent;
using barracuda::gpu_agent::HookScope;
using barracuda::gpu_agent::LaunchShape;
using barracuda::gpu_agent::Real;
using barracuda::transport::AllocationKind;

#define REAL(name) static auto* real = Real<decltype(name)>(#name)

// ---------------------------------------------------------------- registration

BARRACUDA_AGENT_EXPORT void** __cudaRegisterFatBinary(void* fat_cubin) {
  HookScope scope;
  if (!scope.outermost()) {
    REAL(__cudaRegisterFatBinary);
    return real(fat_cubin);
  }
  return Agent::Get().RegisterFatbin(fat_cubin);
}

BARRACUDA_AGENT_EXPORT void __cudaRegisterFunction(void** handle, const char* host_fun, char* device_fun,
                                                   const char* device_name, int thread_limit, uint3* tid, uint3* bid,
                                                   dim3* block_dim, dim3* grid_dim, int* warp_size) {
  REAL(__cudaRegisterFunction);
  HookScope scope;
  if (scope.outermost()) Agent::Get().RegisterFunction(handle, host_fun, device_fun ? device_fun : device_name);
  real(handle, host_fun, device_fun, device_name, thread_limit, tid, bid, block_dim, grid_dim, warp_size);
}

BARRACUDA_AGENT_EXPORT void __cudaRegisterVar(void** handle, char* host_var, char* device_address,
                                              const char* device_name, int ext, size_t size, int constant,
                                              int global) {
  REAL(__cudaRegisterVar);
  HookScope scope;
  if (scope.outermost())
    Agent::Get().RegisterVar(handle, host_var, device_address ? device_address : device_name, size);
  real(handle, host_var, device_address, device_name, ext, size, constant, global);
}

BARRACUDA_AGENT_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* host_fun) {
  REAL(__cudaGetKernel);
  HookScope scope;
  const cudaError_t e = real(kernel, host_fun);
  if (e == cudaSuccess && kernel != nullptr && scope.outermost()) Agent::Get().KernelHandle(*kernel, host_fun);
  return e;
}

// ---------------------------------------------------------------- launches

namespace {

LaunchShape Shape(dim3 grid, dim3 block, size_t shared, cudaStream_t stream) {
  LaunchShape s;
  s.grid = grid;
  s.block = block;
  s.dynamic_shared = shared;
  s.stream = stream;
  return s;
}

LaunchShape ShapeOf(const cudaLaunchConfig_t* config) {
  if (config == nullptr) return LaunchShape{};
  LaunchShape s = Shape(config->gridDim, config->blockDim, config->dynamicSmemBytes, config->stream);
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == cudaLaunchAttributeClusterDimension)
      s.cluster = {config->attrs[i].val.clusterDim.x, config->attrs[i].val.clusterDim.y,
                   config->attrs[i].val.clusterDim.z};
  return s;
}

}  // namespace

// The launch stub of nvcc-generated code (CUDA 13): __cudaGetKernel once,
// then __cudaLaunchKernel with the handle.
#define BARRACUDA_KERNEL_HANDLE_LAUNCH(name)                                                                   \
  BARRACUDA_AGENT_EXPORT cudaError_t name(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,             \
                                          size_t shared, cudaStream_t stream) {                                \
    REAL(name);                                                                                                \
    HookScope scope;                                                                                           \
    auto forward = [&] { return real(kernel, grid, block, args, shared, stream); };                            \
    if (!scope.outermost() || kernel == nullptr) return forward();                                             \
    Agent& agent = Agent::Get();                                                                               \
    return agent.Launch(agent.HostFunctionOf(kernel), Shape(grid, block, shared, stream), forward);             \
  }
BARRACUDA_KERNEL_HANDLE_LAUNCH(__cudaLaunchKernel)
BARRACUDA_KERNEL_HANDLE_LAUNCH(__cudaLaunchKernel_ptsz)

#define BARRACUDA_FUNCTION_LAUNCH(name)                                                                        \
  BARRACUDA_AGENT_EXPORT cudaError_t name(const void* func, dim3 grid, dim3 block, void** args, size_t shared, \
                                          cudaStream_t stream) {                                               \
    REAL(name);                                                                                                \
    HookScope scope;                                                                                           \
    auto forward = [&] { return real(func, grid, block, args, shared, stream); };                              \
    if (!scope.outermost()) return forward();                                                                  \
    return Agent::Get().Launch(func, Shape(grid, block, shared, stream), forward);                             \
  }
BARRACUDA_FUNCTION_LAUNCH(cudaLaunchKernel)
BARRACUDA_FUNCTION_LAUNCH(cudaLaunchKernel_ptsz)
BARRACUDA_FUNCTION_LAUNCH(cudaLaunchCooperativeKernel)
BARRACUDA_FUNCTION_LAUNCH(cudaLaunchCooperativeKernel_ptsz)

#define BARRACUDA_CONFIG_LAUNCH(name)                                                                          \
  BARRACUDA_AGENT_EXPORT cudaError_t name(const cudaLaunchConfig_t* config, const void* func, void** args) {   \
    REAL(name);                                                                                                \
    HookScope scope;                                                                                           \
    auto forward = [&] { return real(config, func, args); };                                                   \
    if (!scope.outermost() || config == nullptr) return forward();                                            \
    return Agent::Get().Launch(func, ShapeOf(config), forward);                                                \
  }
BARRACUDA_CONFIG_LAUNCH(cudaLaunchKernelExC)
BARRACUDA_CONFIG_LAUNCH(cudaLaunchKernelExC_ptsz)

// ---------------------------------------------------------------- allocations

#define BARRACUDA_TRACKED_ALLOCATION(name, params, args, pointer, size, kind)                                  \
  BARRACUDA_AGENT_EXPORT cudaError_t name params {                                                             \
    REAL(name);                                                                                                \
    HookScope scope;                                                                                           \
    const cudaError_t e = real args;                                                                           \
    if (e == cudaSuccess && scope.outermost() && (pointer) != nullptr)                                          \
      Agent::Get().OnAllocation(*(pointer), size, kind, #name);                                                \
    return e;                                                                                                  \
  }
BARRACUDA_TRACKED_ALLOCATION(cudaMalloc, (void** p, size_t size), (p, size), p, size, AllocationKind::kDevice)
BARRACUDA_TRACKED_ALLOCATION(cudaMallocManaged, (void** p, size_t size, unsigned flags), (p, size, flags), p, size,
                             AllocationKind::kManaged)
BARRACUDA_TRACKED_ALLOCATION(cudaMallocAsync, (void** p, size_t size, cudaStream_t s), (p, size, s), p, size,
                             AllocationKind::kAsync)
BARRACUDA_TRACKED_ALLOCATION(cudaMallocAsync_ptsz, (void** p, size_t size, cudaStream_t s), (p, size, s), p, size,
                             AllocationKind::kAsync)
BARRACUDA_TRACKED_ALLOCATION(cudaHostAlloc, (void** p, size_t size, unsigned flags), (p, size, flags), p, size,
                             AllocationKind::kHostMapped)
BARRACUDA_TRACKED_ALLOCATION(cudaMallocHost, (void** p, size_t size), (p, size), p, size,
                             AllocationKind::kHostMapped)
BARRACUDA_TRACKED_ALLOCATION(cudaMallocPitch, (void** p, size_t* pitch, size_t width, size_t height),
                             (p, pitch, width, height), p, (pitch ? *pitch : width) * height, AllocationKind::kDevice)

#define BARRACUDA_TRACKED_FREE(name, params, args, pointer)                                                    \
  BARRACUDA_AGENT_EXPORT cudaError_t name params {                                                             \
    REAL(name);                                                                                                \
    HookScope scope;                                                                                           \
    const cudaError_t e = real args;                                                                           \
    if (e == cudaSuccess && scope.outermost()) Agent::Get().OnFree(pointer);                                   \
    return e;                                                                                                  \
  }
BARRACUDA_TRACKED_FREE(cudaFree, (void* p), (p), p)
BARRACUDA_TRACKED_FREE(cudaFreeHost, (void* p), (p), p)
BARRACUDA_TRACKED_FREE(cudaFreeAsync, (void* p, cudaStream_t s), (p, s), p)
BARRACUDA_TRACKED_FREE(cudaFreeAsync_ptsz, (void* p, cudaStream_t s), (p, s), p)

// ---------------------------------------------------------------- device

#define BARRACUDA_GRAPH_LAUNCH(name)                                                     \
  BARRACUDA_AGENT_EXPORT cudaError_t name(cudaGraphExec_t exec, cudaStream_t stream) { \
    REAL(name);                                                                       \
    HookScope scope;                                                                  \
    if (scope.outermost()) Agent::Get().OnGraphLaunch();                              \
    return real(exec, stream);                                                        \
  }
BARRACUDA_GRAPH_LAUNCH(cudaGraphLaunch)
BARRACUDA_GRAPH_LAUNCH(cudaGraphLaunch_ptsz)

BARRACUDA_AGENT_EXPORT cudaError_t cudaDeviceReset() {
  REAL(cudaDeviceReset);
  HookScope scope;
  if (!scope.outermost()) return real();
  return Agent::Get().DeviceReset([] { return real(); });
}
