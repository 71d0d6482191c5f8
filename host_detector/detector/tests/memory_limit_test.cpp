// The memory limit (DetectorOptions::shadow_limit_bytes, SEMANTICS.md "Memory
// limit"): past it races may be missed, never invented, and the statistics
// say what was left out. Geometry: 2 blocks x 64 threads (warps 0,1 block 0).
#include <catch2/catch.hpp>

#include <new>
#include <vector>

#include "host_detector/detector/streaming_analysis.h"
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

TEST_CASE("an allocation failure during the analysis ends it cleanly: what was found stays, the rest is counted",
          "[memory_limit][streaming]") {
  // Two races, one per pair of blocks' warps; the first race found makes the
  // listener throw std::bad_alloc, as an allocation inside the check would.
  TraceBuilder t;
  t.Begin(2, 64)
      .Write(0, kLane0, Same(kX), 1)
      .Write(2, kLane0, Same(kX), 2)
      .Write(1, kLane0, Same(kX + 64), 3)
      .Write(3, kLane0, Same(kX + 64), 4)
      .End();
  std::vector<std::vector<Record>> ring(2);  // one ring per block (warps 0,1 and 2,3)
  for (const Record& r : t.records()) {
    const Op op = protocol::OpOf(r.header);
    if (op != Op::kKernelBegin && op != Op::kKernelEnd) ring[r.header.warp_id / 2].push_back(r);
  }
  AnalysisPool pool(2);
  Detector d;
  int calls = 0;
  d.SetRaceListener([&](const RaceEvent&) {
    if (++calls == 1) throw std::bad_alloc();
  });
  auto launch = StreamingLaunch::Begin(d, pool, t.records().front(), 2);
  REQUIRE(launch.ok());
  for (uint32_t k = 0; k < 2; ++k) {
    (*launch)->Append(k, ring[k]);
    (*launch)->EndRing(k);
  }
  (*launch)->Finish();  // returns: the skipped records still drain
  Statistics s = d.Stats();
  CHECK(s.out_of_memory);
  CHECK(s.oom_skipped_records >= 1);
  CHECK(d.Report().size() == 1);  // recorded before the listener threw
  CHECK(calls == 1);
  // Later launches of the stream are skipped too (the state may be partial).
  const uint64_t skipped = s.oom_skipped_records;
  for (const Record& r : t.records()) d.Process(r);
  CHECK(d.Stats().oom_skipped_records == skipped + 4);
  CHECK(d.Report().size() == 1);
  CHECK(d.status().ok());
}

}  // namespace
}  // namespace barracuda::detector::testing
