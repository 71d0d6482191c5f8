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

VcEntry& SparseVc::Slot(VcKey t, const VcEntry& e, bool& inserted) {
  if (map_.empty()) {
    for (uint32_t i = 0; i < small_size_; ++i) {
      if (small_keys_[i] == t) {
        inserted = false;
        return small_[i];
      }
    }
    if (small_size_ < kInline) {
      inserted = true;
      small_keys_[small_size_] = t;
      small_[small_size_] = e;
      return small_[small_size_++];
    }
    // Full: everything moves to the map.
    const size_t before = HeapBytes();
    map_.reserve(2 * kInline);
    for (uint32_t i = 0; i < small_size_; ++i) map_.emplace(small_keys_[i], small_[i]);
    small_size_ = 0;
    Account(before);
  }
  const size_t before = HeapBytes();
  auto [it, was_inserted] = map_.try_emplace(t, e);
  inserted = was_inserted;
  Account(before);
  return it->second;
}

void SparseVc::Set(VcKey t, const VcEntry& e) {
  assert(e.clock > 0 && FitsClock(e.clock));
  bool inserted;
  VcEntry& slot = Slot(t, e, inserted);
  if (!inserted) {
    kept_writes_ -= IsKeptWrite(slot);
    slot = e;
  }
  kept_writes_ += IsKeptWrite(e);
  NoteSummary(e);
}

void SparseVc::Merge(VcKey t, const VcEntry& e) {
  assert(e.clock > 0 && FitsClock(e.clock));
  bool inserted;
  VcEntry& slot = Slot(t, e, inserted);
  if (inserted) {
    kept_writes_ += IsKeptWrite(e);
    NoteSummary(e);
  } else if (slot.clock < e.clock) {
    kept_writes_ += IsKeptWrite(e) - IsKeptWrite(slot);
    slot = e;
    NoteSummary(e);
  }
}

void SparseVc::Clear() {
  small_size_ = 0;
  kept_writes_ = 0;
  ResetSummary();
  if (map_.capacity() == 0) return;
  const size_t before = HeapBytes();
  decltype(map_)().swap(map_);
  Account(before);
}

void SparseVc::CopyFrom(const SparseVc& o) {
  const size_t before = HeapBytes();
  small_size_ = o.small_size_;
  kept_writes_ = o.kept_writes_;
  min_clock_ = o.min_clock_;
  uniform_ = o.uniform_;
  for (uint32_t i = 0; i < o.small_size_; ++i) {
    small_keys_[i] = o.small_keys_[i];
    small_[i] = o.small_[i];
  }
  if (o.map_.empty()) {
    if (map_.capacity() != 0) decltype(map_)().swap(map_);
  } else {
    map_ = o.map_;
  }
  Account(before);
}

}  // namespace barracuda::shadow
