// Synchronisation locations (paper §3.3.4, §4.3.3): the S_x map, kept apart
// from the cells because few locations are ever acquired or released.
// S_x maps each block of the grid to a vector clock of type ClockT (a template
// parameter: the detector's block clock from vc_compression).
//
// Representation, so that gpu/sys-scope operations cost O(blocks that have
// their own clock) and never O(grid):
//   S_x[b] = own[b] if b has its own clock, else base   (base starts at bottom)
//   RELGLOBAL store:  base := C_t; own := {}            (O(|own|) to drop them)
//   RELGLOBAL rmw:    base ⊔= C_t; own[b] ⊔= C_t for each b in own
//   RELBLOCK store:   own[b] := C_t
//   RELBLOCK rmw:     own[b] := (own[b] or base) ⊔ C_t
//   ACQBLOCK:         C_t ⊔= own[b] or base
//   ACQGLOBAL:        C_t ⊔= base (unless every block of the grid has its own
//                     clock, when base is nobody's value) ⊔ each own[b]
// This is exactly the rule set of host_detector/SEMANTICS.md.
//
// The map never applies C_t itself: callers pass a callback that reads a clock
// (acquire: join it into C_t) or updates one (release: assign or join C_t),
// so the per-thread clock representation stays the detector's business.
// ClockT must be default-constructible to bottom, and copy-constructible for
// read-modify-write releases. If ClockT has `size_t HeapBytes() const`, its
// heap bytes are accounted too.
//
// Thread safety: every operation locks the shard of its key (sharded
// std::mutex); callbacks run under that lock and must not call back into the
// map. BeginLaunch/EndLaunch require quiescent callers.
#ifndef BARRACUDA_SHADOW_MEMORY_SYNC_LOCATIONS_H_
#define BARRACUDA_SHADOW_MEMORY_SYNC_LOCATIONS_H_

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "shadow_memory/epoch.h"
#include "shadow_memory/memory_accounting.h"

namespace barracuda::shadow {

struct SyncKey {
  Space space = Space::kGlobal;
  uint64_t address = 0;  // byte address; shared: protocol.h block << 32 | offset

  friend bool operator==(const SyncKey&, const SyncKey&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const SyncKey& k) {
    return H::combine(std::move(h), static_cast<uint8_t>(k.space), k.address);
  }
};

// How a release writes S_x (host_detector/SEMANTICS.md): a plain release store
// replaces the clock; a read-modify-write (or acq_rel) joins into it.
enum class ReleaseKind : uint8_t { kStore, kReadModifyWrite };

template <class ClockT>
class SyncLocationMap {
 public:
  static constexpr int kShardBits = 6;
  static constexpr size_t kShards = size_t{1} << kShardBits;

  // accounting may be null (no accounting).
  explicit SyncLocationMap(MemoryAccounting* accounting = nullptr) : accounting_(accounting) {}
  ~SyncLocationMap() { Clear(); }
  SyncLocationMap(const SyncLocationMap&) = delete;
  SyncLocationMap& operator=(const SyncLocationMap&) = delete;

  // Forgets every location and sizes the grid (used by ACQGLOBAL to know
  // whether base is still some block's value). num_blocks == 0: unknown.
  void BeginLaunch(uint64_t num_blocks) {
    Clear();
    num_blocks_ = num_blocks;
  }
  void EndLaunch() { Clear(); }

  // ACQBLOCK: visit(const ClockT&) with S_x[block], unless it is bottom.
  // Returns whether anything was visited.
  template <class F>
  bool AcquireBlock(const SyncKey& x, uint64_t block, F&& visit) const {
    Shard& s = ShardOf(x);
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.map.find(x);
    if (it == s.map.end()) return false;
    const Location& loc = *it->second;
    if (auto own = loc.own.find(block); own != loc.own.end()) {
      visit(own->second);
      return true;
    }
    if (!loc.has_base) return false;
    visit(loc.base);
    return true;
  }

  // ACQGLOBAL: visit(const ClockT&) for a set of clocks whose join is the join
  // of S_x[b] over every block b of the grid. O(blocks with their own clock).
  template <class F>
  bool AcquireGlobal(const SyncKey& x, F&& visit) const {
    Shard& s = ShardOf(x);
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.map.find(x);
    if (it == s.map.end()) return false;
    const Location& loc = *it->second;
    bool any = false;
    if (loc.has_base && (num_blocks_ == 0 || loc.own.size() < num_blocks_)) {
      visit(loc.base);
      any = true;
    }
    for (const auto& [block, clock] : loc.own) {
      visit(clock);
      any = true;
    }
    return any;
  }

  // RELBLOCK: update(ClockT& slot) applies C_t to S_x[block]. kStore: update
  // must overwrite slot. kReadModifyWrite: slot holds S_x[block]; join into it.
  template <class F>
  void ReleaseBlock(const SyncKey& x, uint64_t block, ReleaseKind kind, F&& update) {
    Shard& s = ShardOf(x);
    std::lock_guard<std::mutex> lock(s.mu);
    Location& loc = FindOrCreate(s, x);
    int64_t before = static_cast<int64_t>(MapBytes(loc));
    auto [it, inserted] = loc.own.try_emplace(block);
    if (!inserted) before += static_cast<int64_t>(ClockHeapBytes(it->second));
    if (inserted && kind == ReleaseKind::kReadModifyWrite && loc.has_base) it->second = loc.base;
    update(it->second);
    Account(static_cast<int64_t>(MapBytes(loc) + ClockHeapBytes(it->second)) - before);
  }

  // RELGLOBAL: applies C_t to S_x[b] for every block b of the grid.
  // kStore: update(base) must overwrite it, and every block's own clock is
  // dropped. kReadModifyWrite: update joins into base and each own clock.
  template <class F>
  void ReleaseGlobal(const SyncKey& x, ReleaseKind kind, F&& update) {
    Shard& s = ShardOf(x);
    std::lock_guard<std::mutex> lock(s.mu);
    Location& loc = FindOrCreate(s, x);
    int64_t before = static_cast<int64_t>(LocationBytes(loc));
    if (kind == ReleaseKind::kStore) {
      loc.own.clear();
      update(loc.base);
    } else {
      update(loc.base);
      for (auto& [block, clock] : loc.own) update(clock);
    }
    loc.has_base = true;
    Account(static_cast<int64_t>(LocationBytes(loc)) - before);
  }

  bool Contains(const SyncKey& x) const {
    Shard& s = ShardOf(x);
    std::lock_guard<std::mutex> lock(s.mu);
    return s.map.contains(x);
  }
  // Blocks of x holding a clock of their own (0 when x is unknown): tests use
  // it to check that global operations stay O(touched blocks).
  size_t OwnClockCount(const SyncKey& x) const {
    Shard& s = ShardOf(x);
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.map.find(x);
    return it == s.map.end() ? 0 : it->second->own.size();
  }
  size_t size() const {
    size_t n = 0;
    for (Shard& s : shards_) {
      std::lock_guard<std::mutex> lock(s.mu);
      n += s.map.size();
    }
    return n;
  }
  uint64_t num_blocks() const { return num_blocks_; }

  // Forgets every location. O(locations + own clocks).
  void Clear() {
    int64_t freed = 0, count = 0;
    for (Shard& s : shards_) {
      std::lock_guard<std::mutex> lock(s.mu);
      for (auto& [key, loc] : s.map) freed += static_cast<int64_t>(LocationBytes(*loc));
      count += static_cast<int64_t>(s.map.size());
      freed += static_cast<int64_t>(s.map.capacity() * (sizeof(typename ShardMap::value_type) + 1));
      ShardMap().swap(s.map);
    }
    Account(-freed);
    if (accounting_ != nullptr) accounting_->Count(ShadowEvent::kSyncLocations, -count);
  }

 private:
  struct Location {
    ClockT base{};
    bool has_base = false;  // base is not bottom
    absl::flat_hash_map<uint64_t, ClockT> own;
  };
  using ShardMap = absl::flat_hash_map<SyncKey, std::unique_ptr<Location>>;
  struct alignas(64) Shard {
    std::mutex mu;
    ShardMap map;
  };

  static size_t ClockHeapBytes(const ClockT& c) {
    if constexpr (requires { { c.HeapBytes() } -> std::convertible_to<size_t>; }) {
      return c.HeapBytes();
    } else {
      return 0;
    }
  }
  static size_t MapBytes(const Location& loc) {
    return sizeof(Location) + ClockHeapBytes(loc.base) +
           loc.own.capacity() * (sizeof(typename decltype(loc.own)::value_type) + 1);
  }
  static size_t LocationBytes(const Location& loc) {
    size_t n = MapBytes(loc);
    for (const auto& [block, clock] : loc.own) n += ClockHeapBytes(clock);
    return n;
  }

  Shard& ShardOf(const SyncKey& x) const {
    size_t h = absl::Hash<SyncKey>{}(x);
    return shards_[(h >> 7) & (kShards - 1)];  // low bits go to the shard's own table
  }
  Location& FindOrCreate(Shard& s, const SyncKey& x) {
    size_t cap = s.map.capacity();
    auto [it, inserted] = s.map.try_emplace(x);
    if (inserted) {
      it->second = std::make_unique<Location>();
      Account(static_cast<int64_t>(LocationBytes(*it->second) +
                                   (s.map.capacity() - cap) *
                                       (sizeof(typename ShardMap::value_type) + 1)));
      if (accounting_ != nullptr) accounting_->Count(ShadowEvent::kSyncLocations);
    }
    return *it->second;
  }
  void Account(int64_t delta) {
    if (accounting_ != nullptr && delta != 0) accounting_->Add(MemoryCategory::kSyncLocations, delta);
  }

  MemoryAccounting* accounting_;
  uint64_t num_blocks_ = 0;
  mutable Shard shards_[kShards];
};

}  // namespace barracuda::shadow

#endif  // BARRACUDA_SHADOW_MEMORY_SYNC_LOCATIONS_H_
