// The per-warp stack that mirrors the GPU reconvergence stack (paper §3.3.1,
// K_w): the top entry is the mask of lanes on the current path. Each entry of an
// open branch also remembers the branch's then/else split, which classifies a
// race between two lanes of the warp as a divergence race.
#ifndef BARRACUDA_VC_COMPRESSION_RECONVERGENCE_STACK_H_
#define BARRACUDA_VC_COMPRESSION_RECONVERGENCE_STACK_H_

#include <cstddef>
#include <cstdint>

#include "absl/container/inlined_vector.h"

namespace barracuda::vc {

class ReconvergenceStack {
 public:
  struct Entry {
    uint32_t mask;       // lanes on this path
    uint32_t then_mask;  // split of the branch that pushed this entry (0 for the base)
    uint32_t else_mask;
    // The level entry of a branch (the lower of its two): lanes that have not
    // reached its join yet. Unused on the then entry and the base.
    uint32_t pending = 0;
    bool then_side = false;  // the upper entry of a branch, until its kElse
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
    entries_.push_back({e, t, e, t | e, false});
    entries_.push_back({t, t, e, 0, true});
    return t;
  }
  // The paper's ELSE / FI: pop; the new top is the mask that joins and forks.
  // Returns false (and leaves the stack alone) when only the base is left.
  bool Pop(uint32_t* new_top) {
    if (entries_.size() <= 1) return false;
    entries_.pop_back();
    *new_top = entries_.back().mask;
    return true;
  }
  // ELSE by `lanes`: the then side of their branch ends. *joined is the mask
  // that joins and forks (the new top), or 0 when nothing joins. Returns false
  // (and leaves the stack alone) when no open branch has them on its else side.
  //
  // A producer that serialises the paths (the emulator, a lock-step GPU) logs
  // it on top of the stack: that is the paper's pop. Under independent thread
  // scheduling on hardware the sides of a branch run as separate groups, and
  // one side may have entered a nested branch (a loop's divergent exits) when
  // the other logs its kElse: the branch is then found below the top.
  bool Else(uint32_t lanes, uint32_t* joined) {
    *joined = 0;
    if (entries_.size() <= 1) return false;
    const Entry& t = entries_.back();
    if (t.then_side && (lanes == 0 || (lanes & ~t.else_mask) == 0)) {
      entries_.pop_back();
      *joined = entries_.back().mask;
      return true;
    }
    for (size_t i = entries_.size() - 1; i >= 1; --i) {
      Entry& x = entries_[i];
      if ((x.else_mask & lanes) == 0) continue;
      // Its then entry, or (met first, being above it) its level entry once
      // that is gone: a later group of the else side, nothing to do.
      if (x.then_side) entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
      return true;
    }
    return false;
  }
  // FI by `lanes`: they reach the join of their innermost open branch. *joined
  // as for Else. Returns false when none of them is waited for at any join.
  //
  // Serialised paths reach a join all together, on top of the stack: the
  // paper's pop. On hardware (independent thread scheduling) the lanes of a
  // branch whose region holds a loop, a barrier or a call reach its join in
  // several groups (ptx_rewriter's log_fi cannot wait there), each logging
  // its own kFi: each record takes its lanes off the innermost branch that
  // still waits for them, and a branch closes when it waits for no lane.
  bool Fi(uint32_t lanes, uint32_t* joined) {
    *joined = 0;
    if (entries_.size() <= 1) return false;
    const Entry& t = entries_.back();
    if (lanes == 0 ||
        (!t.then_side && (t.pending & lanes) != 0 && (t.pending & ~lanes) == 0)) {
      entries_.pop_back();
      *joined = entries_.back().mask;
      return true;
    }
    bool any = false;
    while (lanes != 0) {
      size_t i = entries_.size() - 1;
      while (i >= 1 && (entries_[i].then_side || (entries_[i].pending & lanes) == 0)) --i;
      if (i == 0) break;
      Entry& level = entries_[i];
      const uint32_t arrived = level.pending & lanes;
      level.pending &= ~arrived;
      lanes &= ~arrived;
      any = true;
      if (level.pending != 0) continue;
      // Closed: its then entry too, if that side never logged its kElse.
      const bool top = i + 1 == entries_.size() || (i + 2 == entries_.size() && entries_[i + 1].then_side);
      const size_t n = i + 1 < entries_.size() && entries_[i + 1].then_side ? 2 : 1;
      entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i),
                     entries_.begin() + static_cast<std::ptrdiff_t>(i + n));
      if (top) *joined = entries_.back().mask;
    }
    return any;
  }
  // Lanes leaving the kernel leave every path.
  void RemoveLanes(uint32_t lanes) {
    for (Entry& e : entries_) {
      e.mask &= ~lanes;
      e.pending &= ~lanes;
    }
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
