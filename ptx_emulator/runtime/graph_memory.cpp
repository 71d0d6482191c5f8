#include "ptx_emulator/runtime/graph_memory.h"

#include <algorithm>
#include <cstdint>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "ptx_emulator/runtime/graph_model.h"
#include "ptx_emulator/runtime/runtime_state.h"
#include "ptx_emulator/runtime/shm_sink.h"

namespace barracuda::cudart {
namespace {

using Kind = emu::DeviceMemory::Kind;

struct State {
  std::mutex mu;
  struct Allocation {
    uint64_t size = 0;
    bool live = false;
  };
  absl::flat_hash_map<const void*, Allocation> allocations;
  uint64_t used = 0, used_high = 0, reserved = 0, reserved_high = 0;

  void Start(Allocation& a) {
    a.live = true;
    used += a.size;
    used_high = std::max(used_high, used);
    reserved = std::max(reserved, used);  // freed bytes are reused first
    reserved_high = std::max(reserved_high, reserved);
  }
  void End(Allocation& a) {
    a.live = false;
    used -= a.size;
  }
};

State& S() {
  static State* s = new State();  // never destroyed: atexit-time frees may come late
  return *s;
}

// An allocation's lifetime (S().mu held): accessible from its alloc node's run
// to its free (a free node, cudaFree or cudaFreeAsync); outside it, kernels'
// accesses fault as use after free (memcheck) and copies are refused, as on a
// GPU, where the pages are unmapped or another allocation's. A barracuda
// session sees each lifetime as an allocation and its free.
void LifetimeStarts(const void* ptr, uint64_t size) {
  Runtime& rt = Runtime::Get();
  (void)rt.device().memory().SetDormant(const_cast<void*>(ptr), false);
  if (emu::ShmRecordSink* sink = rt.session_sink())
    sink->OnAllocation(reinterpret_cast<uint64_t>(ptr), size, transport::AllocationKind::kDevice,
                       "graph memory node");
}
void LifetimeEnds(const void* ptr) {
  Runtime& rt = Runtime::Get();
  (void)rt.device().memory().SetDormant(const_cast<void*>(ptr), true);
  if (emu::ShmRecordSink* sink = rt.session_sink()) sink->OnFree(reinterpret_cast<uint64_t>(ptr));
}

}  // namespace

cudaError_t MakeMemAllocNode(GraphNode& n, cudaMemAllocNodeParams* params) {
  if (!params || params->bytesize == 0) return cudaErrorInvalidValue;
  const cudaMemPoolProps& p = params->poolProps;
  if (p.location.type != cudaMemLocationTypeDevice || p.location.id != 0) return cudaErrorInvalidValue;
  if (p.allocType != cudaMemAllocationTypePinned || p.handleTypes != cudaMemHandleTypeNone)
    return cudaErrorInvalidValue;  // IPC is not supported for graph allocations
  if (params->accessDescCount != 0 && !params->accessDescs) return cudaErrorInvalidValue;
  for (size_t i = 0; i < params->accessDescCount; ++i) {
    const cudaMemAccessDesc& d = params->accessDescs[i];
    if (d.location.type != cudaMemLocationTypeDevice || d.location.id != 0) return cudaErrorInvalidDevice;
  }
  Runtime& rt = Runtime::Get();
  auto ptr = rt.device().memory().Allocate(params->bytesize, Kind::kDevice);
  if (!ptr.ok()) return cudaErrorMemoryAllocation;
  // The address is the graph's from now on; the memory exists only between
  // the alloc node's run and the free (LifetimeStarts / LifetimeEnds).
  (void)rt.device().memory().SetDormant(*ptr, true);
  {
    State& s = S();
    std::lock_guard<std::mutex> lock(s.mu);
    s.allocations[*ptr] = State::Allocation{params->bytesize, false};
  }
  params->dptr = *ptr;
  n.type = cudaGraphNodeTypeMemAlloc;
  n.alloc = *params;
  n.access.assign(params->accessDescs, params->accessDescs + params->accessDescCount);
  n.alloc.accessDescs = n.access.empty() ? nullptr : n.access.data();
  return cudaSuccess;
}

cudaError_t MakeMemFreeNode(GraphNode& n, void* dptr) {
  {
    State& s = S();
    std::lock_guard<std::mutex> lock(s.mu);
    if (!dptr || !s.allocations.contains(dptr)) return cudaErrorInvalidValue;  // not an alloc node's address
  }
  // Freed at most once in a graph.
  for (const auto& other : n.graph->nodes)
    if (other.get() != &n && other->type == cudaGraphNodeTypeMemFree && other->free_ptr == dptr)
      return cudaErrorInvalidValue;
  n.type = cudaGraphNodeTypeMemFree;
  n.free_ptr = dptr;
  return cudaSuccess;
}

cudaError_t RunMemAllocNode(const GraphNode& n) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.allocations.find(n.alloc.dptr);
  if (it == s.allocations.end()) return cudaErrorInvalidValue;
  if (it->second.live) return cudaErrorInvalidValue;  // an earlier launch's allocation was never freed
  s.Start(it->second);
  LifetimeStarts(it->first, it->second.size);
  return cudaSuccess;
}

cudaError_t RunMemFreeNode(const GraphNode& n) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.allocations.find(n.free_ptr);
  if (it == s.allocations.end() || !it->second.live) return cudaErrorInvalidValue;
  s.End(it->second);
  LifetimeEnds(it->first);
  return cudaSuccess;
}

bool ReleaseGraphAllocation(void* ptr) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.allocations.find(ptr);
  if (it == s.allocations.end()) return false;
  if (it->second.live) {
    s.End(it->second);
    LifetimeEnds(it->first);
  }
  return true;
}

void AutoFreeBeforeLaunch(const Graph& graph) {
  for (const auto& n : graph.nodes) {
    if (n->type == cudaGraphNodeTypeMemAlloc) ReleaseGraphAllocation(n->alloc.dptr);
    if (n->type == cudaGraphNodeTypeGraph && n->child) AutoFreeBeforeLaunch(*n->child);
  }
}

void ForgetGraphAllocations() {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  s.allocations.clear();
  s.used = s.used_high = s.reserved = s.reserved_high = 0;
}

}  // namespace barracuda::cudart

namespace rt = barracuda::cudart;
using barracuda::cudart::Runtime;

CUDART_EXPORT cudaError_t cudaDeviceGraphMemTrim(int device) {
  if (device != 0) return Runtime::Get().Fail(cudaErrorInvalidDevice);
  rt::State& s = rt::S();
  std::lock_guard<std::mutex> lock(s.mu);
  s.reserved = s.used;  // what no live allocation uses goes back to the OS
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceGetGraphMemAttribute(int device, cudaGraphMemAttributeType attr, void* value) {
  Runtime& r = Runtime::Get();
  if (device != 0) return r.Fail(cudaErrorInvalidDevice);
  if (!value) return r.Fail(cudaErrorInvalidValue);
  rt::State& s = rt::S();
  std::lock_guard<std::mutex> lock(s.mu);
  uint64_t v = 0;
  switch (attr) {
    case cudaGraphMemAttrUsedMemCurrent: v = s.used; break;
    case cudaGraphMemAttrUsedMemHigh: v = s.used_high; break;
    case cudaGraphMemAttrReservedMemCurrent: v = s.reserved; break;
    case cudaGraphMemAttrReservedMemHigh: v = s.reserved_high; break;
    default: return r.Fail(cudaErrorInvalidValue);
  }
  *static_cast<uint64_t*>(value) = v;
  return cudaSuccess;
}

// Only the high watermarks can be set, and only to 0 (reset to the current value).
CUDART_EXPORT cudaError_t cudaDeviceSetGraphMemAttribute(int device, cudaGraphMemAttributeType attr, void* value) {
  Runtime& r = Runtime::Get();
  if (device != 0) return r.Fail(cudaErrorInvalidDevice);
  if (!value || *static_cast<const uint64_t*>(value) != 0) return r.Fail(cudaErrorInvalidValue);
  rt::State& s = rt::S();
  std::lock_guard<std::mutex> lock(s.mu);
  switch (attr) {
    case cudaGraphMemAttrUsedMemHigh: s.used_high = s.used; break;
    case cudaGraphMemAttrReservedMemHigh: s.reserved_high = s.reserved; break;
    default: return r.Fail(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}
