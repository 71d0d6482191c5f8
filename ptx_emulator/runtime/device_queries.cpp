// Device management and queries: one device (ordinal 0) described by
// emu::DeviceDescription; the compute capability is the SM of the PTX the
// program registered (else 7.5), so feature checks in programs agree with the
// code that runs.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/runtime/runtime_state.h"
#include "ptx_emulator/runtime/stream_order.h"
#include "ptx_emulator/runtime/stream_capture.h"

using barracuda::cudart::Runtime;

namespace {

inline constexpr int kRuntimeVersion = 13000;

cudaDeviceProp DescribeDevice() {
  Runtime& rt = Runtime::Get();
  const barracuda::emu::DeviceDescription& d = rt.device().description();
  const uint32_t sm = rt.ReportedSm();
  cudaDeviceProp p{};
  std::snprintf(p.name, sizeof(p.name), "%s", d.name.c_str());
  std::memcpy(p.uuid.bytes, "barracuda-emu-00", sizeof(p.uuid.bytes));
  p.totalGlobalMem = d.global_bytes;
  p.sharedMemPerBlock = d.shared_per_block;
  p.regsPerBlock = static_cast<int>(d.regs_per_block);
  p.warpSize = static_cast<int>(d.warp_size);
  p.memPitch = 0x7fffffff;
  p.maxThreadsPerBlock = static_cast<int>(d.max_threads_per_block);
  p.maxThreadsDim[0] = 1024; p.maxThreadsDim[1] = 1024; p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 0x7fffffff; p.maxGridSize[1] = 65535; p.maxGridSize[2] = 65535;
  p.totalConstMem = 64 * 1024;
  p.major = static_cast<int>(sm / 10);
  p.minor = static_cast<int>(sm % 10);
  p.textureAlignment = 512;
  p.texturePitchAlignment = 32;
  p.multiProcessorCount = static_cast<int>(d.sm_count);
  p.integrated = 0;
  p.canMapHostMemory = 1;
  p.surfaceAlignment = 512;
  p.concurrentKernels = 1;
  p.asyncEngineCount = 1;
  p.unifiedAddressing = 1;
  p.memoryBusWidth = 256;
  p.l2CacheSize = 4 << 20;
  p.maxThreadsPerMultiProcessor = static_cast<int>(d.max_threads_per_sm);
  p.streamPrioritiesSupported = 1;
  p.globalL1CacheSupported = 1;
  p.localL1CacheSupported = 1;
  p.sharedMemPerMultiprocessor = d.shared_per_sm;
  p.regsPerMultiprocessor = static_cast<int>(d.regs_per_sm);
  p.managedMemory = 1;
  p.hostNativeAtomicSupported = 1;
  p.pageableMemoryAccess = 0;
  p.concurrentManagedAccess = 1;
  p.computePreemptionSupported = 1;
  p.cooperativeLaunch = 1;
  p.sharedMemPerBlockOptin = d.shared_per_block_optin;
  p.directManagedMemAccessFromHost = 1;
  p.maxBlocksPerMultiProcessor = static_cast<int>(d.max_blocks_per_sm);
  p.reservedSharedMemPerBlock = d.reserved_shared_per_block;
  p.memoryPoolsSupported = 1;
  p.unifiedFunctionPointers = 1;
  p.hostNumaId = -1;
  p.deviceNumaId = -1;
  // Texture and surface limits: an H100's (the emulator samples any size, but
  // programs size their arrays and linear textures by these).
  p.maxTexture1D = 131072;
  p.maxTexture1DMipmap = 32768;
  p.maxTexture2D[0] = 131072; p.maxTexture2D[1] = 65536;
  p.maxTexture2DMipmap[0] = 32768; p.maxTexture2DMipmap[1] = 32768;
  p.maxTexture2DLinear[0] = 131072; p.maxTexture2DLinear[1] = 65000; p.maxTexture2DLinear[2] = 2097120;
  p.maxTexture2DGather[0] = 32768; p.maxTexture2DGather[1] = 32768;
  p.maxTexture3D[0] = 16384; p.maxTexture3D[1] = 16384; p.maxTexture3D[2] = 16384;
  p.maxTexture3DAlt[0] = 8192; p.maxTexture3DAlt[1] = 8192; p.maxTexture3DAlt[2] = 32768;
  p.maxTextureCubemap = 32768;
  p.maxTexture1DLayered[0] = 32768; p.maxTexture1DLayered[1] = 2048;
  p.maxTexture2DLayered[0] = 32768; p.maxTexture2DLayered[1] = 32768; p.maxTexture2DLayered[2] = 2048;
  p.maxTextureCubemapLayered[0] = 32768; p.maxTextureCubemapLayered[1] = 2046;
  p.maxSurface1D = 32768;
  p.maxSurface2D[0] = 131072; p.maxSurface2D[1] = 65536;
  p.maxSurface3D[0] = 16384; p.maxSurface3D[1] = 16384; p.maxSurface3D[2] = 16384;
  p.maxSurface1DLayered[0] = 32768; p.maxSurface1DLayered[1] = 2048;
  p.maxSurface2DLayered[0] = 32768; p.maxSurface2DLayered[1] = 32768; p.maxSurface2DLayered[2] = 2048;
  p.maxSurfaceCubemap = 32768;
  p.maxSurfaceCubemapLayered[0] = 32768; p.maxSurfaceCubemapLayered[1] = 2046;
  // Access-policy windows are accepted and kept (stream_attributes.cpp); no
  // L2 lines persist.
  // L2 persistence (access policy windows) exists from sm_80 on; 3/4 of the L2 as on an A100.
  p.accessPolicyMaxWindowSize = sm >= 80 ? 134213632 : 0;
  p.persistingL2CacheMaxSize = sm >= 80 ? 3 << 20 : 0;
  p.clusterLaunch = sm >= 90 ? 1 : 0;
  p.hostRegisterSupported = 1;
  p.hostRegisterReadOnlySupported = 1;
  p.gpuDirectRDMASupported = 0;
  return p;
}

bool ValidDevice(int device) { return device == 0; }

}  // namespace

CUDART_EXPORT cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return Runtime::Get().Fail(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetDevice(int* device) {
  if (!device) return Runtime::Get().Fail(cudaErrorInvalidValue);
  *device = Runtime::Get().current_device;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaSetDevice(int device) {
  return ValidDevice(device) ? cudaSuccess : Runtime::Get().Fail(cudaErrorInvalidDevice);
}

CUDART_EXPORT cudaError_t cudaInitDevice(int device, unsigned int, unsigned int) {
  return ValidDevice(device) ? cudaSuccess : Runtime::Get().Fail(cudaErrorInvalidDevice);
}

CUDART_EXPORT cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop) {
  if (!device || !prop) return Runtime::Get().Fail(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  Runtime& rt = Runtime::Get();
  constexpr unsigned kKnown = cudaDeviceScheduleMask | cudaDeviceMapHost | cudaDeviceLmemResizeToMax;
  if (flags & ~kKnown) return rt.Fail(cudaErrorInvalidValue);
  rt.device_flags = flags;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (!flags) return Runtime::Get().Fail(cudaErrorInvalidValue);
  // The runtime always reports cudaDeviceMapHost as set.
  *flags = Runtime::Get().device_flags | cudaDeviceMapHost;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  Runtime& rt = Runtime::Get();
  if (!prop) return rt.Fail(cudaErrorInvalidValue);
  if (!ValidDevice(device)) return rt.Fail(cudaErrorInvalidDevice);
  *prop = DescribeDevice();
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  Runtime& rt = Runtime::Get();
  if (!value) return rt.Fail(cudaErrorInvalidValue);
  if (!ValidDevice(device)) return rt.Fail(cudaErrorInvalidDevice);
  const cudaDeviceProp p = DescribeDevice();
  auto clamp = [](size_t v) { return static_cast<int>(std::min<size_t>(v, 0x7fffffff)); };
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = clamp(p.sharedMemPerBlock); break;
    case cudaDevAttrTotalConstantMemory: *value = clamp(p.totalConstMem); break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrMaxPitch: *value = clamp(p.memPitch); break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrClockRate: *value = 1500000; break;  // kHz; not in cudaDeviceProp since CUDA 13
    case cudaDevAttrMemoryClockRate: *value = 5000000; break;
    case cudaDevAttrTextureAlignment: *value = clamp(p.textureAlignment); break;
    case cudaDevAttrTexturePitchAlignment: *value = clamp(p.texturePitchAlignment); break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrKernelExecTimeout: *value = 0; break;
    case cudaDevAttrIntegrated: *value = p.integrated; break;
    case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; break;
    case cudaDevAttrComputeMode: *value = cudaComputeModeDefault; break;
    case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
    case cudaDevAttrEccEnabled: *value = 0; break;
    case cudaDevAttrPciBusId: case cudaDevAttrPciDeviceId: case cudaDevAttrPciDomainId: *value = 0; break;
    case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrStreamPrioritiesSupported: *value = p.streamPrioritiesSupported; break;
    case cudaDevAttrGlobalL1CacheSupported: *value = p.globalL1CacheSupported; break;
    case cudaDevAttrLocalL1CacheSupported: *value = p.localL1CacheSupported; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = clamp(p.sharedMemPerMultiprocessor); break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
    case cudaDevAttrIsMultiGpuBoard: *value = 0; break;
    case cudaDevAttrMultiGpuBoardGroupID: *value = 0; break;
    case cudaDevAttrHostNativeAtomicSupported: *value = p.hostNativeAtomicSupported; break;
    case cudaDevAttrPageableMemoryAccess: *value = p.pageableMemoryAccess; break;
    case cudaDevAttrConcurrentManagedAccess: *value = p.concurrentManagedAccess; break;
    case cudaDevAttrComputePreemptionSupported: *value = p.computePreemptionSupported; break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: *value = 0; break;
    case cudaDevAttrCooperativeLaunch: *value = p.cooperativeLaunch; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = clamp(p.sharedMemPerBlockOptin); break;
    case cudaDevAttrDirectManagedMemAccessFromHost: *value = p.directManagedMemAccessFromHost; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: *value = clamp(p.reservedSharedMemPerBlock); break;
    case cudaDevAttrMemoryPoolsSupported: *value = p.memoryPoolsSupported; break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: *value = 2; break;
    case cudaDevAttrSurfaceAlignment: *value = clamp(p.surfaceAlignment); break;
    case cudaDevAttrGpuOverlap: *value = p.asyncEngineCount > 0 ? 1 : 0; break;
    case cudaDevAttrClusterLaunch: *value = rt.ReportedSm() >= 90 ? 1 : 0; break;  // the emulator runs clusters
    case cudaDevAttrMaxAccessPolicyWindowSize: *value = p.accessPolicyMaxWindowSize; break;
    case cudaDevAttrMaxPersistingL2CacheSize: *value = p.persistingL2CacheMaxSize; break;
    case cudaDevAttrMemSyncDomainCount: *value = 4; break;
    case cudaDevAttrHostRegisterSupported: *value = 1; break;
    case cudaDevAttrHostRegisterReadOnlySupported: *value = 1; break;
    case cudaDevAttrHostNumaId: case cudaDevAttrNumaId: *value = -1; break;
    case cudaDevAttrNumaConfig: *value = cudaDeviceNumaConfigNone; break;
    // What the emulator has no counterpart of: no peer or RDMA links, no IPC,
    // no graphics or OS interop, no sparse or deferred-mapping arrays, no
    // host-resident memory pools, no MPS or TCC.
    case cudaDevAttrCanFlushRemoteWrites: case cudaDevAttrD3D12CigSupported: case cudaDevAttrVulkanCigSupported:
    case cudaDevAttrDeferredMappingCudaArraySupported: case cudaDevAttrGPUDirectRDMASupported:
    case cudaDevAttrGPUDirectRDMAFlushWritesOptions: case cudaDevAttrGPUDirectRDMAWritesOrdering:
    case cudaDevAttrGpuPciDeviceId: case cudaDevAttrGpuPciSubsystemId: case cudaDevAttrHostMemoryPoolsSupported:
    case cudaDevAttrHostNumaMemoryPoolsSupported: case cudaDevAttrHostNumaMultinodeIpcSupported:
    case cudaDevAttrIpcEventSupport: case cudaDevAttrMemoryPoolSupportedHandleTypes: case cudaDevAttrMpsEnabled:
    case cudaDevAttrOnlyPartialHostNativeAtomicSupported: case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
    case cudaDevAttrSparseCudaArraySupported: case cudaDevAttrTccDriver:
    case cudaDevAttrTimelineSemaphoreInteropSupported:
      *value = 0;
      break;
    // Texture and surface limits (DescribeDevice).
    case cudaDevAttrMaxTexture1DWidth: *value = p.maxTexture1D; break;
    case cudaDevAttrMaxTexture1DMipmappedWidth: *value = p.maxTexture1DMipmap; break;
    case cudaDevAttrMaxTexture1DLinearWidth: *value = barracuda::cudart::kTexture1DLinearMaxWidth; break;
    case cudaDevAttrMaxTexture2DWidth: *value = p.maxTexture2D[0]; break;
    case cudaDevAttrMaxTexture2DHeight: *value = p.maxTexture2D[1]; break;
    case cudaDevAttrMaxTexture2DMipmappedWidth: *value = p.maxTexture2DMipmap[0]; break;
    case cudaDevAttrMaxTexture2DMipmappedHeight: *value = p.maxTexture2DMipmap[1]; break;
    case cudaDevAttrMaxTexture2DLinearWidth: *value = p.maxTexture2DLinear[0]; break;
    case cudaDevAttrMaxTexture2DLinearHeight: *value = p.maxTexture2DLinear[1]; break;
    case cudaDevAttrMaxTexture2DLinearPitch: *value = p.maxTexture2DLinear[2]; break;
    case cudaDevAttrMaxTexture2DGatherWidth: *value = p.maxTexture2DGather[0]; break;
    case cudaDevAttrMaxTexture2DGatherHeight: *value = p.maxTexture2DGather[1]; break;
    case cudaDevAttrMaxTexture3DWidth: *value = p.maxTexture3D[0]; break;
    case cudaDevAttrMaxTexture3DHeight: *value = p.maxTexture3D[1]; break;
    case cudaDevAttrMaxTexture3DDepth: *value = p.maxTexture3D[2]; break;
    case cudaDevAttrMaxTexture3DWidthAlt: *value = p.maxTexture3DAlt[0]; break;
    case cudaDevAttrMaxTexture3DHeightAlt: *value = p.maxTexture3DAlt[1]; break;
    case cudaDevAttrMaxTexture3DDepthAlt: *value = p.maxTexture3DAlt[2]; break;
    case cudaDevAttrMaxTextureCubemapWidth: *value = p.maxTextureCubemap; break;
    case cudaDevAttrMaxTexture1DLayeredWidth: *value = p.maxTexture1DLayered[0]; break;
    case cudaDevAttrMaxTexture1DLayeredLayers: *value = p.maxTexture1DLayered[1]; break;
    case cudaDevAttrMaxTexture2DLayeredWidth: *value = p.maxTexture2DLayered[0]; break;
    case cudaDevAttrMaxTexture2DLayeredHeight: *value = p.maxTexture2DLayered[1]; break;
    case cudaDevAttrMaxTexture2DLayeredLayers: *value = p.maxTexture2DLayered[2]; break;
    case cudaDevAttrMaxTextureCubemapLayeredWidth: *value = p.maxTextureCubemapLayered[0]; break;
    case cudaDevAttrMaxTextureCubemapLayeredLayers: *value = p.maxTextureCubemapLayered[1]; break;
    case cudaDevAttrMaxSurface1DWidth: *value = p.maxSurface1D; break;
    case cudaDevAttrMaxSurface2DWidth: *value = p.maxSurface2D[0]; break;
    case cudaDevAttrMaxSurface2DHeight: *value = p.maxSurface2D[1]; break;
    case cudaDevAttrMaxSurface3DWidth: *value = p.maxSurface3D[0]; break;
    case cudaDevAttrMaxSurface3DHeight: *value = p.maxSurface3D[1]; break;
    case cudaDevAttrMaxSurface3DDepth: *value = p.maxSurface3D[2]; break;
    case cudaDevAttrMaxSurface1DLayeredWidth: *value = p.maxSurface1DLayered[0]; break;
    case cudaDevAttrMaxSurface1DLayeredLayers: *value = p.maxSurface1DLayered[1]; break;
    case cudaDevAttrMaxSurface2DLayeredWidth: *value = p.maxSurface2DLayered[0]; break;
    case cudaDevAttrMaxSurface2DLayeredHeight: *value = p.maxSurface2DLayered[1]; break;
    case cudaDevAttrMaxSurface2DLayeredLayers: *value = p.maxSurface2DLayered[2]; break;
    case cudaDevAttrMaxSurfaceCubemapWidth: *value = p.maxSurfaceCubemap; break;
    case cudaDevAttrMaxSurfaceCubemapLayeredWidth: *value = p.maxSurfaceCubemapLayered[0]; break;
    case cudaDevAttrMaxSurfaceCubemapLayeredLayers: *value = p.maxSurfaceCubemapLayered[1]; break;
    default: *value = 0; return rt.Fail(cudaErrorInvalidValue);  // cudaDevAttrMax and the reserved ids
  }
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDriverGetVersion(int* version) {
  if (!version) return Runtime::Get().Fail(cudaErrorInvalidValue);
  *version = kRuntimeVersion;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaRuntimeGetVersion(int* version) {
  if (!version) return Runtime::Get().Fail(cudaErrorInvalidValue);
  *version = kRuntimeVersion;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceGetPCIBusId(char* bus_id, int len, int device) {
  if (!bus_id || len <= 0) return Runtime::Get().Fail(cudaErrorInvalidValue);
  if (!ValidDevice(device)) return Runtime::Get().Fail(cudaErrorInvalidDevice);
  std::snprintf(bus_id, static_cast<size_t>(len), "0000:00:00.0");
  return cudaSuccess;
}

// ---------------------------------------------------------------- limits and configuration

CUDART_EXPORT cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
  Runtime& rt = Runtime::Get();
  if (!value) return rt.Fail(cudaErrorInvalidValue);
  const auto& d = rt.device().description();
  const auto i = static_cast<size_t>(limit);
  if (i >= std::size(rt.limits)) return rt.Fail(cudaErrorUnsupportedLimit);
  if (rt.limits[i] != 0) {
    *value = rt.limits[i];
    return cudaSuccess;
  }
  switch (limit) {
    case cudaLimitStackSize: *value = d.local_bytes_per_thread; break;
    case cudaLimitPrintfFifoSize: *value = 1 << 20; break;
    case cudaLimitMallocHeapSize: *value = 8 << 20; break;
    case cudaLimitDevRuntimeSyncDepth: *value = 2; break;
    case cudaLimitDevRuntimePendingLaunchCount: *value = 2048; break;
    case cudaLimitMaxL2FetchGranularity: *value = 64; break;
    case cudaLimitPersistingL2CacheSize: *value = 0; break;
    default: return rt.Fail(cudaErrorUnsupportedLimit);
  }
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  Runtime& rt = Runtime::Get();
  const auto i = static_cast<size_t>(limit);
  if (i >= std::size(rt.limits) || limit > cudaLimitPersistingL2CacheSize) return rt.Fail(cudaErrorUnsupportedLimit);
  // Stored and reported back; the emulator's local window stays its own size.
  rt.limits[i] = value;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
CUDART_EXPORT cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config) {
  if (!config) return Runtime::Get().Fail(cudaErrorInvalidValue);
  *config = cudaFuncCachePreferNone;
  return cudaSuccess;
}
CUDART_EXPORT cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return cudaSuccess; }
CUDART_EXPORT cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig* config) {
  if (!config) return Runtime::Get().Fail(cudaErrorInvalidValue);
  *config = cudaSharedMemBankSizeFourByte;
  return cudaSuccess;
}

// ---------------------------------------------------------------- synchronisation and reset

CUDART_EXPORT cudaError_t cudaDeviceSynchronize() {
  Runtime& rt = Runtime::Get();
  if (cudaError_t s = rt.sticky()) return rt.Fail(s);
  // Waiting for the whole device would wait for capturing streams.
  if (cudaError_t e = barracuda::cudart::CheckUnsafeCall(/*legacy=*/false)) return e;
  barracuda::cudart::StreamOrder::Get().Barrier();
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceReset() {
  barracuda::cudart::ResetCaptures();
  Runtime::Get().Reset();
  Runtime::LastError() = cudaSuccess;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaProfilerStart() { return cudaSuccess; }
CUDART_EXPORT cudaError_t cudaProfilerStop() { return cudaSuccess; }
