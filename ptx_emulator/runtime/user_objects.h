// CUDA user objects (cudaUserObjectCreate): a host pointer, its destructor
// and a reference count, shared between the program and graphs. A graph holds
// references (cudaGraphRetainUserObject) and gives them back when destroyed;
// its clones and the executable graphs made from it hold their own (the CUDA
// runtime's documented behaviour), so a resource a graph's host nodes use
// lives as long as any graph or exec that can still run them. The destructor
// runs when the count drops to zero, on the releasing thread (the emulator
// has no asynchronous work; cudaUserObjectNoDestructorSync allows this).
#ifndef BARRACUDA_PTX_EMULATOR_RUNTIME_USER_OBJECTS_H_
#define BARRACUDA_PTX_EMULATOR_RUNTIME_USER_OBJECTS_H_

#include "absl/container/flat_hash_map.h"
#include "ptx_emulator/runtime/cuda_api.h"

namespace barracuda::cudart {

// Live objects only: false (nothing changed) for a stale or foreign handle,
// a zero count, or (release) more references than are held.
bool LiveUserObject(cudaUserObject_t object);
bool RetainUserObject(cudaUserObject_t object, unsigned count);
bool ReleaseUserObject(cudaUserObject_t object, unsigned count);

// The references one graph holds.
class UserObjectRefs {
 public:
  UserObjectRefs() = default;
  UserObjectRefs(const UserObjectRefs&) = delete;
  UserObjectRefs& operator=(const UserObjectRefs&) = delete;
  ~UserObjectRefs();
  // A clone of a graph holds references of its own to the original's objects.
  void RetainSame(const UserObjectRefs& original);
  // Takes `count` references the caller already retained for the graph.
  void Add(cudaUserObject_t object, unsigned count) { refs_[object] += count; }
  // Gives back `count` of the graph's references; false if it holds fewer.
  bool Release(cudaUserObject_t object, unsigned count);

 private:
  absl::flat_hash_map<cudaUserObject_t, unsigned> refs_;
};

}  // namespace barracuda::cudart

#endif  // BARRACUDA_PTX_EMULATOR_RUNTIME_USER_OBJECTS_H_
