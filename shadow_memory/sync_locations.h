// Synchronisation locations (paper §3.3.4, §4.3.3): the S_x map, kept apart
// from the cells because few locations are ever acquired or released.
// Clocks are of type ClockT (a template parameter: the detector's vector
// clock from vc_compression).
//
// What is kept (host_detector/detector/SEMANTICS.md, "Synchronizes-with"): the clocks
// released to x, by releaser and scope, so that a release and an acquire
// synchronise exactly when each one's scope includes the other's thread (PTX
// "morally strong"):
//   by_block[b]    releases by threads of block b, at any scope
//   by_cluster[c]  releases at cluster scope or wider by threads of cluster c
//   gpu            releases at gpu/sys scope by any thread
// Observe(x, b, c, level) visits what a thread of block b (cluster c) may
// acquire at `level`: by_block[b]; by_cluster[c] from kCluster; gpu from kGpu.
// Publish(x, b, c, level, kind) applies a release of a thread of block b at
// `level` to by_block[b], by_cluster[c] (from kCluster) and gpu (from kGpu).
// A release store (kStore) first forgets every clock of x (a reader of the
// stored value synchronises with that store's release only); a read-modify-
// write joins (PTX observation order through RMWs: the release sequence).
// Callers pass cluster == block and never kCluster when a launch has no
// clusters, so nothing is kept twice; and a release store at gpu scope or
// wider, whose three parts would hold one clock, keeps it once (Location).
// Flag words and decoupled look-back status words are such stores: CUB radix
// sort of 1 M keys, daemon peak 259 -> 202 MiB (2026-12-01).
//
// The map never applies C_t itself: callers pass a callback that reads a clock
// (acquire: join it) or updates one (release: assign or join), so the per-
// thread clock representation stays the detector's business. ClockT must be
// default-constructible to bottom and copy-assignable. If ClockT has
// `size_t HeapBytes() const`, its heap bytes are accounted too.
//
// Thread safety: every operation locks the shard of its key (sharded
// std::mutex); callbacks run under that lock and must not call back into the
// map. BeginLaunch/EndLaunch require quiescent callers.
#ifndef BARRACUDA_SHADOW_MEMORY_SYNC_LOCATIONS_H_
#define BARRACUDA_SHADOW_MEMORY_SYNC_LOCATIONS_H_

#include <atomic>
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

// How a release writes S_x (host_detector/detector/SEMANTICS.md): a release store
// replaces every clock of x; a read-modify-write (or acq_rel) joins into them.
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

  void BeginLaunch() { Clear(); }
  void EndLaunch() { Clear(); }

  // visit(ScopeLevel part, const ClockT&) for each non-empty part of x that a
  // thread of `block` (in `cluster`) acquiring at `level` synchronises with.
  // The part says from which level on it counts (pending acquires of fences
  // keep them apart). Returns whether anything was visited.
  template <class F>
  bool Observe(const SyncKey& x, uint64_t block, uint64_t cluster, ScopeLevel level, F&& visit) const {
    Shard& s = ShardOf(x);
    if (s.locations.load(std::memory_order_acquire) == 0) return false;  // see Shard::locations
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.map.find(x);
    if (it == s.map.end()) return false;
    const Location& loc = *it->second;
    bool any = false;
    if (auto b = loc.by_block.find(block); b != loc.by_block.end()) {
      visit(ScopeLevel::kBlock, b->second);
      any = true;
    } else if (loc.gpu_stands_for_origin && loc.origin_block == block) {
      visit(ScopeLevel::kBlock, loc.gpu);
      any = true;
    }
    if (level >= ScopeLevel::kCluster) {
      if (auto c = loc.by_cluster.find(cluster); c != loc.by_cluster.end()) {
        visit(ScopeLevel::kCluster, c->second);
        any = true;
      } else if (loc.gpu_stands_for_origin && loc.origin_cluster == cluster) {
        visit(ScopeLevel::kCluster, loc.gpu);
        any = true;
      }
    }
    if (level >= ScopeLevel::kGpu && loc.has_gpu) {
      visit(ScopeLevel::kGpu, loc.gpu);
      any = true;
    }
    return any;
  }

  // A release by a thread of `block` (in `cluster`) at `level`: update(ClockT&)
  // is called for each part the release reaches. kStore: every clock of x is
  // forgotten first and update must overwrite its slot; kReadModifyWrite: the
  // slot holds the part's clock (bottom if none yet) and update joins into it.
  template <class F>
  void Publish(const SyncKey& x, uint64_t block, uint64_t cluster, ScopeLevel level, ReleaseKind kind,
               F&& update) {
    Shard& s = ShardOf(x);
    std::lock_guard<std::mutex> lock(s.mu);
    Location& loc = FindOrCreate(s, x);
    const int64_t before = static_cast<int64_t>(LocationBytes(loc));
    if (kind == ReleaseKind::kStore) {
      Forget(loc);
      if (level >= ScopeLevel::kGpu) {
        // A gpu-scope release store writes one clock into all three parts;
        // keep it once (the look-back words of a decoupled scan: CUB radix
        // sort 1M held 65 MiB of such triples; see Location).
        update(loc.gpu);
        loc.has_gpu = true;
        loc.gpu_stands_for_origin = true;
        loc.origin_block = block;
        loc.origin_cluster = cluster;
        Account(static_cast<int64_t>(LocationBytes(loc)) - before);
        return;
      }
    } else {
      Materialize(loc);
    }
    update(loc.by_block[block]);
    if (level >= ScopeLevel::kCluster) update(loc.by_cluster[cluster]);
    if (level >= ScopeLevel::kGpu) {
      update(loc.gpu);
      loc.has_gpu = true;
    }
    Account(static_cast<int64_t>(LocationBytes(loc)) - before);
  }

  // A strong store that releases nothing (no pending release fence): readers of
  // its value synchronise with nobody, so every clock of x is forgotten.
  void Overwrite(const SyncKey& x) {
    Shard& s = ShardOf(x);
    if (s.locations.load(std::memory_order_acquire) == 0) return;
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.map.find(x);
    if (it == s.map.end()) return;
    const int64_t before = static_cast<int64_t>(LocationBytes(*it->second));
    Forget(*it->second);
    Account(static_cast<int64_t>(LocationBytes(*it->second)) - before);
  }

  // A read-modify-write by a thread of `block` (in `cluster`) at `level`
  // below gpu: it is morally strong only with releases whose threads its
  // scope includes, so the release sequences of every other thread end at
  // it (host_detector/detector/SEMANTICS.md, "Release sequences"). Keeps
  // the parts that thread's scope reaches: at block level the block's own,
  // at cluster level the blocks of the cluster (in_cluster(b)) and the
  // cluster's part. A gpu-level one keeps everything.
  template <class InCluster>
  void KeepWithinScope(const SyncKey& x, uint64_t block, uint64_t cluster, ScopeLevel level, InCluster&& in_cluster) {
    if (level >= ScopeLevel::kGpu) return;
    Shard& s = ShardOf(x);
    if (s.locations.load(std::memory_order_acquire) == 0) return;
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.map.find(x);
    if (it == s.map.end()) return;
    Location& loc = *it->second;
    const int64_t before = static_cast<int64_t>(LocationBytes(loc));
    Materialize(loc);
    for (auto b = loc.by_block.begin(); b != loc.by_block.end();) {
      const bool keep = level == ScopeLevel::kBlock ? b->first == block : in_cluster(b->first);
      if (keep) ++b; else loc.by_block.erase(b++);
    }
    for (auto c = loc.by_cluster.begin(); c != loc.by_cluster.end();) {
      const bool keep = level == ScopeLevel::kCluster && c->first == cluster;
      if (keep) ++c; else loc.by_cluster.erase(c++);
    }
    loc.gpu = ClockT{};
    loc.has_gpu = false;
    Account(static_cast<int64_t>(LocationBytes(loc)) - before);
  }

  bool Contains(const SyncKey& x) const {
    Shard& s = ShardOf(x);
    std::lock_guard<std::mutex> lock(s.mu);
    return s.map.contains(x);
  }
  // Clocks kept for x (parts of all levels; 0 when x is unknown): tests use it
  // to check that stores forget and that nothing is kept twice.
  size_t ClockCount(const SyncKey& x) const {
    Shard& s = ShardOf(x);
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.map.find(x);
    if (it == s.map.end()) return 0;
    return it->second->by_block.size() + it->second->by_cluster.size() + (it->second->has_gpu ? 1 : 0);
  }
  size_t size() const {
    size_t n = 0;
    for (Shard& s : shards_) {
      std::lock_guard<std::mutex> lock(s.mu);
      n += s.map.size();
    }
    return n;
  }

  // Forgets every location. O(locations + own clocks).
  void Clear() {
    int64_t freed = 0, count = 0;
    for (Shard& s : shards_) {
      std::lock_guard<std::mutex> lock(s.mu);
      for (auto& [key, loc] : s.map) freed += static_cast<int64_t>(LocationBytes(*loc));
      count += static_cast<int64_t>(s.map.size());
      freed += static_cast<int64_t>(s.map.capacity() * (sizeof(typename ShardMap::value_type) + 1));
      ShardMap().swap(s.map);
      s.locations.store(0, std::memory_order_release);
    }
    Account(-freed);
    if (accounting_ != nullptr) accounting_->Count(ShadowEvent::kSyncLocations, -count);
  }

 private:
  struct Location {
    absl::flat_hash_map<uint64_t, ClockT> by_block;
    absl::flat_hash_map<uint64_t, ClockT> by_cluster;
    ClockT gpu{};
    bool has_gpu = false;  // gpu is not bottom
    // After a release store at gpu scope or wider, gpu also stands for
    // by_block[origin_block] and by_cluster[origin_cluster] (equal clocks,
    // stored once; neither map then holds those keys). Anything that would
    // make the parts differ (a read-modify-write, KeepWithinScope) first
    // materializes them.
    bool gpu_stands_for_origin = false;
    uint64_t origin_block = 0;
    uint64_t origin_cluster = 0;
  };
  using ShardMap = absl::flat_hash_map<SyncKey, std::unique_ptr<Location>>;
  struct alignas(64) Shard {
    std::mutex mu;
    ShardMap map;
    // map.size(), readable without the lock: the relaxed atomics of a
    // histogram observe locations nobody released to, and locking a shard
    // for each of them was 19% of its analysis. Exact for an Observe that
    // must see a Publish: the release is processed before the acquire that
    // observed it (stamp order, parallel_engine.h) and the count is stored
    // before the publisher moves the stamp on (acq_rel).
    std::atomic<size_t> locations{0};
  };

  static size_t ClockHeapBytes(const ClockT& c) {
    if constexpr (requires { { c.HeapBytes() } -> std::convertible_to<size_t>; }) {
      return c.HeapBytes();
    } else {
      return 0;
    }
  }
  static size_t LocationBytes(const Location& loc) {
    size_t n = sizeof(Location) + ClockHeapBytes(loc.gpu) +
               loc.by_block.capacity() * (sizeof(typename decltype(loc.by_block)::value_type) + 1) +
               loc.by_cluster.capacity() * (sizeof(typename decltype(loc.by_cluster)::value_type) + 1);
    for (const auto& [block, clock] : loc.by_block) n += ClockHeapBytes(clock);
    for (const auto& [cluster, clock] : loc.by_cluster) n += ClockHeapBytes(clock);
    return n;
  }
  static void Forget(Location& loc) {
    loc.by_block.clear();
    loc.by_cluster.clear();
    loc.gpu = ClockT{};
    loc.has_gpu = false;
    loc.gpu_stands_for_origin = false;
  }
  static void Materialize(Location& loc) {
    if (!loc.gpu_stands_for_origin) return;
    loc.gpu_stands_for_origin = false;
    loc.by_block[loc.origin_block] = loc.gpu;
    loc.by_cluster[loc.origin_cluster] = loc.gpu;
  }

  Shard& ShardOf(const SyncKey& x) const {
    size_t h = absl::Hash<SyncKey>{}(x);
    return shards_[(h >> 7) & (kShards - 1)];  // low bits go to the shard's own table
  }
  Location& FindOrCreate(Shard& s, const SyncKey& x) {
    size_t cap = s.map.capacity();
    auto [it, inserted] = s.map.try_emplace(x);
    if (inserted) {
      s.locations.store(s.map.size(), std::memory_order_release);
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
  mutable Shard shards_[kShards];
};

}  // namespace barracuda::shadow

#endif  // BARRACUDA_SHADOW_MEMORY_SYNC_LOCATIONS_H_
