#include "shadow_memory/sparse_vc.h"

#include <cassert>

namespace barracuda::shadow {

size_t SparseVc::HeapBytes() const {
  // flat_hash_map: one slot plus one control byte per unit of capacity.
  return map_.capacity() * (sizeof(decltype(map_)::value_type) + 1);
}

void SparseVc::Account(size_t before) {
  size_t after = HeapBytes();
  if (accounting_ != nullptr && after != before) {
    accounting_->Add(MemoryCategory::kVectorClocks,
                     static_cast<int64_t>(after) - static_cast<int64_t>(before));
  }
}

void SparseVc::Set(VcKey t, const VcEntry& e) {
  assert(e.clock > 0 && FitsClock(e.clock));
  size_t before = HeapBytes();
  map_.insert_or_assign(t, e);
  Account(before);
}

void SparseVc::Merge(VcKey t, const VcEntry& e) {
  assert(e.clock > 0 && FitsClock(e.clock));
  size_t before = HeapBytes();
  auto [it, inserted] = map_.try_emplace(t, e);
  if (!inserted && it->second.clock < e.clock) it->second = e;
  Account(before);
}

void SparseVc::Clear() {
  size_t before = HeapBytes();
  decltype(map_)().swap(map_);
  Account(before);
}

void SparseVc::CopyFrom(const SparseVc& o) {
  size_t before = HeapBytes();
  map_ = o.map_;
  Account(before);
}

}  // namespace barracuda::shadow
