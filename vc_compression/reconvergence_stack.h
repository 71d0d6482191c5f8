// The per-warp stack that mirrors the GPU reconvergence stack (paper §3.3.1,
// K_w): the top entry is the mask of lanes on the current path. Each entry of an
// open branch also remembers the branch's then/else split, which classifies a
// race between two lanes of the warp as a divergence race.
#ifndef BARRACUDA_VC_COMPRESSION_RECONVERGENCE_STACK_H_
#define BARRACUDA_VC_COMPRESSION_RECONVERGENCE_STACK_H_

#include <cstdint>

#include "absl/container/inlined_vector.h"

namespace barracuda::vc {

class ReconvergenceStack {
 public:
  struct Entry {
    uint32_t mask;       // lanes on this path
    uint32_t then_mask;  // split of the branch that pushed this entry (0 for the base)
    uint32_t else_mask;
  };

  void Reset(uint32_t base_mask) {
    entries_.clear();
    entries_.push_back({base_mask, 0, 0});
  }
  uint32_t top() const { return entries_.back().mask; }
  size_t depth() const { return entries_.size(); }

  // IF: else path pushed first so the then path runs first (paper IF rule).
  // Returns the then mask (the lanes that join and fork).
  uint32_t PushIf(uint32_t mask, uint32_t then_mask) {
    uint32_t t = mask & then_mask;
    uint32_t e = mask & ~then_mask;
    entries_.push_back({e, t, e});
    entries_.push_back({t, t, e});
    return t;
  }
  // ELSE / FI: pop; the new top is the mask that joins and forks. Returns false
  // (and leaves the stack alone) when only the base entry is left.
  bool Pop(uint32_t* new_top) {
    if (entries_.size() <= 1) return false;
    entries_.pop_back();
    *new_top = entries_.back().mask;
    return true;
  }
  // Lanes leaving the kernel leave every path.
  void RemoveLanes(uint32_t lanes) {
    for (Entry& e : entries_) e.mask &= ~lanes;
  }
  // Were lanes a and b on different sides of a branch that is still open?
  bool SplitApart(unsigned a, unsigned b) const {
    uint32_t ba = 1u << a, bb = 1u << b;
    for (const Entry& e : entries_) {
      if (((e.then_mask & ba) && (e.else_mask & bb)) || ((e.then_mask & bb) && (e.else_mask & ba))) {
        return true;
      }
    }
    return false;
  }
  size_t MemoryBytes() const {
    return entries_.capacity() > 4 ? entries_.capacity() * sizeof(Entry) : 0;
  }

 private:
  absl::InlinedVector<Entry, 4> entries_;
};

}  // namespace barracuda::vc

#endif  // BARRACUDA_VC_COMPRESSION_RECONVERGENCE_STACK_H_
