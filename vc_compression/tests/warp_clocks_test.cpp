#include <catch2/catch.hpp>
#include <vector>

#include "vc_compression/block_clocks.h"

namespace barracuda::vc {
namespace {

// Paper Figure 7, scaled to 32-lane warps: the walk-through needs a warp whose
// lanes stay together, then a barrier, a branch, a nested branch, and an acquire
// from a thread of another block. Blocks of 64 threads, 2 warps each, 2 blocks.
TEST_CASE("Figure 7 walk-through: the four formats", "[vc][figure7]") {
  BlockClocks b0, b1;
  b0.Init(0, 64);
  b1.Init(64, 64);
  WarpClocks& w0 = b0.warp(0);
  CHECK(w0.format() == ClockFormat::kConverged);
  // Lockstep instructions keep the warp converged: local clock grows, the warp
  // clock trails it by one.
  b0.JoinIncrement(0, 0xffffffffu);
  CHECK(w0.format() == ClockFormat::kConverged);
  CHECK(w0.Local(1) == 2);
  CHECK(w0.Get(1, 0) == 1);
  CHECK(w0.Get(1, 40) == 0);  // never synchronised with warp 1
  // Barrier: block clock = tracked block max, everybody moves on past it.
  b0.BarrierAll();
  CHECK(w0.format() == ClockFormat::kConverged);
  CHECK(w0.Get(1, 40) == 2);
  CHECK(w0.Local(1) == 3);
  // if: lane 0 takes one path, lanes 1.. the other -> DIVERGED.
  uint32_t then_mask = w0.stack().PushIf(0xffffffffu, 0xfffffffeu);
  b0.JoinIncrement(0, then_mask);
  CHECK(w0.format() == ClockFormat::kDiverged);
  CHECK(w0.Get(1, 0) == 2);  // the warp clock: last synchronised with lane 0 at the barrier
  CHECK(w0.Get(1, 2) == 3);
  CHECK(w0.Local(1) == 4);
  CHECK(w0.Get(0, 1) == 2);
  // Nested if on lanes 1.. : lane 1 alone -> NESTEDDIVERGED.
  uint32_t inner = w0.stack().PushIf(then_mask, 0x2u);
  b0.JoinIncrement(0, inner);
  CHECK(w0.format() == ClockFormat::kNestedDiverged);
  CHECK(w0.Get(1, 0) == 2);
  CHECK(w0.Get(1, 2) == 3);  // lane 2 as of the inner split
  CHECK(w0.Local(1) == 5);
  // Lane 1 acquires a lock released by thread 7 of block 1 (tid 71) -> SPARSEVC.
  b1.JoinIncrement(0, 0xffffffffu);
  VectorClock lock = b1.warp(0).Expand(7);
  b1.Increment(0, 1u << 7);
  b0.Acquire(0, 1, lock);
  CHECK(w0.format() == ClockFormat::kSparse);
  CHECK(w0.Get(1, 71) == 2);
  CHECK(w0.Get(1, 70) == 1);  // thread 7's view of its warp-mates at release time
  CHECK(w0.Get(2, 71) == 0);
  // Reconvergence: pop both branches joining the lanes again.
  uint32_t top = 0;
  REQUIRE(w0.stack().Pop(&top));  // else of the inner branch
  b0.JoinIncrement(0, top);
  REQUIRE(w0.stack().Pop(&top));  // fi of the inner branch
  b0.JoinIncrement(0, top);
  REQUIRE(w0.stack().Pop(&top));  // else of the outer branch
  b0.JoinIncrement(0, top);
  REQUIRE(w0.stack().Pop(&top));  // fi of the outer branch
  b0.JoinIncrement(0, top);
  CHECK(top == 0xffffffffu);
  CHECK(w0.group_count() == 1);
  CHECK(w0.Get(5, 71) == 2);  // everybody inherited the acquired entry
  // A barrier keeps the outside-block entries and simplifies the rest.
  b0.BarrierAll();
  CHECK(w0.format() == ClockFormat::kSparse);
  CHECK(w0.Get(3, 71) == 2);
  CHECK(b0.warp(1).Get(3, 71) == 2);
  CHECK(w0.CheckInvariants());
}

TEST_CASE("independent lanes releasing stay in one group", "[vc]") {
  BlockClocks b;
  b.Init(0, 1024);
  WarpClocks& w = b.warp(3);
  for (unsigned lane = 0; lane < 32; ++lane) b.Increment(3, 1u << lane);
  b.Increment(3, 0x0000ffffu);
  CHECK(w.group_count() == 1);
  CHECK(w.Local(0) == 3);
  CHECK(w.Local(31) == 2);
  CHECK(b.max_local() == 3);
  b.BarrierAll();
  CHECK(w.Local(31) == 4);
  CHECK(b.warp(0).Get(0, 96 + 31) == 3);
  CHECK(w.format() == ClockFormat::kConverged);
}

TEST_CASE("partial last warp", "[vc]") {
  BlockClocks b;
  b.Init(100, 35);
  REQUIRE(b.warp_count() == 2);
  CHECK(b.warp(1).existing_mask() == 0x7u);
  b.JoinIncrement(1, 0xffffffffu);  // lanes that do not exist are ignored
  CHECK(b.warp(1).Local(2) == 2);
  CHECK(b.warp(1).Local(3) == 0);
  VectorClock v = b.warp(1).Expand(0);
  CHECK(v.Get(134) == 1);
  CHECK(v.Get(135) == 0);
  CHECK(v.Get(100) == 0);
}

TEST_CASE("clock state of a converged warp is small", "[vc][memory]") {
  BlockClocks b;
  b.Init(0, 1024);
  b.BarrierAll();
  size_t per_thread = b.MemoryBytes() / 1024;
  INFO("bytes per thread: " << per_thread);
  CHECK(per_thread < 64);
}

}  // namespace
}  // namespace barracuda::vc
