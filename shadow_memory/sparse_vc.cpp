#include "shadow_memory/sparse_vc.h"

#include <cassert>

#include "shadow_memory/vc_pool.h"

namespace barracuda::shadow {

size_t SparseVc::HeapBytes() const {
  // flat_hash_map: one slot plus one control byte per unit of capacity.
  size_t bytes = mid_capacity_ * sizeof(Run);
  if (map_ != nullptr) bytes += map_->Bytes();
  return bytes;
}

void SparseVc::Account(size_t before) {
  size_t after = HeapBytes();
  if (accounting_ != nullptr && after != before) {
    const int64_t delta = static_cast<int64_t>(after) - static_cast<int64_t>(before);
    if (!SparseVcPool::DeferVcBytes(accounting_, delta)) accounting_->Add(MemoryCategory::kVectorClocks, delta);
  }
}

void SparseVc::GrowMid(uint32_t at_least) {
  const size_t before = HeapBytes();
  uint32_t capacity = mid_capacity_ == 0 ? 2 * kInline : 2u * mid_capacity_;
  while (capacity < at_least) capacity *= 2;
  assert(capacity <= UINT8_MAX);
  auto grown = std::make_unique_for_overwrite<Run[]>(capacity);
  const Run* from = RunsBegin();
  for (uint32_t i = 0; i < runs_; ++i) grown[i] = from[i];
  mid_ = std::move(grown);
  mid_capacity_ = static_cast<uint8_t>(capacity);
  Account(before);
}

void SparseVc::ToMap() {
  assert(map_ == nullptr);
  const size_t before = HeapBytes();
  auto map = std::make_unique<KeyMap>();
  const Run* runs = RunsBegin();
  // The longest run goes first: the map's bit pages take the entry of the
  // first key (a guess at the most common one).
  uint32_t most = 0;
  for (uint32_t i = 0; i < runs_; ++i) {
    if (runs[i].count > runs[most].count) most = i;
  }
  for (uint32_t n = 0; n < runs_; ++n) {
    const Run& r = runs[n == 0 ? most : n == most ? 0 : n];
    VcKey k = r.first;
    for (uint32_t j = 0; j < r.count; ++j, k += r.stride) map->Insert(k, r.entry);
  }
  map_ = std::move(map);
  runs_ = 0;
  size_ = 0;
  Account(before);
}

void SparseVc::AddRun(const Run& r) {
  if (runs_ >= kMid) {
    // Too fragmented for runs: every entry goes to the map (mid_ keeps its
    // storage until the clock is freed).
    ToMap();
    const size_t before = HeapBytes();
    VcKey k = r.first;
    for (uint32_t j = 0; j < r.count; ++j, k += r.stride) map_->Insert(k, r.entry);
    Account(before);
    return;
  }
  if (runs_ == RunCapacity()) GrowMid(runs_ + 1);
  RunsBegin()[runs_++] = r;
  size_ += r.count;
}

void SparseVc::Insert(VcKey t, const VcEntry& e) {
  if (map_ != nullptr) {
    const size_t before = HeapBytes();
    map_->Insert(t, e);
    Account(before);
    return;
  }
  // A run it continues (the newest runs first: readers arrive in order).
  Run* runs = RunsBegin();
  for (uint32_t i = runs_; i-- > 0;) {
    Run& r = runs[i];
    if (!(r.entry == e)) continue;
    if (r.count == 1) {
      const VcKey lo = t < r.first ? t : r.first, hi = t < r.first ? r.first : t;
      if (hi - lo > UINT32_MAX) continue;
      r.first = lo;
      r.stride = static_cast<uint32_t>(hi - lo);
      r.count = 2;
      ++size_;
      return;
    }
    if (r.count == UINT32_MAX) continue;
    if (t > r.first && t - r.first == VcKey{r.stride} * r.count) {
      ++r.count;
      ++size_;
      return;
    }
    if (t < r.first && r.first - t == r.stride) {
      r.first = t;
      ++r.count;
      ++size_;
      return;
    }
  }
  AddRun(Run{t, 0, 1, e});
}

void SparseVc::RemoveFromRun(uint32_t i, VcKey t) {
  Run* runs = RunsBegin();
  Run& r = runs[i];
  --size_;
  if (r.count == 1) {
    runs[i] = runs[--runs_];
    return;
  }
  const uint32_t j = static_cast<uint32_t>((t - r.first) / r.stride);
  if (j == 0) {
    r.first += r.stride;
    --r.count;
  } else if (j == r.count - 1) {
    --r.count;
  } else {
    // Inside: the run keeps [0, j), a new one takes (j, count).
    const Run tail{t + r.stride, r.stride, r.count - j - 1, r.entry};
    r.count = j;
    size_ -= tail.count;  // AddRun counts the tail again
    AddRun(tail);
  }
}

void SparseVc::AssignRuns(const RunBuffer& runs) {
  runs_ = 0;
  size_ = 0;
  if (runs.size() > kMid) {
    ToMap();  // empty: makes the map
    const size_t before = HeapBytes();
    for (const Run& r : runs) {
      VcKey k = r.first;
      for (uint32_t j = 0; j < r.count; ++j, k += r.stride) map_->Insert(k, r.entry);
    }
    Account(before);
    return;
  }
  if (runs.size() > RunCapacity()) GrowMid(static_cast<uint32_t>(runs.size()));
  Run* to = RunsBegin();
  for (const Run& r : runs) {
    to[runs_++] = r;
    size_ += r.count;
  }
}

void SparseVc::Set(VcKey t, const VcEntry& e) {
  assert(e.clock > 0 && FitsClock(e.clock));
  if (map_ != nullptr) {
    const size_t before = HeapBytes();
    if (const VcEntry* old = map_->Find(t); old != nullptr) {
      if (*old == e) {
        NoteSummary(e);
        return;
      }
      kept_writes_ -= IsKeptWrite(*old);
      map_->Erase(t);
    }
    map_->Insert(t, e);
    Account(before);
  } else if (size_ != 0) {
    Run* runs = RunsBegin();
    uint32_t i = runs_;
    while (i-- > 0 && !runs[i].Holds(t)) {
    }
    if (i != UINT32_MAX) {
      if (runs[i].entry == e) {
        NoteSummary(e);
        return;
      }
      kept_writes_ -= IsKeptWrite(runs[i].entry);
      RemoveFromRun(i, t);
    }
    Insert(t, e);
  } else {
    Insert(t, e);
  }
  kept_writes_ += IsKeptWrite(e);
  NoteSummary(e);
}

void SparseVc::Merge(VcKey t, const VcEntry& e) {
  assert(e.clock > 0 && FitsClock(e.clock));
  const VcEntry* old = Find(t);
  if (old != nullptr && old->clock >= e.clock) return;
  Set(t, e);
}

void SparseVc::ClearKeepingArray() {
  runs_ = 0;
  size_ = 0;
  kept_writes_ = 0;
  ResetSummary();
  if (map_ == nullptr) return;
  const size_t before = HeapBytes();
  map_.reset();
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
  ClearKeepingArray();
  const size_t before = HeapBytes();
  kept_writes_ = o.kept_writes_;
  min_clock_ = o.min_clock_;
  uniform_ = o.uniform_;
  if (o.map_ != nullptr) {
    map_ = std::make_unique<KeyMap>(*o.map_);
  } else {
    // Like the map: a copy holds what it needs (inline when it fits).
    if (o.runs_ <= kInline && mid_capacity_ != 0) {
      mid_.reset();
      mid_capacity_ = 0;
    }
    if (o.runs_ > RunCapacity()) {
      mid_.reset();
      mid_capacity_ = 0;
      mid_ = std::make_unique_for_overwrite<Run[]>(o.runs_);
      mid_capacity_ = o.runs_;
    }
    const Run* from = o.RunsBegin();
    Run* to = RunsBegin();
    for (uint32_t i = 0; i < o.runs_; ++i) to[i] = from[i];
    runs_ = o.runs_;
    size_ = o.size_;
  }
  Account(before);
}

}  // namespace barracuda::shadow
