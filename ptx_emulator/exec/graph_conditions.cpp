// The registry of graph conditions (graph_conditions.h).
#include "ptx_emulator/exec/graph_conditions.h"

#include <mutex>

#include "absl/container/flat_hash_map.h"

namespace barracuda::emu {
namespace {

struct Registry {
  std::mutex mu;
  absl::flat_hash_map<uint64_t, std::atomic<uint32_t>*> values;
};

Registry& Get() {
  static Registry* r = new Registry();  // never destroyed: graphs may outlive static destructors
  return *r;
}

}  // namespace

void RegisterGraphCondition(uint64_t handle, std::atomic<uint32_t>* value) {
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  r.values[handle] = value;
}

void UnregisterGraphCondition(uint64_t handle) {
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  r.values.erase(handle);
}

bool SetGraphCondition(uint64_t handle, uint32_t v) {
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.values.find(handle);
  if (it == r.values.end()) return false;
  it->second->store(v, std::memory_order_release);
  return true;
}

}  // namespace barracuda::emu
