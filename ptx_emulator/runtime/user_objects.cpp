// User objects (user_objects.h) and the runtime calls that make, retain and
// release them, for the program and for graphs.
#include "ptx_emulator/runtime/user_objects.h"

#include <memory>
#include <mutex>

#include "ptx_emulator/runtime/graph_model.h"
#include "ptx_emulator/runtime/runtime_state.h"

namespace barracuda::cudart {
namespace {

struct UserObject {
  void* ptr = nullptr;
  cudaHostFn_t destroy = nullptr;
  unsigned refs = 0;
};

struct Objects {
  std::mutex mu;
  absl::flat_hash_map<const void*, std::unique_ptr<UserObject>> live;
  static Objects& Get() {
    static Objects* objects = new Objects;  // never destroyed: graphs may outlive static destructors
    return *objects;
  }
};

}  // namespace

bool LiveUserObject(cudaUserObject_t object) {
  Objects& o = Objects::Get();
  std::lock_guard<std::mutex> lock(o.mu);
  return o.live.contains(object);
}

bool RetainUserObject(cudaUserObject_t object, unsigned count) {
  Objects& o = Objects::Get();
  std::lock_guard<std::mutex> lock(o.mu);
  auto it = o.live.find(object);
  if (it == o.live.end() || count == 0) return false;
  it->second->refs += count;
  return true;
}

bool ReleaseUserObject(cudaUserObject_t object, unsigned count) {
  std::unique_ptr<UserObject> dead;
  {
    Objects& o = Objects::Get();
    std::lock_guard<std::mutex> lock(o.mu);
    auto it = o.live.find(object);
    if (it == o.live.end() || count == 0 || count > it->second->refs) return false;
    it->second->refs -= count;
    if (it->second->refs == 0) {
      dead = std::move(it->second);
      o.live.erase(it);
    }
  }
  if (dead && dead->destroy) dead->destroy(dead->ptr);  // outside the lock: it may make or drop objects
  return true;
}

void UserObjectRefs::RetainSame(const UserObjectRefs& original) {
  for (const auto& [object, count] : original.refs_) {
    if (RetainUserObject(object, count)) refs_[object] += count;
  }
}

UserObjectRefs::~UserObjectRefs() {
  for (const auto& [object, count] : refs_) ReleaseUserObject(object, count);
}

bool UserObjectRefs::Release(cudaUserObject_t object, unsigned count) {
  auto it = refs_.find(object);
  if (it == refs_.end() || count == 0 || count > it->second) return false;
  if (!ReleaseUserObject(object, count)) return false;
  if ((it->second -= count) == 0) refs_.erase(it);
  return true;
}

}  // namespace barracuda::cudart

namespace rt = barracuda::cudart;

CUDART_EXPORT cudaError_t cudaUserObjectCreate(cudaUserObject_t* object, void* ptr, cudaHostFn_t destroy,
                                               unsigned int initial_refcount, unsigned int flags) {
  rt::Runtime& r = rt::Runtime::Get();
  // cudaUserObjectNoDestructorSync is required (the only flag there is).
  if (!object || !destroy || initial_refcount == 0 || flags != cudaUserObjectNoDestructorSync)
    return r.Fail(cudaErrorInvalidValue);
  auto made = std::make_unique<rt::UserObject>();
  made->ptr = ptr;
  made->destroy = destroy;
  made->refs = initial_refcount;
  *object = reinterpret_cast<cudaUserObject_t>(made.get());
  rt::Objects& o = rt::Objects::Get();
  std::lock_guard<std::mutex> lock(o.mu);
  o.live.emplace(made.get(), std::move(made));
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count) {
  return rt::RetainUserObject(object, count) ? cudaSuccess : rt::Runtime::Get().Fail(cudaErrorInvalidValue);
}

CUDART_EXPORT cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count) {
  return rt::ReleaseUserObject(object, count) ? cudaSuccess : rt::Runtime::Get().Fail(cudaErrorInvalidValue);
}

CUDART_EXPORT cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned int count,
                                                    unsigned int flags) {
  rt::Runtime& r = rt::Runtime::Get();
  if (flags & ~static_cast<unsigned>(cudaGraphUserObjectMove)) return r.Fail(cudaErrorInvalidValue);
  std::lock_guard<std::mutex> lock(rt::GraphRegistry::Get().mu());
  if (!rt::GraphRegistry::Get().ValidGraph(graph)) return r.Fail(cudaErrorInvalidValue);
  if (count == 0 || !rt::LiveUserObject(object)) return r.Fail(cudaErrorInvalidValue);
  // Move: the caller's references become the graph's; else the graph takes new ones.
  if ((flags & cudaGraphUserObjectMove) == 0) rt::RetainUserObject(object, count);
  reinterpret_cast<rt::Graph*>(graph)->user_objects.Add(object, count);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned int count) {
  rt::Runtime& r = rt::Runtime::Get();
  std::lock_guard<std::mutex> lock(rt::GraphRegistry::Get().mu());
  if (!rt::GraphRegistry::Get().ValidGraph(graph)) return r.Fail(cudaErrorInvalidValue);
  return reinterpret_cast<rt::Graph*>(graph)->user_objects.Release(object, count) ? cudaSuccess
                                                                                   : r.Fail(cudaErrorInvalidValue);
}
