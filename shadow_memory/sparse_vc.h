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
  friend bool operator==(const VcEntry&, const VcEntry&) = default;
};

// Entries are keyed by thread, and in read VCs also by ReadKind: one thread's
// newer reader of a weaker kind does not subsume its older one of a stronger
// kind (a later access may conflict with the older kind only), so both stay.
// Writers and plain readers use the bare thread id as key.
using VcKey = uint64_t;
constexpr VcKey ReaderKey(Tid t, ReadKind kind) {
  return VcKey{t} | (static_cast<VcKey>(static_cast<uint8_t>(kind) ^ static_cast<uint8_t>(ReadKind::kRead)) << 32);
}

class SparseVc {
 public:
  SparseVc() = default;
  SparseVc(const SparseVc&) = delete;
  SparseVc& operator=(const SparseVc&) = delete;

  // V[t] := e (insert or overwrite). e.clock must be > 0.
  void Set(VcKey t, const VcEntry& e);
  // V[t] := max(V[t], e) by clock; the site/atomic of the larger clock win.
  void Merge(VcKey t, const VcEntry& e);
  // nullptr when V[t] == 0.
  const VcEntry* Find(VcKey t) const {
    auto it = map_.find(t);
    return it == map_.end() ? nullptr : &it->second;
  }
  Clock Get(VcKey t) const {
    const VcEntry* e = Find(t);
    return e ? e->clock : 0;
  }
  size_t size() const { return map_.size(); }
  bool empty() const { return map_.empty(); }
  // f(Tid, const VcEntry&) for every non-zero entry, in no particular order
  // (a thread may appear once per ReadKind in a read VC).
  template <class F>
  void ForEach(F&& f) const {
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

  // 24-byte slots with a 32- or a 64-bit key alike (VcEntry is 8-aligned).
  absl::flat_hash_map<VcKey, VcEntry> map_;
  MemoryAccounting* accounting_ = nullptr;  // the pool's; set at allocation
};

}  // namespace barracuda::shadow

#endif  // BARRACUDA_SHADOW_MEMORY_SPARSE_VC_H_
