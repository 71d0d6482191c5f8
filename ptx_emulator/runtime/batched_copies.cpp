// Batched copies and managed-memory batches (CUDA 12.8+): each copy of a
// cudaMemcpyBatchAsync is a cudaMemcpyAsync on the stream, in order, and so
// is traced, stream-order checked and captured like one; prefetch batches
// are cudaMemPrefetchAsync per range (managed_advice.cpp). A discard leaves
// the bytes as they are, which the runtime allows (discarded memory reads
// back as any value). Checked as the runtime documents: one attribute entry
// at least, the first applying from copy 0, each later one from a later copy,
// a known source access order, not the legacy stream.
#include <vector>

#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/runtime/runtime_state.h"

// Per-thread-stream entry points of this library (memory.cpp, managed_advice.cpp).
extern "C" cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                                            cudaStream_t stream);
extern "C" cudaError_t cudaMemPrefetchAsync_ptsz(const void* ptr, size_t count, cudaMemLocation location,
                                                 unsigned int flags, cudaStream_t stream);

namespace {

using barracuda::cudart::Runtime;

// Index lists of the "entry k applies from idxs[k] on" form.
bool ValidRanges(const size_t* idxs, size_t n, size_t count) {
  if (!idxs || n == 0 || n > count || idxs[0] != 0) return false;
  for (size_t k = 1; k < n; ++k) {
    if (idxs[k] <= idxs[k - 1] || idxs[k] >= count) return false;
  }
  return true;
}

// The entry that applies to item i.
size_t EntryOf(const size_t* idxs, size_t n, size_t i) {
  size_t k = 0;
  while (k + 1 < n && idxs[k + 1] <= i) ++k;
  return k;
}

bool LegacyStream(cudaStream_t stream, bool per_thread) {
  return stream == cudaStreamLegacy || (stream == nullptr && !per_thread);
}

cudaError_t CopyBatch(void* const* dsts, const void* const* srcs, const size_t* sizes, size_t count,
                      const cudaMemcpyAttributes* attrs, const size_t* idxs, size_t n, cudaStream_t stream,
                      bool per_thread) {
  Runtime& rt = Runtime::Get();
  if (count == 0 || !dsts || !srcs || !sizes || !attrs || !ValidRanges(idxs, n, count) ||
      LegacyStream(stream, per_thread))
    return rt.Fail(cudaErrorInvalidValue);
  for (size_t k = 0; k < n; ++k) {
    const cudaMemcpySrcAccessOrder o = attrs[k].srcAccessOrder;
    if (o != cudaMemcpySrcAccessOrderStream && o != cudaMemcpySrcAccessOrderDuringApiCall &&
        o != cudaMemcpySrcAccessOrderAny)
      return rt.Fail(cudaErrorInvalidValue);
  }
  for (size_t i = 0; i < count; ++i) {
    const cudaError_t e = per_thread ? cudaMemcpyAsync_ptsz(dsts[i], srcs[i], sizes[i], cudaMemcpyDefault, stream)
                                     : cudaMemcpyAsync(dsts[i], srcs[i], sizes[i], cudaMemcpyDefault, stream);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t PrefetchBatch(void** ptrs, size_t* sizes, size_t count, cudaMemLocation* locs, size_t* idxs, size_t n,
                          unsigned long long flags, cudaStream_t stream, bool per_thread) {
  Runtime& rt = Runtime::Get();
  if (count == 0 || !ptrs || !sizes || !locs || flags != 0 || !ValidRanges(idxs, n, count))
    return rt.Fail(cudaErrorInvalidValue);
  for (size_t i = 0; i < count; ++i) {
    const cudaMemLocation& loc = locs[EntryOf(idxs, n, i)];
    const cudaError_t e = per_thread ? cudaMemPrefetchAsync_ptsz(ptrs[i], sizes[i], loc, 0, stream)
                                     : cudaMemPrefetchAsync(ptrs[i], sizes[i], loc, 0, stream);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

// Every range must be managed memory; nothing else happens (see the top).
cudaError_t DiscardBatch(void** ptrs, size_t* sizes, size_t count, unsigned long long flags, cudaStream_t stream) {
  Runtime& rt = Runtime::Get();
  if (count == 0 || !ptrs || !sizes || flags != 0) return rt.Fail(cudaErrorInvalidValue);
  if (!rt.ValidStream(stream)) return rt.Fail(cudaErrorInvalidResourceHandle);
  for (size_t i = 0; i < count; ++i) {
    const auto a = rt.device().memory().Find(reinterpret_cast<uint64_t>(ptrs[i]), sizes[i] ? sizes[i] : 1);
    if (!a || a->kind != barracuda::emu::DeviceMemory::Kind::kManaged) return rt.Fail(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

}  // namespace

CUDART_EXPORT cudaError_t cudaMemcpyBatchAsync(void* const* dsts, const void* const* srcs, const size_t* sizes,
                                               size_t count, cudaMemcpyAttributes* attrs, size_t* attrs_idxs,
                                               size_t num_attrs, cudaStream_t stream) {
  return CopyBatch(dsts, srcs, sizes, count, attrs, attrs_idxs, num_attrs, stream, false);
}
CUDART_EXPORT cudaError_t cudaMemcpyBatchAsync_ptsz(void* const* dsts, const void* const* srcs, const size_t* sizes,
                                                    size_t count, cudaMemcpyAttributes* attrs, size_t* attrs_idxs,
                                                    size_t num_attrs, cudaStream_t stream) {
  return CopyBatch(dsts, srcs, sizes, count, attrs, attrs_idxs, num_attrs, stream, true);
}

CUDART_EXPORT cudaError_t cudaMemPrefetchBatchAsync(void** ptrs, size_t* sizes, size_t count, cudaMemLocation* locs,
                                                    size_t* loc_idxs, size_t num_locs, unsigned long long flags,
                                                    cudaStream_t stream) {
  return PrefetchBatch(ptrs, sizes, count, locs, loc_idxs, num_locs, flags, stream, false);
}
CUDART_EXPORT cudaError_t cudaMemPrefetchBatchAsync_ptsz(void** ptrs, size_t* sizes, size_t count,
                                                         cudaMemLocation* locs, size_t* loc_idxs, size_t num_locs,
                                                         unsigned long long flags, cudaStream_t stream) {
  return PrefetchBatch(ptrs, sizes, count, locs, loc_idxs, num_locs, flags, stream, true);
}

CUDART_EXPORT cudaError_t cudaMemDiscardBatchAsync(void** ptrs, size_t* sizes, size_t count, unsigned long long flags,
                                                   cudaStream_t stream) {
  return DiscardBatch(ptrs, sizes, count, flags, stream);
}
CUDART_EXPORT cudaError_t cudaMemDiscardBatchAsync_ptsz(void** ptrs, size_t* sizes, size_t count,
                                                        unsigned long long flags, cudaStream_t stream) {
  return DiscardBatch(ptrs, sizes, count, flags, stream);
}

CUDART_EXPORT cudaError_t cudaMemDiscardAndPrefetchBatchAsync(void** ptrs, size_t* sizes, size_t count,
                                                              cudaMemLocation* locs, size_t* loc_idxs,
                                                              size_t num_locs, unsigned long long flags,
                                                              cudaStream_t stream) {
  if (cudaError_t e = DiscardBatch(ptrs, sizes, count, flags, stream)) return e;
  return PrefetchBatch(ptrs, sizes, count, locs, loc_idxs, num_locs, flags, stream, false);
}
CUDART_EXPORT cudaError_t cudaMemDiscardAndPrefetchBatchAsync_ptsz(void** ptrs, size_t* sizes, size_t count,
                                                                   cudaMemLocation* locs, size_t* loc_idxs,
                                                                   size_t num_locs, unsigned long long flags,
                                                                   cudaStream_t stream) {
  if (cudaError_t e = DiscardBatch(ptrs, sizes, count, flags, stream)) return e;
  return PrefetchBatch(ptrs, sizes, count, locs, loc_idxs, num_locs, flags, stream, true);
}
