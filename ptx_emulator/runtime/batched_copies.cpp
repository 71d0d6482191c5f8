// Batched copies and managed-memory batches (CUDA 12.8+): each copy of a
// cudaMemcpyBatchAsync is a cudaMemcpyAsync on the stream, in order (each op
// of a cudaMemcpy3DBatchAsync a cudaMemcpy3DAsync), and so
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
extern "C" cudaError_t cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms* p, cudaStream_t stream);
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

// Bytes per element of an array operand (its channel format); 0 if not an array.
size_t ElementBytes(const cudaMemcpy3DOperand& o) {
  if (o.type != cudaMemcpyOperandTypeArray) return 0;
  cudaChannelFormatDesc d{};
  cudaExtent e{};
  unsigned flags = 0;
  if (cudaArrayGetInfo(&d, &e, &flags, o.op.array.array) != cudaSuccess) return 0;
  return static_cast<size_t>(d.x + d.y + d.z + d.w) / 8;
}

// One side of a 3D batch op as a cudaMemcpy3DParms side: a pointer operand is
// a pitched pointer of rows of rowLength elements (0: the copy's width) and
// layers of layerHeight rows (0: its height); an array operand its array and
// offset. False for an operand the runtime documents as invalid.
bool Side(const cudaMemcpy3DOperand& o, const cudaExtent& e, size_t elem, cudaPitchedPtr* ptr, cudaArray_t* array,
          cudaPos* pos) {
  if (o.type == cudaMemcpyOperandTypePointer) {
    const auto& p = o.op.ptr;
    if (!p.ptr || (p.rowLength != 0 && p.rowLength < e.width) || (p.layerHeight != 0 && p.layerHeight < e.height))
      return false;
    const size_t row = p.rowLength ? p.rowLength : e.width;
    *ptr = make_cudaPitchedPtr(p.ptr, row * elem, row, p.layerHeight ? p.layerHeight : e.height);
    return true;
  }
  if (o.type == cudaMemcpyOperandTypeArray) {
    if (!o.op.array.array) return false;
    *array = o.op.array.array;
    *pos = make_cudaPos(o.op.array.offset.x, o.op.array.offset.y, o.op.array.offset.z);
    return true;
  }
  return false;
}

// cudaMemcpy3DBatchAsync: each op a cudaMemcpy3DAsync on the stream, in order
// (the runtime leaves the order within a batch unspecified; in order is one of
// the orders it allows). Extents in elements: bytes for pointer-to-pointer
// copies, the array's element for copies with an array.
cudaError_t Copy3DBatch(size_t count, cudaMemcpy3DBatchOp* ops, unsigned long long flags, cudaStream_t stream,
                        bool per_thread) {
  Runtime& rt = Runtime::Get();
  if (count == 0 || !ops || flags != 0 || LegacyStream(stream, per_thread)) return rt.Fail(cudaErrorInvalidValue);
  std::vector<cudaMemcpy3DParms> parms(count);
  for (size_t i = 0; i < count; ++i) {
    const cudaMemcpy3DBatchOp& op = ops[i];
    const cudaMemcpySrcAccessOrder o = op.srcAccessOrder;
    if (op.extent.width == 0 || op.extent.height == 0 || op.extent.depth == 0 ||
        (o != cudaMemcpySrcAccessOrderStream && o != cudaMemcpySrcAccessOrderDuringApiCall &&
         o != cudaMemcpySrcAccessOrderAny))
      return rt.Fail(cudaErrorInvalidValue);
    const size_t src_elem = ElementBytes(op.src), dst_elem = ElementBytes(op.dst);
    if (src_elem != 0 && dst_elem != 0 && src_elem != dst_elem) return rt.Fail(cudaErrorInvalidValue);
    const size_t elem = src_elem ? src_elem : dst_elem ? dst_elem : 1;
    cudaMemcpy3DParms& p = parms[i];
    p = cudaMemcpy3DParms{};
    if (!Side(op.src, op.extent, elem, &p.srcPtr, &p.srcArray, &p.srcPos) ||
        !Side(op.dst, op.extent, elem, &p.dstPtr, &p.dstArray, &p.dstPos))
      return rt.Fail(cudaErrorInvalidValue);
    p.extent = op.extent;  // cudaMemcpy3D's too: elements of an array, else bytes (elements of 1 byte)
    p.kind = cudaMemcpyDefault;
  }
  for (const cudaMemcpy3DParms& p : parms) {
    const cudaError_t e = per_thread ? cudaMemcpy3DAsync_ptsz(&p, stream) : cudaMemcpy3DAsync(&p, stream);
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

CUDART_EXPORT cudaError_t cudaMemcpy3DBatchAsync(size_t numOps, cudaMemcpy3DBatchOp* opList, unsigned long long flags,
                                                 cudaStream_t stream) {
  return Copy3DBatch(numOps, opList, flags, stream, false);
}
CUDART_EXPORT cudaError_t cudaMemcpy3DBatchAsync_ptsz(size_t numOps, cudaMemcpy3DBatchOp* opList,
                                                      unsigned long long flags, cudaStream_t stream) {
  return Copy3DBatch(numOps, opList, flags, stream, true);
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
