#include "vc_compression/block_clocks.h"

#include <algorithm>
#include <bit>

namespace barracuda::vc {

void BlockClocks::Init(ThreadId block_first, uint32_t threads) {
  block_first_ = block_first;
  threads_ = threads;
  max_local_ = 1;
  unsigned nwarps = (threads + kLanes - 1) / kLanes;
  warps_.resize(nwarps);
  for (unsigned w = 0; w < nwarps; ++w) {
    WarpGeometry g;
    g.first_tid = block_first + w * kLanes;
    g.lanes = std::min<uint32_t>(kLanes, threads - w * kLanes);
    g.block_first = block_first;
    g.block_end = uint64_t{block_first} + threads;
    warps_[w].Init(g);
  }
}

void BlockClocks::BarrierAll() {
  const Clock m = max_local_;
  VectorClock outside;
  for (const WarpClocks& w : warps_) w.JoinSparseInto(outside);
  // Entries of block threads are <= m (invariant) and are relabelled to m.
  outside.SetRange(block_first_, uint64_t{block_first_} + threads_, 0);
  for (WarpClocks& w : warps_) w.Broadcast(m, outside);
  max_local_ = m + 1;
}

void BlockClocks::Arrive(unsigned w, uint32_t mask, VectorClock& released) {
  mask &= warps_[w].existing_mask();
  if (mask == 0) return;
  warps_[w].JoinInto(mask, released);
  Increment(w, mask);
}

void BlockClocks::Barrier(std::span<const uint32_t> sync, const VectorClock& released) {
  Clock m = 0;
  VectorClock joined = released;
  for (unsigned w = 0; w < warps_.size(); ++w) {
    const uint32_t lanes = sync[w] & warps_[w].existing_mask();
    if (lanes == 0) continue;
    warps_[w].JoinInto(lanes, joined);
    for (uint32_t mask = lanes; mask != 0; mask &= mask - 1) {
      m = std::max(m, warps_[w].Local(static_cast<unsigned>(std::countr_zero(mask))));
    }
  }
  if (m == 0) return;  // nobody waited
  // Relabel every waiting thread to m (see the header comment).
  for (unsigned w = 0; w < warps_.size(); ++w) {
    uint32_t lanes = sync[w] & warps_[w].existing_mask();
    while (lanes != 0) {
      const unsigned lo = static_cast<unsigned>(std::countr_zero(lanes));
      const unsigned run = static_cast<unsigned>(std::countr_one(lanes >> lo));
      const ThreadId first = warps_[w].tid(lo);
      joined.SetRange(first, uint64_t{first} + run, m);
      lanes = lo + run >= 32 ? 0 : lanes & ~(((1u << run) - 1) << lo);
    }
  }
  for (unsigned w = 0; w < warps_.size(); ++w) {
    const uint32_t lanes = sync[w] & warps_[w].existing_mask();
    if (lanes == 0) continue;
    warps_[w].AssignViews(lanes, joined);
    warps_[w].SetLocal(lanes, m + 1);
  }
  Note(m + 1);
}

size_t BlockClocks::MemoryBytes() const {
  size_t bytes = sizeof(*this) + warps_.capacity() * sizeof(WarpClocks);
  for (const WarpClocks& w : warps_) bytes += w.MemoryBytes() - sizeof(WarpClocks);
  return bytes;
}

}  // namespace barracuda::vc
