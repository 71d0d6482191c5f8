// The strong loads of one launch that observed another thread's strong write
// (SEMANTICS.md "Observation order"): PTX orders a strong write W before
// everything that a strong read Z of W's value happens before, with no fence
// on either side (causality order, clause 2: W precedes Z in observation
// order, Z precedes Y in base causality order). A polling loop that reads a
// flag with ld.volatile and then resets it with a plain store relies on it.
//
// Kept per location x (space, start address) for the write Z read: its
// epoch, and per observing thread the clock of its first load of it, which a
// later access is ordered after whenever it is ordered after any of that
// thread's loads. A later write to x forgets the entry (its loads read an
// older value); an asker also compares the entry's write with the cell's
// latest. A load needs no entry when its thread was already ordered after the
// write (the clocks cover what it could add), so polling inside one thread,
// and the relaxed atomics of a histogram (read-modify-writes: the cell's chain
// state covers them), cost a lookup of the cell only.
//
// Thread safety: sharded mutexes. Callers hold the cell's stripe lock around
// Note and AnyBefore, so an entry and the cell it is about move together;
// Forget runs once the writing lane's cells are done (a wide or split access
// asks for the entry on each of its cells first).
#ifndef BARRACUDA_HOST_DETECTOR_DETECTOR_LOAD_OBSERVERS_H_
#define BARRACUDA_HOST_DETECTOR_DETECTOR_LOAD_OBSERVERS_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "shadow_memory/epoch.h"
#include "shadow_memory/memory_accounting.h"
#include "shadow_memory/sync_locations.h"

namespace barracuda::detector {

class LoadObservers {
 public:
  explicit LoadObservers(shadow::MemoryAccounting* accounting = nullptr) : accounting_(accounting) {}
  ~LoadObservers() { Clear(); }
  LoadObservers(const LoadObservers&) = delete;
  LoadObservers& operator=(const LoadObservers&) = delete;

  // Thread z's strong load at its clock c read the write `written` of x.
  void Note(const shadow::SyncKey& x, shadow::Epoch written, shadow::Tid z, shadow::Clock c) {
    Shard& s = ShardOf(x);
    std::lock_guard<std::mutex> lock(s.mu);
    auto [it, inserted] = s.map.try_emplace(x);
    Entry& e = it->second;
    const int64_t before = inserted ? 0 : static_cast<int64_t>(Bytes(e));
    if (inserted || !(e.written == written)) {
      e.written = written;
      e.first.clear();
    }
    e.first.try_emplace(z, c);  // the thread's first load of this write
    if (inserted) s.count.fetch_add(1, std::memory_order_relaxed);
    Account(static_cast<int64_t>(Bytes(e)) - before + (inserted ? kKeyBytes : 0));
  }

  // Did a strong load of x that read `written` happen before the asker?
  // covers(z, c): is thread z's clock c ordered before the asker.
  template <class F>
  bool AnyBefore(const shadow::SyncKey& x, shadow::Epoch written, F&& covers) const {
    Shard& s = ShardOf(x);
    if (s.count.load(std::memory_order_relaxed) == 0) return false;
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.map.find(x);
    if (it == s.map.end() || !(it->second.written == written)) return false;
    for (const auto& [z, c] : it->second.first) {
      if (covers(z, c)) return true;
    }
    return false;
  }

  // x was written again: its loads read an older value. (Epochs do not name a
  // write uniquely: a thread writes twice at one clock where nothing orders.)
  void Forget(const shadow::SyncKey& x) {
    Shard& s = ShardOf(x);
    if (s.count.load(std::memory_order_relaxed) == 0) return;
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.map.find(x);
    if (it == s.map.end()) return;
    Account(-static_cast<int64_t>(Bytes(it->second)) - kKeyBytes);
    s.map.erase(it);
    s.count.fetch_sub(1, std::memory_order_relaxed);
  }

  // Forgets every location (the end of a launch).
  void Clear() {
    int64_t freed = 0;
    for (Shard& s : shards_) {
      std::lock_guard<std::mutex> lock(s.mu);
      for (const auto& [x, e] : s.map) freed += static_cast<int64_t>(Bytes(e)) + kKeyBytes;
      decltype(s.map)().swap(s.map);
      s.count.store(0, std::memory_order_relaxed);
    }
    Account(-freed);
  }

  size_t size() const {
    size_t n = 0;
    for (const Shard& s : shards_) n += s.count.load(std::memory_order_relaxed);
    return n;
  }

 private:
  struct Entry {
    shadow::Epoch written;
    absl::flat_hash_map<shadow::Tid, shadow::Clock> first;
  };
  static constexpr int64_t kKeyBytes = sizeof(shadow::SyncKey) + sizeof(Entry) + 1;
  static size_t Bytes(const Entry& e) {
    return e.first.capacity() * (sizeof(shadow::Tid) + sizeof(shadow::Clock) + 1);
  }
  void Account(int64_t delta) {
    if (accounting_ != nullptr && delta != 0) accounting_->Add(shadow::MemoryCategory::kSyncLocations, delta);
  }
  struct alignas(64) Shard {
    mutable std::mutex mu;
    absl::flat_hash_map<shadow::SyncKey, Entry> map;
    std::atomic<size_t> count{0};  // map.size(): askers skip empty shards without the lock
  };
  static constexpr size_t kShards = 64;
  Shard& ShardOf(const shadow::SyncKey& x) const {
    return shards_[(x.address >> 2 ^ x.address >> 12) & (kShards - 1)];
  }

  shadow::MemoryAccounting* accounting_;
  mutable std::array<Shard, kShards> shards_;
};

}  // namespace barracuda::detector

#endif  // BARRACUDA_HOST_DETECTOR_DETECTOR_LOAD_OBSERVERS_H_
