#include "host_detector/detector/report_model.h"

namespace barracuda::detector {

const char* RaceKindName(RaceKind kind) {
  switch (kind) {
    case RaceKind::kReadAfterWrite: return "RAW";
    case RaceKind::kWriteAfterRead: return "WAR";
    case RaceKind::kWriteAfterWrite: return "WAW";
    case RaceKind::kAtomicVsPlain: return "atomic-vs-plain";
    case RaceKind::kBarrierDivergence: return "barrier-divergence";
    case RaceKind::kNotMorallyStrong: return "not-morally-strong";
    case RaceKind::kDependencyOrdered: return "dependency-ordered";
    case RaceKind::kSameValue: return "same-value";
    case RaceKind::kWarpSyncMask: return "warp-sync-mask";
    case RaceKind::kSharedLifetime: return "dsmem-lifetime";
  }
  return "?";
}

const char* RaceClassName(RaceClass cls) {
  switch (cls) {
    case RaceClass::kIntraWarp: return "intra-warp";
    case RaceClass::kDivergence: return "divergence";
    case RaceClass::kIntraBlock: return "intra-block";
    case RaceClass::kInterBlock: return "inter-block";
    case RaceClass::kAsyncCopy: return "async-copy";
    case RaceClass::kProxy: return "proxy";
  }
  return "?";
}

void RaceReport::Add(const RaceEvent& event) {
  RaceKey key{event.earlier.site, event.later.site, event.kind, event.cls};
  total_dynamic_++;
  auto [it, inserted] = index_.try_emplace(key, entries_.size());
  if (inserted) {
    entries_.push_back(RaceEntry{key, 1, event});
  } else {
    RaceEntry& entry = entries_[it->second];
    entry.count++;
    // Keep the instance first in stream order, whatever order workers found
    // them in (verdicts must not depend on how rings interleave).
    if (event.later.record_index < entry.first.later.record_index) entry.first = event;
  }
}

const RaceEntry* RaceReport::Find(const RaceKey& key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

void RaceReport::Clear() {
  entries_.clear();
  index_.clear();
  total_dynamic_ = 0;
}

}  // namespace barracuda::detector
