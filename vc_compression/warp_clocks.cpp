#include "vc_compression/warp_clocks.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <vector>

namespace barracuda::vc {
namespace {

template <typename F>
inline void ForEachLane(uint32_t mask, F&& f) {
  while (mask != 0) {
    unsigned lane = static_cast<unsigned>(std::countr_zero(mask));
    mask &= mask - 1;
    f(lane);
  }
}

}  // namespace

const char* ClockFormatName(ClockFormat f) {
  switch (f) {
    case ClockFormat::kConverged: return "CONVERGED";
    case ClockFormat::kDiverged: return "DIVERGED";
    case ClockFormat::kNestedDiverged: return "NESTEDDIVERGED";
    case ClockFormat::kSparse: return "SPARSEVC";
  }
  return "?";
}

void WarpClocks::RefreshRowTop(unsigned group) const {
  const Group& g = groups_[group];
  RowTop t;
  t.version = version_;
  t.group = group;
  for (unsigned l = 0; l < geo_.lanes; ++l) {
    const Clock c = g.warp_row[l];
    if (c > t.first) {
      t.second = t.first;
      t.first = c;
      t.first_lane = l;
    } else if (c > t.second) {
      t.second = c;
    }
  }
  row_top_ = t;
}

void WarpClocks::Init(const WarpGeometry& geometry) {
  ++version_;
  geo_ = geometry;
  local_.fill(0);
  lane_group_.fill(0);
  groups_.clear();
  groups_.emplace_back();
  groups_[0].members = existing_mask();
  ForEachLane(existing_mask(), [&](unsigned l) { local_[l] = 1; });
  stack_.Reset(existing_mask());
}

VectorClock WarpClocks::GroupView(const Group& g) const {
  absl::InlinedVector<VectorClock::Piece, 40> pieces;
  pieces.push_back({0, 0});
  pieces.push_back({geo_.block_first, g.block_clock});
  for (unsigned u = 0; u < geo_.lanes; ++u) pieces.push_back({geo_.first_tid + u, g.warp_row[u]});
  if (uint64_t{geo_.first_tid} + geo_.lanes < geo_.block_end) {
    pieces.push_back({geo_.first_tid + geo_.lanes, g.block_clock});
  }
  if (geo_.block_end < VectorClock::kTidEnd) {
    pieces.push_back({static_cast<ThreadId>(geo_.block_end), 0});
  }
  // Pieces with equal firsts (a block starting at tid 0, a warp at the block's
  // start) collapse in FromPieces: the later one wins.
  VectorClock v = VectorClock::FromPieces(pieces);
  v.Join(g.sparse);
  return v;
}

VectorClock WarpClocks::Expand(unsigned lane) const {
  const Group& g = groups_[lane_group_[lane]];
  VectorClock v = GroupView(g);
  assert(v.Get(tid(lane)) <= local_[lane]);
  v.Set(tid(lane), local_[lane]);
  return v;
}

bool WarpClocks::Dominates(unsigned lane, const VectorClock& v) const {
  bool ok = true;
  v.ForEachPiece([&](uint64_t first, uint64_t end, Clock c) {
    if (!ok || c == 0) return;
    // Checking every tid of a long piece would be slow; a piece of v longer than
    // a few tids is checked against the expanded clock instead.
    if (end - first > 64) {
      ok = false;  // fall back below
      return;
    }
    for (uint64_t u = first; u < end; ++u) {
      if (Get(lane, static_cast<ThreadId>(u)) < c) {
        ok = false;
        return;
      }
    }
  });
  if (ok) return true;
  return v.LessOrEqual(Expand(lane));
}

Clock WarpClocks::Increment(uint32_t mask) {
  Clock m = 0;
  ForEachLane(mask, [&](unsigned l) {
    assert(local_[l] < kMaxClock);
    m = std::max(m, ++local_[l]);
  });
  return m;
}

Clock WarpClocks::MaxLocal() const {
  Clock m = 0;
  ForEachLane(existing_mask(), [&](unsigned l) { m = std::max(m, local_[l]); });
  return m;
}

unsigned WarpClocks::SplitOff(unsigned from, uint32_t mask) {
  assert((groups_[from].members & mask) == mask);
  if (groups_[from].members == mask) return from;
  Group copy = groups_[from];
  copy.members = mask;
  groups_[from].members &= ~mask;
  groups_.push_back(std::move(copy));
  unsigned idx = static_cast<unsigned>(groups_.size() - 1);
  ForEachLane(mask, [&](unsigned l) { lane_group_[l] = static_cast<uint8_t>(idx); });
  return idx;
}

Clock WarpClocks::JoinIncrement(uint32_t mask) {
  ++version_;
  mask &= existing_mask();
  if (mask == 0) return 0;
  unsigned first_group = lane_group_[std::countr_zero(mask)];
  bool single = true;
  ForEachLane(mask, [&](unsigned l) { single = single && lane_group_[l] == first_group; });
  Clock m = 0;
  if (single) {
    // Fast path (a converged warp, or one path of a branch): the lanes already
    // share their views; the join only adds their own entries (one pass over
    // the lanes, no allocation): the lockstep ENDINSN of a converged warp.
    unsigned gi = SplitOff(first_group, mask);
    Group& g = groups_[gi];
    ForEachLane(mask, [&](unsigned l) {
      g.warp_row[l] = local_[l];
      m = std::max(m, ++local_[l]);
    });
    return m;
  }
  Group n;
  n.members = mask;
  uint64_t seen = 0;  // group indices involved (at most 33 groups)
  ForEachLane(mask, [&](unsigned l) { seen |= uint64_t{1} << lane_group_[l]; });
  for (unsigned gi = 0; gi < groups_.size(); ++gi) {
    if (!(seen >> gi & 1)) continue;
    const Group& g = groups_[gi];
    n.block_clock = std::max(n.block_clock, g.block_clock);
    for (unsigned u = 0; u < kLanes; ++u) n.warp_row[u] = std::max(n.warp_row[u], g.warp_row[u]);
    n.sparse.Join(g.sparse);
  }
  ForEachLane(mask, [&](unsigned l) {
    n.warp_row[l] = local_[l];
    m = std::max(m, ++local_[l]);
  });
  Normalize(n);
  for (Group& g : groups_) g.members &= ~mask;
  groups_.push_back(std::move(n));
  unsigned idx = static_cast<unsigned>(groups_.size() - 1);
  ForEachLane(mask, [&](unsigned l) { lane_group_[l] = static_cast<uint8_t>(idx); });
  Compact();
  return m;
}

void WarpClocks::Acquire(unsigned lane, const VectorClock& v) {
  ++version_;
  if (v.IsBottom()) return;
  const unsigned from = lane_group_[lane];
  // Splitting a lane off a shared group costs a copy: only do it when the
  // acquire brings something new (a lane alone in its group joins directly).
  if (groups_[from].members != (1u << lane) && v.LessOrEqual(Expand(lane))) return;
  assert(v.Get(tid(lane)) <= local_[lane]);
  Group& g = groups_[SplitOff(from, 1u << lane)];
  g.sparse.Join(v);
  Normalize(g);
  // No compaction here: acquires only ever split groups (at most one per lane);
  // join points (JoinIncrement, barriers) merge them again.
}

void WarpClocks::JoinInto(uint32_t mask, VectorClock& out) const {
  mask &= existing_mask();
  uint64_t seen = 0;
  ForEachLane(mask, [&](unsigned l) { seen |= uint64_t{1} << lane_group_[l]; });
  // A group's view holds, on a member's own position, a value <= its local clock
  // (invariant), so joining the views and then the local clocks is exact.
  for (unsigned gi = 0; gi < groups_.size(); ++gi) {
    if (seen >> gi & 1) out.Join(GroupView(groups_[gi]));
  }
  ForEachLane(mask, [&](unsigned l) { out.RaiseRange(tid(l), uint64_t{tid(l)} + 1, local_[l]); });
}

void WarpClocks::AssignViews(uint32_t mask, const VectorClock& v) {
  ++version_;
  mask &= existing_mask();
  if (mask == 0) return;
  Group n;
  n.members = mask;
  for (unsigned u = 0; u < geo_.lanes; ++u) n.warp_row[u] = v.Get(tid(u));
  n.block_clock = 0;
  n.sparse = v;
  Normalize(n);
  for (Group& g : groups_) g.members &= ~mask;
  groups_.push_back(std::move(n));
  unsigned idx = static_cast<unsigned>(groups_.size() - 1);
  ForEachLane(mask, [&](unsigned l) { lane_group_[l] = static_cast<uint8_t>(idx); });
  Compact();
}

void WarpClocks::SetLocal(uint32_t mask, Clock c) {
  ForEachLane(mask & existing_mask(), [&](unsigned l) {
    assert(c >= local_[l]);
    local_[l] = c;
  });
}

void WarpClocks::Broadcast(Clock m, const VectorClock& outside) {
  ++version_;
  groups_.resize(1);
  Group& g = groups_[0];
  g.members = existing_mask();
  g.block_clock = m;
  g.warp_row.fill(m);
  g.sparse = outside;
  Normalize(g);
  lane_group_.fill(0);
  ForEachLane(existing_mask(), [&](unsigned l) { local_[l] = m + 1; });
}

void WarpClocks::JoinSparseInto(VectorClock& out) const {
  for (const Group& g : groups_) {
    if (g.members != 0) out.Join(g.sparse);
  }
}

void WarpClocks::Normalize(Group& g) const {
  if (g.sparse.IsBottom()) return;
  // Warp lanes: fold into the row.
  uint64_t wend = uint64_t{geo_.first_tid} + geo_.lanes;
  if (g.sparse.MaxIn(geo_.first_tid, wend) != 0) {
    for (unsigned u = 0; u < geo_.lanes; ++u) {
      g.warp_row[u] = std::max(g.warp_row[u], g.sparse.Get(tid(u)));
    }
    g.sparse.SetRange(geo_.first_tid, wend, 0);
  }
  // Block outside the warp: drop when the block clock covers it.
  Clock below = geo_.first_tid > geo_.block_first ? g.sparse.MaxIn(geo_.block_first, geo_.first_tid) : 0;
  Clock above = wend < geo_.block_end ? g.sparse.MaxIn(static_cast<ThreadId>(wend), geo_.block_end) : 0;
  if (std::max(below, above) != 0 && std::max(below, above) <= g.block_clock) {
    g.sparse.SetRange(geo_.block_first, geo_.block_end, 0);
  }
}

void WarpClocks::Compact() {
  // Drop empty groups, then merge groups whose content is equal.
  for (unsigned gi = 0; gi < groups_.size();) {
    if (groups_[gi].members != 0) {
      ++gi;
      continue;
    }
    unsigned last = static_cast<unsigned>(groups_.size() - 1);
    if (gi != last) {
      groups_[gi] = std::move(groups_[last]);
      ForEachLane(groups_[gi].members, [&](unsigned l) { lane_group_[l] = static_cast<uint8_t>(gi); });
    }
    groups_.pop_back();
  }
  for (unsigned a = 0; a < groups_.size(); ++a) {
    for (unsigned b = a + 1; b < groups_.size();) {
      const Group& ga = groups_[a];
      const Group& gb = groups_[b];
      // Rows are compared off the diagonal of members (a member's own row entry is
      // never read by itself, but it is read by the other members): compare all.
      if (ga.block_clock == gb.block_clock && ga.warp_row == gb.warp_row && ga.sparse == gb.sparse) {
        groups_[a].members |= gb.members;
        ForEachLane(gb.members, [&](unsigned l) { lane_group_[l] = static_cast<uint8_t>(a); });
        groups_[b].members = 0;
        unsigned last = static_cast<unsigned>(groups_.size() - 1);
        if (b != last) {
          groups_[b] = std::move(groups_[last]);
          ForEachLane(groups_[b].members, [&](unsigned l) { lane_group_[l] = static_cast<uint8_t>(b); });
        }
        groups_.pop_back();
      } else {
        ++b;
      }
    }
  }
}

ClockFormat WarpClocks::format() const {
  for (const Group& g : groups_) {
    if (!g.sparse.IsBottom()) return ClockFormat::kSparse;
  }
  // Distinct values among local clocks and the warp rows' entries.
  absl::InlinedVector<Clock, 4> values;
  auto note = [&](Clock c) {
    if (std::find(values.begin(), values.end(), c) == values.end()) values.push_back(c);
  };
  ForEachLane(existing_mask(), [&](unsigned l) { note(local_[l]); });
  if (groups_.size() == 1 && values.size() == 1) {
    bool uniform_row = true;
    ForEachLane(existing_mask(), [&](unsigned l) {
      uniform_row = uniform_row && groups_[0].warp_row[l] == groups_[0].warp_row[0];
    });
    if (uniform_row) return ClockFormat::kConverged;
  }
  if (groups_.size() <= 2 && values.size() <= 2) return ClockFormat::kDiverged;
  return ClockFormat::kNestedDiverged;
}

size_t WarpClocks::MemoryBytes() const {
  size_t bytes = sizeof(*this) + stack_.MemoryBytes();
  if (groups_.size() > 1) bytes += groups_.capacity() * sizeof(Group);
  for (const Group& g : groups_) bytes += g.sparse.HeapBytes();
  return bytes;
}

bool WarpClocks::CheckInvariants() const {
  uint32_t all = 0;
  for (unsigned gi = 0; gi < groups_.size(); ++gi) {
    const Group& g = groups_[gi];
    if (g.members == 0 || (all & g.members) != 0) return false;
    all |= g.members;
    bool ok = true;
    ForEachLane(g.members, [&](unsigned l) { ok = ok && lane_group_[l] == gi; });
    if (!ok) return false;
  }
  if (all != existing_mask()) return false;
  // local[t] > C_u(t) for every other lane u of the warp.
  for (unsigned t = 0; t < geo_.lanes; ++t) {
    for (unsigned u = 0; u < geo_.lanes; ++u) {
      if (u != t && Get(u, tid(t)) >= local_[t]) return false;
    }
  }
  return true;
}

}  // namespace barracuda::vc
