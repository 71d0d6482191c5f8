// The out-of-line vector clock of a cell: concurrent readers (READINFLATE,
// READSHARED) or concurrent non-racing writers (host_detector/detector/SEMANTICS.md, "past
// the paper"). A sparse map tid -> (clock, site, atomic): absent entries are 0,
// which is nearly all of them. The paper keeps an unordered map too (§4.3.3);
// per-location VCs are rare, so they are not compressed further.
//
// A SparseVc lives in a SparseVcPool (vc_pool.h) and is reached from a cell by
// its VcHandle. It is protected by the lock of the cell that refers to it.
#ifndef BARRACUDA_SHADOW_MEMORY_SPARSE_VC_H_
#define BARRACUDA_SHADOW_MEMORY_SPARSE_VC_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "shadow_memory/epoch.h"
#include "shadow_memory/memory_accounting.h"

namespace barracuda::shadow {

struct VcEntry {
  Clock clock = 0;       // > 0 for every stored entry
  SiteId site = kNoSite;  // static site of that thread's access
  bool atomic = false;   // write VCs: the access was an atomic
  ReadKind read_kind = ReadKind::kRead;  // read VCs: what the reader stands for
  Strength strength = kWeak;             // size and scope of a strong access (epoch.h)
  friend bool operator==(const VcEntry&, const VcEntry&) = default;
};

// Entries are keyed by thread, and in read VCs also by ReadKind and Strength:
// one thread's newer reader that does not stand for its older one (a weaker
// kind, or a strong one excused more often: epoch.h ReaderSubsumes) is kept
// beside it, since a later access may conflict with the older one only.
// Writers and plain readers use the bare thread id as key.
using VcKey = uint64_t;
constexpr VcKey ReaderKey(Tid t, ReadKind kind, Strength strength = kWeak) {
  return VcKey{t} | (static_cast<VcKey>(static_cast<uint8_t>(kind) ^ static_cast<uint8_t>(ReadKind::kRead)) << 32) |
         (static_cast<VcKey>(strength) << 40);
}

// Up to kInline entries are kept in the object itself (no heap, no
// accounting traffic); past that they move to a heap array searched linearly
// (up to kMid entries: a shared tile word read by the 16 threads of a row, a
// global word read by one thread per block of a grid row), and past that to
// a hash map. Most inflated cells have few concurrent readers (two or three
// lanes reading a neighbour's word), and their clocks come and go every launch
// or barrier phase: building a hash map for each of them (two resizes on the
// way to 16 entries) was 40% of the analysis of a tiled matmul.
// Measured (detector_bench RunSerial/b_tiled, two readers per shared byte,
// quiet 2-core machine): see shadow_memory/README.md "Performance".
class SparseVc {
 public:
  static constexpr size_t kInline = 4;
  static constexpr uint32_t kMid = 32;

  SparseVc() = default;
  SparseVc(const SparseVc&) = delete;
  SparseVc& operator=(const SparseVc&) = delete;

  // V[t] := e (insert or overwrite). e.clock must be > 0.
  void Set(VcKey t, const VcEntry& e);
  // V[t] := max(V[t], e) by clock; the site/atomic of the larger clock win.
  void Merge(VcKey t, const VcEntry& e);
  // nullptr when V[t] == 0.
  const VcEntry* Find(VcKey t) const {
    if (map_.empty()) {
      for (uint32_t i = 0; i < small_size_; ++i) {
        if (small_keys_[i] == t) return &small_[i];
      }
      if ((mid_filter_ >> FilterBit(t) & 1) == 0) return nullptr;
      for (uint32_t i = 0; i < mid_size_; ++i) {
        if (mid_[i].key == t) return &mid_[i].entry;
      }
      return nullptr;
    }
    auto it = map_.find(t);
    return it == map_.end() ? nullptr : &it->second;
  }
  Clock Get(VcKey t) const {
    const VcEntry* e = Find(t);
    return e ? e->clock : 0;
  }
  size_t size() const { return small_size_ + mid_size_ + map_.size(); }
  // Entries of kind kKeptWrite (read VCs): a plain read checks the readers only
  // for these, and a hot word's readers are otherwise all plain reads.
  uint32_t kept_writes() const { return kept_writes_; }
  // Summaries for an atomic's check on a hot word (memory_access.cpp
  // CheckAtomic): a lower bound of the entries' clocks (exact after EraseIf),
  // and whether every entry is an atomic of one strength (that strength) or
  // not (-1; also while empty).
  Clock min_clock() const { return min_clock_; }
  int uniform_atomic_strength() const { return uniform_ >= 0 ? uniform_ : -1; }
  bool empty() const { return size() == 0; }
  // f(Tid, const VcEntry&) for every non-zero entry, in no particular order
  // (a thread may appear once per ReadKind in a read VC).
  template <class F>
  void ForEach(F&& f) const {
    for (uint32_t i = 0; i < small_size_; ++i) f(static_cast<Tid>(small_keys_[i]), small_[i]);
    for (uint32_t i = 0; i < mid_size_; ++i) f(static_cast<Tid>(mid_[i].key), mid_[i].entry);
    for (const auto& [t, e] : map_) f(static_cast<Tid>(t), e);
  }
  // Removes every entry for which pred(Tid, const VcEntry&) holds, in place
  // (no rebuild: an atomic on a hot word keeps its concurrent atomics and drops
  // only what it is ordered after, host_detector/detector/memory_access.cpp CheckAtomic).
  template <class P>
  void EraseIf(P&& pred) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < small_size_; ++i) {
      if (pred(static_cast<Tid>(small_keys_[i]), small_[i])) {
        kept_writes_ -= IsKeptWrite(small_[i]);
        continue;
      }
      small_keys_[kept] = small_keys_[i];
      small_[kept++] = small_[i];
    }
    small_size_ = kept;
    kept = 0;
    for (uint32_t i = 0; i < mid_size_; ++i) {
      if (pred(static_cast<Tid>(mid_[i].key), mid_[i].entry)) {
        kept_writes_ -= IsKeptWrite(mid_[i].entry);
        continue;
      }
      mid_[kept++] = mid_[i];
    }
    mid_size_ = kept;
    mid_filter_ = 0;
    for (uint32_t i = 0; i < mid_size_; ++i) mid_filter_ |= uint64_t{1} << FilterBit(mid_[i].key);
    for (auto it = map_.begin(); it != map_.end();) {
      if (pred(static_cast<Tid>(it->first), it->second)) {
        kept_writes_ -= IsKeptWrite(it->second);
        map_.erase(it++);
      } else {
        ++it;
      }
    }
    // The summaries of what is left, exact again.
    ResetSummary();
    ForEach([this](Tid, const VcEntry& e) { NoteSummary(e); });
  }
  // Back to all-zero, releasing the storage.
  void Clear();
  // Back to all-zero, keeping the array tier's storage (at most kMid
  // entries; still counted) for the clock's next life: the pool frees a
  // handle this way, and a tile word's 16 readers come back every barrier
  // phase (malloc and free were 10% of a tiled matmul's analysis).
  void ClearKeepingArray();
  // *this := o (a split granule's bytes each need their own clock).
  void CopyFrom(const SparseVc& o);
  // Heap bytes held (not counting sizeof(SparseVc), which the pool accounts).
  size_t HeapBytes() const;

 private:
  friend class SparseVcPool;
  void Account(size_t before);
  // The entry for t, inserted as `e` if absent (inserted = true).
  VcEntry& Slot(VcKey t, const VcEntry& e, bool& inserted);

  // Invariant: entries live in one tier only: small_, mid_ or map_ (the other
  // two sizes are 0). mid_ keeps its storage while the VC lives.
  struct KeyedEntry {
    VcKey key;
    VcEntry entry;
  };
  VcKey small_keys_[kInline] = {};
  VcEntry small_[kInline] = {};
  uint32_t small_size_ = 0;
  uint32_t mid_size_ = 0, mid_capacity_ = 0;
  std::unique_ptr<KeyedEntry[]> mid_;
  // One bit per key of mid_ (FilterBit, a multiplicative hash: the readers
  // of a tile word are consecutive threads or threads 16 apart): a key whose
  // bit is clear is absent, so a new reader is appended without a scan (a
  // tile word's 16 readers each scanned 8 entries on average).
  uint64_t mid_filter_ = 0;
  static constexpr unsigned FilterBit(VcKey t) { return static_cast<unsigned>((t * 0x9E3779B97F4A7C15ull) >> 58); }
  void GrowMid();
  // 24-byte slots with a 32- or a 64-bit key alike (VcEntry is 8-aligned).
  absl::flat_hash_map<VcKey, VcEntry> map_;
  MemoryAccounting* accounting_ = nullptr;  // the pool's; set at allocation
  uint32_t kept_writes_ = 0;                 // entries with read_kind kKeptWrite
  static uint32_t IsKeptWrite(const VcEntry& e) { return e.read_kind == ReadKind::kKeptWrite ? 1 : 0; }
  // Conservative under Set/Merge (an overwritten entry's clock may stay the
  // bound; a strength once mixed stays mixed), exact after EraseIf.
  static constexpr int16_t kEmptySummary = -2;
  Clock min_clock_ = ~Clock{0};
  int16_t uniform_ = kEmptySummary;  // kEmptySummary, -1 (not uniform atomics), or the strength
  void ResetSummary() {
    min_clock_ = ~Clock{0};
    uniform_ = kEmptySummary;
  }
  void NoteSummary(const VcEntry& e) {
    min_clock_ = e.clock < min_clock_ ? e.clock : min_clock_;
    const int16_t s = e.atomic && e.strength != kWeak ? int16_t{e.strength} : int16_t{-1};
    uniform_ = uniform_ == kEmptySummary || uniform_ == s ? s : int16_t{-1};
  }
};

}  // namespace barracuda::shadow

#endif  // BARRACUDA_SHADOW_MEMORY_SPARSE_VC_H_
