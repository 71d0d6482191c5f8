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
  friend bool operator==(const VcEntry&, const VcEntry&) = default;
};

class SparseVc {
 public:
  SparseVc() = default;
  SparseVc(const SparseVc&) = delete;
  SparseVc& operator=(const SparseVc&) = delete;

  // V[t] := e (insert or overwrite). e.clock must be > 0.
  void Set(Tid t, const VcEntry& e);
  // V[t] := max(V[t], e) by clock; the site/atomic of the larger clock win.
  void Merge(Tid t, const VcEntry& e);
  // nullptr when V[t] == 0.
  const VcEntry* Find(Tid t) const {
    auto it = map_.find(t);
    return it == map_.end() ? nullptr : &it->second;
  }
  Clock Get(Tid t) const {
    const VcEntry* e = Find(t);
    return e ? e->clock : 0;
  }
  size_t size() const { return map_.size(); }
  bool empty() const { return map_.empty(); }
  // f(Tid, const VcEntry&) for every non-zero entry, in no particular order.
  template <class F>
  void ForEach(F&& f) const {
    for (const auto& [t, e] : map_) f(t, e);
  }
  // Back to all-zero, releasing the storage.
  void Clear();
  // Heap bytes held (not counting sizeof(SparseVc), which the pool accounts).
  size_t HeapBytes() const;

 private:
  friend class SparseVcPool;
  void Account(size_t before);

  absl::flat_hash_map<Tid, VcEntry> map_;
  MemoryAccounting* accounting_ = nullptr;  // the pool's; set at allocation
};

}  // namespace barracuda::shadow

#endif  // BARRACUDA_SHADOW_MEMORY_SPARSE_VC_H_
