// The out-of-line vector clock of a cell: concurrent readers (READINFLATE,
// READSHARED) or concurrent non-racing writers (host_detector/SEMANTICS.md, "past
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
// accounting traffic); the first entry past that moves them all into a hash
// map. Most inflated cells have few concurrent readers (two or three lanes
// reading a neighbour's word), and their clocks come and go every launch.
// Measured (detector_bench RunSerial/b_tiled, two readers per shared byte,
// quiet 2-core machine): see shadow_memory/README.md "Performance".
class SparseVc {
 public:
  static constexpr size_t kInline = 4;

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
      return nullptr;
    }
    auto it = map_.find(t);
    return it == map_.end() ? nullptr : &it->second;
  }
  Clock Get(VcKey t) const {
    const VcEntry* e = Find(t);
    return e ? e->clock : 0;
  }
  size_t size() const { return map_.empty() ? small_size_ : map_.size(); }
  bool empty() const { return size() == 0; }
  // f(Tid, const VcEntry&) for every non-zero entry, in no particular order
  // (a thread may appear once per ReadKind in a read VC).
  template <class F>
  void ForEach(F&& f) const {
    for (uint32_t i = 0; i < small_size_; ++i) f(static_cast<Tid>(small_keys_[i]), small_[i]);
    for (const auto& [t, e] : map_) f(static_cast<Tid>(t), e);
  }
  // Back to all-zero, releasing the storage.
  void Clear();
  // *this := o (a split granule's bytes each need their own clock).
  void CopyFrom(const SparseVc& o);
  // Heap bytes held (not counting sizeof(SparseVc), which the pool accounts).
  size_t HeapBytes() const;

 private:
  friend class SparseVcPool;
  void Account(size_t before);
  // The entry for t, inserted as `e` if absent (inserted = true).
  VcEntry& Slot(VcKey t, const VcEntry& e, bool& inserted);

  // Invariant: entries live either in small_ (map_ empty) or all in map_
  // (small_size_ == 0).
  VcKey small_keys_[kInline] = {};
  VcEntry small_[kInline] = {};
  uint32_t small_size_ = 0;
  // 24-byte slots with a 32- or a 64-bit key alike (VcEntry is 8-aligned).
  absl::flat_hash_map<VcKey, VcEntry> map_;
  MemoryAccounting* accounting_ = nullptr;  // the pool's; set at allocation
};

}  // namespace barracuda::shadow

#endif  // BARRACUDA_SHADOW_MEMORY_SPARSE_VC_H_
