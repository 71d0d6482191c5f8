// CUDA arrays: allocation, queries and copies (arrays.h has the layout).
//
// Every copy to, from or between arrays is a 3D copy of pitched memory (byte
// positions) through cudaMemcpy3D / cudaMemcpy3DAsync and their per-thread
// variants, so direction checks, stream capture and stream order are the ones
// memory.cpp already gives other copies.
#include "ptx_emulator/runtime/arrays.h"

#include <memory>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "ptx_emulator/runtime/runtime_state.h"

extern "C" {
cudaError_t cudaMemcpy3D_ptds(const cudaMemcpy3DParms* p);
cudaError_t cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms* p, cudaStream_t stream);
}

namespace barracuda::cudart {
namespace {

struct Arrays {
  std::mutex mu;
  absl::flat_hash_map<const void*, std::unique_ptr<CudaArray>> live;
};
Arrays& TheArrays() {
  static Arrays* a = new Arrays;  // never destroyed: programs free arrays in atexit handlers
  return *a;
}

cudaError_t MallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, cudaExtent extent,
                        unsigned int flags) {
  Runtime& rt = Runtime::Get();
  if (cudaError_t s = rt.sticky()) return rt.Fail(s);
  if (!array || !desc) return rt.Fail(cudaErrorInvalidValue);
  const size_t element = ElementBytes(*desc);
  if (element == 0) return rt.Fail(cudaErrorInvalidChannelDescriptor);
  if (flags & (cudaArrayCubemap | cudaArrayTextureGather | cudaArraySparse | cudaArrayDeferredMapping)) {
    PrintDiagnostic("cube map, gather, sparse and deferred-mapping CUDA arrays are not supported by the "
                    "emulator backend");
    return rt.Fail(cudaErrorNotSupported);
  }
  // A layered array needs its layer count; a 1D array has no depth.
  if (extent.width == 0 || (extent.height == 0 && extent.depth != 0 && !(flags & cudaArrayLayered)) ||
      ((flags & cudaArrayLayered) && extent.depth == 0))
    return rt.Fail(cudaErrorInvalidValue);
  auto a = std::make_unique<CudaArray>();
  a->desc = *desc;
  a->extent = extent;
  a->flags = flags;
  a->element_bytes = element;
  a->pitch = extent.width * element;
  a->rows = extent.height ? extent.height : 1;
  a->slices = extent.depth ? extent.depth : 1;
  void* data = nullptr;
  if (cudaError_t e = AllocateDevice(&data, a->pitch * a->rows * a->slices)) return e;
  a->data = static_cast<char*>(data);
  Arrays& arrays = TheArrays();
  std::lock_guard lock(arrays.mu);
  *array = reinterpret_cast<cudaArray_t>(a.get());
  arrays.live.emplace(a.get(), std::move(a));
  return cudaSuccess;
}

// The array's pitched memory.
cudaPitchedPtr Pitched(const CudaArray& a) {
  return make_cudaPitchedPtr(a.data, a.pitch, a.pitch, a.rows);
}

// A 2D copy of `width` bytes x `height` rows between pitched memory.
cudaMemcpy3DParms Copy2D(cudaPitchedPtr dst, cudaPos dst_pos, cudaPitchedPtr src, cudaPos src_pos, size_t width,
                         size_t height, cudaMemcpyKind kind) {
  cudaMemcpy3DParms p{};
  p.dstPtr = dst;
  p.dstPos = dst_pos;
  p.srcPtr = src;
  p.srcPos = src_pos;
  p.extent = make_cudaExtent(width, height, 1);
  p.kind = kind;
  return p;
}

// The array's rectangle at byte column `x`, row `y` of `width` bytes x
// `height` rows lies inside it.
cudaError_t Inside(const CudaArray* a, size_t x, size_t y, size_t width, size_t height) {
  if (a == nullptr) return cudaErrorInvalidValue;
  return x + width <= a->pitch && y + height <= a->rows ? cudaSuccess : cudaErrorInvalidValue;
}

// Linear `count` bytes from element (wOffset, hOffset) on (the deprecated
// cudaMemcpyTo/FromArray): with no row padding they are contiguous.
cudaError_t LinearSpan(const CudaArray* a, size_t w, size_t h, size_t count, cudaPitchedPtr& span) {
  if (a == nullptr) return cudaErrorInvalidValue;
  const size_t start = h * a->pitch + w;
  if (w > a->pitch || start + count > a->pitch * a->rows * a->slices) return cudaErrorInvalidValue;
  span = make_cudaPitchedPtr(a->data + start, count, count, 1);
  return cudaSuccess;
}

// Runs the copy as the entry point's variant does.
enum class Via { kSync, kSyncPtds, kAsync, kAsyncPtsz };
cudaError_t Run(const cudaMemcpy3DParms& p, Via via, cudaStream_t stream = nullptr) {
  switch (via) {
    case Via::kSync: return cudaMemcpy3D(&p);
    case Via::kSyncPtds: return cudaMemcpy3D_ptds(&p);
    case Via::kAsync: return cudaMemcpy3DAsync(&p, stream);
    case Via::kAsyncPtsz: return cudaMemcpy3DAsync_ptsz(&p, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t ToArray2D(cudaArray_t dst, size_t w, size_t h, const void* src, size_t spitch, size_t width,
                      size_t height, cudaMemcpyKind kind, Via via, cudaStream_t stream = nullptr) {
  const CudaArray* a = FindArray(dst);
  if (cudaError_t e = Inside(a, w, h, width, height)) return Runtime::Get().Fail(e);
  return Run(Copy2D(Pitched(*a), make_cudaPos(w, h, 0), make_cudaPitchedPtr(const_cast<void*>(src), spitch, width, height),
                    make_cudaPos(0, 0, 0), width, height, kind),
             via, stream);
}

cudaError_t FromArray2D(void* dst, size_t dpitch, cudaArray_const_t src, size_t w, size_t h, size_t width,
                        size_t height, cudaMemcpyKind kind, Via via, cudaStream_t stream = nullptr) {
  const CudaArray* a = FindArray(src);
  if (cudaError_t e = Inside(a, w, h, width, height)) return Runtime::Get().Fail(e);
  return Run(Copy2D(make_cudaPitchedPtr(dst, dpitch, width, height), make_cudaPos(0, 0, 0), Pitched(*a),
                    make_cudaPos(w, h, 0), width, height, kind),
             via, stream);
}

cudaError_t ArrayToArray2D(cudaArray_t dst, size_t wd, size_t hd, cudaArray_const_t src, size_t ws, size_t hs,
                           size_t width, size_t height, cudaMemcpyKind kind, Via via) {
  const CudaArray *d = FindArray(dst), *s = FindArray(src);
  if (cudaError_t e = Inside(d, wd, hd, width, height)) return Runtime::Get().Fail(e);
  if (cudaError_t e = Inside(s, ws, hs, width, height)) return Runtime::Get().Fail(e);
  return Run(Copy2D(Pitched(*d), make_cudaPos(wd, hd, 0), Pitched(*s), make_cudaPos(ws, hs, 0), width, height, kind),
             via);
}

cudaError_t ToArrayLinear(cudaArray_t dst, size_t w, size_t h, const void* src, size_t count, cudaMemcpyKind kind,
                          Via via, cudaStream_t stream = nullptr) {
  cudaPitchedPtr span;
  if (cudaError_t e = LinearSpan(FindArray(dst), w, h, count, span)) return Runtime::Get().Fail(e);
  return Run(Copy2D(span, make_cudaPos(0, 0, 0), make_cudaPitchedPtr(const_cast<void*>(src), count, count, 1),
                    make_cudaPos(0, 0, 0), count, 1, kind),
             via, stream);
}

cudaError_t FromArrayLinear(void* dst, cudaArray_const_t src, size_t w, size_t h, size_t count,
                            cudaMemcpyKind kind, Via via, cudaStream_t stream = nullptr) {
  cudaPitchedPtr span;
  if (cudaError_t e = LinearSpan(FindArray(src), w, h, count, span)) return Runtime::Get().Fail(e);
  return Run(Copy2D(make_cudaPitchedPtr(dst, count, count, 1), make_cudaPos(0, 0, 0), span, make_cudaPos(0, 0, 0),
                    count, 1, kind),
             via, stream);
}

}  // namespace

const CudaArray* FindArray(cudaArray_const_t a) {
  Arrays& arrays = TheArrays();
  std::lock_guard lock(arrays.mu);
  auto it = arrays.live.find(static_cast<const void*>(a));
  return it == arrays.live.end() ? nullptr : it->second.get();
}

size_t ElementBytes(const cudaChannelFormatDesc& d) {
  if (d.f != cudaChannelFormatKindSigned && d.f != cudaChannelFormatKindUnsigned &&
      d.f != cudaChannelFormatKindFloat)
    return 0;
  const int bits[4] = {d.x, d.y, d.z, d.w};
  int channels = 0;
  for (int b : bits) {
    if (b == 0) break;
    if (b != d.x) return 0;
    ++channels;
  }
  for (int k = channels; k < 4; ++k)
    if (bits[k] != 0) return 0;
  if (channels != 1 && channels != 2 && channels != 4) return 0;
  if (d.x != 8 && d.x != 16 && d.x != 32) return 0;
  if (d.f == cudaChannelFormatKindFloat && d.x == 8) return 0;
  return static_cast<size_t>(channels) * d.x / 8;
}

cudaError_t ArraysAsPitched(cudaMemcpy3DParms& p) {
  // With an array on either side positions and the extent's width count elements.
  const CudaArray* s = p.srcArray ? FindArray(p.srcArray) : nullptr;
  const CudaArray* d = p.dstArray ? FindArray(p.dstArray) : nullptr;
  if ((p.srcArray && !s) || (p.dstArray && !d)) return cudaErrorInvalidValue;
  const size_t element = (d ? d : s)->element_bytes;
  if (s && d && s->element_bytes != d->element_bytes) return cudaErrorInvalidValue;
  auto inside = [&](const CudaArray& a, cudaPos pos) {
    return pos.x + p.extent.width <= a.extent.width && pos.y + p.extent.height <= a.rows &&
           pos.z + p.extent.depth <= a.slices;
  };
  if ((s && !inside(*s, p.srcPos)) || (d && !inside(*d, p.dstPos))) return cudaErrorInvalidValue;
  if (s) p.srcPtr = Pitched(*s), p.srcArray = nullptr;
  if (d) p.dstPtr = Pitched(*d), p.dstArray = nullptr;
  p.srcPos.x *= element;
  p.dstPos.x *= element;
  p.extent.width *= element;
  return cudaSuccess;
}

}  // namespace barracuda::cudart

namespace rt = barracuda::cudart;
using rt::Via;

CUDART_EXPORT cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width,
                                          size_t height, unsigned int flags) {
  return rt::MallocArray(array, desc, make_cudaExtent(width, height, 0), flags);
}
CUDART_EXPORT cudaError_t cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, cudaExtent extent,
                                            unsigned int flags) {
  return rt::MallocArray(array, desc, extent, flags);
}

CUDART_EXPORT cudaError_t cudaFreeArray(cudaArray_t array) {
  if (array == nullptr) return cudaSuccess;
  rt::Arrays& arrays = rt::TheArrays();
  std::unique_ptr<rt::CudaArray> a;
  {
    std::lock_guard lock(arrays.mu);
    auto it = arrays.live.find(static_cast<const void*>(array));
    if (it == arrays.live.end()) return rt::Runtime::Get().Fail(cudaErrorInvalidValue);
    a = std::move(it->second);
    arrays.live.erase(it);
  }
  return rt::FreeDevice(a->data);
}

CUDART_EXPORT cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned int* flags,
                                           cudaArray_t array) {
  const rt::CudaArray* a = rt::FindArray(array);
  if (a == nullptr) return rt::Runtime::Get().Fail(cudaErrorInvalidValue);
  if (desc) *desc = a->desc;
  if (extent) *extent = a->extent;
  if (flags) *flags = a->flags;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc* desc, cudaArray_const_t array) {
  const rt::CudaArray* a = rt::FindArray(array);
  if (a == nullptr || desc == nullptr) return rt::Runtime::Get().Fail(cudaErrorInvalidValue);
  *desc = a->desc;
  return cudaSuccess;
}

// ---------------------------------------------------------------- copies
// Each synchronous entry point and its _ptds twin; each async one and its _ptsz twin.
#define BARRACUDA_ARRAY_COPY(name, params, call_sync)                                          \
  CUDART_EXPORT cudaError_t name params { return call_sync(Via::kSync); }                     \
  CUDART_EXPORT cudaError_t name##_ptds params { return call_sync(Via::kSyncPtds); }
#define BARRACUDA_ARRAY_COPY_ASYNC(name, params, call_async)                                   \
  CUDART_EXPORT cudaError_t name params { return call_async(Via::kAsync); }                   \
  CUDART_EXPORT cudaError_t name##_ptsz params { return call_async(Via::kAsyncPtsz); }

#define TO2D(via) rt::ToArray2D(dst, w, h, src, spitch, width, height, kind, via)
BARRACUDA_ARRAY_COPY(cudaMemcpy2DToArray,
                     (cudaArray_t dst, size_t w, size_t h, const void* src, size_t spitch, size_t width,
                      size_t height, cudaMemcpyKind kind),
                     TO2D)
#define TO2D_ASYNC(via) rt::ToArray2D(dst, w, h, src, spitch, width, height, kind, via, stream)
BARRACUDA_ARRAY_COPY_ASYNC(cudaMemcpy2DToArrayAsync,
                           (cudaArray_t dst, size_t w, size_t h, const void* src, size_t spitch, size_t width,
                            size_t height, cudaMemcpyKind kind, cudaStream_t stream),
                           TO2D_ASYNC)
#define FROM2D(via) rt::FromArray2D(dst, dpitch, src, w, h, width, height, kind, via)
BARRACUDA_ARRAY_COPY(cudaMemcpy2DFromArray,
                     (void* dst, size_t dpitch, cudaArray_const_t src, size_t w, size_t h, size_t width,
                      size_t height, cudaMemcpyKind kind),
                     FROM2D)
#define FROM2D_ASYNC(via) rt::FromArray2D(dst, dpitch, src, w, h, width, height, kind, via, stream)
BARRACUDA_ARRAY_COPY_ASYNC(cudaMemcpy2DFromArrayAsync,
                           (void* dst, size_t dpitch, cudaArray_const_t src, size_t w, size_t h, size_t width,
                            size_t height, cudaMemcpyKind kind, cudaStream_t stream),
                           FROM2D_ASYNC)
#define A2A2D(via) rt::ArrayToArray2D(dst, wd, hd, src, ws, hs, width, height, kind, via)
BARRACUDA_ARRAY_COPY(cudaMemcpy2DArrayToArray,
                     (cudaArray_t dst, size_t wd, size_t hd, cudaArray_const_t src, size_t ws, size_t hs,
                      size_t width, size_t height, cudaMemcpyKind kind),
                     A2A2D)
#define A2A(via) rt::ArrayToArray2D(dst, wd, hd, src, ws, hs, count, 1, kind, via)
BARRACUDA_ARRAY_COPY(cudaMemcpyArrayToArray,
                     (cudaArray_t dst, size_t wd, size_t hd, cudaArray_const_t src, size_t ws, size_t hs,
                      size_t count, cudaMemcpyKind kind),
                     A2A)
#define TO(via) rt::ToArrayLinear(dst, w, h, src, count, kind, via)
BARRACUDA_ARRAY_COPY(cudaMemcpyToArray,
                     (cudaArray_t dst, size_t w, size_t h, const void* src, size_t count, cudaMemcpyKind kind), TO)
#define TO_ASYNC(via) rt::ToArrayLinear(dst, w, h, src, count, kind, via, stream)
BARRACUDA_ARRAY_COPY_ASYNC(cudaMemcpyToArrayAsync,
                           (cudaArray_t dst, size_t w, size_t h, const void* src, size_t count,
                            cudaMemcpyKind kind, cudaStream_t stream),
                           TO_ASYNC)
#define FROM(via) rt::FromArrayLinear(dst, src, w, h, count, kind, via)
BARRACUDA_ARRAY_COPY(cudaMemcpyFromArray,
                     (void* dst, cudaArray_const_t src, size_t w, size_t h, size_t count, cudaMemcpyKind kind),
                     FROM)
#define FROM_ASYNC(via) rt::FromArrayLinear(dst, src, w, h, count, kind, via, stream)
BARRACUDA_ARRAY_COPY_ASYNC(cudaMemcpyFromArrayAsync,
                           (void* dst, cudaArray_const_t src, size_t w, size_t h, size_t count,
                            cudaMemcpyKind kind, cudaStream_t stream),
                           FROM_ASYNC)
