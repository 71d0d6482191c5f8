// Memory API: allocation (device, managed, host), copies and sets (1D/2D/3D,
// synchronous, async and per-thread-default-stream variants), pointer queries.
//
// Device pointers are host pointers inside the DeviceMemory arena, so every
// copy is a memmove; the arena is what makes the direction checks real: a
// device-side pointer outside any live allocation is rejected as a GPU would.
#include <cstring>
#include <optional>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "ptx_emulator/runtime/arrays.h"
#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/runtime/graph_memory.h"
#include "ptx_emulator/runtime/graph_model.h"
#include "ptx_emulator/runtime/host_access_watch.h"
#include "ptx_emulator/runtime/host_register.h"
#include "ptx_emulator/runtime/memory_pools.h"
#include "ptx_emulator/runtime/runtime_state.h"
#include "ptx_emulator/runtime/stream_order.h"
#include "ptx_emulator/runtime/stream_capture.h"
#include "ptx_emulator/runtime/stream_work.h"

namespace barracuda::cudart {
namespace {

using Kind = emu::DeviceMemory::Kind;

transport::AllocationKind ReportedKind(Kind kind, bool async) {
  if (async) return transport::AllocationKind::kAsync;
  switch (kind) {
    case Kind::kDevice: return transport::AllocationKind::kDevice;
    case Kind::kManaged: return transport::AllocationKind::kManaged;
    case Kind::kHost: return transport::AllocationKind::kHostMapped;
    default: return transport::AllocationKind::kOther;
  }
}

cudaError_t Allocate(void** ptr, size_t size, Kind kind, bool async = false) {
  Runtime& rt = Runtime::Get();
  if (cudaError_t s = rt.sticky()) return rt.Fail(s);
  // Not stream-ordered: a graph replaying the capture would not allocate.
  if (!async)
    if (cudaError_t e = CheckUnsafeCall(/*legacy=*/false)) return e;
  if (!ptr) return rt.Fail(cudaErrorInvalidValue);
  if (size == 0) {
    *ptr = nullptr;
    return cudaSuccess;
  }
  if (!async) StreamOrder::Get().Barrier();  // implicit synchronisation (stream_order.h)
  auto p = rt.device().memory().Allocate(size, kind);
  if (!p.ok()) {
    *ptr = nullptr;
    return rt.Fail(cudaErrorMemoryAllocation);
  }
  *ptr = *p;
  // The session's reports attribute addresses to allocations.
  if (emu::ShmRecordSink* sink = rt.session_sink())
    sink->OnAllocation(reinterpret_cast<uint64_t>(*p), size, ReportedKind(kind, async), "");
  // The host reads and writes it directly (host_access_watch.h).
  if (kind == Kind::kManaged || kind == Kind::kHost)
    NoteHostAccessibleMemory(reinterpret_cast<uint64_t>(*p), size, reinterpret_cast<uint64_t>(*p));
  return cudaSuccess;
}

cudaError_t Release(void* ptr, bool host, bool async = false) {
  Runtime& rt = Runtime::Get();
  if (cudaError_t s = rt.sticky()) return rt.Fail(s);
  // cudaFree synchronises with the device, the legacy stream included.
  if (!async)
    if (cudaError_t e = CheckUnsafeCall(/*legacy=*/true)) return e;
  if (!ptr) return cudaSuccess;
  if (!async) StreamOrder::Get().Barrier();  // cudaFree synchronises the device
  auto a = rt.device().memory().Find(reinterpret_cast<uint64_t>(ptr));
  // The device alias of cudaHostRegister'd memory goes with cudaHostUnregister.
  if (a && a->kind == Kind::kHost && FindHostRegistrationByDevice(ptr))
    return rt.Fail(host ? cudaErrorInvalidHostPointer : cudaErrorInvalidDevicePointer);
  if (!a || a->base != reinterpret_cast<uint64_t>(ptr) || (a->kind == Kind::kHost) != host ||
      a->kind == Kind::kGlobalVariable || a->kind == Kind::kConstVariable)
    return rt.Fail(host ? cudaErrorInvalidHostPointer : cudaErrorInvalidDevicePointer);
  if (a->kind == Kind::kManaged || a->kind == Kind::kHost) ForgetHostAccessibleMemory(a->base);
  if (a->kind == Kind::kManaged) ForgetManagedAdvice(a->base, a->size);
  // A graph allocation's address stays the graph's: only the allocation ends.
  if (!host && ReleaseGraphAllocation(ptr)) return cudaSuccess;
  if (!rt.device().memory().Free(ptr).ok()) return rt.Fail(cudaErrorInvalidDevicePointer);
  // Pool memory goes back to its pool whichever call frees it (cudaFree may
  // free what cudaMallocAsync gave).
  if (!host) NotePoolFree(ptr);
  if (emu::ShmRecordSink* sink = rt.session_sink()) sink->OnFree(reinterpret_cast<uint64_t>(ptr));
  return cudaSuccess;
}

// Set while a copy or set node is made: its pointers may be a graph
// allocation's, which exists only while its graph runs (graph_memory.h).
thread_local bool making_graph_node = false;
struct MakingGraphNode {
  MakingGraphNode() { making_graph_node = true; }
  ~MakingGraphNode() { making_graph_node = false; }
};

// [p, p + bytes) lies inside one live device-accessible allocation.
bool DeviceRange(const void* p, size_t bytes) {
  return Runtime::Get()
      .device()
      .memory()
      .Find(reinterpret_cast<uint64_t>(p), bytes ? bytes : 1, /*dormant_too=*/making_graph_node)
      .has_value();
}

// Checks the pointers of a copy against its direction. For pitched copies
// `span` is the extent of the touched range.
cudaError_t CheckCopy(void* dst, size_t dst_span, const void* src, size_t src_span, cudaMemcpyKind kind) {
  switch (kind) {
    case cudaMemcpyHostToHost: case cudaMemcpyDefault: return cudaSuccess;
    case cudaMemcpyHostToDevice: return DeviceRange(dst, dst_span) ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDeviceToHost: return DeviceRange(src, src_span) ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDeviceToDevice:
      return DeviceRange(dst, dst_span) && DeviceRange(src, src_span) ? cudaSuccess : cudaErrorInvalidValue;
  }
  return cudaErrorInvalidMemcpyDirection;
}

cudaError_t Preamble(cudaStream_t stream) {
  Runtime& rt = Runtime::Get();
  if (cudaError_t s = rt.sticky()) return s;
  if (!rt.ValidStream(stream)) return cudaErrorInvalidResourceHandle;
  return cudaSuccess;
}

// Set by Synchronous() around a synchronous copy or set: the host waits for it.
thread_local bool in_synchronous_call = false;

// The bytes [p, p + span) as kernels address them: the arena's (device,
// managed, page-locked) as they are, a cudaHostRegister'd range through its
// device alias (the DMA of an asynchronous copy reads or writes the host pages).
std::optional<uint64_t> CopyBytes(const void* p, size_t span) {
  if (DeviceRange(p, span)) return reinterpret_cast<uint64_t>(p);
  if (auto reg = FindHostRegistration(p); reg && reinterpret_cast<uint64_t>(p) + span <= reg->host + reg->size)
    return reinterpret_cast<uint64_t>(reg->DeviceAddress(p));
  return std::nullopt;
}

// Stream-order checks (stream_order.h): the device bytes a copy reads and
// writes, `rows` rows of `width` bytes (row(i): the i-th row's destination
// and source) within the spans from the first rows; a synchronous call is
// waited for by the host, and one that copies within device memory is a
// device-wide barrier (implicit synchronisation). An asynchronous one whose
// host side is host-accessible memory is outstanding until the host is
// ordered after it (StreamOrder::Enqueue).
using Row = std::pair<const void*, const void*>;
void NoteStreamCopy(const char* api, const void* dst, size_t dst_span, const void* src, size_t src_span,
                    size_t width, size_t rows, absl::FunctionRef<Row(size_t)> row, cudaStream_t stream) {
  // Untraced (no session, or one stream only): no lookups on every copy.
  if (!StreamOpsTraced()) return;
  Runtime& rt = Runtime::Get();
  const bool src_device = DeviceRange(src, src_span), dst_device = DeviceRange(dst, dst_span);
  const std::optional<uint64_t> s = CopyBytes(src, src_span), d = CopyBytes(dst, dst_span);
  const uint64_t src0 = reinterpret_cast<uint64_t>(src), dst0 = reinterpret_cast<uint64_t>(dst);
  std::vector<transport::StreamOpInfo::Range> ranges;
  for (size_t i = 0; i < rows; ++i) {
    const auto [row_dst, row_src] = row(i);
    if (s) ranges.push_back({*s + (reinterpret_cast<uint64_t>(row_src) - src0), width, false});
    if (d) ranges.push_back({*d + (reinterpret_cast<uint64_t>(row_dst) - dst0), width, true});
  }
  if (ranges.empty()) return;
  if (in_synchronous_call && src_device && dst_device) {
    StreamOrder::Get().Barrier();
    return;
  }
  NoteMemoryOp(transport::StreamOpKind::kCopy, in_synchronous_call ? api : absl::StrCat(api, "Async").c_str(),
               rt.StreamId(stream, false), rt.NonBlocking(stream), std::move(ranges),
               /*host_waits=*/in_synchronous_call);
  if (in_synchronous_call) StreamOrder::Get().HostWaitStream(rt.StreamId(stream, false));
}

cudaError_t Copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
  host_access::Pause pause;  // the emulator and the runtime touch watched memory freely
  Runtime& rt = Runtime::Get();
  if (cudaError_t e = Preamble(stream)) return rt.Fail(e);
  if (count == 0) return cudaSuccess;
  if (!dst || !src) return rt.Fail(cudaErrorInvalidValue);
  if (cudaError_t e = CheckCopy(dst, count, src, count, kind)) return rt.Fail(e);
  NoteStreamCopy("cudaMemcpy", dst, count, src, count, count, 1, [&](size_t) { return Row(dst, src); }, stream);
  std::memmove(dst, src, count);
  return cudaSuccess;
}

cudaError_t Copy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                   cudaMemcpyKind kind, cudaStream_t stream) {
  host_access::Pause pause;  // the emulator and the runtime touch watched memory freely
  Runtime& rt = Runtime::Get();
  if (cudaError_t e = Preamble(stream)) return rt.Fail(e);
  if (width == 0 || height == 0) return cudaSuccess;
  if (!dst || !src || width > dpitch || width > spitch) return rt.Fail(cudaErrorInvalidPitchValue);
  const size_t dst_span = dpitch * (height - 1) + width, src_span = spitch * (height - 1) + width;
  if (cudaError_t e = CheckCopy(dst, dst_span, src, src_span, kind)) return rt.Fail(e);
  NoteStreamCopy("cudaMemcpy2D", dst, dst_span, src, src_span, width, height,
                 [&](size_t row) {
                   return Row(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch);
                 },
                 stream);
  for (size_t row = 0; row < height; ++row)
    std::memmove(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch, width);
  return cudaSuccess;
}

}  // namespace

// CUDA arrays are device allocations like cudaMalloc's (arrays.h).
cudaError_t AllocateDevice(void** ptr, size_t size) { return Allocate(ptr, size, Kind::kDevice); }
cudaError_t FreeDevice(void* ptr) { return Release(ptr, false); }

// Shared with memcpy nodes (stream_work.h).
cudaError_t Copy3D(const cudaMemcpy3DParms* given, cudaStream_t stream) {
  host_access::Pause pause;  // the emulator and the runtime touch watched memory freely
  Runtime& rt = Runtime::Get();
  if (cudaError_t e = Preamble(stream)) return rt.Fail(e);
  if (!given) return rt.Fail(cudaErrorInvalidValue);
  // A CUDA array side becomes its pitched memory (arrays.h), positions and
  // the extent's width then in bytes.
  cudaMemcpy3DParms copy;
  if (given->srcArray || given->dstArray) {
    copy = *given;
    if (cudaError_t e = ArraysAsPitched(copy)) return rt.Fail(e);
    given = &copy;
  }
  const cudaMemcpy3DParms* p = given;
  const cudaExtent e = p->extent;  // width in bytes for linear memory
  if (e.width == 0 || e.height == 0 || e.depth == 0) return cudaSuccess;
  const cudaPitchedPtr& s = p->srcPtr;
  const cudaPitchedPtr& d = p->dstPtr;
  if (!s.ptr || !d.ptr || e.width + p->srcPos.x > s.pitch || e.width + p->dstPos.x > d.pitch)
    return rt.Fail(cudaErrorInvalidPitchValue);
  const size_t s_rows = s.ysize ? s.ysize : e.height + p->srcPos.y;
  const size_t d_rows = d.ysize ? d.ysize : e.height + p->dstPos.y;
  auto at = [](const cudaPitchedPtr& q, size_t rows, cudaPos pos, size_t y, size_t z) {
    return static_cast<char*>(q.ptr) + ((z + pos.z) * rows + (y + pos.y)) * q.pitch + pos.x;
  };
  char* d_first = at(d, d_rows, p->dstPos, 0, 0);
  const char* s_first = at(s, s_rows, p->srcPos, 0, 0);
  const size_t d_span = static_cast<size_t>(at(d, d_rows, p->dstPos, e.height - 1, e.depth - 1) - d_first) + e.width;
  const size_t s_span = static_cast<size_t>(at(s, s_rows, p->srcPos, e.height - 1, e.depth - 1) - s_first) + e.width;
  if (cudaError_t err = CheckCopy(d_first, d_span, s_first, s_span, p->kind)) return rt.Fail(err);
  NoteStreamCopy("cudaMemcpy3D", d_first, d_span, s_first, s_span, e.width, e.height * e.depth,
                 [&](size_t i) {
                   const size_t y = i % e.height, z = i / e.height;
                   return Row(at(d, d_rows, p->dstPos, y, z), at(s, s_rows, p->srcPos, y, z));
                 },
                 stream);
  for (size_t z = 0; z < e.depth; ++z)
    for (size_t y = 0; y < e.height; ++y)
      std::memmove(at(d, d_rows, p->dstPos, y, z), at(s, s_rows, p->srcPos, y, z), e.width);
  return cudaSuccess;
}

namespace {
// Stores `value` in `element_size` bytes at `p` (memset nodes set 2- and 4-byte elements).
void StoreElement(char* p, unsigned value, unsigned element_size) {
  if (element_size == 2) {
    const uint16_t v = static_cast<uint16_t>(value);
    std::memcpy(p, &v, 2);
  } else {
    std::memcpy(p, &value, 4);
  }
}

}  // namespace

// cudaMemset, cudaMemset2D (bytes) and memset nodes (stream_work.h).
cudaError_t SetElements(void* dst, size_t pitch, unsigned value, unsigned element_size, size_t width,
                        size_t height, cudaStream_t stream) {
  host_access::Pause pause;  // the emulator and the runtime touch watched memory freely
  Runtime& rt = Runtime::Get();
  if (cudaError_t e = Preamble(stream)) return rt.Fail(e);
  if (element_size != 1 && element_size != 2 && element_size != 4) return rt.Fail(cudaErrorInvalidValue);
  if (width == 0 || height == 0) return cudaSuccess;
  const size_t row_bytes = width * element_size;
  if (row_bytes > pitch) return rt.Fail(cudaErrorInvalidPitchValue);
  if (!DeviceRange(dst, pitch * (height - 1) + row_bytes)) return rt.Fail(cudaErrorInvalidValue);
  if (in_synchronous_call) {
    StreamOrder::Get().Barrier();  // a synchronous device memory set: implicit synchronisation
  } else if (StreamOpsTraced()) {
    std::vector<transport::StreamOpInfo::Range> ranges;
    for (size_t row = 0; row < height; ++row)
      ranges.push_back({reinterpret_cast<uint64_t>(dst) + row * pitch, row_bytes, true});
    NoteMemoryOp(transport::StreamOpKind::kSet, "cudaMemsetAsync", rt.StreamId(stream, false), rt.NonBlocking(stream),
                 std::move(ranges));
  }
  for (size_t row = 0; row < height; ++row) {
    char* p = static_cast<char*>(dst) + row * pitch;
    if (element_size == 1) {
      std::memset(p, static_cast<int>(value), row_bytes);
    } else {
      for (size_t i = 0; i < width; ++i) StoreElement(p + i * element_size, value, element_size);
    }
  }
  return cudaSuccess;
}

namespace {

cudaError_t Set3D(cudaPitchedPtr p, int value, cudaExtent e, cudaStream_t stream) {
  Runtime& rt = Runtime::Get();
  if (cudaError_t err = Preamble(stream)) return rt.Fail(err);
  if (e.width == 0 || e.height == 0 || e.depth == 0) return cudaSuccess;
  if (e.width > p.pitch) return rt.Fail(cudaErrorInvalidPitchValue);
  const size_t rows = p.ysize ? p.ysize : e.height;
  if (!DeviceRange(p.ptr, ((e.depth - 1) * rows + (e.height - 1)) * p.pitch + e.width))
    return rt.Fail(cudaErrorInvalidValue);
  for (size_t z = 0; z < e.depth; ++z)
    for (size_t y = 0; y < e.height; ++y)
      std::memset(static_cast<char*>(p.ptr) + (z * rows + y) * p.pitch, value, e.width);
  return cudaSuccess;
}

// A symbol's device range [address + offset, + count), checked against its size.
cudaError_t SymbolRange(const void* symbol, size_t count, size_t offset, char** out) {
  Runtime& rt = Runtime::Get();
  RegisteredVar* v = rt.VarBySymbol(symbol);
  if (!v) return cudaErrorInvalidSymbol;
  void* address = nullptr;
  if (cudaError_t e = rt.ResolveVar(v, &address)) return e;
  if (offset > v->size || count > v->size - offset) return cudaErrorInvalidValue;
  *out = static_cast<char*>(address) + offset;
  return cudaSuccess;
}

cudaError_t ToSymbol(const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind,
                     cudaStream_t stream) {
  Runtime& rt = Runtime::Get();
  if (cudaError_t e = Preamble(stream)) return rt.Fail(e);
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return rt.Fail(cudaErrorInvalidMemcpyDirection);
  char* dst = nullptr;
  if (cudaError_t e = SymbolRange(symbol, count, offset, &dst)) return rt.Fail(e);
  if (count == 0) return cudaSuccess;
  if (kind == cudaMemcpyDeviceToDevice && !DeviceRange(src, count)) return rt.Fail(cudaErrorInvalidValue);
  std::memmove(dst, src, count);
  return cudaSuccess;
}

cudaError_t FromSymbol(void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind,
                       cudaStream_t stream) {
  Runtime& rt = Runtime::Get();
  if (cudaError_t e = Preamble(stream)) return rt.Fail(e);
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return rt.Fail(cudaErrorInvalidMemcpyDirection);
  char* src = nullptr;
  if (cudaError_t e = SymbolRange(symbol, count, offset, &src)) return rt.Fail(e);
  if (count == 0) return cudaSuccess;
  if (kind == cudaMemcpyDeviceToDevice && !DeviceRange(dst, count)) return rt.Fail(cudaErrorInvalidValue);
  std::memmove(dst, src, count);
  return cudaSuccess;
}

}  // namespace

// Copies and sets of nodes (captured or added) are checked as the direct call
// checks them, so that a bad one fails when it is made rather than at every
// graph launch.
cudaError_t MakeCopyNode(GraphNode& n, void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind) {
  MakingGraphNode scope;
  if (width && height) {
    if (!dst || !src) return cudaErrorInvalidValue;
    if (width > dpitch || width > spitch) return cudaErrorInvalidPitchValue;
    if (cudaError_t e = CheckCopy(dst, dpitch * (height - 1) + width, src, spitch * (height - 1) + width, kind))
      return e;
  }
  n.type = cudaGraphNodeTypeMemcpy;
  n.copy = LinearCopyParams(dst, dpitch, src, spitch, width, height, kind);
  return cudaSuccess;
}

cudaError_t MakeCopy3DNode(GraphNode& n, const cudaMemcpy3DParms* p) {
  if (!p) return cudaErrorInvalidValue;
  if (p->srcArray || p->dstArray) {
    PrintDiagnostic("memcpy nodes with CUDA arrays are not supported by the emulator backend");
    return cudaErrorNotSupported;
  }
  n.type = cudaGraphNodeTypeMemcpy;
  n.copy = *p;
  return cudaSuccess;
}

cudaError_t MakeSetNode(GraphNode& n, cudaMemsetParams p) {
  MakingGraphNode scope;
  if (p.elementSize != 1 && p.elementSize != 2 && p.elementSize != 4) return cudaErrorInvalidValue;
  if (p.height <= 1) p.pitch = p.width * p.elementSize;  // unused for one row
  if (p.width && p.height) {
    if (p.width * p.elementSize > p.pitch) return cudaErrorInvalidPitchValue;
    if (!DeviceRange(p.dst, p.pitch * (p.height - 1) + p.width * p.elementSize)) return cudaErrorInvalidValue;
  }
  n.type = cudaGraphNodeTypeMemset;
  n.set = p;
  return cudaSuccess;
}

namespace {

// A synchronous copy or set: refused while a capture forbids it.
template <typename Run>
cudaError_t Synchronous(bool per_thread, Run run) {
  if (cudaError_t e = CheckSynchronousCall(per_thread)) return e;
  in_synchronous_call = true;
  const cudaError_t e = run();
  in_synchronous_call = false;
  return e;
}

// Stream-ordered work: a node of the capture when `stream` captures, else run now.
template <typename Run>
cudaError_t Async(cudaStream_t stream, bool per_thread, absl::FunctionRef<cudaError_t(GraphNode&)> fill, Run run) {
  if (auto captured = CaptureWork(stream, per_thread, fill)) return *captured;
  return run();
}

cudaError_t SetNode(GraphNode& n, void* dst, size_t pitch, int value, size_t width, size_t height) {
  return MakeSetNode(n, cudaMemsetParams{dst, pitch, static_cast<unsigned char>(value), 1, width, height});
}

// A memset node is two-dimensional: a 3D set is one when its slices are
// contiguous rows (one slice, or slices of exactly `height` rows).
cudaError_t Set3DNode(GraphNode& n, cudaPitchedPtr p, int value, cudaExtent e) {
  const size_t rows = p.ysize ? p.ysize : e.height;
  if (e.depth > 1 && rows != e.height) {
    PrintDiagnostic("capturing cudaMemset3DAsync with padded slices is not supported by the emulator backend");
    return cudaErrorNotSupported;
  }
  return SetNode(n, p.ptr, p.pitch, value, e.width, e.height * e.depth);
}

// cudaMemcpyTo/FromSymbolAsync: a linear copy to or from the symbol's address.
cudaError_t SymbolCopyNode(GraphNode& n, const void* symbol, void* dst, const void* src, size_t count, size_t offset,
                           cudaMemcpyKind kind) {
  char* address = nullptr;
  if (cudaError_t e = SymbolRange(symbol, count, offset, &address)) return e;
  if (dst == nullptr) {
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
      return cudaErrorInvalidMemcpyDirection;
    return MakeCopyNode(n, address, count, src, count, count, 1, kind);
  }
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  return MakeCopyNode(n, dst, count, address, count, count, 1, kind);
}

}  // namespace
}  // namespace barracuda::cudart

namespace rt = barracuda::cudart;
using Kind = barracuda::emu::DeviceMemory::Kind;
using barracuda::cudart::Runtime;

// ---------------------------------------------------------------- allocation

CUDART_EXPORT cudaError_t cudaMalloc(void** ptr, size_t size) { return rt::Allocate(ptr, size, Kind::kDevice); }
CUDART_EXPORT cudaError_t cudaFree(void* ptr) { return rt::Release(ptr, false); }
CUDART_EXPORT cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned int flags) {
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) return Runtime::Get().Fail(cudaErrorInvalidValue);
  return rt::Allocate(ptr, size, Kind::kManaged);
}
CUDART_EXPORT cudaError_t cudaMallocHost(void** ptr, size_t size) { return rt::Allocate(ptr, size, Kind::kHost); }
CUDART_EXPORT cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int /*flags*/) {
  return rt::Allocate(ptr, size, Kind::kHost);
}
CUDART_EXPORT cudaError_t cudaFreeHost(void* ptr) { return rt::Release(ptr, true); }
namespace {
// From `pool` (nullptr: the device's current pool, cudaMallocAsync's).
// Captured, it becomes a graph memory alloc node (graph_memory.h) whose
// address is the result.
cudaError_t MallocAsync(void** ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream, bool per_thread) {
  Runtime& r = Runtime::Get();
  if (pool && !rt::ValidMemPool(pool)) return r.Fail(cudaErrorInvalidValue);
  if (auto captured = rt::CaptureWork(stream, per_thread, [&](rt::GraphNode& n) {
        if (!ptr) return cudaErrorInvalidValue;
        cudaMemAllocNodeParams params{};
        params.poolProps.allocType = cudaMemAllocationTypePinned;
        params.poolProps.location.type = cudaMemLocationTypeDevice;
        params.poolProps.location.id = 0;
        params.bytesize = size;
        const cudaError_t e = rt::MakeMemAllocNode(n, &params);
        if (e == cudaSuccess) *ptr = params.dptr;
        return e;
      }))
    return *captured;
  if (!r.ValidStream(stream)) return r.Fail(cudaErrorInvalidResourceHandle);
  if (!pool) pool = rt::CurrentMemPool();
  if (cudaError_t e = rt::CheckPoolLimit(pool, size)) return r.Fail(e);
  cudaError_t e = rt::Allocate(ptr, size, Kind::kDevice, /*async=*/true);
  if (e == cudaSuccess) rt::NotePoolAllocation(pool, *ptr, size);
  return e;
}
// Captured: a graph memory free node (of a graph allocation only).
cudaError_t FreeAsync(void* ptr, cudaStream_t stream, bool per_thread) {
  if (auto captured =
          rt::CaptureWork(stream, per_thread, [&](rt::GraphNode& n) { return rt::MakeMemFreeNode(n, ptr); }))
    return *captured;
  Runtime& r = Runtime::Get();
  if (!r.ValidStream(stream)) return r.Fail(cudaErrorInvalidResourceHandle);
  // In stream order the free ends the contents: a write of every byte, so a
  // kernel or copy on another stream that uses the memory unordered with it
  // is a stream-order race (use after an asynchronous free).
  if (rt::StreamOpsTraced() && ptr)
    if (auto a = r.device().memory().Find(reinterpret_cast<uint64_t>(ptr));
        a && a->base == reinterpret_cast<uint64_t>(ptr) && a->kind != Kind::kHost)
      rt::NoteMemoryOp(barracuda::transport::StreamOpKind::kSet, "cudaFreeAsync", r.StreamId(stream, per_thread),
                   r.NonBlocking(stream), {{a->base, std::max<uint64_t>(a->size, 1), true}}, /*host_waits=*/false);
  return rt::Release(ptr, false, /*async=*/true);
}
}  // namespace

CUDART_EXPORT cudaError_t cudaMallocAsync(void** ptr, size_t size, cudaStream_t stream) {
  return MallocAsync(ptr, size, nullptr, stream, false);
}
CUDART_EXPORT cudaError_t cudaMallocAsync_ptsz(void** ptr, size_t size, cudaStream_t stream) {
  return MallocAsync(ptr, size, nullptr, stream, true);
}
CUDART_EXPORT cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream) {
  if (!pool) return Runtime::Get().Fail(cudaErrorInvalidValue);
  return MallocAsync(ptr, size, pool, stream, false);
}
CUDART_EXPORT cudaError_t cudaMallocFromPoolAsync_ptsz(void** ptr, size_t size, cudaMemPool_t pool,
                                                       cudaStream_t stream) {
  if (!pool) return Runtime::Get().Fail(cudaErrorInvalidValue);
  return MallocAsync(ptr, size, pool, stream, true);
}
CUDART_EXPORT cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream) { return FreeAsync(ptr, stream, false); }
CUDART_EXPORT cudaError_t cudaFreeAsync_ptsz(void* ptr, cudaStream_t stream) { return FreeAsync(ptr, stream, true); }

CUDART_EXPORT cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int flags) {
  Runtime& r = Runtime::Get();
  if (!device_ptr || flags != 0) return r.Fail(cudaErrorInvalidValue);
  // cudaHostRegister'd memory: its alias in the arena (host_register.cpp).
  if (auto reg = rt::FindHostRegistration(host_ptr)) {
    *device_ptr = reg->DeviceAddress(host_ptr);
    return cudaSuccess;
  }
  auto a = r.device().memory().Find(reinterpret_cast<uint64_t>(host_ptr));
  if (!a || (a->kind != Kind::kHost && a->kind != Kind::kManaged)) return r.Fail(cudaErrorInvalidValue);
  *device_ptr = host_ptr;  // mapped host memory has the same address on the device
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaHostGetFlags(unsigned int* flags, void* host_ptr) {
  Runtime& r = Runtime::Get();
  // Registered memory is mapped and portable on a system with unified
  // addressing whatever the flags (the cudaHostRegister documentation).
  if (flags && rt::FindHostRegistration(host_ptr)) {
    *flags = cudaHostAllocMapped | cudaHostAllocPortable;
    return cudaSuccess;
  }
  auto a = r.device().memory().Find(reinterpret_cast<uint64_t>(host_ptr));
  if (!flags || !a || a->kind != Kind::kHost) return r.Fail(cudaErrorInvalidValue);
  *flags = cudaHostAllocMapped | cudaHostAllocPortable;
  return cudaSuccess;
}

// Rows are aligned like a GPU's texture pitch (512 bytes).
inline constexpr size_t kPitchAlignment = 512;

CUDART_EXPORT cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  if (!pitch) return Runtime::Get().Fail(cudaErrorInvalidValue);
  *pitch = (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
  return rt::Allocate(ptr, *pitch * height, Kind::kDevice);
}

CUDART_EXPORT cudaError_t cudaMalloc3D(cudaPitchedPtr* p, cudaExtent extent) {
  if (!p) return Runtime::Get().Fail(cudaErrorInvalidValue);
  const size_t pitch = (extent.width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
  void* ptr = nullptr;
  if (cudaError_t e = rt::Allocate(&ptr, pitch * extent.height * extent.depth, Kind::kDevice)) return e;
  *p = make_cudaPitchedPtr(ptr, pitch, extent.width, extent.height);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  Runtime& r = Runtime::Get();
  if (cudaError_t s = r.sticky()) return r.Fail(s);
  const uint64_t total = r.device().description().global_bytes;
  const uint64_t used = r.device().memory().bytes_in_use();
  if (free_bytes) *free_bytes = used < total ? total - used : 0;
  if (total_bytes) *total_bytes = total;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attr, const void* ptr) {
  Runtime& r = Runtime::Get();
  if (!attr) return r.Fail(cudaErrorInvalidValue);
  *attr = cudaPointerAttributes{};
  attr->device = r.current_device;
  auto a = r.device().memory().Find(reinterpret_cast<uint64_t>(ptr));
  void* p = const_cast<void*>(ptr);
  // cudaHostRegister'd memory, by its host address or its device alias.
  if (auto reg = rt::FindHostRegistration(ptr)) {
    attr->type = cudaMemoryTypeHost;
    attr->hostPointer = p;
    attr->devicePointer = reg->DeviceAddress(ptr);
    return cudaSuccess;
  }
  if (auto reg = rt::FindHostRegistrationByDevice(ptr)) {
    attr->type = cudaMemoryTypeHost;
    attr->devicePointer = p;
    attr->hostPointer = reg->HostAddress(ptr);
    return cudaSuccess;
  }
  if (!a) {
    attr->type = cudaMemoryTypeUnregistered;
    attr->device = -2;
    attr->hostPointer = p;
    return cudaSuccess;
  }
  switch (a->kind) {
    case Kind::kHost: attr->type = cudaMemoryTypeHost; attr->devicePointer = p; attr->hostPointer = p; break;
    case Kind::kManaged: attr->type = cudaMemoryTypeManaged; attr->devicePointer = p; attr->hostPointer = p; break;
    default: attr->type = cudaMemoryTypeDevice; attr->devicePointer = p; break;
  }
  return cudaSuccess;
}

// cudaMemAdvise, cudaMemPrefetchAsync: managed_advice.cpp.

// ---------------------------------------------------------------- copies

// Synchronous calls run on the legacy stream (the thread's default stream for
// the _ptds variants) and are refused while a capture forbids them; async
// calls on a capturing stream become memcpy / memset nodes (stream_capture.h).
#define BARRACUDA_SYNC_AND_PTDS(ret, name, params, call)                                 \
  CUDART_EXPORT ret name params { return rt::Synchronous(false, [&] { return call; }); } \
  CUDART_EXPORT ret name##_ptds params { return rt::Synchronous(true, [&] { return call; }); }
#define BARRACUDA_ASYNC_AND_PTSZ(ret, name, params, node, call)                                                 \
  CUDART_EXPORT ret name params {                                                                              \
    return rt::Async(stream, false, [&](rt::GraphNode& n_) { return node; }, [&] { return call; });             \
  }                                                                                                            \
  CUDART_EXPORT ret name##_ptsz params {                                                                       \
    return rt::Async(stream, true, [&](rt::GraphNode& n_) { return node; }, [&] { return call; });              \
  }

BARRACUDA_SYNC_AND_PTDS(cudaError_t, cudaMemcpy, (void* dst, const void* src, size_t count, cudaMemcpyKind kind),
                        rt::Copy(dst, src, count, kind, nullptr))
BARRACUDA_ASYNC_AND_PTSZ(cudaError_t, cudaMemcpyAsync,
                         (void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream),
                         rt::MakeCopyNode(n_, dst, count, src, count, count, 1, kind),
                         rt::Copy(dst, src, count, kind, stream))
BARRACUDA_SYNC_AND_PTDS(cudaError_t, cudaMemcpy2D,
                        (void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind),
                        rt::Copy2D(dst, dpitch, src, spitch, width, height, kind, nullptr))
BARRACUDA_ASYNC_AND_PTSZ(cudaError_t, cudaMemcpy2DAsync,
                         (void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                          cudaMemcpyKind kind, cudaStream_t stream),
                         rt::MakeCopyNode(n_, dst, dpitch, src, spitch, width, height, kind),
                         rt::Copy2D(dst, dpitch, src, spitch, width, height, kind, stream))
BARRACUDA_SYNC_AND_PTDS(cudaError_t, cudaMemcpy3D, (const cudaMemcpy3DParms* p), rt::Copy3D(p, nullptr))
BARRACUDA_ASYNC_AND_PTSZ(cudaError_t, cudaMemcpy3DAsync, (const cudaMemcpy3DParms* p, cudaStream_t stream),
                         rt::MakeCopy3DNode(n_, p), rt::Copy3D(p, stream))
BARRACUDA_SYNC_AND_PTDS(cudaError_t, cudaMemset, (void* dst, int value, size_t count),
                        rt::SetElements(dst, count, static_cast<unsigned char>(value), 1, count, 1, nullptr))
BARRACUDA_ASYNC_AND_PTSZ(cudaError_t, cudaMemsetAsync, (void* dst, int value, size_t count, cudaStream_t stream),
                         rt::SetNode(n_, dst, count, value, count, 1),
                         rt::SetElements(dst, count, static_cast<unsigned char>(value), 1, count, 1, stream))
BARRACUDA_SYNC_AND_PTDS(cudaError_t, cudaMemset2D,
                        (void* dst, size_t pitch, int value, size_t width, size_t height),
                        rt::SetElements(dst, pitch, static_cast<unsigned char>(value), 1, width, height, nullptr))
BARRACUDA_ASYNC_AND_PTSZ(cudaError_t, cudaMemset2DAsync,
                         (void* dst, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream),
                         rt::SetNode(n_, dst, pitch, value, width, height),
                         rt::SetElements(dst, pitch, static_cast<unsigned char>(value), 1, width, height, stream))
BARRACUDA_SYNC_AND_PTDS(cudaError_t, cudaMemset3D, (cudaPitchedPtr p, int value, cudaExtent extent),
                        rt::Set3D(p, value, extent, nullptr))
BARRACUDA_ASYNC_AND_PTSZ(cudaError_t, cudaMemset3DAsync,
                         (cudaPitchedPtr p, int value, cudaExtent extent, cudaStream_t stream),
                         rt::Set3DNode(n_, p, value, extent), rt::Set3D(p, value, extent, stream))

// ---------------------------------------------------------------- symbols

BARRACUDA_SYNC_AND_PTDS(cudaError_t, cudaMemcpyToSymbol,
                        (const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind),
                        rt::ToSymbol(symbol, src, count, offset, kind, nullptr))
BARRACUDA_ASYNC_AND_PTSZ(cudaError_t, cudaMemcpyToSymbolAsync,
                         (const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind,
                          cudaStream_t stream),
                         rt::SymbolCopyNode(n_, symbol, nullptr, src, count, offset, kind),
                         rt::ToSymbol(symbol, src, count, offset, kind, stream))
BARRACUDA_SYNC_AND_PTDS(cudaError_t, cudaMemcpyFromSymbol,
                        (void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind),
                        rt::FromSymbol(dst, symbol, count, offset, kind, nullptr))
BARRACUDA_ASYNC_AND_PTSZ(cudaError_t, cudaMemcpyFromSymbolAsync,
                         (void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind,
                          cudaStream_t stream),
                         rt::SymbolCopyNode(n_, symbol, dst, nullptr, count, offset, kind),
                         rt::FromSymbol(dst, symbol, count, offset, kind, stream))

CUDART_EXPORT cudaError_t cudaGetSymbolAddress(void** dev_ptr, const void* symbol) {
  Runtime& r = Runtime::Get();
  if (!dev_ptr) return r.Fail(cudaErrorInvalidValue);
  char* address = nullptr;
  if (cudaError_t e = rt::SymbolRange(symbol, 0, 0, &address)) return r.Fail(e);
  *dev_ptr = address;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  Runtime& r = Runtime::Get();
  if (!size) return r.Fail(cudaErrorInvalidValue);
  barracuda::cudart::RegisteredVar* v = r.VarBySymbol(symbol);
  if (!v) return r.Fail(cudaErrorInvalidSymbol);
  *size = v->size;
  return cudaSuccess;
}

// A channel descriptor is plain data; CUDA arrays (arrays.cpp) and texture
// objects (texture_api.cpp) take one, and legacy code builds one before
// binding a texture to linear memory
// (host_detector/regress/manifests/rodinia/cuda13_compat.h).
CUDART_EXPORT cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}
