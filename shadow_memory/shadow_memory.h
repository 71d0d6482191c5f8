// The shadow memory of one analysis context (one process's stream of
// launches): global pages, shared windows and the out-of-line clock pool, with
// their accounting and limit. The synchronisation-location map is separate
// (sync_locations.h) because its clock type is the detector's; construct it
// with &accounting() so its bytes count towards the same limit.
//
// Typical use by the detector:
//   ShadowMemory shadow({.memory_limit_bytes = opts.shadow_limit});
//   SyncLocationMap<BlockClock> sync(&shadow.accounting());
//   on kKernelBegin: shadow.BeginLaunch(blocks, static + dynamic shared bytes);
//                    sync.BeginLaunch(blocks);
//   global access:   PageView v = shadow.global().View(addr);  (reuse while
//                    v.Contains(lane_addr, size)), then v.Cells(lane_addr, size)
//                    (granule cells) under CellSpanLock; a partly covered
//                    granule is split first (SplitGranule, v.ByteCells).
//   shared access:   shadow.shared().Cells(shared_addr, size)  (no lock).
//   on kKernelEnd:   shadow.EndLaunch(); sync.EndLaunch();  (O(touched))
//   warnings:        shadow.Stats().degraded() (the limit dropped something)
#ifndef BARRACUDA_SHADOW_MEMORY_SHADOW_MEMORY_H_
#define BARRACUDA_SHADOW_MEMORY_SHADOW_MEMORY_H_

#include <cstdint>

#include "shadow_memory/cell.h"
#include "shadow_memory/cell_vc.h"
#include "shadow_memory/global_shadow.h"
#include "shadow_memory/memory_accounting.h"
#include "shadow_memory/shared_shadow.h"
#include "shadow_memory/vc_pool.h"

namespace barracuda::shadow {

struct ShadowOptions {
  // Total shadow bytes (all categories) beyond which new global pages are
  // untracked and no new out-of-line clock or clock entry is made: races
  // there may be missed, none is invented. 0: unlimited.
  uint64_t memory_limit_bytes = 0;
};

class ShadowMemory {
 public:
  explicit ShadowMemory(const ShadowOptions& options = {});
  ShadowMemory(const ShadowMemory&) = delete;
  ShadowMemory& operator=(const ShadowMemory&) = delete;

  // Starts a launch: ends the previous one if needed, sizes shared windows.
  void BeginLaunch(uint64_t num_blocks, uint32_t shared_window_bytes);
  // Clears everything the launch touched, in O(touched). Callers quiescent.
  void EndLaunch();

  GlobalShadow& global() { return global_; }
  const GlobalShadow& global() const { return global_; }
  SharedShadow& shared() { return shared_; }
  SparseVcPool& vcs() { return vcs_; }
  MemoryAccounting& accounting() { return accounting_; }
  const MemoryAccounting& accounting() const { return accounting_; }

  ShadowStats Stats() const;

 private:
  MemoryAccounting accounting_;  // first: the others report into it
  SparseVcPool vcs_;
  GlobalShadow global_;
  SharedShadow shared_;
  bool in_launch_ = false;
};

}  // namespace barracuda::shadow

#endif  // BARRACUDA_SHADOW_MEMORY_SHADOW_MEMORY_H_
