// The memory limit (DetectorOptions::shadow_limit_bytes, SEMANTICS.md "Memory
// limit"): past it races may be missed, never invented, and the statistics
// say what was left out. Geometry: 2 blocks x 64 threads (warps 0,1 block 0).
#include <catch2/catch.hpp>

#include "host_detector/detector/tests/trace_builder.h"

namespace barracuda::detector::testing {
namespace {

constexpr uint64_t kX = 0x100000;
constexpr uint32_t kLane0 = 1u << 0;
constexpr uint32_t kAll = ~0u;

DetectorOptions Limited() {
  DetectorOptions o;
  o.shadow_limit_bytes = 1;  // over it from the start: every global page untracked
  return o;
}

TEST_CASE("over the limit, accesses to distinct words are never reported as races", "[memory_limit]") {
  // An earlier design mapped pages made over the limit with one cell per 8
  // device bytes: these warps' adjacent words then shared cells and raced.
  TraceBuilder t;
  t.Begin(2, 64)
      .Write(0, kAll, Strided(kX, 4), 1)         // words 0..31
      .Write(2, kAll, Strided(kX + 128, 4), 2)   // words 32..63, another block
      .Write(2, kLane0, Same(kX + 4), 3)         // ... and word 1's neighbour
      .Read(1, kAll, Strided(kX + 2, 4), 4, 2)   // the upper halves of words 0..31
      .End();
  RunResult r = RunWith(t, Limited());
  CHECK(r.events.empty());
  CHECK(r.stats.limit_unchecked_accesses == 32 + 32 + 1 + 32);
  CHECK(r.stats.limit_untracked_pages == 1);
  CHECK(r.stats.MemoryLimited());
  CHECK(r.stats.shadow_limit_bytes == 1);
}

TEST_CASE("over the limit, a real race on an untracked page is counted, not reported", "[memory_limit]") {
  TraceBuilder t;
  t.Begin(2, 64).Write(0, kLane0, Same(kX), 1).Write(2, kLane0, Same(kX), 2).End();
  CHECK(Run(t).events.size() == 1);  // the same trace without a limit
  RunResult r = RunWith(t, Limited());
  CHECK(r.events.empty());
  CHECK(r.stats.limit_unchecked_accesses == 2);
}

TEST_CASE("over the limit, shared memory is still checked", "[memory_limit]") {
  const uint64_t s = protocol::SharedAddress(0, 16);
  TraceBuilder t;
  t.Begin(2, 64)
      .Mem(Op::kWrite, 0, kLane0, Same(s), 1, 4, Space::kShared)
      .Mem(Op::kWrite, 1, kLane0, Same(s), 2, 4, Space::kShared)
      .End();
  RunResult r = RunWith(t, Limited());
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].kind == RaceKind::kWriteAfterWrite);
  CHECK_FALSE(r.stats.MemoryLimited());
}

TEST_CASE("over the limit, concurrent readers are not all kept: races missed, none invented", "[memory_limit]") {
  const uint64_t s = protocol::SharedAddress(0, 16);
  TraceBuilder t;
  // Warps 0 and 1 read concurrently: a read VC, which the limit refuses (the
  // cell keeps warp 1's read, the newer).
  t.Begin(2, 64)
      .Mem(Op::kRead, 0, kLane0, Same(s), 1, 4, Space::kShared)
      .Mem(Op::kRead, 1, kLane0, Same(s), 2, 4, Space::kShared);
  SECTION("a write ordered after both reads is no race either way") {
    t.BlockBar(0, 2).Mem(Op::kWrite, 0, kLane0, Same(s), 3, 4, Space::kShared).End();
    CHECK(Run(t).events.empty());
    RunResult r = RunWith(t, Limited());
    CHECK(r.events.empty());
    CHECK(r.stats.limit_dropped_clock_entries == 1);
  }
  SECTION("warp 1's write races with warp 0's read: found without the limit, missed with it") {
    t.Mem(Op::kWrite, 1, kLane0, Same(s), 3, 4, Space::kShared).End();
    REQUIRE(Run(t).events.size() == 1);
    RunResult r = RunWith(t, Limited());
    CHECK(r.events.empty());
    CHECK(r.stats.MemoryLimited());
  }
  SECTION("warp 0's write still races with the read kept") {
    t.Mem(Op::kWrite, 0, kLane0, Same(s), 3, 4, Space::kShared).End();
    RunResult r = RunWith(t, Limited());
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].kind == RaceKind::kWriteAfterRead);
    CHECK(r.events[0].earlier.site == 2);
  }
}

}  // namespace
}  // namespace barracuda::detector::testing
