// Shared by the sources of the replacement libcuda.so.1: the toolkit's cuda.h
// and cuda_runtime_api.h with default visibility (the implemented driver
// functions are exported under the names cuda.h maps them to, e.g.
// cuMemAlloc -> cuMemAlloc_v2), and the translation helpers.
//
// Every driver call is carried out by the replacement libcudart.so.13's
// runtime API (this library's only CUDA dependency), so launches, memory,
// streams and events have one implementation, the runtime's:
//   CUstream == cudaStream_t, CUevent == cudaEvent_t, CUdeviceptr == the
//   device (= host) address, CUmodule == CUlibrary == cudaLibrary_t,
//   CUfunction == CUkernel == cudaKernel_t, CUgraph == cudaGraph_t.
#ifndef BARRACUDA_PTX_EMULATOR_DRIVER_DRIVER_API_H_
#define BARRACUDA_PTX_EMULATOR_DRIVER_DRIVER_API_H_

#pragma GCC visibility push(default)
#include <cuda.h>
#include <cuda_runtime_api.h>
#pragma GCC visibility pop

#include <cstdint>

// Definitions the header declares only under CUDA_API_PER_THREAD_DEFAULT_STREAM
// (the _ptds / _ptsz variants) are exported with this.
#define CU_EXPORT extern "C" __attribute__((visibility("default")))

namespace barracuda::cuda_driver {

// The runtime's error as the driver reports it. CUDA 13's two enumerations
// agree on every value they share; the runtime-only values map to the
// driver's nearest (invalid configuration, pitch, pointer, direction ->
// CUDA_ERROR_INVALID_VALUE; invalid symbol -> CUDA_ERROR_NOT_FOUND; invalid
// device function -> CUDA_ERROR_INVALID_HANDLE), anything else to
// CUDA_ERROR_UNKNOWN.
CUresult ToResult(cudaError_t e);

// CUDA_ERROR_NOT_INITIALIZED until cuInit(0) succeeded, as the driver does.
CUresult CheckInit();

// A call carried out by the runtime: CUDA_ERROR_NOT_INITIALIZED before
// cuInit, else `call`'s cudaError_t as a CUresult.
template <typename Call>
CUresult Run(Call call) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(call());
}

inline void* Ptr(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }
inline CUdeviceptr DevPtr(const void* p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); }
inline cudaStream_t Stream(CUstream s) { return reinterpret_cast<cudaStream_t>(s); }
// A driver function or library kernel handle is the runtime's kernel key.
inline const void* Kernel(CUfunction f) { return reinterpret_cast<const void*>(f); }
inline const void* Kernel(CUkernel k) { return reinterpret_cast<const void*>(k); }
// The _ptsz / _ptds variants: the NULL stream is the calling thread's default stream.
inline cudaStream_t PerThread(CUstream s) { return s ? Stream(s) : cudaStreamPerThread; }

}  // namespace barracuda::cuda_driver

#endif  // BARRACUDA_PTX_EMULATOR_DRIVER_DRIVER_API_H_
