// The out-of-line vector clock of a cell: concurrent readers (READINFLATE,
// READSHARED) or concurrent non-racing writers (host_detector/detector/SEMANTICS.md, "past
// the paper"). A sparse map tid -> (clock, site, atomic): absent entries are 0,
// which is nearly all of them. The paper keeps an unordered map too (§4.3.3);
// per-location VCs are few, and their entries are compressed into runs of
// threads that share one entry (below).
//
// A SparseVc lives in a SparseVcPool (vc_pool.h) and is reached from a cell by
// its VcHandle. It is protected by the lock of the cell that refers to it.
#ifndef BARRACUDA_SHADOW_MEMORY_SPARSE_VC_H_
#define BARRACUDA_SHADOW_MEMORY_SPARSE_VC_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/container/inlined_vector.h"
#include "shadow_memory/epoch.h"
#include "shadow_memory/key_map.h"
#include "shadow_memory/memory_accounting.h"

namespace barracuda::shadow {

// Entries are keyed by thread, and in read VCs also by ReadKind and Strength:
// one thread's newer reader that does not stand for its older one (a weaker
// kind, or a strong one excused more often: epoch.h ReaderSubsumes) is kept
// beside it, since a later access may conflict with the older one only.
// Writers and plain readers use the bare thread id as key.
constexpr VcKey ReaderKey(Tid t, ReadKind kind, Strength strength = kWeak) {
  return VcKey{t} | (static_cast<VcKey>(static_cast<uint8_t>(kind) ^ static_cast<uint8_t>(ReadKind::kRead)) << 32) |
         (static_cast<VcKey>(strength) << 40);
}

// Entries are stored as runs: keys first, first + stride, ..., first +
// stride * (count - 1) that share one VcEntry. The readers of a word are
// mostly lanes or blocks that ran the same load at the same point of the same
// code: consecutive threads of a row reading a shared tile word, or one thread
// per block of a grid row reading a global word, each with the same clock and
// site. One 32-byte run stands for all of them (tiled matmul 512: 32 entries
// per input word became one or two runs; see shadow_memory/README.md
// "Memory"). Up to kInline runs are kept in the object itself (no heap, no
// accounting traffic), then up to kMid runs in a heap array searched linearly,
// and past that the entries go one by one to the map tier (key_map.h: bit
// pages for the most common entry, a hash map for the others).
// Measured (detector_bench RunSerial/b_tiled, two readers per shared byte,
// quiet 2-core machine): see shadow_memory/README.md "Performance".
class SparseVc {
 public:
  static constexpr size_t kInline = 2;  // runs
  static constexpr uint32_t kMid = 32;  // runs

  SparseVc() = default;
  SparseVc(const SparseVc&) = delete;
  SparseVc& operator=(const SparseVc&) = delete;

  // V[t] := e (insert or overwrite). e.clock must be > 0.
  void Set(VcKey t, const VcEntry& e);
  // V[t] := max(V[t], e) by clock; the site/atomic of the larger clock win.
  void Merge(VcKey t, const VcEntry& e);
  // nullptr when V[t] == 0. The pointer is valid until the next change.
  const VcEntry* Find(VcKey t) const {
    if (map_ != nullptr) return map_->Find(t);
    if (size_ == 0) return nullptr;
    const Run* runs = RunsBegin();
    for (uint32_t i = runs_; i-- > 0;) {
      if (runs[i].Holds(t)) return &runs[i].entry;
    }
    return nullptr;
  }
  Clock Get(VcKey t) const {
    const VcEntry* e = Find(t);
    return e ? e->clock : 0;
  }
  size_t size() const { return map_ != nullptr ? map_->size() : size_; }
  // Runs held (the map tier: one per entry); for tests and statistics.
  size_t runs() const { return map_ != nullptr ? map_->size() : runs_; }
  bool in_map_tier() const { return map_ != nullptr; }
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
    if (map_ != nullptr) {
      map_->ForEach([&](VcKey t, const VcEntry& e) { f(static_cast<Tid>(t), e); });
      return;
    }
    const Run* runs = RunsBegin();
    for (uint32_t i = 0; i < runs_; ++i) {
      const Run& r = runs[i];
      VcKey k = r.first;
      for (uint32_t j = 0; j < r.count; ++j, k += r.stride) f(static_cast<Tid>(k), r.entry);
    }
  }
  // Removes every entry for which pred(Tid, const VcEntry&) holds, in place
  // (no rebuild of what stays: an atomic on a hot word keeps its concurrent
  // atomics and drops only what it is ordered after,
  // host_detector/detector/memory_access.cpp CheckAtomic).
  template <class P>
  void EraseIf(P&& pred) {
    if (map_ != nullptr) {
      map_->EraseIf([&](VcKey t, const VcEntry& e) { return pred(static_cast<Tid>(t), e); });
    } else {
      // Each run is cut into the stretches of keys that stay.
      RunBuffer kept;
      const Run* runs = RunsBegin();
      for (uint32_t i = 0; i < runs_; ++i) {
        const Run& r = runs[i];
        uint32_t from = 0;
        bool open = false;  // keys from `from` on stay
        for (uint32_t j = 0; j < r.count; ++j) {
          if (pred(static_cast<Tid>(r.first + VcKey{r.stride} * j), r.entry)) {
            if (open) kept.push_back(Run{r.first + VcKey{r.stride} * from, r.stride, j - from, r.entry});
            open = false;
          } else if (!open) {
            from = j;
            open = true;
          }
        }
        if (open) kept.push_back(Run{r.first + VcKey{r.stride} * from, r.stride, r.count - from, r.entry});
      }
      AssignRuns(kept);
    }
    // The summaries of what is left, exact again.
    ResetSummary();
    kept_writes_ = 0;
    ForEachRunOrEntry([this](const VcEntry& e, uint32_t n) {
      NoteSummary(e);
      kept_writes_ += n * IsKeptWrite(e);
    });
  }
  // Back to all-zero, releasing the storage.
  void Clear();
  // *this := o (a split granule's bytes each need their own clock).
  void CopyFrom(const SparseVc& o);
  // Heap bytes held (not counting sizeof(SparseVc), which the pool accounts).
  size_t HeapBytes() const;

 private:
  friend class SparseVcPool;
  // Keys first + stride * j for j < count, all with `entry`. stride > 0 when
  // count > 1 (keys increase along a run); a run of one has stride 0.
  struct Run {
    VcKey first;
    uint32_t stride;
    uint32_t count;
    VcEntry entry;
    bool Holds(VcKey t) const {
      if (t < first) return false;
      const VcKey d = t - first;
      if (stride == 0) return d == 0;
      // A key past the run (the next reader, usually) costs no division.
      return d <= VcKey{stride} * (count - 1) && d % stride == 0;
    }
    VcKey last() const { return first + VcKey{stride} * (count - 1); }
  };
  static_assert(sizeof(Run) == 32, "a run is 32 bytes: one cache line holds two");
  using RunBuffer = absl::InlinedVector<Run, 8>;

  void Account(size_t before);
  // Back to all-zero, keeping the array tier's storage (still counted).
  // The pool frees a clock with Clear(): when each entry was one 24-byte
  // slot, arrays were kept for the next life of a clock (a tile word's 16
  // readers came back every barrier phase), but runs make arrays rare, and
  // kept arrays ended up under global words of one run, holding 60% of a
  // tiled matmul's clock memory.
  void ClearKeepingArray();
  const Run* RunsBegin() const { return mid_capacity_ == 0 ? inline_ : mid_.get(); }
  Run* RunsBegin() { return mid_capacity_ == 0 ? inline_ : mid_.get(); }
  uint32_t RunCapacity() const { return mid_capacity_ == 0 ? static_cast<uint32_t>(kInline) : mid_capacity_; }
  // Inserts t (absent) as e: extends a run it continues, else adds a run
  // (growing the tiers as needed).
  void Insert(VcKey t, const VcEntry& e);
  // Removes t from run i (which holds it), splitting the run if t is inside.
  void RemoveFromRun(uint32_t i, VcKey t);
  // Adds a run, moving to the array or the map tier when full.
  void AddRun(const Run& r);
  // The run tiers := runs (the map tier untouched: the caller is in run mode).
  void AssignRuns(const RunBuffer& runs);
  void ToMap();
  void GrowMid(uint32_t at_least);
  template <class F>
  void ForEachRunOrEntry(F&& f) const {
    if (map_ != nullptr) {
      map_->ForEachGroup(f);
      return;
    }
    const Run* runs = RunsBegin();
    for (uint32_t i = 0; i < runs_; ++i) f(runs[i].entry, runs[i].count);
  }

  // Invariant: entries live in the runs (inline_ while mid_capacity_ == 0,
  // else mid_) or in map_ (when map_ != nullptr, runs_ == size_ == 0); no key
  // is in two runs. mid_ keeps its storage while the VC lives.
  Run inline_[kInline] = {};
  std::unique_ptr<Run[]> mid_;
  std::unique_ptr<KeyMap> map_;
  MemoryAccounting* accounting_ = nullptr;  // the pool's; set at allocation
  uint32_t size_ = 0;                        // entries in the runs
  uint32_t kept_writes_ = 0;                 // entries with read_kind kKeptWrite
  // Runs held and the array's capacity (<= 2 * kMid). A clock is 120 bytes
  // (a pool holds one per inflated cell: 131,072 for a tiled matmul 256).
  uint8_t runs_ = 0, mid_capacity_ = 0;
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
