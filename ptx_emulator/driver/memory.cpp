// Memory: allocation, copies, sets and pointer attributes through the
// runtime (device address == host address in the emulator, so a CUdeviceptr
// is the runtime's device pointer). Synchronous _ptds copies and sets run on
// the calling thread's default stream and wait for it.
//
// cuMemsetD16/D32 and the 2D sets have no runtime call of their own: they
// are a memset graph node (cudaMemsetParams takes 1-, 2- and 4-byte elements
// and a pitch) launched on the stream, which is what the runtime's
// stream work does for them anyway, and what a capturing stream records.
#include <cstring>

#include "ptx_emulator/driver/driver_api.h"

using barracuda::cuda_driver::CheckInit;
using barracuda::cuda_driver::DevPtr;
using barracuda::cuda_driver::PerThread;
using barracuda::cuda_driver::Ptr;
using barracuda::cuda_driver::Run;
using barracuda::cuda_driver::Stream;
using barracuda::cuda_driver::ToResult;

namespace {

// Runs the copy or set `op` on `stream`; `sync`: waits for the stream (the
// synchronous _ptds variants).
template <typename Op>
CUresult OnStream(cudaStream_t stream, bool sync, Op op) {
  return Run([&] {
    const cudaError_t e = op(stream);
    return e == cudaSuccess && sync ? cudaStreamSynchronize(stream) : e;
  });
}

// `height` rows of `width` elements of `element_size` bytes, `pitch` bytes apart.
cudaError_t SetElements(CUdeviceptr dst, size_t pitch, unsigned value, unsigned element_size, size_t width,
                        size_t height, cudaStream_t stream) {
  cudaMemsetParams p{};
  p.dst = Ptr(dst);
  p.pitch = pitch;
  p.value = value;
  p.elementSize = element_size;
  p.width = width;
  p.height = height;
  cudaGraph_t graph = nullptr;
  cudaGraphNode_t node = nullptr;
  cudaGraphExec_t exec = nullptr;
  cudaError_t e = cudaGraphCreate(&graph, 0);
  if (e == cudaSuccess) e = cudaGraphAddMemsetNode(&node, graph, nullptr, 0, &p);
  if (e == cudaSuccess) e = cudaGraphInstantiate(&exec, graph, 0);
  if (e == cudaSuccess) e = cudaGraphLaunch(exec, stream);
  if (exec) cudaGraphExecDestroy(exec);
  if (graph) cudaGraphDestroy(graph);
  return e;
}

// The address of a 2D copy's side (host, device or unified; arrays are not implemented).
CUresult Side(CUmemorytype type, const void* host, CUdeviceptr device, size_t x, size_t y, size_t pitch,
              const void** out) {
  const size_t offset = y * pitch + x;
  switch (type) {
    case CU_MEMORYTYPE_HOST: *out = static_cast<const char*>(host) + offset; return CUDA_SUCCESS;
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED: *out = static_cast<const char*>(Ptr(device)) + offset; return CUDA_SUCCESS;
    default: return CUDA_ERROR_NOT_SUPPORTED;  // CUDA arrays
  }
}

CUresult Copy2D(const CUDA_MEMCPY2D* c, cudaStream_t stream, bool sync) {
  if (CUresult r = CheckInit()) return r;
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  const void* src = nullptr;
  const void* dst = nullptr;
  if (CUresult r = Side(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcXInBytes, c->srcY, c->srcPitch, &src))
    return r;
  if (CUresult r = Side(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstXInBytes, c->dstY, c->dstPitch, &dst))
    return r;
  return OnStream(stream, sync, [&](cudaStream_t s) {
    return cudaMemcpy2DAsync(const_cast<void*>(dst), c->dstPitch, src, c->srcPitch, c->WidthInBytes, c->Height,
                             cudaMemcpyDefault, s);
  });
}

CUresult Copy(void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t stream, bool sync) {
  // The synchronous legacy-stream copy is the runtime's cudaMemcpy, with its
  // implicit synchronisation (stream_order.h).
  if (sync && stream == cudaStreamLegacy) {
    if (CUresult r = CheckInit()) return r;
    return ToResult(cudaMemcpy(dst, src, n, kind));
  }
  return OnStream(stream, sync, [&](cudaStream_t s) { return cudaMemcpyAsync(dst, src, n, kind, s); });
}

CUresult Set(CUdeviceptr dst, size_t pitch, unsigned value, unsigned element_size, size_t width, size_t height,
             cudaStream_t stream, bool sync) {
  return OnStream(stream, sync, [&](cudaStream_t s) {
    // One byte wide: the runtime's own memset.
    if (element_size == 1 && height == 1 && sync && s == cudaStreamLegacy)
      return cudaMemset(Ptr(dst), static_cast<int>(value), width);
    if (element_size == 1 && height == 1) return cudaMemsetAsync(Ptr(dst), static_cast<int>(value), width, s);
    return SetElements(dst, pitch, value, element_size, width, height, s);
  });
}

}  // namespace

// ---------------------------------------------------------------- allocation

CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize) {
  if (CUresult r = CheckInit()) return r;
  if (!dptr || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  if (cudaError_t e = cudaMalloc(&p, bytesize)) return ToResult(e);
  *dptr = DevPtr(p);
  return CUDA_SUCCESS;
}

CUresult cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pPitch, size_t WidthInBytes, size_t Height,
                            unsigned int ElementSizeBytes) {
  if (CUresult r = CheckInit()) return r;
  if (!dptr || !pPitch || (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
    return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  if (cudaError_t e = cudaMallocPitch(&p, pPitch, WidthInBytes, Height)) return ToResult(e);
  *dptr = DevPtr(p);
  return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr dptr) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaFree(Ptr(dptr)));
}

CUresult cuMemAllocHost_v2(void** pp, size_t bytesize) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaMallocHost(pp, bytesize));
}

// CU_MEMHOSTALLOC_* and cudaHostAlloc* flags have the same values.
CUresult cuMemHostAlloc(void** pp, size_t bytesize, unsigned int Flags) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaHostAlloc(pp, bytesize, Flags));
}

CUresult cuMemFreeHost(void* p) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaFreeHost(p));
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* pdptr, void* p, unsigned int Flags) {
  if (CUresult r = CheckInit()) return r;
  if (!pdptr) return CUDA_ERROR_INVALID_VALUE;
  void* d = nullptr;
  if (cudaError_t e = cudaHostGetDevicePointer(&d, p, Flags)) return ToResult(e);
  *pdptr = DevPtr(d);
  return CUDA_SUCCESS;
}

// CU_MEM_ATTACH_GLOBAL / HOST equal cudaMemAttachGlobal / Host.
CUresult cuMemAllocManaged(CUdeviceptr* dptr, size_t bytesize, unsigned int flags) {
  if (CUresult r = CheckInit()) return r;
  if (!dptr) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  if (cudaError_t e = cudaMallocManaged(&p, bytesize, flags)) return ToResult(e);
  *dptr = DevPtr(p);
  return CUDA_SUCCESS;
}

CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaMemGetInfo(free, total));
}

// ---------------------------------------------------------------- copies

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  return Copy(Ptr(dst), Ptr(src), ByteCount, cudaMemcpyDefault, cudaStreamLegacy, true);
}
CU_EXPORT CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  return Copy(Ptr(dst), Ptr(src), ByteCount, cudaMemcpyDefault, cudaStreamPerThread, true);
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) {
  return Copy(Ptr(dst), Ptr(src), ByteCount, cudaMemcpyDefault, Stream(hStream), false);
}
CU_EXPORT CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) {
  return Copy(Ptr(dst), Ptr(src), ByteCount, cudaMemcpyDefault, PerThread(hStream), false);
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount) {
  return Copy(Ptr(dstDevice), srcHost, ByteCount, cudaMemcpyHostToDevice, cudaStreamLegacy, true);
}
CU_EXPORT CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount) {
  return Copy(Ptr(dstDevice), srcHost, ByteCount, cudaMemcpyHostToDevice, cudaStreamPerThread, true);
}
CUresult cuMemcpyDtoH_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  return Copy(dstHost, Ptr(srcDevice), ByteCount, cudaMemcpyDeviceToHost, cudaStreamLegacy, true);
}
CU_EXPORT CUresult cuMemcpyDtoH_v2_ptds(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  return Copy(dstHost, Ptr(srcDevice), ByteCount, cudaMemcpyDeviceToHost, cudaStreamPerThread, true);
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  return Copy(Ptr(dstDevice), Ptr(srcDevice), ByteCount, cudaMemcpyDeviceToDevice, cudaStreamLegacy, true);
}
CU_EXPORT CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  return Copy(Ptr(dstDevice), Ptr(srcDevice), ByteCount, cudaMemcpyDeviceToDevice, cudaStreamPerThread, true);
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount, CUstream hStream) {
  return Copy(Ptr(dstDevice), srcHost, ByteCount, cudaMemcpyHostToDevice, Stream(hStream), false);
}
CU_EXPORT CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount,
                                             CUstream hStream) {
  return Copy(Ptr(dstDevice), srcHost, ByteCount, cudaMemcpyHostToDevice, PerThread(hStream), false);
}
CUresult cuMemcpyDtoHAsync_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  return Copy(dstHost, Ptr(srcDevice), ByteCount, cudaMemcpyDeviceToHost, Stream(hStream), false);
}
CU_EXPORT CUresult cuMemcpyDtoHAsync_v2_ptsz(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                             CUstream hStream) {
  return Copy(dstHost, Ptr(srcDevice), ByteCount, cudaMemcpyDeviceToHost, PerThread(hStream), false);
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  return Copy(Ptr(dstDevice), Ptr(srcDevice), ByteCount, cudaMemcpyDeviceToDevice, Stream(hStream), false);
}
CU_EXPORT CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                             CUstream hStream) {
  return Copy(Ptr(dstDevice), Ptr(srcDevice), ByteCount, cudaMemcpyDeviceToDevice, PerThread(hStream), false);
}

CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D* pCopy) { return Copy2D(pCopy, cudaStreamLegacy, true); }
CU_EXPORT CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D* pCopy) { return Copy2D(pCopy, cudaStreamPerThread, true); }
CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D* pCopy) { return Copy2D(pCopy, cudaStreamLegacy, true); }
CU_EXPORT CUresult cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D* pCopy) {
  return Copy2D(pCopy, cudaStreamPerThread, true);
}
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D* pCopy, CUstream hStream) {
  return Copy2D(pCopy, Stream(hStream), false);
}
CU_EXPORT CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D* pCopy, CUstream hStream) {
  return Copy2D(pCopy, PerThread(hStream), false);
}

// ---------------------------------------------------------------- sets

CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  return Set(dstDevice, N, uc, 1, N, 1, cudaStreamLegacy, true);
}
CU_EXPORT CUresult cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  return Set(dstDevice, N, uc, 1, N, 1, cudaStreamPerThread, true);
}
CUresult cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N) {
  return Set(dstDevice, N * 2, us, 2, N, 1, cudaStreamLegacy, true);
}
CU_EXPORT CUresult cuMemsetD16_v2_ptds(CUdeviceptr dstDevice, unsigned short us, size_t N) {
  return Set(dstDevice, N * 2, us, 2, N, 1, cudaStreamPerThread, true);
}
CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  return Set(dstDevice, N * 4, ui, 4, N, 1, cudaStreamLegacy, true);
}
CU_EXPORT CUresult cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  return Set(dstDevice, N * 4, ui, 4, N, 1, cudaStreamPerThread, true);
}
CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) {
  return Set(dstDevice, N, uc, 1, N, 1, Stream(hStream), false);
}
CU_EXPORT CUresult cuMemsetD8Async_ptsz(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) {
  return Set(dstDevice, N, uc, 1, N, 1, PerThread(hStream), false);
}
CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream) {
  return Set(dstDevice, N * 2, us, 2, N, 1, Stream(hStream), false);
}
CU_EXPORT CUresult cuMemsetD16Async_ptsz(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream) {
  return Set(dstDevice, N * 2, us, 2, N, 1, PerThread(hStream), false);
}
CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) {
  return Set(dstDevice, N * 4, ui, 4, N, 1, Stream(hStream), false);
}
CU_EXPORT CUresult cuMemsetD32Async_ptsz(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) {
  return Set(dstDevice, N * 4, ui, 4, N, 1, PerThread(hStream), false);
}
CUresult cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height) {
  return Set(dstDevice, dstPitch, uc, 1, Width, Height, cudaStreamLegacy, true);
}
CUresult cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height) {
  return Set(dstDevice, dstPitch, us, 2, Width, Height, cudaStreamLegacy, true);
}
CUresult cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height) {
  return Set(dstDevice, dstPitch, ui, 4, Width, Height, cudaStreamLegacy, true);
}
CUresult cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height,
                           CUstream hStream) {
  return Set(dstDevice, dstPitch, uc, 1, Width, Height, Stream(hStream), false);
}
CUresult cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height,
                            CUstream hStream) {
  return Set(dstDevice, dstPitch, us, 2, Width, Height, Stream(hStream), false);
}
CUresult cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height,
                            CUstream hStream) {
  return Set(dstDevice, dstPitch, ui, 4, Width, Height, Stream(hStream), false);
}

// ---------------------------------------------------------------- pointer attributes

CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  if (CUresult r = CheckInit()) return r;
  if (!data) return CUDA_ERROR_INVALID_VALUE;
  cudaPointerAttributes a{};
  if (cudaError_t e = cudaPointerGetAttributes(&a, Ptr(ptr))) return ToResult(e);
  // Memory the runtime did not allocate (or register) is unknown to the driver.
  if (a.type == cudaMemoryTypeUnregistered) return CUDA_ERROR_INVALID_VALUE;
  switch (attribute) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      // Managed memory is device memory that is also managed, as the driver says.
      *static_cast<unsigned*>(data) = a.type == cudaMemoryTypeHost ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *static_cast<CUdeviceptr*>(data) = DevPtr(a.devicePointer); return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER: *static_cast<void**>(data) = a.hostPointer; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: *static_cast<int*>(data) = a.type == cudaMemoryTypeManaged; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *static_cast<int*>(data) = a.device; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: *static_cast<int*>(data) = 1; return CUDA_SUCCESS;  // execution is synchronous
    case CU_POINTER_ATTRIBUTE_MAPPED: *static_cast<int*>(data) = 1; return CUDA_SUCCESS;
    default: return CUDA_ERROR_NOT_SUPPORTED;
  }
}
