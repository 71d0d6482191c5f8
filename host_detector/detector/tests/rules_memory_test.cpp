// One test per FastTrack rule of paper Fig. 2-3 for plain and atomic accesses,
// plus the extensions of host_detector/detector/SEMANTICS.md (write-VC inflation, same-value
// filter). Geometry unless said otherwise: 2 blocks x 64 threads, so warp ids
// 0,1 are block 0 and 2,3 block 1, and tid = warp * 32 + lane.
#include <catch2/catch.hpp>

#include "host_detector/detector/tests/trace_builder.h"

namespace barracuda::detector::testing {
namespace {

constexpr uint64_t kX = 0x1000;
constexpr uint32_t kLane0 = 1u << 0;
constexpr uint32_t kLane1 = 1u << 1;

TEST_CASE("READEXCL: an ordered read replaces the read epoch", "[rules][memory]") {
  TraceBuilder t;
  t.Begin(2, 64).Write(0, kLane0, Same(kX), 1).BlockBar(0, 2).Read(1, kLane0, Same(kX), 2);
  SECTION("ordered write-read pair is no race") {
    t.End();
    CHECK(Run(t).events.empty());
  }
  SECTION("the read epoch now names warp 1: an unordered write by warp 0 is WAR") {
    t.Write(0, kLane0, Same(kX), 3).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].kind == RaceKind::kWriteAfterRead);
    CHECK(r.events[0].earlier.tid == 32);
    CHECK(r.events[0].earlier.site == 2);
    CHECK(r.events[0].cls == RaceClass::kIntraBlock);
  }
}

TEST_CASE("READINFLATE: a concurrent read inflates the read metadata", "[rules][memory]") {
  TraceBuilder t;
  // Warp 0 and warp 1 read concurrently; then warp 0 writes: it is ordered after
  // its own read but not after warp 1's, which only an inflated read VC keeps.
  t.Begin(2, 64).Read(1, kLane0, Same(kX), 1).Read(0, kLane0, Same(kX), 2).Write(0, kLane0, Same(kX), 3).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].kind == RaceKind::kWriteAfterRead);
  CHECK(r.events[0].earlier.tid == 32);
  CHECK(r.events[0].later.record_index == 3);
}

TEST_CASE("READSHARED: later concurrent reads join the read VC", "[rules][memory]") {
  TraceBuilder t;
  t.Begin(2, 64).Read(0, kLane0, Same(kX), 1).Read(1, kLane0, Same(kX), 2).Read(2, kLane0, Same(kX), 3);
  SECTION("a write after a barrier of block 0 still races with block 1's read") {
    t.BlockBar(0, 2).Write(0, kLane1, Same(kX), 4).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].earlier.tid == 64);
    CHECK(r.events[0].cls == RaceClass::kInterBlock);
  }
  SECTION("reads do not race with each other") {
    t.End();
    CHECK(Run(t).events.empty());
  }
}

TEST_CASE("WRITEEXCL: ordered writes, then an unordered write", "[rules][memory]") {
  TraceBuilder t;
  t.Begin(2, 64).Write(0, kLane0, Same(kX), 1).BlockBar(0, 2).Write(1, kLane0, Same(kX), 2);
  SECTION("ordered") {
    t.End();
    CHECK(Run(t).events.empty());
  }
  SECTION("WAW against the last writer") {
    t.Write(2, kLane0, Same(kX), 3).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].kind == RaceKind::kWriteAfterWrite);
    CHECK(r.events[0].earlier.site == 2);
    CHECK(r.events[0].cls == RaceClass::kInterBlock);
  }
}

TEST_CASE("WRITESHARED: a write ordered after all concurrent readers", "[rules][memory]") {
  TraceBuilder t;
  t.Begin(2, 64).Read(0, kLane0, Same(kX), 1).Read(1, kLane0, Same(kX), 2).BlockBar(0, 2).Write(0, kLane1, Same(kX), 3);
  SECTION("no race, and the read VC is cleared") {
    t.BlockBar(0, 2).Read(1, kLane1, Same(kX), 4).End();
    CHECK(Run(t).events.empty());
  }
  SECTION("an unordered read afterwards is RAW") {
    t.Read(1, kLane1, Same(kX), 4).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].kind == RaceKind::kReadAfterWrite);
  }
}

TEST_CASE("ENDINSN: lockstep orders consecutive instructions of a warp", "[rules][memory]") {
  TraceBuilder t;
  // Every lane writes its word, then reads its neighbour's.
  t.Begin(1, 64).Write(0, 0xffffffffu, Strided(kX, 4), 1);
  t.Read(0, 0xffffffffu, [](unsigned l) { return kX + 4 * ((l + 1) % 32); }, 2);
  SECTION("lockstep: the write instruction ends before the read starts") {
    t.End();
    CHECK(Run(t, WarpModel::kLockstep).events.empty());
    // Independent thread scheduling: lanes are not ordered by the warp's program order.
    RunResult its = Run(t, WarpModel::kIts);
    REQUIRE(its.events.size() == 32);
    CHECK(its.events[0].cls == RaceClass::kIntraWarp);
    CHECK(its.events[0].kind == RaceKind::kReadAfterWrite);
  }
  SECTION("ENDINSN joins only the active lanes") {
    t.Write(0, 0x1u, Same(kX + 512), 3).Read(0, 0x2u, Same(kX + 512), 4).End();
    CHECK(Run(t, WarpModel::kLockstep).events.size() == 1);
  }
}

TEST_CASE("intra-warp write-write race within one record", "[rules][memory]") {
  TraceBuilder t;
  t.Begin(1, 32).Write(0, kLane0 | kLane1, Same(kX), 1).End();
  for (WarpModel m : {WarpModel::kLockstep, WarpModel::kIts}) {
    RunResult r = Run(t, m);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].kind == RaceKind::kWriteAfterWrite);
    CHECK(r.events[0].cls == RaceClass::kIntraWarp);
    CHECK(r.events[0].later.lane == 1);
    CHECK(r.events[0].earlier.lane == 0);
  }
}

// Data races only: warnings (same-value, dependency-ordered) left out.
std::vector<RaceEvent> DataRaces(const std::vector<RaceEvent>& events) {
  std::vector<RaceEvent> out;
  for (const RaceEvent& e : events) {
    if (!IsWarningKind(e.kind)) out.push_back(e);
  }
  return out;
}

TEST_CASE("same-value filter: lanes of one record writing the same value", "[rules][memory]") {
  TraceBuilder t;
  t.Begin(1, 64).Mem(Op::kWrite, 0, 0xffu, Same(kX), 1, 4, Space::kGlobal, protocol::kFlagSameValue);
  SECTION("a same-value warning within the record, no data race") {
    t.End();
    for (WarpModel m : {WarpModel::kLockstep, WarpModel::kIts}) {
      const RunResult r = Run(t, m);
      CHECK(DataRaces(r.events).empty());
      REQUIRE(r.events.size() == 7);  // lanes 1-7 against an earlier lane
      for (const RaceEvent& e : r.events) {
        CHECK(e.kind == RaceKind::kSameValue);
        CHECK(e.cls == RaceClass::kIntraWarp);
      }
    }
  }
  SECTION("the writers inflate: a read ordered after lane 7 only still races with lanes 0-6") {
    // Lane 7 releases, warp 1 acquires: ordered after lane 7's write but not the others.
    t.ReleaseStore(Scope::kCta, 0, 1u << 7, 0x9000).Acquire(Scope::kCta, 1, kLane0, 0x9000);
    t.Read(1, kLane0, Same(kX), 2).End();
    const std::vector<RaceEvent> races = DataRaces(Run(t, WarpModel::kIts).events);
    REQUIRE(races.size() == 1);
    CHECK(races[0].kind == RaceKind::kReadAfterWrite);
    CHECK(races[0].earlier.lane != 7);
  }
  SECTION("the flag does not cover a later record") {
    t.Mem(Op::kWrite, 0, kLane1, Same(kX), 3, 4, Space::kGlobal, protocol::kFlagSameValue).End();
    const std::vector<RaceEvent> its = DataRaces(Run(t, WarpModel::kIts).events);
    REQUIRE(its.size() == 1);
    CHECK(its[0].kind == RaceKind::kWriteAfterWrite);
    CHECK(DataRaces(Run(t, WarpModel::kLockstep).events).empty());
  }
}

// Writes of different records (warps, blocks) that stored one value: the
// class is decided at the end of the launch from what each site stored
// (host_detector/detector/same_value.h).
TEST_CASE("same-value writes across records: a warning when the earlier site always stored that value",
          "[rules][memory][same-value]") {
  constexpr uint64_t kFlag = 0x4000;
  // The kind of the one race event under ITS (kind of -1 when not exactly one).
  auto OnlyKind = [](const TraceBuilder& t) {
    const RunResult r = Run(t, WarpModel::kIts);
    return r.events.size() == 1 ? r.events[0].kind : static_cast<RaceKind>(-1);
  };
  SECTION("two blocks set a flag to 1: one same-value warning, no data race") {
    TraceBuilder t;
    t.Begin(2, 32).WriteValue(0, kLane0, Same(kFlag), 5, 1).WriteValue(1, kLane0, Same(kFlag), 5, 1).End();
    for (WarpModel m : {WarpModel::kLockstep, WarpModel::kIts}) {
      const RunResult r = Run(t, m);
      REQUIRE(r.events.size() == 1);
      CHECK(r.events[0].kind == RaceKind::kSameValue);
      CHECK(r.events[0].cls == RaceClass::kInterBlock);
    }
  }
  SECTION("different sites storing the same constant are a same-value pair too") {
    TraceBuilder t;
    t.Begin(2, 32).WriteValue(0, kLane0, Same(kFlag), 5, 1).WriteValue(1, kLane0, Same(kFlag), 6, 1).End();
    CHECK(OnlyKind(t) == RaceKind::kSameValue);
  }
  SECTION("different values: a WAW data race") {
    TraceBuilder t;
    t.Begin(2, 32).WriteValue(0, kLane0, Same(kFlag), 5, 1).WriteValue(1, kLane0, Same(kFlag), 6, 2).End();
    CHECK(OnlyKind(t) == RaceKind::kWriteAfterWrite);
  }
  SECTION("the earlier site stored another value elsewhere in the launch: a WAW data race") {
    // Site 5 stored 1 here, but 7 at another address later: its write here
    // cannot be shown to have stored 1, whatever order the records came in.
    TraceBuilder t;
    t.Begin(3, 32).WriteValue(0, kLane0, Same(kFlag), 5, 1).WriteValue(1, kLane0, Same(kFlag), 6, 1);
    t.WriteValue(2, kLane0, Same(kFlag + 64), 5, 7);
    t.End();
    CHECK(OnlyKind(t) == RaceKind::kWriteAfterWrite);
  }
  SECTION("a write without a single value is never same-value") {
    TraceBuilder t;
    t.Begin(2, 32).WriteValue(0, kLane0, Same(kFlag), 5, 1).Write(1, kLane0, Same(kFlag), 6).End();
    CHECK(OnlyKind(t) == RaceKind::kWriteAfterWrite);
  }
  SECTION("sizes differ: a WAW data race") {
    TraceBuilder t;
    t.Begin(2, 32).WriteValue(0, kLane0, Same(kFlag), 5, 1, 4).WriteValue(1, kLane0, Same(kFlag), 6, 1, 8).End();
    const RunResult r = Run(t, WarpModel::kIts);
    REQUIRE_FALSE(r.events.empty());
    CHECK(r.events[0].kind == RaceKind::kWriteAfterWrite);
  }
  SECTION("a same-value write that also races with a read is a data race") {
    TraceBuilder t;
    t.Begin(3, 32).WriteValue(0, kLane0, Same(kFlag), 5, 1).Read(2, kLane0, Same(kFlag), 8);
    t.WriteValue(1, kLane0, Same(kFlag), 6, 1).End();
    const RunResult r = Run(t, WarpModel::kIts);
    REQUIRE(r.events.size() == 2);  // block 2's read (RAW), then block 1's write: WAR with it wins
    CHECK(r.events[0].kind == RaceKind::kReadAfterWrite);
    CHECK(r.events[1].kind == RaceKind::kWriteAfterRead);
  }
}

TEST_CASE("INITATOMEXCL: atomic after a plain write", "[rules][atomic]") {
  TraceBuilder t;
  t.Begin(2, 64).Write(0, kLane0, Same(kX), 1);
  SECTION("unordered: atomic-vs-plain") {
    t.Atomic(2, kLane0, Same(kX), 2).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].kind == RaceKind::kAtomicVsPlain);
    CHECK(r.events[0].earlier.op == Op::kWrite);
  }
  SECTION("ordered by a barrier") {
    t.BlockBar(0, 2).Atomic(1, kLane0, Same(kX), 2).End();
    CHECK(Run(t).events.empty());
  }
}

TEST_CASE("INITATOMSHRD: atomic after concurrent plain reads", "[rules][atomic]") {
  TraceBuilder t;
  t.Begin(2, 64).Read(0, kLane0, Same(kX), 1).Read(1, kLane0, Same(kX), 2);
  SECTION("ordered after both") {
    t.BlockBar(0, 2).Atomic(0, kLane1, Same(kX), 3).End();
    CHECK(Run(t).events.empty());
  }
  SECTION("unordered") {
    t.Atomic(2, kLane0, Same(kX), 3).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].kind == RaceKind::kAtomicVsPlain);
    CHECK(r.events[0].earlier.op == Op::kRead);
  }
}

TEST_CASE("ATOMEXCL: atomics never race with atomics, nor synchronise", "[rules][atomic]") {
  // Site 3 stores (st.relaxed): it reads nothing, so it observes nothing
  // (with read-modify-writes, rules_observation_test.cpp).
  TraceBuilder t;
  t.Begin(2, 64).Atomic(0, kLane0, Same(kX), 1).Atomic(2, kLane0, Same(kX), 2);
  t.StrongStore(Scope::kGpu, 1, 0xffffffffu, kX, 3);
  SECTION("no race among atomics") {
    t.End();
    CHECK(Run(t).events.empty());
  }
  SECTION("a plain read after them races (atomics did not order anything)") {
    t.Read(3, kLane0, Same(kX), 4).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].kind == RaceKind::kAtomicVsPlain);
  }
  SECTION("write VC: ordered after the last atomic writer only is not enough") {
    // Block 1's atomic (site 2) is concurrent with block 0's; block 0 synchronises
    // with itself through a barrier, then reads: ordered after sites 1 and 3 but
    // not after site 2 (the paper's single write epoch keeps only the last one).
    t.BlockBar(0, 2).Read(0, kLane0, Same(kX), 4).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].earlier.site == 2);
  }
}

TEST_CASE("ATOMEXCL: a read-modify-write that read the concurrent atomic orders it (observation order)",
          "[rules][atomic][observation]") {
  // As above with site 3 an atom: it read site 2's value, so site 2 is
  // ordered before what site 3 happens before (PTX causality order, clause 2).
  TraceBuilder t;
  t.Begin(2, 64).Atomic(0, kLane0, Same(kX), 1).Atomic(2, kLane0, Same(kX), 2).Atomic(1, 0xffffffffu, Same(kX), 3);
  t.BlockBar(0, 2).Read(0, kLane0, Same(kX), 4).End();
  CHECK(Run(t).events.empty());
}

TEST_CASE("ATOMSHARED: atomic after an atomic with concurrent reads", "[rules][atomic]") {
  TraceBuilder t;
  t.Begin(2, 64).Atomic(0, kLane0, Same(kX), 1).BlockBar(0, 2).Read(0, kLane1, Same(kX), 2).Read(1, kLane1, Same(kX), 3);
  SECTION("ordered after the reads") {
    t.BlockBar(0, 2).Atomic(1, kLane0, Same(kX), 4).End();
    CHECK(Run(t).events.empty());
  }
  SECTION("not ordered after the reads") {
    t.Atomic(2, kLane0, Same(kX), 4).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].kind == RaceKind::kAtomicVsPlain);
    CHECK(r.events[0].earlier.op == Op::kRead);
  }
}

TEST_CASE("shared memory is per block and classified", "[rules][memory]") {
  TraceBuilder t;
  const uint64_t s0 = protocol::SharedAddress(0, 16), s1 = protocol::SharedAddress(1, 16);
  t.Begin(2, 64)
      .Mem(Op::kWrite, 0, kLane0, Same(s0), 1, 4, Space::kShared)
      .Mem(Op::kWrite, 2, kLane0, Same(s1), 2, 4, Space::kShared)  // other block's window: no race
      .Mem(Op::kRead, 1, kLane0, Same(s0 + 2), 3, 4, Space::kShared)  // overlaps bytes 18,19
      .End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].space == Space::kShared);
  CHECK(r.events[0].address == s0 + 2);  // the first racing byte
  CHECK(r.events[0].cls == RaceClass::kIntraBlock);
}

TEST_CASE("multi-byte accesses race on the overlap only", "[rules][memory]") {
  TraceBuilder t;
  t.Begin(1, 64).Write(0, kLane0, Same(kX), 1, 8).Read(1, kLane0, Same(kX + 6), 2, 4).Read(1, kLane1, Same(kX + 8), 3, 4).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].address == kX + 6);
}

// Global shadow keeps one cell per 4-byte granule and splits it when an access
// covers part of it (shadow_memory/global_shadow.h): verdicts stay per byte.
TEST_CASE("global granules: byte accesses stay byte-precise, whole-word ones see every byte", "[rules][memory]") {
  SECTION("different bytes of one word do not race") {
    TraceBuilder t;
    t.Begin(1, 64).Write(0, kLane0, Same(kX + 1), 1, 1).Read(1, kLane0, Same(kX + 2), 2, 1)
        .Write(1, kLane1, Same(kX + 3), 3, 1).End();
    CHECK(Run(t).events.empty());
  }
  SECTION("a word read races with the one byte written") {
    TraceBuilder t;
    t.Begin(1, 64).Write(0, kLane0, Same(kX + 1), 1, 1).Read(1, kLane0, Same(kX), 2, 4).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].address == kX + 1);
    CHECK(r.events[0].kind == RaceKind::kReadAfterWrite);
  }
  SECTION("four lanes write one byte each, another warp reads the word") {
    TraceBuilder t;
    t.Begin(1, 64).Write(0, 0xfu, Strided(kX, 1), 1, 1).Read(1, kLane0, Same(kX), 2, 4).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].address == kX);  // the first racing byte
    CHECK(r.events[0].earlier.lane == 0);
  }
  SECTION("a word write folds the bytes back; a later byte read still races with it") {
    TraceBuilder t;
    t.Begin(1, 64).Write(0, kLane0, Same(kX + 2), 1, 1).Write(0, kLane0, Same(kX), 2, 4)
        .Read(0, kLane0, Same(kX + 3), 3, 1).Read(1, kLane0, Same(kX + 1), 4, 2).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].address == kX + 1);
    CHECK(r.events[0].earlier.site == 2);
  }
  SECTION("an 8-byte access over a split and a whole granule") {
    TraceBuilder t;
    t.Begin(1, 64).Write(0, kLane0, Same(kX + 5), 1, 1).Write(0, kLane1, Same(kX + 8), 2, 4)
        .Read(1, kLane0, Same(kX + 4), 3, 8).Read(1, kLane1, Same(kX + 8), 4, 4).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 2);
    CHECK(r.events[0].address == kX + 5);  // the first racing byte of the 8
    CHECK(r.events[0].earlier.site == 1);
    CHECK(r.events[1].address == kX + 8);
    CHECK(r.events[1].earlier.site == 2);
  }
}

TEST_CASE("report de-duplicates by site pair and kind", "[report]") {
  TraceBuilder t;
  t.Begin(1, 64).Write(0, 0xffffffffu, Strided(kX, 4), 1);
  for (int i = 0; i < 3; ++i) t.Read(1, 0xffffffffu, Strided(kX, 4), 2);
  t.End();
  RunResult r = Run(t);
  CHECK(r.events.size() == 96);  // every read of every lane is unordered with the write
  REQUIRE(r.entries.size() == 1);
  CHECK(r.entries[0].key.earlier_site == 1);
  CHECK(r.entries[0].key.later_site == 2);
  CHECK(r.entries[0].count == r.events.size());
  CHECK(r.entries[0].first.later.record_index == 2);
}

// Hot shared words (host_detector/README.md "Hot locations"): a cell that
// inflates and deflates thousands of times between barriers (the list of cells
// a barrier collapses is compacted on the way), then a whole-block barrier that
// collapses what is inflated: what is ordered stays ordered, what is not still
// races.
TEST_CASE("shared cells inflated between barriers are collapsed by the next one", "[rules][shared]") {
  const uint64_t kS = protocol::SharedAddress(0, 0x40);
  TraceBuilder t;
  t.Begin(1, 64, 256);  // a 256-byte window: the list is compacted past 1024 entries
  for (int i = 0; i < 3000; ++i) {
    t.Mem(Op::kRead, 0, 0x3u, Same(kS), 1, 4, Space::kShared);  // two lanes: a read VC
    t.WarpSync(0, 0xffffffffu);
    t.Mem(Op::kWrite, 0, 0x1u, Same(kS), 2, 4, Space::kShared);  // deflates it
    t.WarpSync(0, 0xffffffffu);
  }
  // Atomics of both warps (a write VC of concurrent atomics), then reads.
  t.Mem(Op::kAtomic, 0, 0xffffffffu, Same(kS + 4), 3, 4, Space::kShared);
  t.Mem(Op::kAtomic, 1, 0xffffffffu, Same(kS + 4), 3, 4, Space::kShared);
  t.Mem(Op::kRead, 0, 0x3u, Same(kS), 4, 4, Space::kShared);
  t.BlockBar(0, 2);
  t.Mem(Op::kRead, 1, 0xffffffffu, Same(kS + 4), 5, 4, Space::kShared);  // after the barrier: ordered
  t.Mem(Op::kWrite, 1, 0x1u, Same(kS), 6, 4, Space::kShared);     // ordered after the reads too
  t.Mem(Op::kWrite, 0, 0x1u, Same(kS + 8), 7, 4, Space::kShared);
  t.Mem(Op::kRead, 1, 0x1u, Same(kS + 8), 8, 4, Space::kShared);  // no barrier between: a race
  t.End();
  for (WarpModel m : {WarpModel::kIts, WarpModel::kLockstep}) {
    RunResult r = Run(t, m);
    CHECK(r.ok);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].later.site == 8);
    CHECK(r.events[0].earlier.site == 7);
  }
}

}  // namespace
}  // namespace barracuda::detector::testing
