#include "host_detector/gpu_agent/proc_address_table.h"

#include <string_view>

namespace barracuda::gpu_agent {
namespace {

bool StripSuffix(std::string& name, std::string_view suffix) {
  if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  name.resize(name.size() - suffix.size());
  return true;
}

}  // namespace

void ProcAddressTable::Add(std::string variant, void* hook, int min_version) {
  Entry e;
  e.base = variant;
  e.per_thread = StripSuffix(e.base, "_ptsz") || StripSuffix(e.base, "_ptds");
  for (std::string_view v : {"_v2", "_v3", "_v4"})
    if (StripSuffix(e.base, v)) break;
  e.variant = std::move(variant);
  e.hook = hook;
  e.min_version = min_version;
  entries_.push_back(std::move(e));
}

void ProcAddressTable::Resolve(absl::FunctionRef<void*(const char*)> find_real) {
  for (Entry& e : entries_) e.real = find_real(e.variant.c_str());
}

void* ProcAddressTable::HookFor(void* returned, const char* symbol, int version, bool per_thread) const {
  if (returned == nullptr) return nullptr;
  for (const Entry& e : entries_)
    if (e.real != nullptr && e.real == returned) return e.hook;
  if (symbol == nullptr) return nullptr;
  // By name: the newest variant of `symbol` that `version` reaches, as the
  // driver chooses (an older ABI variant stays the driver's); with the
  // per-thread flag its per-thread variant where there is one.
  const Entry* best = nullptr;
  for (bool want_per_thread : {per_thread, false}) {
    for (const Entry& e : entries_) {
      if (e.base != symbol || e.per_thread != want_per_thread || e.min_version > version) continue;
      if (best == nullptr || e.min_version > best->min_version) best = &e;
    }
    if (best != nullptr || !per_thread) break;
  }
  return best != nullptr ? best->hook : nullptr;
}

}  // namespace barracuda::gpu_agent
