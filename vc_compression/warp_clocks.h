// Compressed per-thread vector clocks, managed per warp (paper §4.3.1, Fig. 7).
//
// The full clock C_t of lane t of warp w in block b is represented as
//
//   C_t(t) = local[t]                                  (local clock, per lane)
//   C_t(u) = max(group.warp_row[lane(u)], sparse(u))   u in w, u != t (warp clock)
//   C_t(u) = max(group.block_clock, sparse(u))         u in b, u not in w (block clock)
//   C_t(u) = sparse(u)                                  u outside b (SPARSEVC)
//
// where `group` is the clock group of lane t: lanes that have the same view of
// everybody else share one group. The paper's four formats are states of this
// structure (format()):
//   CONVERGED       one group, uniform local clocks, uniform warp row, no sparse part
//   DIVERGED        two paths: local clocks / warp row take two values (mask split)
//   NESTEDDIVERGED  warp row is a general per-lane vector (nested branches, or lanes
//                   of an independently scheduled warp that released at different times)
//   SPARSEVC        some group has point-to-point entries (acquire from another thread)
// Promotion happens in place (a lane that acquires moves to its own group; a
// join over a subset of lanes forms a new group); simplification happens at
// join points (reconvergence, warp-sync, barriers), where groups of identical
// content merge and sparse entries dominated by the block/warp clock are folded.
//
// Under independent thread scheduling, lanes advance their local clocks
// separately (every release increments only the releasing lanes): that is one
// array store per lane and never splits a group, so it stays cheap.
//
// Invariant (paper §3.4, checked in debug builds): local[t] > C_u(t) for u != t.
#ifndef BARRACUDA_VC_COMPRESSION_WARP_CLOCKS_H_
#define BARRACUDA_VC_COMPRESSION_WARP_CLOCKS_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "vc_compression/epoch.h"
#include "vc_compression/reconvergence_stack.h"
#include "vc_compression/vector_clock.h"

namespace barracuda::vc {

inline constexpr unsigned kLanes = 32;

enum class ClockFormat : uint8_t { kConverged, kDiverged, kNestedDiverged, kSparse };
const char* ClockFormatName(ClockFormat f);

// Where a warp sits in the launch's thread-id space.
struct WarpGeometry {
  ThreadId first_tid = 0;    // tid of lane 0
  uint32_t lanes = kLanes;   // lanes that exist (the last warp of a block may be partial)
  ThreadId block_first = 0;  // first tid of the block
  uint64_t block_end = 0;    // one past the block's last tid
};

class WarpClocks {
 public:
  // Every existing lane: C_t = inc_t(bottom).
  void Init(const WarpGeometry& geometry);

  const WarpGeometry& geometry() const { return geo_; }
  uint32_t existing_mask() const {
    return geo_.lanes >= 32 ? 0xffffffffu : ((1u << geo_.lanes) - 1);
  }
  ThreadId tid(unsigned lane) const { return geo_.first_tid + lane; }

  Clock Local(unsigned lane) const { return local_[lane]; }
  // C_t(u) for t = lane. Inline: the detector's epoch checks call it per lane
  // and the own-thread / same-warp cases are a couple of loads.
  Clock Get(unsigned lane, ThreadId u) const {
    if (u == geo_.first_tid + lane) return local_[lane];
    const Group& g = groups_[lane_group_[lane]];
    Clock base = 0;
    if (InWarp(u)) {
      base = g.warp_row[u - geo_.first_tid];
    } else if (InBlock(u)) {
      base = g.block_clock;
    }
    if (g.sparse.IsBottom()) return base;
    return std::max(base, g.sparse.Get(u));
  }
  // An upper bound of the clocks lane t knows of any other thread (C_t(u),
  // u != t), when its view has no point-to-point part (else 0 with false): an
  // epoch of another thread above it is not covered. The two largest entries
  // of the group's warp row are cached until the clocks change: the atomics
  // of one warp record ask it per lane (it was one pass over the row per
  // lane, ~14% of the analysis' instructions on a hot-histogram kernel).
  bool KnownOthersBound(unsigned lane, Clock* bound) const {
    const unsigned gi = lane_group_[lane];
    const Group& g = groups_[gi];
    if (!g.sparse.IsBottom()) {
      *bound = 0;
      return false;
    }
    if (row_top_.version != version_ || row_top_.group != gi) RefreshRowTop(gi);
    *bound = std::max(g.block_clock, row_top_.first_lane == lane ? row_top_.second : row_top_.first);
    return true;
  }
  // e ⪯ C_t: the FastTrack epoch check, O(1) without a sparse part.
  // Do lanes a and b see every thread but themselves alike (C_a(u) == C_b(u)
  // for u neither a nor b)? Lanes of one clock group do.
  bool SameView(unsigned a, unsigned b) const { return lane_group_[a] == lane_group_[b]; }
  bool Covers(unsigned lane, Epoch e) const { return e.clock() <= Get(lane, e.tid()); }
  // v ⊑ C_t.
  bool Dominates(unsigned lane, const VectorClock& v) const;
  // The full clock of a lane.
  VectorClock Expand(unsigned lane) const;

  // C_t := inc_t(C_t) for t in mask (release). Returns the largest new local clock.
  Clock Increment(uint32_t mask);
  // vc := join of C_t over t in mask; C_t := inc_t(vc) for t in mask (ENDINSN, IF,
  // ELSE/ENDIF, warp-sync). Returns the largest new local clock.
  Clock JoinIncrement(uint32_t mask);
  // C_t := C_t ⊔ v (acquire).
  void Acquire(unsigned lane, const VectorClock& v);
  // out := out ⊔ C_t for every t in mask.
  void JoinInto(uint32_t mask, VectorClock& out) const;
  // Views of lanes in mask (every entry except their own) := v.
  void AssignViews(uint32_t mask, const VectorClock& v);
  // local[t] := c for t in mask (barrier relabelling; c never decreases a clock).
  void SetLocal(uint32_t mask, Clock c);
  // Barrier fast path: every lane sees every thread of the block at m, the
  // outside of the block as `outside`; local clocks become m + 1.
  void Broadcast(Clock m, const VectorClock& outside);
  // The sparse parts of all groups joined into out (for the barrier fast path).
  void JoinSparseInto(VectorClock& out) const;
  Clock MaxLocal() const;

  ReconvergenceStack& stack() { return stack_; }
  const ReconvergenceStack& stack() const { return stack_; }

  ClockFormat format() const;
  size_t group_count() const { return groups_.size(); }
  // Bytes of clock state (this object plus heap), for statistics.
  size_t MemoryBytes() const;
  // Checks the representation invariants; returns false on a violation.
  bool CheckInvariants() const;

 private:
  struct Group {
    Clock block_clock = 0;
    std::array<Clock, kLanes> warp_row{};
    VectorClock sparse;
    uint32_t members = 0;
  };

  // Everything a member of g sees (its own position holds a value <= its local clock).
  VectorClock GroupView(const Group& g) const;
  // Moves the lanes of `mask` into a fresh group, a copy of `from`. Returns its index.
  unsigned SplitOff(unsigned from, uint32_t mask);
  // Drops empty groups and merges groups of equal content.
  void Compact();
  // Folds sparse entries that the warp row / block clock already cover.
  void Normalize(Group& g) const;
  bool InWarp(ThreadId u) const { return u - geo_.first_tid < geo_.lanes && u >= geo_.first_tid; }
  bool InBlock(ThreadId u) const { return u >= geo_.block_first && u < geo_.block_end; }

  // The two largest warp-row entries of one group (KnownOthersBound), valid
  // while version_ is unchanged: every method that changes a group's row,
  // block clock or a lane's group bumps it (local clocks are not read).
  struct RowTop {
    uint64_t version = ~uint64_t{0};
    unsigned group = 0;
    unsigned first_lane = 0;
    Clock first = 0, second = 0;
  };
  void RefreshRowTop(unsigned group) const;

  WarpGeometry geo_;
  uint64_t version_ = 0;
  mutable RowTop row_top_;
  std::array<Clock, kLanes> local_{};
  std::array<uint8_t, kLanes> lane_group_{};
  absl::InlinedVector<Group, 1> groups_;
  ReconvergenceStack stack_;
};

}  // namespace barracuda::vc

#endif  // BARRACUDA_VC_COMPRESSION_WARP_CLOCKS_H_
