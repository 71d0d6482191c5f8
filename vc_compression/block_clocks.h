// The compressed clocks of one thread block: its warps' clocks plus the tracked
// maximum local clock of the block, which makes a block-wide barrier a
// broadcast instead of a join over every thread (paper §4.3.2).
//
// Barriers relabel clocks: after a barrier waited for by a set U of threads,
// every u in U has local clock m+1 and the waiting threads see u at m, where m
// is the largest local clock in U (bar.arrive lanes are not relabelled: they
// released at arrival and moved on). A plain join would give each u its own old local clock
// instead. Both define the same happens-before relation: u's events before the
// barrier carry clocks <= m, its events after carry clocks >= m+1, and nobody
// else's view of u ever exceeds u's own clock (the FastTrack invariant), so
// every epoch comparison gives the same answer. The property test checks the
// compressed clocks against plain vector clocks with the same relabelling.
#ifndef BARRACUDA_VC_COMPRESSION_BLOCK_CLOCKS_H_
#define BARRACUDA_VC_COMPRESSION_BLOCK_CLOCKS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "vc_compression/warp_clocks.h"

namespace barracuda::vc {

class BlockClocks {
 public:
  // Threads [block_first, block_first + threads) in warps of 32 (the last one
  // may be partial).
  void Init(ThreadId block_first, uint32_t threads);

  unsigned warp_count() const { return static_cast<unsigned>(warps_.size()); }
  WarpClocks& warp(unsigned w) { return warps_[w]; }
  const WarpClocks& warp(unsigned w) const { return warps_[w]; }
  ThreadId block_first() const { return block_first_; }
  uint32_t threads() const { return threads_; }
  Clock max_local() const { return max_local_; }

  // Clock-raising operations go through the block so that the maximum stays tracked.
  void Increment(unsigned w, uint32_t mask) { Note(warps_[w].Increment(mask)); }
  void JoinIncrement(unsigned w, uint32_t mask) { Note(warps_[w].JoinIncrement(mask)); }
  void Acquire(unsigned w, unsigned lane, const VectorClock& v) { warps_[w].Acquire(lane, v); }

  // Barrier of every thread of the block (none exited, all waiting): broadcast
  // of the tracked maximum.
  void BarrierAll();
  // bar.arrive of lanes in mask: they release at arrival (their clocks join
  // `released`, the generation's accumulated clock) and move on (inc_t).
  void Arrive(unsigned w, uint32_t mask, VectorClock& released);
  // Completion of a barrier of a subset: lanes in sync[w] (sync.size() ==
  // warp_count()) waited; they acquire the join of their own clocks and
  // `released` (what bar.arrive lanes released), and release in turn.
  void Barrier(std::span<const uint32_t> sync, const VectorClock& released);

  size_t MemoryBytes() const;

 private:
  void Note(Clock c) { max_local_ = c > max_local_ ? c : max_local_; }

  std::vector<WarpClocks> warps_;
  ThreadId block_first_ = 0;
  uint32_t threads_ = 0;
  Clock max_local_ = 1;
};

}  // namespace barracuda::vc

#endif  // BARRACUDA_VC_COMPRESSION_BLOCK_CLOCKS_H_
