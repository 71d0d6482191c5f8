#include "ptx_emulator/ops/texture_objects.h"

#include <mutex>
#include <shared_mutex>

#include "absl/container/flat_hash_map.h"

namespace barracuda::emu::tex {
namespace {

struct Registry {
  std::shared_mutex mu;
  uint64_t next = 1;  // 0 is no object (a zero-initialised handle)
  absl::flat_hash_map<uint64_t, Object> objects;
};

Registry& Objects() {
  static Registry* r = new Registry;  // never destroyed: handlers may run during exit
  return *r;
}

}  // namespace

uint64_t Register(const Object& object) {
  Registry& r = Objects();
  std::unique_lock lock(r.mu);
  const uint64_t handle = r.next++;
  r.objects.emplace(handle, object);
  return handle;
}

bool Unregister(uint64_t handle, bool surface) {
  Registry& r = Objects();
  std::unique_lock lock(r.mu);
  auto it = r.objects.find(handle);
  if (it == r.objects.end() || it->second.surface != surface) return false;
  r.objects.erase(it);
  return true;
}

std::optional<Object> Find(uint64_t handle) {
  Registry& r = Objects();
  std::shared_lock lock(r.mu);
  auto it = r.objects.find(handle);
  if (it == r.objects.end()) return std::nullopt;
  return it->second;
}

}  // namespace barracuda::emu::tex
