#include "host_detector/gpu_agent/device_backend.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"
#include "host_detector/gpu_agent/cuda_declarations.h"
#include "host_detector/gpu_agent/real_driver.h"
#include "host_detector/gpu_agent/real_runtime.h"

namespace barracuda::gpu_agent {
namespace {

// Every function is resolved at its first use, not before: a driver-only
// program has no runtime to resolve the runtime's from (FindReal would say so
// on stderr), and the runtime path never touches the driver's.
class RuntimeBackend final : public DeviceBackend {
 public:
  const char* name() const override { return "CUDA runtime"; }

  absl::StatusOr<DeviceInfo> Device() override {
    static auto* get_device = Real<decltype(cudaGetDevice)>("cudaGetDevice");
    static auto* attribute = Real<decltype(cudaDeviceGetAttribute)>("cudaDeviceGetAttribute");
    static auto* mem_info = Real<decltype(cudaMemGetInfo)>("cudaMemGetInfo");
    if (!get_device || !attribute || !mem_info)
      return absl::InternalError("the CUDA runtime lacks functions the agent needs");
    int device = 0;
    DeviceInfo info;
    size_t free_bytes = 0;
    if (cudaError_t e = get_device(&device); e != cudaSuccess)
      return absl::UnavailableError(absl::StrCat("cudaGetDevice: ", ErrorText(e)));
    if (cudaError_t e = attribute(&info.sms, cudaDevAttrMultiProcessorCount, device); e != cudaSuccess)
      return absl::UnavailableError(absl::StrCat("cudaDeviceGetAttribute: ", ErrorText(e)));
    if (cudaError_t e = mem_info(&free_bytes, &info.total_bytes); e != cudaSuccess)
      return absl::UnavailableError(absl::StrCat("cudaMemGetInfo: ", ErrorText(e)));
    if (attribute(&info.reserved_shared, cudaDevAttrReservedSharedMemoryPerBlock, device) != cudaSuccess)
      info.reserved_shared = 0;
    return info;
  }

  absl::Status AllocMapped(size_t bytes, void** host, uint64_t* device) override {
    static auto* host_alloc = Real<decltype(cudaHostAlloc)>("cudaHostAlloc");
    static auto* device_pointer = Real<decltype(cudaHostGetDevicePointer)>("cudaHostGetDevicePointer");
    if (!host_alloc || !device_pointer) return absl::InternalError("the CUDA runtime lacks functions the agent needs");
    void* h = nullptr;
    if (cudaError_t e = host_alloc(&h, bytes, cudaHostAllocMapped | cudaHostAllocPortable); e != cudaSuccess)
      return absl::ResourceExhaustedError(ErrorText(e));
    void* d = nullptr;
    if (cudaError_t e = device_pointer(&d, h, 0); e != cudaSuccess) {
      FreeMapped(h);
      return absl::UnavailableError(absl::StrCat("cudaHostGetDevicePointer: ", ErrorText(e)));
    }
    *host = h;
    *device = reinterpret_cast<uint64_t>(d);
    return absl::OkStatus();
  }

  void FreeMapped(void* host) override {
    static auto* free_host = Real<decltype(cudaFreeHost)>("cudaFreeHost");
    if (host != nullptr && free_host != nullptr) free_host(host);
  }

  void* AllocZeroedDevice(size_t bytes) override {
    static auto* malloc_device = Real<decltype(cudaMalloc)>("cudaMalloc");
    static auto* memset_device = Real<decltype(cudaMemset)>("cudaMemset");
    void* p = nullptr;
    if (malloc_device == nullptr || memset_device == nullptr || malloc_device(&p, bytes) != cudaSuccess) return nullptr;
    if (memset_device(p, 0, bytes) != cudaSuccess) {
      FreeDevice(p);  // allocated, not cleared
      return nullptr;
    }
    return p;
  }

  void FreeDevice(void* p) override {
    static auto* free_device = Real<decltype(cudaFree)>("cudaFree");
    if (p != nullptr && free_device != nullptr) free_device(p);
  }

  int Synchronize() override {
    static auto* synchronize = Real<decltype(cudaDeviceSynchronize)>("cudaDeviceSynchronize");
    return synchronize != nullptr ? synchronize() : cudaSuccess;
  }

  bool Capturing(void* stream) override {
    static auto* capturing = Real<decltype(cudaStreamIsCapturing)>("cudaStreamIsCapturing");
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    return capturing != nullptr && capturing(static_cast<cudaStream_t>(stream), &capture) == cudaSuccess &&
           capture != cudaStreamCaptureStatusNone;
  }

  std::string ErrorText(int code) override {
    static auto* name = Real<decltype(cudaGetErrorName)>("cudaGetErrorName");
    static auto* text = Real<decltype(cudaGetErrorString)>("cudaGetErrorString");
    const auto e = static_cast<cudaError_t>(code);
    return absl::StrCat(name ? name(e) : "error", " (", text ? text(e) : "", ")");
  }
};

// The driver's calls act on the calling thread's current context: the one the
// program's driver launch runs in.
class DriverBackend final : public DeviceBackend {
 public:
  const char* name() const override { return "CUDA driver"; }

  absl::StatusOr<DeviceInfo> Device() override {
    static auto* get_device = RealDriver<decltype(cuCtxGetDevice)>("cuCtxGetDevice");
    static auto* attribute = RealDriver<decltype(cuDeviceGetAttribute)>("cuDeviceGetAttribute");
    static auto* mem_info = RealDriver<decltype(cuMemGetInfo_v2)>("cuMemGetInfo_v2");
    if (!get_device || !attribute || !mem_info)
      return absl::InternalError("the CUDA driver lacks functions the agent needs");
    CUdevice device = 0;
    DeviceInfo info;
    size_t free_bytes = 0;
    if (CUresult r = get_device(&device); r != CUDA_SUCCESS)
      return absl::UnavailableError(absl::StrCat("cuCtxGetDevice: ", ErrorText(r)));
    if (CUresult r = attribute(&info.sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device); r != CUDA_SUCCESS)
      return absl::UnavailableError(absl::StrCat("cuDeviceGetAttribute: ", ErrorText(r)));
    if (CUresult r = mem_info(&free_bytes, &info.total_bytes); r != CUDA_SUCCESS)
      return absl::UnavailableError(absl::StrCat("cuMemGetInfo: ", ErrorText(r)));
    if (attribute(&info.reserved_shared, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, device) !=
        CUDA_SUCCESS)
      info.reserved_shared = 0;
    return info;
  }

  absl::Status AllocMapped(size_t bytes, void** host, uint64_t* device) override {
    static auto* host_alloc = RealDriver<decltype(cuMemHostAlloc)>("cuMemHostAlloc");
    static auto* device_pointer = RealDriver<decltype(cuMemHostGetDevicePointer_v2)>("cuMemHostGetDevicePointer_v2");
    if (!host_alloc || !device_pointer) return absl::InternalError("the CUDA driver lacks functions the agent needs");
    void* h = nullptr;
    // PORTABLE: mapped in every context, as the runtime's cudaHostAllocPortable.
    if (CUresult r = host_alloc(&h, bytes, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE); r != CUDA_SUCCESS)
      return absl::ResourceExhaustedError(ErrorText(r));
    CUdeviceptr d = 0;
    if (CUresult r = device_pointer(&d, h, 0); r != CUDA_SUCCESS) {
      FreeMapped(h);
      return absl::UnavailableError(absl::StrCat("cuMemHostGetDevicePointer: ", ErrorText(r)));
    }
    *host = h;
    *device = static_cast<uint64_t>(d);
    return absl::OkStatus();
  }

  void FreeMapped(void* host) override {
    static auto* free_host = RealDriver<decltype(cuMemFreeHost)>("cuMemFreeHost");
    if (host != nullptr && free_host != nullptr) free_host(host);
  }

  void* AllocZeroedDevice(size_t bytes) override {
    static auto* malloc_device = RealDriver<decltype(cuMemAlloc_v2)>("cuMemAlloc_v2");
    static auto* memset_device = RealDriver<decltype(cuMemsetD8_v2)>("cuMemsetD8_v2");
    CUdeviceptr p = 0;
    if (malloc_device == nullptr || memset_device == nullptr || malloc_device(&p, bytes) != CUDA_SUCCESS)
      return nullptr;
    if (memset_device(p, 0, bytes) != CUDA_SUCCESS) {
      FreeDevice(reinterpret_cast<void*>(p));  // allocated, not cleared
      return nullptr;
    }
    return reinterpret_cast<void*>(p);
  }

  void FreeDevice(void* p) override {
    static auto* free_device = RealDriver<decltype(cuMemFree_v2)>("cuMemFree_v2");
    if (p != nullptr && free_device != nullptr) free_device(reinterpret_cast<CUdeviceptr>(p));
  }

  int Synchronize() override {
    static auto* synchronize = RealDriver<decltype(cuCtxSynchronize)>("cuCtxSynchronize");
    return synchronize != nullptr ? synchronize() : CUDA_SUCCESS;
  }

  bool Capturing(void* stream) override {
    static auto* capturing = RealDriver<decltype(cuStreamIsCapturing)>("cuStreamIsCapturing");
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    return capturing != nullptr && capturing(static_cast<CUstream>(stream), &capture) == CUDA_SUCCESS &&
           capture != CU_STREAM_CAPTURE_STATUS_NONE;
  }

  std::string ErrorText(int code) override {
    static auto* name = RealDriver<decltype(cuGetErrorName)>("cuGetErrorName");
    static auto* text = RealDriver<decltype(cuGetErrorString)>("cuGetErrorString");
    const char* n = nullptr;
    const char* t = nullptr;
    const auto r = static_cast<CUresult>(code);
    if (name == nullptr || name(r, &n) != CUDA_SUCCESS || n == nullptr) return absl::StrCat("CUresult ", code);
    if (text == nullptr || text(r, &t) != CUDA_SUCCESS || t == nullptr) t = "";
    return absl::StrCat(n, " (", t, ")");
  }
};

// A program that loaded no CUDA runtime: NOLOAD finds the library only if it
// is in the process already, and loads nothing.
bool RuntimeLoaded() {
  void* lib = dlopen(kCudartVersionNode, RTLD_LAZY | RTLD_NOLOAD);
  if (lib == nullptr) return false;
  dlclose(lib);  // NOLOAD took a reference
  return true;
}

}  // namespace

DeviceBackend& RuntimeDeviceBackend() {
  static RuntimeBackend backend;
  return backend;
}

DeviceBackend& DriverDeviceBackend() {
  static DriverBackend backend;
  return backend;
}

DeviceBackend& SelectDeviceBackend(const AgentConfig& config, bool driver_launch) {
  return UseDriverQueues(config, driver_launch, RuntimeLoaded()) ? DriverDeviceBackend() : RuntimeDeviceBackend();
}

}  // namespace barracuda::gpu_agent
