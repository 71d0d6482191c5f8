#include "shadow_memory/sparse_vc.h"

#include <cassert>

#include "shadow_memory/vc_pool.h"

namespace barracuda::shadow {

size_t SparseVc::HeapBytes() const {
  // flat_hash_map: one slot plus one control byte per unit of capacity.
  return mid_capacity_ * sizeof(KeyedEntry) + map_.capacity() * (sizeof(decltype(map_)::value_type) + 1);
}

void SparseVc::Account(size_t before) {
  size_t after = HeapBytes();
  if (accounting_ != nullptr && after != before) {
    const int64_t delta = static_cast<int64_t>(after) - static_cast<int64_t>(before);
    if (!SparseVcPool::DeferVcBytes(accounting_, delta)) accounting_->Add(MemoryCategory::kVectorClocks, delta);
  }
}

void SparseVc::GrowMid() {
  const size_t before = HeapBytes();
  const uint32_t capacity = mid_capacity_ == 0 ? 2 * kInline : 2 * mid_capacity_;
  auto grown = std::make_unique_for_overwrite<KeyedEntry[]>(capacity);
  for (uint32_t i = 0; i < mid_size_; ++i) grown[i] = mid_[i];
  mid_ = std::move(grown);
  mid_capacity_ = capacity;
  Account(before);
}

VcEntry& SparseVc::Slot(VcKey t, const VcEntry& e, bool& inserted) {
  if (map_.empty()) {
    for (uint32_t i = 0; i < small_size_; ++i) {
      if (small_keys_[i] == t) {
        inserted = false;
        return small_[i];
      }
    }
    if (mid_filter_ >> FilterBit(t) & 1) {
      for (uint32_t i = 0; i < mid_size_; ++i) {
        if (mid_[i].key == t) {
          inserted = false;
          return mid_[i].entry;
        }
      }
    }
    inserted = true;
    if (mid_size_ == 0 && small_size_ < kInline) {
      small_keys_[small_size_] = t;
      small_[small_size_] = e;
      return small_[small_size_++];
    }
    if (small_size_ + mid_size_ < kMid) {
      if (small_size_ + mid_size_ + 1 > mid_capacity_) GrowMid();
      for (uint32_t i = 0; i < small_size_; ++i) {
        mid_[mid_size_++] = KeyedEntry{small_keys_[i], small_[i]};
        mid_filter_ |= uint64_t{1} << FilterBit(small_keys_[i]);
      }
      small_size_ = 0;
      mid_[mid_size_] = KeyedEntry{t, e};
      mid_filter_ |= uint64_t{1} << FilterBit(t);
      return mid_[mid_size_++].entry;
    }
    // Full: everything moves to the map (mid_ keeps its storage for a later
    // life of this clock).
    const size_t before = HeapBytes();
    map_.reserve(2 * kMid);
    for (uint32_t i = 0; i < mid_size_; ++i) map_.emplace(mid_[i].key, mid_[i].entry);
    mid_size_ = 0;
    mid_filter_ = 0;
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

void SparseVc::ClearKeepingArray() {
  small_size_ = 0;
  mid_size_ = 0;
  mid_filter_ = 0;
  kept_writes_ = 0;
  ResetSummary();
  if (map_.capacity() == 0) return;
  const size_t before = HeapBytes();
  decltype(map_)().swap(map_);
  Account(before);
}

void SparseVc::Clear() {
  ClearKeepingArray();
  if (mid_capacity_ == 0) return;
  const size_t before = HeapBytes();
  mid_.reset();
  mid_capacity_ = 0;
  Account(before);
}

void SparseVc::CopyFrom(const SparseVc& o) {
  mid_size_ = 0;
  while (mid_capacity_ < o.mid_size_) GrowMid();  // accounts for itself
  const size_t before = HeapBytes();
  small_size_ = o.small_size_;
  kept_writes_ = o.kept_writes_;
  min_clock_ = o.min_clock_;
  uniform_ = o.uniform_;
  for (uint32_t i = 0; i < o.small_size_; ++i) {
    small_keys_[i] = o.small_keys_[i];
    small_[i] = o.small_[i];
  }
  for (uint32_t i = 0; i < o.mid_size_; ++i) mid_[i] = o.mid_[i];
  mid_size_ = o.mid_size_;
  mid_filter_ = o.mid_filter_;
  if (mid_size_ == 0 && mid_capacity_ != 0) {  // like the map: a copy holds what it needs
    mid_.reset();
    mid_capacity_ = 0;
  }
  if (o.map_.empty()) {
    if (map_.capacity() != 0) decltype(map_)().swap(map_);
  } else {
    map_ = o.map_;
  }
  Account(before);
}

}  // namespace barracuda::shadow
