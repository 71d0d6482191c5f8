// The CUDA driver entry points libbarracuda_gpu.so interposes, for programs
// that load their own modules (PTX text from nvcc -ptx or NVRTC, fat
// binaries) and launch with cuLaunchKernel: module loading (instrumented as
// registered modules are), function lookup, launches (framed and drained as
// runtime launches), allocations (attribution); and the two ways to fetch
// entry points at run time, cuGetProcAddress and the runtime's
// cudaGetDriverEntryPoint, whose answers are swapped for these hooks. Each
// forwards to the real driver (real_driver.h). A call made inside another
// hook (the emulator's libcuda.so.1 runs on the runtime, and a runtime or
// driver may call its own exports) goes straight through (HookScope), so a
// module is instrumented once.
#include <atomic>
#include <fstream>
#include <iterator>
#include <string>

#include "host_detector/gpu_agent/agent.h"
#include "host_detector/gpu_agent/cuda_declarations.h"
#include "host_detector/gpu_agent/proc_address_table.h"
#include "host_detector/gpu_agent/real_driver.h"
#include "host_detector/gpu_agent/real_runtime.h"

#undef cuGetProcAddress  // cuda.h maps it to _v2; the agent defines both

extern "C" {
CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags);
cudaError_t cudaGetDriverEntryPoint_ptsz(const char* symbol, void** funcPtr, unsigned long long flags,
                                         cudaDriverEntryPointQueryResult* driverStatus);
cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char* symbol, void** funcPtr, unsigned int cudaVersion,
                                                  unsigned long long flags,
                                                  cudaDriverEntryPointQueryResult* driverStatus);
}

using barracuda::gpu_agent::Agent;
using barracuda::gpu_agent::HookScope;
using barracuda::gpu_agent::LaunchShape;
using barracuda::gpu_agent::ProcAddressTable;
using barracuda::gpu_agent::Real;
using barracuda::gpu_agent::RealDriver;
using barracuda::transport::AllocationKind;

#define REAL_DRIVER(name)                                          \
  static auto* real = RealDriver<decltype(name)>(#name);           \
  if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED

namespace {

const void* Handle(const void* h) { return h; }

// A module file read whole (cuModuleLoad): PTX text needs its terminator.
bool ReadFile(const char* path, std::string* out) {
  if (path == nullptr) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

LaunchShape DriverShape(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream stream) {
  LaunchShape s;
  s.grid = dim3(gx, gy, gz);
  s.block = dim3(bx, by, bz);
  s.dynamic_shared = shared;
  s.stream = reinterpret_cast<cudaStream_t>(stream);
  return s;
}

LaunchShape DriverShapeOf(const CUlaunchConfig* c) {
  LaunchShape s = DriverShape(c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
                              c->sharedMemBytes, c->hStream);
  for (unsigned i = 0; i < c->numAttrs; ++i)
    if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      s.cluster = {c->attrs[i].value.clusterDim.x, c->attrs[i].value.clusterDim.y, c->attrs[i].value.clusterDim.z};
  return s;
}

void* SwapForHook(void* returned, const char* symbol, int version, bool per_thread);

}  // namespace

// ---------------------------------------------------------------- modules

BARRACUDA_AGENT_EXPORT CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  REAL_DRIVER(cuModuleLoadData);
  HookScope scope;
  if (!scope.outermost() || module == nullptr) return real(module, image);
  return static_cast<CUresult>(Agent::Get().LoadDriverModule(
      "cuModuleLoadData", image, false, [&](const void* i) { return static_cast<int>(real(module, i)); },
      [&] { return Handle(*module); }));
}

BARRACUDA_AGENT_EXPORT CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int n,
                                                   CUjit_option* options, void** values) {
  REAL_DRIVER(cuModuleLoadDataEx);
  HookScope scope;
  if (!scope.outermost() || module == nullptr) return real(module, image, n, options, values);
  return static_cast<CUresult>(Agent::Get().LoadDriverModule(
      "cuModuleLoadDataEx", image, false,
      [&](const void* i) { return static_cast<int>(real(module, i, n, options, values)); },
      [&] { return Handle(*module); }));
}

BARRACUDA_AGENT_EXPORT CUresult cuModuleLoadFatBinary(CUmodule* module, const void* image) {
  REAL_DRIVER(cuModuleLoadFatBinary);
  HookScope scope;
  if (!scope.outermost() || module == nullptr) return real(module, image);
  return static_cast<CUresult>(Agent::Get().LoadDriverModule(
      "cuModuleLoadFatBinary", image, false, [&](const void* i) { return static_cast<int>(real(module, i)); },
      [&] { return Handle(*module); }));
}

// From a file: read here, so the instrumented text goes through
// cuModuleLoadData; the program's own file is loaded as the program asked.
BARRACUDA_AGENT_EXPORT CUresult cuModuleLoad(CUmodule* module, const char* fname) {
  REAL_DRIVER(cuModuleLoad);
  static auto* load_data = RealDriver<decltype(cuModuleLoadData)>("cuModuleLoadData");
  HookScope scope;
  std::string image;
  if (!scope.outermost() || module == nullptr || load_data == nullptr || !ReadFile(fname, &image))
    return real(module, fname);
  return static_cast<CUresult>(Agent::Get().LoadDriverModule(
      "cuModuleLoad", image.c_str(), false,
      [&](const void* i) { return static_cast<int>(i == image.c_str() ? real(module, fname) : load_data(module, i)); },
      [&] { return Handle(*module); }));
}

BARRACUDA_AGENT_EXPORT CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option* jit_options,
                                                  void** jit_values, unsigned int jit_count,
                                                  CUlibraryOption* library_options, void** library_values,
                                                  unsigned int library_count) {
  REAL_DRIVER(cuLibraryLoadData);
  HookScope scope;
  auto forward = [&](const void* i) {
    return real(library, i, jit_options, jit_values, jit_count, library_options, library_values, library_count);
  };
  if (!scope.outermost() || library == nullptr) return forward(code);
  return static_cast<CUresult>(Agent::Get().LoadDriverModule(
      "cuLibraryLoadData", code, true, [&](const void* i) { return static_cast<int>(forward(i)); },
      [&] { return Handle(*library); }));
}

BARRACUDA_AGENT_EXPORT CUresult cuLibraryLoadFromFile(CUlibrary* library, const char* file, CUjit_option* jit_options,
                                                      void** jit_values, unsigned int jit_count,
                                                      CUlibraryOption* library_options, void** library_values,
                                                      unsigned int library_count) {
  REAL_DRIVER(cuLibraryLoadFromFile);
  static auto* load_data = RealDriver<decltype(cuLibraryLoadData)>("cuLibraryLoadData");
  HookScope scope;
  std::string image;
  if (!scope.outermost() || library == nullptr || load_data == nullptr || !ReadFile(file, &image))
    return real(library, file, jit_options, jit_values, jit_count, library_options, library_values, library_count);
  return static_cast<CUresult>(Agent::Get().LoadDriverModule(
      "cuLibraryLoadFromFile", image.c_str(), true,
      [&](const void* i) {
        return static_cast<int>(
            i == image.c_str()
                ? real(library, file, jit_options, jit_values, jit_count, library_options, library_values,
                       library_count)
                : load_data(library, i, jit_options, jit_values, jit_count, library_options, library_values,
                            library_count));
      },
      [&] { return Handle(*library); }));
}

BARRACUDA_AGENT_EXPORT CUresult cuModuleUnload(CUmodule module) {
  REAL_DRIVER(cuModuleUnload);
  HookScope scope;
  const CUresult r = real(module);
  if (r == CUDA_SUCCESS && scope.outermost()) Agent::Get().DriverUnload(module);
  return r;
}

BARRACUDA_AGENT_EXPORT CUresult cuLibraryUnload(CUlibrary library) {
  REAL_DRIVER(cuLibraryUnload);
  HookScope scope;
  const CUresult r = real(library);
  if (r == CUDA_SUCCESS && scope.outermost()) Agent::Get().DriverUnload(library);
  return r;
}

// ---------------------------------------------------------------- functions

BARRACUDA_AGENT_EXPORT CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  REAL_DRIVER(cuModuleGetFunction);
  HookScope scope;
  const CUresult r = real(function, module, name);
  if (r == CUDA_SUCCESS && function != nullptr && scope.outermost())
    Agent::Get().DriverFunction(*function, module, name);
  return r;
}

BARRACUDA_AGENT_EXPORT CUresult cuLibraryGetKernel(CUkernel* kernel, CUlibrary library, const char* name) {
  REAL_DRIVER(cuLibraryGetKernel);
  HookScope scope;
  const CUresult r = real(kernel, library, name);
  if (r == CUDA_SUCCESS && kernel != nullptr && scope.outermost()) Agent::Get().DriverFunction(*kernel, library, name);
  return r;
}

BARRACUDA_AGENT_EXPORT CUresult cuKernelGetFunction(CUfunction* function, CUkernel kernel) {
  REAL_DRIVER(cuKernelGetFunction);
  HookScope scope;
  const CUresult r = real(function, kernel);
  if (r == CUDA_SUCCESS && function != nullptr && scope.outermost())
    Agent::Get().DriverFunctionAlias(*function, kernel);
  return r;
}

BARRACUDA_AGENT_EXPORT CUresult cuLibraryGetModule(CUmodule* module, CUlibrary library) {
  REAL_DRIVER(cuLibraryGetModule);
  HookScope scope;
  const CUresult r = real(module, library);
  if (r == CUDA_SUCCESS && module != nullptr && scope.outermost()) Agent::Get().DriverModuleAlias(*module, library);
  return r;
}

// ---------------------------------------------------------------- launches

#define BARRACUDA_DRIVER_LAUNCH(name)                                                                           \
  BARRACUDA_AGENT_EXPORT CUresult name(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,         \
                                       unsigned by, unsigned bz, unsigned shared, CUstream stream, void** params, \
                                       void** extra) {                                                           \
    REAL_DRIVER(name);                                                                                          \
    HookScope scope;                                                                                            \
    auto forward = [&] { return static_cast<int>(real(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra)); }; \
    if (!scope.outermost()) return static_cast<CUresult>(forward());                                            \
    return static_cast<CUresult>(                                                                               \
        Agent::Get().DriverLaunch(#name, f, DriverShape(gx, gy, gz, bx, by, bz, shared, stream), forward));     \
  }
BARRACUDA_DRIVER_LAUNCH(cuLaunchKernel)
BARRACUDA_DRIVER_LAUNCH(cuLaunchKernel_ptsz)

#define BARRACUDA_DRIVER_COOPERATIVE_LAUNCH(name)                                                               \
  BARRACUDA_AGENT_EXPORT CUresult name(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,         \
                                       unsigned by, unsigned bz, unsigned shared, CUstream stream,               \
                                       void** params) {                                                          \
    REAL_DRIVER(name);                                                                                          \
    HookScope scope;                                                                                            \
    auto forward = [&] { return static_cast<int>(real(f, gx, gy, gz, bx, by, bz, shared, stream, params)); };  \
    if (!scope.outermost()) return static_cast<CUresult>(forward());                                            \
    return static_cast<CUresult>(                                                                               \
        Agent::Get().DriverLaunch(#name, f, DriverShape(gx, gy, gz, bx, by, bz, shared, stream), forward));     \
  }
BARRACUDA_DRIVER_COOPERATIVE_LAUNCH(cuLaunchCooperativeKernel)
BARRACUDA_DRIVER_COOPERATIVE_LAUNCH(cuLaunchCooperativeKernel_ptsz)

#define BARRACUDA_DRIVER_CONFIG_LAUNCH(name)                                                                    \
  BARRACUDA_AGENT_EXPORT CUresult name(const CUlaunchConfig* config, CUfunction f, void** params, void** extra) { \
    REAL_DRIVER(name);                                                                                          \
    HookScope scope;                                                                                            \
    auto forward = [&] { return static_cast<int>(real(config, f, params, extra)); };                            \
    if (!scope.outermost() || config == nullptr) return static_cast<CUresult>(forward());                       \
    return static_cast<CUresult>(Agent::Get().DriverLaunch(#name, f, DriverShapeOf(config), forward));          \
  }
BARRACUDA_DRIVER_CONFIG_LAUNCH(cuLaunchKernelEx)
BARRACUDA_DRIVER_CONFIG_LAUNCH(cuLaunchKernelEx_ptsz)

// A graph's kernel nodes do not pass the launch hooks (Agent::OnGraphLaunch).
#define BARRACUDA_DRIVER_GRAPH_LAUNCH(name)                                       \
  BARRACUDA_AGENT_EXPORT CUresult name(CUgraphExec exec, CUstream stream) {       \
    REAL_DRIVER(name);                                                            \
    HookScope scope;                                                              \
    if (scope.outermost()) Agent::Get().OnGraphLaunch();                          \
    return real(exec, stream);                                                    \
  }
BARRACUDA_DRIVER_GRAPH_LAUNCH(cuGraphLaunch)
BARRACUDA_DRIVER_GRAPH_LAUNCH(cuGraphLaunch_ptsz)

// ---------------------------------------------------------------- allocations

#define BARRACUDA_DRIVER_ALLOCATION(name, params, args, pointer, size, kind)                                    \
  BARRACUDA_AGENT_EXPORT CUresult name params {                                                                 \
    REAL_DRIVER(name);                                                                                          \
    HookScope scope;                                                                                            \
    const CUresult r = real args;                                                                               \
    if (r == CUDA_SUCCESS && scope.outermost() && (pointer) != nullptr)                                         \
      Agent::Get().OnAllocation(reinterpret_cast<const void*>(*(pointer)), size, kind, #name);                  \
    return r;                                                                                                   \
  }
BARRACUDA_DRIVER_ALLOCATION(cuMemAlloc_v2, (CUdeviceptr * p, size_t size), (p, size), p, size,
                            AllocationKind::kDevice)
BARRACUDA_DRIVER_ALLOCATION(cuMemAllocManaged, (CUdeviceptr * p, size_t size, unsigned flags), (p, size, flags), p,
                            size, AllocationKind::kManaged)
BARRACUDA_DRIVER_ALLOCATION(cuMemAllocPitch_v2,
                            (CUdeviceptr * p, size_t* pitch, size_t width, size_t height, unsigned element),
                            (p, pitch, width, height, element), p, (pitch ? *pitch : width) * height,
                            AllocationKind::kDevice)
BARRACUDA_DRIVER_ALLOCATION(cuMemAllocHost_v2, (void** p, size_t size), (p, size), p, size,
                            AllocationKind::kHostMapped)
BARRACUDA_DRIVER_ALLOCATION(cuMemHostAlloc, (void** p, size_t size, unsigned flags), (p, size, flags), p, size,
                            AllocationKind::kHostMapped)

#define BARRACUDA_DRIVER_FREE(name, type)                                                                       \
  BARRACUDA_AGENT_EXPORT CUresult name(type p) {                                                                \
    REAL_DRIVER(name);                                                                                          \
    HookScope scope;                                                                                            \
    const CUresult r = real(p);                                                                                 \
    if (r == CUDA_SUCCESS && scope.outermost()) Agent::Get().OnFree(reinterpret_cast<const void*>(p));          \
    return r;                                                                                                   \
  }
BARRACUDA_DRIVER_FREE(cuMemFree_v2, CUdeviceptr)
BARRACUDA_DRIVER_FREE(cuMemFreeHost, void*)

// ---------------------------------------------------------------- TMA tensor maps
// The geometry of every tiled map for the device logger (tensor_maps.h): a
// CUtensorMap's bytes are the driver's own encoding. The real encoder is the
// one the program fetched (cudaGetDriverEntryPoint answers with the
// runtime's, which for the emulator's runtime is not in its libcuda.so.1),
// else the driver's.
namespace {
std::atomic<void*> fetched_encode_tiled{nullptr};
std::atomic<void*> fetched_replace_address{nullptr};
std::atomic<void*> fetched_encode_im2col{nullptr};

template <typename Fn>
Fn* RealTensorMapFunction(const std::atomic<void*>& fetched, const char* name) {
  if (void* f = fetched.load(std::memory_order_acquire)) return reinterpret_cast<Fn*>(f);
  static void* driver = barracuda::gpu_agent::FindRealDriver(name);
  return reinterpret_cast<Fn*>(driver);
}

// The arguments cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col share.
barracuda::gpu_queue::TiledMapArgs SharedMapArgs(CUtensorMapDataType type, cuuint32_t rank, void* address,
                                                 const cuuint64_t* dim, const cuuint64_t* strides,
                                                 const cuuint32_t* element_strides, CUtensorMapInterleave interleave,
                                                 CUtensorMapSwizzle swizzle) {
  barracuda::gpu_queue::TiledMapArgs a;
  a.data_type = static_cast<uint32_t>(type);
  a.rank = rank;
  a.global_address = reinterpret_cast<uint64_t>(address);
  a.global_dim = dim;
  a.global_strides = strides;
  a.element_strides = element_strides;
  a.interleave = static_cast<uint32_t>(interleave);
  a.swizzle = static_cast<uint32_t>(swizzle);
  return a;
}
}  // namespace

BARRACUDA_AGENT_EXPORT CUresult cuTensorMapEncodeTiled(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank,
                                                       void* address, const cuuint64_t* dim,
                                                       const cuuint64_t* strides, const cuuint32_t* box,
                                                       const cuuint32_t* element_strides,
                                                       CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                                       CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill fill) {
  auto* real = RealTensorMapFunction<decltype(cuTensorMapEncodeTiled)>(fetched_encode_tiled, "cuTensorMapEncodeTiled");
  if (real == nullptr) return CUDA_ERROR_NOT_FOUND;
  HookScope scope;
  const CUresult r = real(map, type, rank, address, dim, strides, box, element_strides, interleave, swizzle, l2, fill);
  if (r == CUDA_SUCCESS && map != nullptr && scope.outermost()) {
    barracuda::gpu_queue::TiledMapArgs a =
        SharedMapArgs(type, rank, address, dim, strides, element_strides, interleave, swizzle);
    a.box_dim = box;
    std::string why;
    const barracuda::gpu_queue::TensorMapEntry entry = barracuda::gpu_queue::TiledMapEntry(a, &why);
    Agent::Get().OnTensorMapEncoded(map, entry, std::move(why));
  }
  return r;
}

BARRACUDA_AGENT_EXPORT CUresult cuTensorMapEncodeIm2col(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank,
                                                        void* address, const cuuint64_t* dim,
                                                        const cuuint64_t* strides, const int* lower,
                                                        const int* upper, cuuint32_t channels, cuuint32_t pixels,
                                                        const cuuint32_t* element_strides,
                                                        CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                                        CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill fill) {
  auto* real = RealTensorMapFunction<decltype(cuTensorMapEncodeIm2col)>(fetched_encode_im2col, "cuTensorMapEncodeIm2col");
  if (real == nullptr) return CUDA_ERROR_NOT_FOUND;
  HookScope scope;
  const CUresult r = real(map, type, rank, address, dim, strides, lower, upper, channels, pixels, element_strides,
                          interleave, swizzle, l2, fill);
  if (r == CUDA_SUCCESS && map != nullptr && scope.outermost()) {
    barracuda::gpu_queue::Im2colMapArgs a;
    static_cast<barracuda::gpu_queue::TiledMapArgs&>(a) =
        SharedMapArgs(type, rank, address, dim, strides, element_strides, interleave, swizzle);
    a.lower_corner = lower;
    a.upper_corner = upper;
    a.channels_per_pixel = channels;
    a.pixels_per_column = pixels;
    std::string why;
    const barracuda::gpu_queue::TensorMapEntry entry = barracuda::gpu_queue::Im2colMapEntry(a, &why);
    Agent::Get().OnTensorMapEncoded(map, entry, std::move(why));
  }
  return r;
}

BARRACUDA_AGENT_EXPORT CUresult cuTensorMapReplaceAddress(CUtensorMap* map, void* address) {
  auto* real =
      RealTensorMapFunction<decltype(cuTensorMapReplaceAddress)>(fetched_replace_address, "cuTensorMapReplaceAddress");
  if (real == nullptr) return CUDA_ERROR_NOT_FOUND;
  HookScope scope;
  const uint64_t old_key = map != nullptr ? barracuda::gpu_queue::TensorMapKeyOf(map) : 0;
  const CUresult r = real(map, address);
  if (r == CUDA_SUCCESS && map != nullptr && scope.outermost())
    Agent::Get().OnTensorMapAddressReplaced(old_key, map, reinterpret_cast<uint64_t>(address));
  return r;
}

// ---------------------------------------------------------------- entry points fetched at run time

BARRACUDA_AGENT_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                                                    CUdriverProcAddressQueryResult* status) {
  REAL_DRIVER(cuGetProcAddress_v2);
  const CUresult r = real(symbol, pfn, version, flags, status);
  if (r == CUDA_SUCCESS && pfn != nullptr)
    *pfn = SwapForHook(*pfn, symbol, version, (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0);
  return r;
}

BARRACUDA_AGENT_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int version, cuuint64_t flags) {
  REAL_DRIVER(cuGetProcAddress);
  const CUresult r = real(symbol, pfn, version, flags);
  if (r == CUDA_SUCCESS && pfn != nullptr)
    *pfn = SwapForHook(*pfn, symbol, version, (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0);
  return r;
}

// The runtime's way to the driver: its answer is the real driver's
// definition (NVIDIA's runtime and the emulator's ask libcuda.so.1 through
// their own handle, never through the agent's names).
#define BARRACUDA_ENTRY_POINT(name, version_expr, params, args)                                                 \
  BARRACUDA_AGENT_EXPORT cudaError_t name params {                                                              \
    static auto* real = Real<decltype(name)>(#name);                                                            \
    if (real == nullptr) return cudaErrorInitializationError;                                                   \
    const cudaError_t e = real args;                                                                            \
    if (e == cudaSuccess && funcPtr != nullptr)                                                                 \
      *funcPtr = SwapForHook(*funcPtr, symbol, static_cast<int>(version_expr),                                  \
                             (flags & cudaEnablePerThreadDefaultStream) != 0);                                  \
    return e;                                                                                                   \
  }
// cudaGetDriverEntryPoint is deprecated, not gone: programs still call it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
BARRACUDA_ENTRY_POINT(cudaGetDriverEntryPoint, CUDART_VERSION,
                      (const char* symbol, void** funcPtr, unsigned long long flags,
                       cudaDriverEntryPointQueryResult* driverStatus),
                      (symbol, funcPtr, flags, driverStatus))
BARRACUDA_ENTRY_POINT(cudaGetDriverEntryPoint_ptsz, CUDART_VERSION,
                      (const char* symbol, void** funcPtr, unsigned long long flags,
                       cudaDriverEntryPointQueryResult* driverStatus),
                      (symbol, funcPtr, flags, driverStatus))
#pragma GCC diagnostic pop
BARRACUDA_ENTRY_POINT(cudaGetDriverEntryPointByVersion, cudaVersion,
                      (const char* symbol, void** funcPtr, unsigned int cudaVersion, unsigned long long flags,
                       cudaDriverEntryPointQueryResult* driverStatus),
                      (symbol, funcPtr, cudaVersion, flags, driverStatus))
BARRACUDA_ENTRY_POINT(cudaGetDriverEntryPointByVersion_ptsz, cudaVersion,
                      (const char* symbol, void** funcPtr, unsigned int cudaVersion, unsigned long long flags,
                       cudaDriverEntryPointQueryResult* driverStatus),
                      (symbol, funcPtr, cudaVersion, flags, driverStatus))

namespace {

// Every hook above that a program could fetch, by exported variant; the
// version is the one from which the base name means that variant.
const ProcAddressTable& Table() {
  static const ProcAddressTable* table = [] {
    auto* t = new ProcAddressTable();
    auto add = [t](const char* variant, auto* hook, int min_version = 0) {
      t->Add(variant, reinterpret_cast<void*>(hook), min_version);
    };
    add("cuModuleLoadData", &cuModuleLoadData);
    add("cuModuleLoadDataEx", &cuModuleLoadDataEx);
    add("cuModuleLoadFatBinary", &cuModuleLoadFatBinary);
    add("cuModuleLoad", &cuModuleLoad);
    add("cuLibraryLoadData", &cuLibraryLoadData);
    add("cuLibraryLoadFromFile", &cuLibraryLoadFromFile);
    add("cuModuleUnload", &cuModuleUnload);
    add("cuLibraryUnload", &cuLibraryUnload);
    add("cuModuleGetFunction", &cuModuleGetFunction);
    add("cuLibraryGetKernel", &cuLibraryGetKernel);
    add("cuKernelGetFunction", &cuKernelGetFunction);
    add("cuLibraryGetModule", &cuLibraryGetModule);
    add("cuLaunchKernel", &cuLaunchKernel);
    add("cuLaunchKernel_ptsz", &cuLaunchKernel_ptsz, 7000);
    add("cuLaunchCooperativeKernel", &cuLaunchCooperativeKernel);
    add("cuLaunchCooperativeKernel_ptsz", &cuLaunchCooperativeKernel_ptsz, 9000);
    add("cuLaunchKernelEx", &cuLaunchKernelEx);
    add("cuLaunchKernelEx_ptsz", &cuLaunchKernelEx_ptsz, 11060);
    add("cuGraphLaunch", &cuGraphLaunch);
    add("cuGraphLaunch_ptsz", &cuGraphLaunch_ptsz, 10000);
    add("cuMemAlloc_v2", &cuMemAlloc_v2, 3020);
    add("cuMemAllocManaged", &cuMemAllocManaged);
    add("cuMemAllocPitch_v2", &cuMemAllocPitch_v2, 3020);
    add("cuMemAllocHost_v2", &cuMemAllocHost_v2, 3020);
    add("cuMemHostAlloc", &cuMemHostAlloc);
    add("cuMemFree_v2", &cuMemFree_v2, 3020);
    add("cuMemFreeHost", &cuMemFreeHost);
    add("cuTensorMapEncodeTiled", &cuTensorMapEncodeTiled);
    add("cuTensorMapReplaceAddress", &cuTensorMapReplaceAddress);
    add("cuTensorMapEncodeIm2col", &cuTensorMapEncodeIm2col);
    add("cuGetProcAddress", &cuGetProcAddress);
    add("cuGetProcAddress_v2", &cuGetProcAddress_v2, 12000);
    t->Resolve([](const char* name) { return barracuda::gpu_agent::FindRealDriver(name, /*quiet=*/true); });
    return t;
  }();
  return *table;
}

void* SwapForHook(void* returned, const char* symbol, int version, bool per_thread) {
  void* hook = Table().HookFor(returned, symbol, version, per_thread);
  if (hook != nullptr && hook != returned) {
    if (hook == reinterpret_cast<void*>(&cuTensorMapEncodeTiled)) fetched_encode_tiled.store(returned);
    if (hook == reinterpret_cast<void*>(&cuTensorMapReplaceAddress)) fetched_replace_address.store(returned);
    if (hook == reinterpret_cast<void*>(&cuTensorMapEncodeIm2col)) fetched_encode_im2col.store(returned);
  }
  return hook != nullptr ? hook : returned;
}

}  // namespace
