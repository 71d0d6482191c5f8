// Stream-ordered memory pools, peer access on the one device, and
// cudaStreamAttachMemAsync.
//
// Pools: the default pool of device 0 and pools made by cudaMemPoolCreate
// (device location, pinned, no IPC handle types). Their memory is ordinary
// arena memory (memory.cpp's MallocAsync / FreeAsync, so the stream order of
// an allocation and of its free is what cudaMallocAsync's already is); a pool
// keeps the accounting its attributes report: used bytes (current, high) and
// reserved bytes = used + bytes freed and kept for reuse. Freed bytes are kept
// up to the release threshold (the excess is released at once: execution is
// synchronous, so every free has completed by the next synchronisation) and
// cudaMemPoolTrimTo releases kept bytes down to its argument. Reuse policies
// are stored and reported; the arena's own reuse (after its quarantine)
// ignores them, which a program cannot tell apart from a pool that never
// found a block to reuse.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/runtime/memory_pools.h"
#include "ptx_emulator/runtime/runtime_state.h"

// Defined in memory.cpp (the per-thread variants are declared by the toolkit
// headers only under --default-stream per-thread).
extern "C" cudaError_t cudaMemcpy3D_ptds(const cudaMemcpy3DParms* p);
extern "C" cudaError_t cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms* p, cudaStream_t stream);

namespace barracuda::cudart {
namespace {

using Kind = emu::DeviceMemory::Kind;

struct MemPool {
  cudaMemPoolProps props{};
  bool is_default = false;
  bool destroyed = false;  // by cudaMemPoolDestroy; deleted once empty
  uint64_t release_threshold = 0;
  int reuse_follow_events = 1, reuse_opportunistic = 1, reuse_internal = 1;
  uint64_t used = 0, used_high = 0, kept = 0, reserved_high = 0;
  std::map<void*, size_t> live;  // allocations not freed yet
  void Grew() {
    used_high = std::max(used_high, used);
    reserved_high = std::max(reserved_high, used + kept);
  }
};

struct Pools {
  std::mutex mu;
  MemPool default_pool;
  MemPool* current = nullptr;
  std::set<MemPool*> created;           // live and destroyed-but-not-empty
  std::map<void*, MemPool*> owner;      // allocation -> its pool
  Pools() {
    default_pool.is_default = true;
    default_pool.props.allocType = cudaMemAllocationTypePinned;
    default_pool.props.location = {cudaMemLocationTypeDevice, 0};
    current = &default_pool;
  }
};
Pools& P() {
  static Pools* p = new Pools;  // never destroyed: used from atexit paths
  return *p;
}
MemPool* AsPool(cudaMemPool_t h) { return reinterpret_cast<MemPool*>(h); }
cudaMemPool_t AsHandle(MemPool* p) { return reinterpret_cast<cudaMemPool_t>(p); }

// mu held.
MemPool* Live(Pools& s, cudaMemPool_t h) {
  MemPool* p = AsPool(h);
  if (p == &s.default_pool) return p;
  if (!p || !s.created.count(p) || p->destroyed) return nullptr;
  return p;
}

bool DevicePinned(const cudaMemLocation* location, cudaMemAllocationType type, cudaError_t* error) {
  if (!location) return *error = cudaErrorInvalidValue, false;
  if (location->type == cudaMemLocationTypeDevice) {
    if (location->id != 0) return *error = cudaErrorInvalidDevice, false;
    if (type != cudaMemAllocationTypePinned) {
      if (type == cudaMemAllocationTypeManaged) {
        PrintDiagnostic("managed memory pools are not supported by the emulator backend");
        return *error = cudaErrorNotSupported, false;
      }
      return *error = cudaErrorInvalidValue, false;
    }
    return true;
  }
  if (location->type == cudaMemLocationTypeHost || location->type == cudaMemLocationTypeHostNuma) {
    PrintDiagnostic("host memory pools are not supported by the emulator backend");
    return *error = cudaErrorNotSupported, false;
  }
  return *error = cudaErrorInvalidValue, false;
}

}  // namespace

cudaMemPool_t CurrentMemPool() {
  Pools& s = P();
  std::lock_guard<std::mutex> lock(s.mu);
  return AsHandle(s.current);
}

bool ValidMemPool(cudaMemPool_t pool) {
  Pools& s = P();
  std::lock_guard<std::mutex> lock(s.mu);
  return Live(s, pool) != nullptr;
}

cudaError_t CheckPoolLimit(cudaMemPool_t pool, size_t bytes) {
  Pools& s = P();
  std::lock_guard<std::mutex> lock(s.mu);
  MemPool* p = Live(s, pool);
  if (p && p->props.maxSize != 0 && p->used + bytes > p->props.maxSize) return cudaErrorMemoryAllocation;
  return cudaSuccess;
}

void NotePoolAllocation(cudaMemPool_t pool, void* ptr, size_t bytes) {
  Pools& s = P();
  std::lock_guard<std::mutex> lock(s.mu);
  MemPool* p = Live(s, pool);
  if (!p || !ptr) return;
  p->live[ptr] = bytes;
  s.owner[ptr] = p;
  p->used += bytes;
  p->kept -= std::min<uint64_t>(p->kept, bytes);  // reused before growing
  p->Grew();
}

void NotePoolFree(void* ptr) {
  Pools& s = P();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.owner.find(ptr);
  if (it == s.owner.end()) return;
  MemPool* p = it->second;
  s.owner.erase(it);
  auto a = p->live.find(ptr);
  const uint64_t bytes = a->second;
  p->live.erase(a);
  p->used -= bytes;
  p->kept += bytes;
  // Kept up to the release threshold (reserved = used + kept).
  const uint64_t limit = p->release_threshold > p->used ? p->release_threshold - p->used : 0;
  p->kept = std::min(p->kept, limit);
  if (p->destroyed && p->live.empty()) {
    s.created.erase(p);
    delete p;
  }
}

void ResetMemoryPools() {
  Pools& s = P();
  std::lock_guard<std::mutex> lock(s.mu);
  for (MemPool* p : s.created) delete p;
  s.created.clear();
  s.owner.clear();
  MemPool fresh;
  fresh.is_default = true;
  fresh.props = s.default_pool.props;
  s.default_pool = std::move(fresh);
  s.current = &s.default_pool;
}

}  // namespace barracuda::cudart

namespace rt = barracuda::cudart;
using barracuda::cudart::Runtime;

// ---------------------------------------------------------------- pools

CUDART_EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
  Runtime& r = Runtime::Get();
  if (device != 0) return r.Fail(cudaErrorInvalidDevice);
  if (!pool) return r.Fail(cudaErrorInvalidValue);
  *pool = rt::AsHandle(&rt::P().default_pool);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device) {
  Runtime& r = Runtime::Get();
  if (device != 0) return r.Fail(cudaErrorInvalidDevice);
  if (!pool) return r.Fail(cudaErrorInvalidValue);
  *pool = rt::CurrentMemPool();
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool) {
  Runtime& r = Runtime::Get();
  if (device != 0) return r.Fail(cudaErrorInvalidDevice);
  rt::Pools& s = rt::P();
  std::lock_guard<std::mutex> lock(s.mu);
  rt::MemPool* p = rt::Live(s, pool);
  // A pool of another location (there is none: every pool is device 0's).
  if (!p) return r.Fail(cudaErrorInvalidValue);
  s.current = p;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t* pool, cudaMemLocation* location,
                                                   cudaMemAllocationType type) {
  Runtime& r = Runtime::Get();
  if (!pool) return r.Fail(cudaErrorInvalidValue);
  cudaError_t error = cudaSuccess;
  if (!rt::DevicePinned(location, type, &error)) return r.Fail(error);
  *pool = rt::AsHandle(&rt::P().default_pool);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaMemGetMemPool(cudaMemPool_t* pool, cudaMemLocation* location,
                                            cudaMemAllocationType type) {
  Runtime& r = Runtime::Get();
  if (!pool) return r.Fail(cudaErrorInvalidValue);
  cudaError_t error = cudaSuccess;
  if (!rt::DevicePinned(location, type, &error)) return r.Fail(error);
  *pool = rt::CurrentMemPool();
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaMemSetMemPool(cudaMemLocation* location, cudaMemAllocationType type,
                                            cudaMemPool_t pool) {
  Runtime& r = Runtime::Get();
  cudaError_t error = cudaSuccess;
  if (!rt::DevicePinned(location, type, &error)) return r.Fail(error);
  return cudaDeviceSetMemPool(0, pool);
}

CUDART_EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps* props) {
  Runtime& r = Runtime::Get();
  if (!pool || !props) return r.Fail(cudaErrorInvalidValue);
  if (props->allocType != cudaMemAllocationTypePinned) return r.Fail(cudaErrorInvalidValue);
  if (props->location.type == cudaMemLocationTypeHost || props->location.type == cudaMemLocationTypeHostNuma) {
    if (props->handleTypes != cudaMemHandleTypeNone) return r.Fail(cudaErrorInvalidValue);
    rt::PrintDiagnostic("host memory pools are not supported by the emulator backend");
    return r.Fail(cudaErrorNotSupported);
  }
  if (props->location.type != cudaMemLocationTypeDevice || props->location.id != 0)
    return r.Fail(cudaErrorInvalidValue);
  if (props->win32SecurityAttributes) return r.Fail(cudaErrorInvalidValue);
  if (props->handleTypes != cudaMemHandleTypeNone) {
    rt::PrintDiagnostic("memory pools with IPC handle types are not supported by the emulator backend");
    return r.Fail(cudaErrorNotSupported);
  }
  auto* p = new rt::MemPool;
  p->props = *props;
  rt::Pools& s = rt::P();
  std::lock_guard<std::mutex> lock(s.mu);
  s.created.insert(p);
  *pool = rt::AsHandle(p);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
  Runtime& r = Runtime::Get();
  rt::Pools& s = rt::P();
  std::lock_guard<std::mutex> lock(s.mu);
  rt::MemPool* p = rt::Live(s, pool);
  if (!p || p->is_default) return r.Fail(cudaErrorInvalidValue);
  if (s.current == p) s.current = &s.default_pool;
  // Outstanding allocations keep it until they are freed.
  if (p->live.empty()) {
    s.created.erase(p);
    delete p;
  } else {
    p->destroyed = true;
  }
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
  Runtime& r = Runtime::Get();
  rt::Pools& s = rt::P();
  std::lock_guard<std::mutex> lock(s.mu);
  rt::MemPool* p = rt::Live(s, pool);
  if (!p || !value) return r.Fail(cudaErrorInvalidValue);
  const int flag = *static_cast<const int*>(value);
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies: p->reuse_follow_events = flag != 0; return cudaSuccess;
    case cudaMemPoolReuseAllowOpportunistic: p->reuse_opportunistic = flag != 0; return cudaSuccess;
    case cudaMemPoolReuseAllowInternalDependencies: p->reuse_internal = flag != 0; return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold: {
      p->release_threshold = *static_cast<const uint64_t*>(value);
      const uint64_t limit = p->release_threshold > p->used ? p->release_threshold - p->used : 0;
      p->kept = std::min(p->kept, limit);
      return cudaSuccess;
    }
    case cudaMemPoolAttrReservedMemHigh:  // only a reset to 0
      if (*static_cast<const uint64_t*>(value) != 0) return r.Fail(cudaErrorInvalidValue);
      p->reserved_high = p->used + p->kept;
      return cudaSuccess;
    case cudaMemPoolAttrUsedMemHigh:
      if (*static_cast<const uint64_t*>(value) != 0) return r.Fail(cudaErrorInvalidValue);
      p->used_high = p->used;
      return cudaSuccess;
    default: return r.Fail(cudaErrorInvalidValue);  // read-only or unknown
  }
}

CUDART_EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
  Runtime& r = Runtime::Get();
  rt::Pools& s = rt::P();
  std::lock_guard<std::mutex> lock(s.mu);
  rt::MemPool* p = rt::Live(s, pool);
  if (!p || !value) return r.Fail(cudaErrorInvalidValue);
  auto u64 = [&](uint64_t v) {
    *static_cast<uint64_t*>(value) = v;
    return cudaSuccess;
  };
  auto i32 = [&](int v) {
    *static_cast<int*>(value) = v;
    return cudaSuccess;
  };
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies: return i32(p->reuse_follow_events);
    case cudaMemPoolReuseAllowOpportunistic: return i32(p->reuse_opportunistic);
    case cudaMemPoolReuseAllowInternalDependencies: return i32(p->reuse_internal);
    case cudaMemPoolAttrReleaseThreshold: return u64(p->release_threshold);
    case cudaMemPoolAttrReservedMemCurrent: return u64(p->used + p->kept);
    case cudaMemPoolAttrReservedMemHigh: return u64(p->reserved_high);
    case cudaMemPoolAttrUsedMemCurrent: return u64(p->used);
    case cudaMemPoolAttrUsedMemHigh: return u64(p->used_high);
    default: return r.Fail(cudaErrorInvalidValue);
  }
}

CUDART_EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t min_bytes_to_keep) {
  Runtime& r = Runtime::Get();
  rt::Pools& s = rt::P();
  std::lock_guard<std::mutex> lock(s.mu);
  rt::MemPool* p = rt::Live(s, pool);
  if (!p) return r.Fail(cudaErrorInvalidValue);
  // Only freed bytes can go: reserved falls to max(used, min_bytes_to_keep).
  const uint64_t limit = min_bytes_to_keep > p->used ? min_bytes_to_keep - p->used : 0;
  p->kept = std::min<uint64_t>(p->kept, limit);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const cudaMemAccessDesc* descs, size_t count) {
  Runtime& r = Runtime::Get();
  if (!rt::ValidMemPool(pool) || (count && !descs)) return r.Fail(cudaErrorInvalidValue);
  for (size_t i = 0; i < count; ++i) {
    const cudaMemAccessDesc& d = descs[i];
    if (d.location.type != cudaMemLocationTypeDevice || d.location.id != 0) return r.Fail(cudaErrorInvalidValue);
    // The owning device (the only one) always has read-write access.
    if (d.flags != cudaMemAccessFlagsProtReadWrite) return r.Fail(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags* flags, cudaMemPool_t pool,
                                               cudaMemLocation* location) {
  Runtime& r = Runtime::Get();
  if (!flags || !location || !rt::ValidMemPool(pool)) return r.Fail(cudaErrorInvalidValue);
  if (location->type == cudaMemLocationTypeDevice) {
    if (location->id != 0) return r.Fail(cudaErrorInvalidValue);
    *flags = cudaMemAccessFlagsProtReadWrite;
    return cudaSuccess;
  }
  if (location->type == cudaMemLocationTypeHost || location->type == cudaMemLocationTypeHostNuma) {
    *flags = cudaMemAccessFlagsProtNone;  // device pools are not host-accessible
    return cudaSuccess;
  }
  return r.Fail(cudaErrorInvalidValue);
}

// ---------------------------------------------------------------- peer access
// One device: no device can access a peer, so enabling access always fails as
// cudaDeviceCanAccessPeer's 0 says; copies between device 0 and itself are
// device-to-device copies.

CUDART_EXPORT cudaError_t cudaDeviceCanAccessPeer(int* can_access, int device, int peer) {
  Runtime& r = Runtime::Get();
  if (!can_access) return r.Fail(cudaErrorInvalidValue);
  if (device != 0 || peer != 0) return r.Fail(cudaErrorInvalidDevice);
  *can_access = 0;  // a device is not its own peer
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags) {
  Runtime& r = Runtime::Get();
  if (flags != 0) return r.Fail(cudaErrorInvalidValue);
  // cudaDeviceCanAccessPeer gives 0 for every pair (or the device is invalid).
  (void)peer;
  return r.Fail(cudaErrorInvalidDevice);
}

CUDART_EXPORT cudaError_t cudaDeviceDisablePeerAccess(int peer) {
  Runtime& r = Runtime::Get();
  if (peer != 0) return r.Fail(cudaErrorInvalidDevice);
  return r.Fail(cudaErrorPeerAccessNotEnabled);  // it never was
}

CUDART_EXPORT cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device, size_t count) {
  if (dst_device != 0 || src_device != 0) return Runtime::Get().Fail(cudaErrorInvalidDevice);
  return cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice);
}

CUDART_EXPORT cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                              size_t count, cudaStream_t stream) {
  if (dst_device != 0 || src_device != 0) return Runtime::Get().Fail(cudaErrorInvalidDevice);
  return cudaMemcpyAsync(dst, src, count, cudaMemcpyDeviceToDevice, stream);
}

namespace {
cudaError_t PeerParms(const cudaMemcpy3DPeerParms* p, cudaMemcpy3DParms* out) {
  if (!p) return cudaErrorInvalidValue;
  if (p->srcDevice != 0 || p->dstDevice != 0) return cudaErrorInvalidDevice;
  *out = cudaMemcpy3DParms{};
  out->srcArray = p->srcArray;
  out->srcPos = p->srcPos;
  out->srcPtr = p->srcPtr;
  out->dstArray = p->dstArray;
  out->dstPos = p->dstPos;
  out->dstPtr = p->dstPtr;
  out->extent = p->extent;
  out->kind = cudaMemcpyDeviceToDevice;
  return cudaSuccess;
}
}  // namespace

CUDART_EXPORT cudaError_t cudaMemcpy3DPeer(const cudaMemcpy3DPeerParms* p) {
  cudaMemcpy3DParms q;
  if (cudaError_t e = PeerParms(p, &q)) return Runtime::Get().Fail(e);
  return cudaMemcpy3D(&q);
}
CUDART_EXPORT cudaError_t cudaMemcpy3DPeer_ptds(const cudaMemcpy3DPeerParms* p) {
  cudaMemcpy3DParms q;
  if (cudaError_t e = PeerParms(p, &q)) return Runtime::Get().Fail(e);
  return cudaMemcpy3D_ptds(&q);
}
CUDART_EXPORT cudaError_t cudaMemcpy3DPeerAsync(const cudaMemcpy3DPeerParms* p, cudaStream_t stream) {
  cudaMemcpy3DParms q;
  if (cudaError_t e = PeerParms(p, &q)) return Runtime::Get().Fail(e);
  return cudaMemcpy3DAsync(&q, stream);
}
CUDART_EXPORT cudaError_t cudaMemcpy3DPeerAsync_ptsz(const cudaMemcpy3DPeerParms* p, cudaStream_t stream) {
  cudaMemcpy3DParms q;
  if (cudaError_t e = PeerParms(p, &q)) return Runtime::Get().Fail(e);
  return cudaMemcpy3DAsync_ptsz(&q, stream);
}

// ---------------------------------------------------------------- managed memory attachment
// Managed memory is host memory here, visible to every stream and the host:
// an attachment changes nothing; the call validates its arguments.
namespace {
cudaError_t AttachMem(cudaStream_t stream, void* ptr, size_t length, unsigned flags, bool per_thread) {
  Runtime& r = Runtime::Get();
  if (cudaError_t e = r.sticky()) return r.Fail(e);
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost && flags != cudaMemAttachSingle)
    return r.Fail(cudaErrorInvalidValue);
  if (!r.ValidStream(stream)) return r.Fail(cudaErrorInvalidResourceHandle);
  // The NULL (legacy) stream is no specific stream to attach singly to.
  if (flags == cudaMemAttachSingle && ((stream == nullptr && !per_thread) || stream == cudaStreamLegacy))
    return r.Fail(cudaErrorInvalidValue);
  auto a = r.device().memory().Find(reinterpret_cast<uint64_t>(ptr));
  // Managed memory only (cudaDevAttrPageableMemoryAccess is 0): length 0 or the whole allocation.
  // __managed__ variables are module globals whose device address is their symbol.
  const bool managed = a && (a->kind == barracuda::emu::DeviceMemory::Kind::kManaged ||
                             (a->kind == barracuda::emu::DeviceMemory::Kind::kGlobalVariable && r.VarBySymbol(ptr) &&
                              r.VarBySymbol(ptr)->managed));
  if (!ptr || !managed) return r.Fail(cudaErrorInvalidValue);
  if (length != 0 && (a->base != reinterpret_cast<uint64_t>(ptr) || length != a->size))
    return r.Fail(cudaErrorInvalidValue);
  return cudaSuccess;
}
}  // namespace

CUDART_EXPORT cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void* ptr, size_t length,
                                                   unsigned int flags) {
  return AttachMem(stream, ptr, length, flags, false);
}
CUDART_EXPORT cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void* ptr, size_t length,
                                                        unsigned int flags) {
  return AttachMem(stream, ptr, length, flags, true);
}
