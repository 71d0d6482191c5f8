// The per-warp reconvergence stack: the paper's pops for serialised paths, and
// joins reached in groups (independent thread scheduling on hardware: lanes
// that leave a loop early log their kFi alone, ptx_rewriter log_fi).
#include <catch2/catch.hpp>

#include <utility>
#include <vector>

#include "vc_compression/reconvergence_stack.h"

namespace barracuda::vc {
namespace {

constexpr uint32_t kAll = 0xffffffffu;

TEST_CASE("serialised paths: Else and Fi with their lanes are the paper's pops", "[vc][stack]") {
  ReconvergenceStack a, b;
  a.Reset(kAll);
  b.Reset(kAll);
  uint32_t ja = 0, jb = 0;
  a.PushIf(kAll, 0x0000ffffu);
  b.PushIf(kAll, 0x0000ffffu);
  a.PushIf(0x0000ffffu, 0x000000ffu);  // nested in the then side
  b.PushIf(0x0000ffffu, 0x000000ffu);
  REQUIRE(a.Else(0x0000ff00u, &ja));
  REQUIRE(b.Pop(&jb));
  CHECK(ja == jb);
  CHECK(ja == 0x0000ff00u);
  REQUIRE(a.Fi(0x0000ffffu, &ja));
  REQUIRE(b.Pop(&jb));
  CHECK(ja == jb);
  CHECK(ja == 0x0000ffffu);
  REQUIRE(a.Else(0xffff0000u, &ja));
  REQUIRE(b.Pop(&jb));
  CHECK(ja == 0xffff0000u);
  REQUIRE(a.Fi(kAll, &ja));
  REQUIRE(b.Pop(&jb));
  CHECK(ja == kAll);
  CHECK(a.depth() == 1);
  CHECK_FALSE(a.Fi(kAll, &ja));  // nothing open
  CHECK_FALSE(a.Else(kAll, &ja));
}

// A loop whose exit branch diverges twice: lane 0 leaves in iteration 1 (level
// 1), lane 1 in iteration 2 (level 2), lane 2 last. Each leaver logs one kFi per
// level it is in, innermost first; the lanes still looping log kElse at the top
// of the body and the next kIf. Every interleaving of the groups that keeps each
// group's own order closes both levels with no error.
TEST_CASE("a loop's exits reach the join in groups, in any interleaving", "[vc][stack]") {
  // Lanes 1 and 2 after iteration 2's split, as (is fi, lanes) in three orders.
  const std::vector<std::vector<std::pair<bool, uint32_t>>> tails = {
      {{true, 0x2}, {true, 0x2}, {false, 0x4}, {true, 0x4}, {true, 0x4}},
      {{false, 0x4}, {true, 0x2}, {true, 0x4}, {true, 0x2}, {true, 0x4}},
      {{false, 0x4}, {true, 0x4}, {true, 0x2}, {true, 0x2}, {true, 0x4}}};
  for (int lane0 = 0; lane0 < 3; ++lane0) {
    for (size_t tail = 0; tail < tails.size(); ++tail) {
      INFO("lane 0's fi at " << lane0 << ", tail " << tail);
      ReconvergenceStack s;
      s.Reset(0x7);
      uint32_t j = 0;
      REQUIRE(s.PushIf(0x7, 0x1) == 0x1);  // iteration 1: lane 0 leaves
      if (lane0 == 0) REQUIRE(s.Fi(0x1, &j));
      REQUIRE(s.Else(0x6, &j));
      if (lane0 == 1) REQUIRE(s.Fi(0x1, &j));
      s.PushIf(0x6, 0x2);  // iteration 2: lane 1 leaves
      if (lane0 == 2) REQUIRE(s.Fi(0x1, &j));
      for (const auto& [fi, lanes] : tails[tail]) REQUIRE((fi ? s.Fi(lanes, &j) : s.Else(lanes, &j)));
      CHECK(s.depth() == 1);
    }
  }
}

TEST_CASE("the else side of an outer branch starts while the then side is in a nested one", "[vc][stack]") {
  ReconvergenceStack s;
  s.Reset(kAll);
  uint32_t j = 0;
  s.PushIf(kAll, 0x0000ffffu);        // outer: then 0..15, else 16..31
  s.PushIf(0x0000ffffu, 0x00000001u);  // a loop exit in the then side
  CHECK(s.SplitApart(0, 20));
  REQUIRE(s.Else(0xffff0000u, &j));    // the outer else side starts: below the top
  CHECK(j == 0);                       // nothing joins
  REQUIRE(s.Fi(0x00000001u, &j));      // lane 0 leaves the loop first: waits for 1..15
  CHECK(s.SplitApart(0, 5));
  REQUIRE(s.Else(0x0000fffeu, &j));
  REQUIRE(s.Fi(0x0000fffeu, &j));      // the loop's join: closed
  CHECK_FALSE(s.SplitApart(0, 5));
  CHECK(s.SplitApart(0, 20));          // the outer branch still waits
  REQUIRE(s.Fi(0x0000ffffu, &j));      // then side at the outer join
  CHECK(s.SplitApart(0, 20));
  REQUIRE(s.Fi(0xffff0000u, &j));      // else side: closed
  CHECK(j == kAll);
  CHECK_FALSE(s.SplitApart(0, 20));
  CHECK(s.depth() == 1);
  CHECK_FALSE(s.Fi(0x1u, &j));         // a kFi nobody waits for
}

TEST_CASE("exited lanes are not waited for", "[vc][stack]") {
  ReconvergenceStack s;
  s.Reset(0xfu);
  uint32_t j = 0;
  s.PushIf(0xfu, 0x3u);
  REQUIRE(s.Else(0xcu, &j));
  s.RemoveLanes(0x8u);            // lane 3 returns inside the else side
  REQUIRE(s.Fi(0x3u, &j));        // then lanes first: waits for lane 2 only
  CHECK(s.depth() == 2);
  REQUIRE(s.Fi(0x4u, &j));
  CHECK(s.depth() == 1);
  CHECK(j == 0x7u);
}

}  // namespace
}  // namespace barracuda::vc
