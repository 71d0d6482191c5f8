// One test per synchronisation rule of paper Fig. 2-3 (IF, ELSE/ENDIF, BAR,
// ACQBLOCK, RELBLOCK, ACQRELBLK, ACQGLOBAL, RELGLOBAL, ACQRELGLB) plus the
// extensions: explicit scopes, release store vs read-modify-write, named
// barriers with counts and bar.arrive, warp-sync, exits.
// Geometry unless said otherwise: 2 blocks x 64 threads (warps 0,1 | 2,3).
#include <catch2/catch.hpp>

#include "host_detector/detector/tests/trace_builder.h"

namespace barracuda::detector::testing {
namespace {

constexpr uint64_t kX = 0x2000;
constexpr uint64_t kLock = 0x8000;
constexpr uint32_t kAll = 0xffffffffu;

TEST_CASE("IF: then and else paths are concurrent (divergence race)", "[rules][branch]") {
  TraceBuilder t;
  t.Begin(1, 32).If(0, kAll, 0x0000ffffu).Write(0, 0x0000ffffu, Strided(kX, 4), 1).Else(0);
  t.Read(0, 0xffff0000u, [](unsigned l) { return kX + 4 * (l - 16); }, 2).Fi(0).End();
  for (WarpModel m : {WarpModel::kLockstep, WarpModel::kIts}) {
    RunResult r = Run(t, m);
    REQUIRE(r.events.size() == 16);
    CHECK(r.events[0].cls == RaceClass::kDivergence);
    CHECK(r.events[0].kind == RaceKind::kReadAfterWrite);
    CHECK(r.events[0].later.lane == 16);
    CHECK(r.events[0].earlier.lane == 0);
  }
}

TEST_CASE("ELSE/ENDIF: reconvergence joins both paths in lockstep", "[rules][branch]") {
  TraceBuilder t;
  t.Begin(1, 32).If(0, kAll, 0x1u).Write(0, 0x1u, Same(kX), 1).Else(0).Fi(0).Read(0, 0x2u, Same(kX), 2).End();
  CHECK(Run(t, WarpModel::kLockstep).events.empty());
  RunResult its = Run(t, WarpModel::kIts);
  REQUIRE(its.events.size() == 1);
  CHECK(its.events[0].cls == RaceClass::kIntraWarp);  // the branch is closed again
}

TEST_CASE("IF with an empty side still pushes and pops", "[rules][branch]") {
  TraceBuilder t;
  t.Begin(1, 32).If(0, kAll, kAll).Write(0, 0x1u, Same(kX), 1).Else(0).Fi(0).Read(0, 0x2u, Same(kX), 2).End();
  RunResult r = Run(t, WarpModel::kLockstep);
  CHECK(r.events.empty());
  CHECK(r.ok);
}

TEST_CASE("nested branches", "[rules][branch]") {
  TraceBuilder t;
  t.Begin(1, 32)
      .If(0, kAll, 0xffu)
      .If(0, 0xffu, 0x0fu)
      .Write(0, 0x1u, Same(kX), 1)
      .Else(0)
      .Read(0, 0x10u, Same(kX), 2)  // inner else: divergence race with lane 0
      .Fi(0)
      .Read(0, 0x20u, Same(kX), 3)  // after the inner fi: ordered (lockstep)
      .Else(0)
      .Read(0, 0x100u, Same(kX), 4)  // outer else: divergence race
      .Fi(0)
      .Read(0, 0x200u, Same(kX), 5)  // after the outer fi: ordered
      .End();
  RunResult r = Run(t, WarpModel::kLockstep);
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].later.site == 2);
  CHECK(r.events[1].later.site == 4);
  CHECK(r.events[0].cls == RaceClass::kDivergence);
  CHECK(r.events[1].cls == RaceClass::kDivergence);
}

// What a GPU under independent thread scheduling logs when a branch's region
// holds a loop (ptx_rewriter log_fi cannot wait there): the outer else side
// starts while the then side is inside a loop whose exits diverge, lane 0
// leaves the loop alone, and the outer join is reached in two groups. Every
// kElse/kFi finds its branch (no malformed record), and a race between the two
// sides stays a divergence race until both have joined.
TEST_CASE("joins reached in groups (independent thread scheduling on hardware)", "[rules][branch]") {
  TraceBuilder t;
  t.Begin(1, 32)
      .If(0, kAll, 0x0000ffffu)          // outer: then 0..15, else 16..31
      .If(0, 0x0000ffffu, 0x1u)          // a loop in the then side: lane 0 leaves
      .Else(0, 0xffff0000u)              // the outer else side starts
      .Read(0, 0x00010000u, Same(kX), 2)  // lane 16 reads x
      .Fi(0, 0x1u)                       // lane 0 at the loop's join, alone
      .Write(0, 0x1u, Same(kX), 1)       // lane 0 writes x: races with lane 16
      .Else(0, 0x0000fffeu)
      .Fi(0, 0x0000fffeu)                // the rest leave the loop
      .Fi(0, 0x0000ffffu)                // outer join: the then side ...
      .Fi(0, 0xffff0000u)                // ... and the else side
      .Read(0, 0x00020000u, Same(kX), 3)  // after both: an intra-warp race (its)
      .End();
  for (WarpModel m : {WarpModel::kLockstep, WarpModel::kIts}) {
    RunResult r = Run(t, m);
    CHECK(r.ok);
    CHECK(r.stats.malformed_records == 0);
    REQUIRE_FALSE(r.events.empty());
    CHECK(r.events[0].later.site == 1);
    CHECK(r.events[0].kind == RaceKind::kWriteAfterRead);
    CHECK(r.events[0].cls == RaceClass::kDivergence);
    if (m == WarpModel::kIts) {
      REQUIRE(r.events.size() == 2);
      CHECK(r.events[1].later.site == 3);
      CHECK(r.events[1].cls == RaceClass::kIntraWarp);
    }
  }
  // A kFi that no open branch waits for is still malformed.
  TraceBuilder u;
  u.Begin(1, 32).If(0, kAll, 0x1u).Else(0, 0xfffffffeu).Fi(0, kAll).Fi(0, 0x1u).End();
  CHECK_FALSE(Run(u).ok);
}

TEST_CASE("BAR: orders the whole block", "[rules][barrier]") {
  TraceBuilder t;
  t.Begin(2, 64).Write(0, kAll, [](unsigned l) { return kX + 4 * l; }, 1).BlockBar(0, 2);
  t.Read(1, kAll, [](unsigned l) { return kX + 4 * (31 - l); }, 2);
  SECTION("same block: ordered") {
    t.End();
    for (WarpModel m : {WarpModel::kLockstep, WarpModel::kIts}) CHECK(Run(t, m).events.empty());
  }
  SECTION("another block is not ordered by it") {
    t.Read(2, 0x1u, Same(kX), 3).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].cls == RaceClass::kInterBlock);
  }
  SECTION("before the barrier completes nothing is ordered") {
    TraceBuilder u;
    u.Begin(1, 64).Write(0, 0x1u, Same(kX), 1).Bar(0, kAll).Read(1, 0x1u, Same(kX), 2).Bar(1, kAll).End();
    CHECK(Run(u).events.size() == 1);
  }
}

TEST_CASE("BAR: barrier divergence is reported", "[rules][barrier]") {
  TraceBuilder t;
  t.Begin(1, 64).If(0, kAll, 0xffffu).Bar(0, 0xffffu, 0, 0, 77).Else(0).Bar(0, 0xffff0000u, 0, 0, 78).Fi(0).Bar(1, kAll).End();
  RunResult r = Run(t, WarpModel::kLockstep);
  REQUIRE(CountKind(r, RaceKind::kBarrierDivergence) == 2);
  CHECK(r.events[0].later.site == 77);
  CHECK(r.stats.barriers_completed == 1);  // the arrivals still count
  REQUIRE(r.entries.size() == 2);
}

TEST_CASE("BAR: lanes that exit instead of arriving are not divergence", "[rules][barrier]") {
  // PTX ISA: a barrier waits for the non-exited threads of the warp, and an
  // exit releases a barrier it holds up. Lanes 16-31 exit (an early return,
  // or the other side of a branch after a store), lanes 0-15 arrive: the
  // barrier completes, no divergence, and the store is not ordered before
  // what the arrivals read after it.
  TraceBuilder t;
  t.Begin(1, 32).Write(0, 0x10000u, Same(kX), 1).Exit(0, 0xffff0000u).Bar(0, 0xffffu, 0, 0, 79)
      .Read(0, 0x1u, Same(kX), 2).End();
  RunResult r = Run(t);
  CHECK(CountKind(r, RaceKind::kBarrierDivergence) == 0);
  CHECK(r.stats.barriers_completed == 1);
  CHECK(CountKind(r, RaceKind::kReadAfterWrite) == 1);
}

TEST_CASE("BAR: arrivals in groups (GPU backend) diverge only across barrier instructions", "[rules][barrier]") {
  DetectorOptions o;
  o.barrier_arrivals_in_groups = true;
  // Warp 0 reaches the bar.sync at site 80 in two groups (lanes that left a
  // loop early, then the rest): not divergence, and the barrier orders.
  TraceBuilder t;
  t.Begin(1, 64).Write(0, 0x1u, Same(kX), 1).Bar(0, 0xffu, 0, 0, 80).Bar(1, kAll, 0, 0, 80);
  t.Bar(0, 0xffffff00u, 0, 0, 80).Read(1, 0x1u, Same(kX), 2).End();
  RunResult r = RunWith(t, o);
  CHECK(CountKind(r, RaceKind::kBarrierDivergence) == 0);
  CHECK(r.events.empty());
  CHECK(r.stats.barriers_completed == 1);
  // Without the option the same records are the paper's BAR violation.
  CHECK(CountKind(Run(t), RaceKind::kBarrierDivergence) == 2);
  // Lanes of one warp at two barrier instructions of one generation still are.
  TraceBuilder u;
  u.Begin(1, 64).If(0, kAll, 0xffffu).Bar(0, 0xffffu, 0, 0, 77).Else(0).Bar(0, 0xffff0000u, 0, 0, 78).Fi(0).Bar(1, kAll).End();
  RunResult v = RunWith(u, o);
  REQUIRE(CountKind(v, RaceKind::kBarrierDivergence) == 2);
  CHECK(v.events[0].later.site == 77);  // both sites, as without the option
  CHECK(v.events[1].later.site == 78);
}

TEST_CASE("partial last warp: its live mask is the lanes that exist", "[rules][barrier]") {
  TraceBuilder t;  // 40 threads: warp 1 has 8 lanes
  t.Begin(1, 40).Write(1, 0xffu, [](unsigned l) { return kX + 4 * l; }, 1).Bar(0, kAll).Bar(1, 0xffu);
  t.Read(0, kAll, [](unsigned l) { return kX + 4 * (l % 8); }, 2).End();
  RunResult r = Run(t);
  CHECK(CountKind(r, RaceKind::kBarrierDivergence) == 0);
  CHECK(r.events.empty());
  CHECK(r.stats.barriers_completed == 1);
}

TEST_CASE("exited lanes leave whole-block barriers", "[rules][barrier]") {
  TraceBuilder t;
  t.Begin(1, 64).Exit(1, 0xffff0000u).Write(1, 0x1u, Same(kX), 1).Bar(0, kAll).Bar(1, 0x0000ffffu);
  t.Read(0, 0x1u, Same(kX), 2).End();
  RunResult r = Run(t);
  CHECK(r.events.empty());
  CHECK(r.stats.barriers_completed == 1);
  // Exited threads are not ordered with anything after the barrier.
  TraceBuilder u;
  u.Begin(1, 64).Write(1, 0x80000000u, Same(kX), 1).Exit(1, 0xffff0000u).Bar(0, kAll).Bar(1, 0x0000ffffu);
  u.Read(0, 0x1u, Same(kX), 2).End();
  CHECK(Run(u).events.size() == 1);
}

TEST_CASE("named barriers: counts and bar.arrive", "[rules][barrier]") {
  // Producer warp 0 writes then arrives on barrier 1 (64 threads); consumer warp
  // 1 waits on it and reads: ordered. The producer is not ordered after the
  // consumer's earlier accesses (bar.arrive releases, it does not acquire).
  TraceBuilder t;
  t.Begin(1, 96)
      .Write(1, 0x1u, Same(kX + 64), 9)  // consumer writes before the barrier
      .Write(0, 0x1u, Same(kX), 1)
      .Arrive(0, kAll, 1, 64)
      .Bar(1, kAll, 1, 64)
      .Read(1, 0x2u, Same(kX), 2)        // ordered after the producer's write
      .Read(0, 0x2u, Same(kX + 64), 3)   // producer did not acquire: races
      .Read(2, 0x1u, Same(kX), 4)        // warp 2 did not take part: races
      .End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].later.site == 3);
  CHECK(r.events[1].later.site == 4);
  CHECK(CountKind(r, RaceKind::kBarrierDivergence) == 0);  // counted barriers may be partial
  CHECK(r.stats.barriers_completed == 1);
}

TEST_CASE("incomplete barrier generations are dropped at kernel end", "[rules][barrier]") {
  TraceBuilder t;
  t.Begin(1, 64).Bar(0, kAll).End();
  RunResult r = Run(t);
  CHECK(r.stats.barrier_generations_dropped == 1);
  CHECK(r.stats.barriers_completed == 0);
}

TEST_CASE("warp-sync orders its member lanes (both models)", "[rules][warp]") {
  TraceBuilder t;
  t.Begin(1, 32).Write(0, 0x1u, Same(kX), 1).WarpSync(0, 0x3u).Read(0, 0x2u, Same(kX), 2).Read(0, 0x4u, Same(kX), 3).End();
  for (WarpModel m : {WarpModel::kLockstep, WarpModel::kIts}) {
    RunResult r = Run(t, m);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].later.lane == 2);  // lane 2 was not a member (nor active at the write)
  }
}

TEST_CASE("a warp sync reached in groups joins its members once all arrived", "[rules][warp]") {
  // Lane 0 writes in a branch; the other lanes reach __syncwarp() first and log
  // their arrival; lane 0 logs its own later; every lane then reads.
  for (WarpModel m : {WarpModel::kLockstep, WarpModel::kIts}) {
    SECTION(m == WarpModel::kIts ? "its" : "lockstep") {
      TraceBuilder t;
      t.Begin(1, 32).WarpSyncArrive(0, ~0x1u, kAll).Write(0, 0x1u, Same(kX), 1);
      SECTION("the last member arrives") {
        t.WarpSyncArrive(0, 0x1u, kAll).Read(0, kAll, Same(kX), 2).End();
        CHECK(Run(t, m).events.empty());
      }
      SECTION("the last member never arrives: nothing joined") {
        t.Read(0, 0x2u, Same(kX), 2).End();
        CHECK(Run(t, m).events.size() == 1);
      }
      SECTION("a member that exits no longer counts") {
        TraceBuilder u;
        u.Begin(1, 32).Write(0, 0x2u, Same(kX), 1).WarpSyncArrive(0, 0x3u, 0x7u).Exit(0, 0x4u).Read(0, 0x1u, Same(kX), 2);
        u.End();
        CHECK(Run(u, m).events.empty());
      }
    }
  }
}

TEST_CASE("warp syncs of different member masks wait apart", "[rules][warp]") {
  // Two tiles of 16 lanes: tile 0's members arrive in two groups; tile 1's
  // sync completing in between does not complete tile 0's.
  TraceBuilder t;
  t.Begin(1, 32).Write(0, 0x1u, Same(kX), 1).WarpSyncArrive(0, 0xfffeu, 0xffffu).WarpSyncArrive(0, 0xffff0000u, 0xffff0000u);
  t.Read(0, 0x2u, Same(kX), 2);
  t.WarpSyncArrive(0, 0x1u, 0xffffu).Read(0, 0x4u, Same(kX), 3).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].later.lane == 1);
}

TEST_CASE("a warp sync executed by lanes outside its member mask is a warp-sync-mask error", "[rules][warp]") {
  // Lanes 16-31 run __shfl_down_sync(0xffff, ...): the record's strays.
  TraceBuilder t;
  t.Begin(1, 32).Write(0, 0x1u, Same(kX), 1).WarpSyncWithStrays(0, 0xffffu, 0xffff0000u, 7);
  t.Read(0, 0x2u, Same(kX), 2).Read(0, 0x10000u, Same(kX), 3).End();
  for (WarpModel m : {WarpModel::kLockstep, WarpModel::kIts}) {
    RunResult res = Run(t, m);
    REQUIRE(CountKind(res, RaceKind::kWarpSyncMask) == 1);
    const RaceEvent* e = nullptr;
    for (const RaceEvent& ev : res.events) {
      if (ev.kind == RaceKind::kWarpSyncMask) e = &ev;
    }
    CHECK(e->later.site == 7);
    CHECK(e->later.lane == 16);  // the first stray
    CHECK(e->later.record_index == e->earlier.record_index);
    // The strays are not joined: lane 16's read still races with lane 0's write,
    // lane 1's (a member) does not.
    CHECK(CountKind(res, RaceKind::kReadAfterWrite) == 1);
  }
  SECTION("no strays: no error") {
    TraceBuilder u;
    u.Begin(1, 32).WarpSync(0, 0xffffu).WarpSync(0, 0xffff0000u).End();
    CHECK(Run(u).events.empty());
  }
}

TEST_CASE("RELBLOCK + ACQBLOCK synchronise within a block", "[rules][sync]") {
  TraceBuilder t;
  t.Begin(2, 64).Write(0, 0x1u, Same(kX), 1).ReleaseStore(Scope::kCta, 0, 0x1u, kLock);
  SECTION("same block") {
    t.Acquire(Scope::kCta, 1, 0x1u, kLock).Read(1, 0x1u, Same(kX), 2).End();
    CHECK(Run(t).events.empty());
  }
  SECTION("other lanes of the acquiring warp are not ordered") {
    t.Acquire(Scope::kCta, 1, 0x1u, kLock).Read(1, 0x2u, Same(kX), 2).End();
    CHECK(Run(t).events.size() == 1);
  }
  // Across blocks the .cta accesses of the lock are not morally strong either:
  // the data race and a scope race on the lock word.
  SECTION("block scope does not reach another block (paper §3.3.3)") {
    t.Acquire(Scope::kCta, 2, 0x1u, kLock).Read(2, 0x1u, Same(kX), 2).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 2);
    CHECK(r.events[0].kind == RaceKind::kNotMorallyStrong);
    CHECK(r.events[1].kind == RaceKind::kReadAfterWrite);
  }
  SECTION("cluster scope is block scope in a launch without clusters") {
    TraceBuilder u;
    u.Begin(2, 64).Write(0, 0x1u, Same(kX), 1).ReleaseStore(Scope::kCluster, 0, 0x1u, kLock);
    u.Acquire(Scope::kCluster, 2, 0x1u, kLock).Read(2, 0x1u, Same(kX), 2).End();
    CHECK(Run(u).events.size() == 2);
  }
  SECTION("release increments: later writes of the releaser are not covered") {
    t.Write(0, 0x1u, Same(kX + 8), 3).Acquire(Scope::kCta, 1, 0x1u, kLock).Read(1, 0x1u, Same(kX + 8), 4).End();
    CHECK(Run(t).events.size() == 1);
  }
}

TEST_CASE("ACQRELBLK: a block-scope lock handed around a block", "[rules][sync]") {
  TraceBuilder t;
  t.Begin(1, 128);
  for (uint32_t w = 0; w < 4; ++w) {
    t.AcqRel(Scope::kCta, w, 0x1u, kLock).Read(w, 0x1u, Same(kX), 10 + w).Write(w, 0x1u, Same(kX), 20 + w);
    t.AcqRel(Scope::kCta, w, 0x1u, kLock);
  }
  t.End();
  CHECK(Run(t).events.empty());
  CHECK(Run(t, WarpModel::kLockstep).events.empty());
}

TEST_CASE("RELGLOBAL + ACQGLOBAL synchronise across blocks", "[rules][sync]") {
  TraceBuilder t;
  t.Begin(2, 64).Write(0, 0x1u, Same(kX), 1);
  SECTION("gpu release, gpu acquire elsewhere: synchronises") {
    t.ReleaseStore(Scope::kGpu, 0, 0x1u, kLock).Acquire(Scope::kGpu, 2, 0x1u, kLock).Read(2, 0x1u, Same(kX), 2).End();
    CHECK(Run(t).events.empty());
  }
  // PTX model (not the paper's "either is gpu" rule): both scopes must include
  // the other thread. The lock accesses also race (not morally strong).
  SECTION("gpu release, block-scope acquire elsewhere: no synchronisation") {
    t.ReleaseStore(Scope::kGpu, 0, 0x1u, kLock).Acquire(Scope::kCta, 2, 0x1u, kLock).Read(2, 0x1u, Same(kX), 2).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 2);
    CHECK(r.events[1].kind == RaceKind::kReadAfterWrite);
  }
  SECTION("block release, gpu acquire elsewhere: no synchronisation") {
    t.ReleaseStore(Scope::kCta, 0, 0x1u, kLock).Acquire(Scope::kGpu, 2, 0x1u, kLock).Read(2, 0x1u, Same(kX), 2).End();
    CHECK(Run(t).events.size() == 2);
  }
  SECTION("system scope behaves as gpu scope") {
    t.ReleaseStore(Scope::kSys, 0, 0x1u, kLock).Acquire(Scope::kSys, 3, 0x1u, kLock).Read(3, 0x1u, Same(kX), 2).End();
    CHECK(Run(t).events.empty());
  }
  SECTION("acquire of another location does not synchronise") {
    t.ReleaseStore(Scope::kGpu, 0, 0x1u, kLock).Acquire(Scope::kGpu, 2, 0x1u, kLock + 4).Read(2, 0x1u, Same(kX), 2).End();
    CHECK(Run(t).events.size() == 1);
  }
}

TEST_CASE("ACQRELGLB: a global lock across blocks", "[rules][sync]") {
  TraceBuilder t;
  t.Begin(4, 64);
  for (uint32_t w : {0u, 3u, 5u, 6u, 2u}) {
    t.AcqRel(Scope::kGpu, w, 0x4u, kLock).Read(w, 0x4u, Same(kX), 10).Write(w, 0x4u, Same(kX), 11);
    t.AcqRel(Scope::kGpu, w, 0x4u, kLock);
  }
  t.End();
  CHECK(Run(t).events.empty());
}

TEST_CASE("release store replaces S_x, read-modify-write joins", "[rules][sync]") {
  // Warp 0 writes x and releases; warp 2 (other block) releases the same
  // location; warp 3 acquires. With a plain store the second release overwrites
  // the first (x races); with an RMW release (exch) the release sequence keeps it.
  for (bool rmw : {false, true}) {
    TraceBuilder t;
    t.Begin(2, 64).Write(0, 0x1u, Same(kX), 1).ReleaseStore(Scope::kGpu, 0, 0x1u, kLock);
    if (rmw) {
      t.ReleaseRmw(Scope::kGpu, 2, 0x1u, kLock);
    } else {
      t.ReleaseStore(Scope::kGpu, 2, 0x1u, kLock);
    }
    t.Acquire(Scope::kGpu, 3, 0x1u, kLock).Read(3, 0x1u, Same(kX), 2).End();
    CHECK(Run(t).events.size() == (rmw ? 0u : 1u));
  }
}

TEST_CASE("lanes of one record synchronise in ascending lane order", "[rules][sync]") {
  TraceBuilder t;
  // lane 0 releases and lane 1 acquires in one acq_rel record: lane 1 sees lane 0.
  t.Begin(1, 32).Write(0, 0x1u, Same(kX), 1).AcqRel(Scope::kCta, 0, 0x3u, kLock).Read(0, 0x2u, Same(kX), 2);
  t.Read(0, 0x1u, Same(kX + 8), 3).Write(0, 0x2u, Same(kX + 8), 4).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 1);  // lane 0 did not see lane 1
  CHECK(r.events[0].later.site == 4);
}

TEST_CASE("sync accesses are race-checked like every strong access", "[rules][sync]") {
  // A plain store to a lock word races with the release store of another block.
  TraceBuilder t;
  t.Begin(2, 64).Write(0, 0x1u, Same(kLock), 1).ReleaseStore(Scope::kGpu, 2, 0x1u, kLock).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].kind == RaceKind::kAtomicVsPlain);
  CHECK(r.events[0].later.site == 900);
}

TEST_CASE("a fence with nothing pending orders nothing", "[rules][sync]") {
  TraceBuilder t;
  t.Begin(2, 64).FenceOp(Scope::kGpu, 1, 0x1u).Read(1, 0x1u, Same(kX), 2).Write(0, 0x2u, Same(kX), 3).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].later.site == 3);
}

TEST_CASE("malformed records are rejected without crashing", "[robustness]") {
  TraceBuilder t;
  t.Read(0, 1, Same(kX), 1);  // outside a launch
  t.Begin(1, 32).Read(5, 1, Same(kX), 1).Else(0).Bar(0, kAll, 99, 0);
  t.Mem(Op::kRead, 0, 1, Same(kX), 1, 0).End();
  RunResult r = Run(t);
  CHECK_FALSE(r.ok);
  CHECK(r.stats.malformed_records == 5);
}

// ---- Thread-block clusters: barrier.cluster (cluster-scope release on
// arrive, acquire on wait, protocol.h) and distributed shared memory.
// Geometry: clusters of 2 blocks x 32 threads (warp id = block).

constexpr uint64_t Dsmem(uint32_t block, uint32_t offset) { return protocol::SharedAddress(block, offset); }

TraceBuilder& SharedWrite(TraceBuilder& t, uint32_t warp, uint32_t block, uint32_t site) {
  return t.Mem(Op::kWrite, warp, kAll, [block](unsigned l) { return Dsmem(block, 4 * l); }, site, 4, Space::kShared);
}
TraceBuilder& SharedRead(TraceBuilder& t, uint32_t warp, uint32_t block, uint32_t site) {
  return t.Mem(Op::kRead, warp, kAll, [block](unsigned l) { return Dsmem(block, 4 * (31 - l)); }, site, 4,
               Space::kShared);
}

// Block 0 stores into block 1's window, then `sync`, then block 1 reads its own window.
TraceBuilder DsmemTrace(bool cluster_shape, const std::function<void(TraceBuilder&)>& sync) {
  TraceBuilder t;
  t.Begin(4, 32);
  if (cluster_shape) t.ClusterShape(2);
  SharedWrite(t, 0, 1, 1);
  sync(t);
  SharedRead(t, 1, 1, 2);
  t.End();
  return t;
}

void ClusterSync(TraceBuilder& t) {
  t.ClusterArrive(0, kAll, 0, 0).ClusterArrive(1, kAll, 0, 0).ClusterWait(0, kAll, 0, 0).ClusterWait(1, kAll, 0, 0);
}

TEST_CASE("barrier.cluster orders distributed shared memory across the cluster", "[rules][sync][cluster]") {
  for (WarpModel m : {WarpModel::kLockstep, WarpModel::kIts}) {
    INFO("model " << static_cast<int>(m));
    SECTION("cluster.sync between the remote store and the read: no race") {
      RunResult r = Run(DsmemTrace(true, ClusterSync), m);
      CHECK(r.ok);
      CHECK(r.events.empty());
    }
    SECTION("only block barriers: one RAW per lane, shared, inter-block") {
      RunResult r = Run(DsmemTrace(true, [](TraceBuilder& t) { t.Bar(0, kAll).Bar(1, kAll); }), m);
      REQUIRE(r.events.size() == 32);
      for (const RaceEvent& e : r.events) {
        CHECK(e.kind == RaceKind::kReadAfterWrite);
        CHECK(e.cls == RaceClass::kInterBlock);
        CHECK(e.space == Space::kShared);
        CHECK(protocol::SharedBlock(e.address) == 1);
        CHECK(e.earlier.block == 0);
        CHECK(e.later.block == 1);
      }
      CHECK(r.entries.size() == 1);
    }
    SECTION("without a cluster shape, cluster scope is block scope: the same trace races") {
      CHECK(Run(DsmemTrace(false, ClusterSync), m).events.size() == 32);
    }
    SECTION("a cluster barrier of another cluster orders nothing") {
      // Blocks 2 and 3 (cluster 1) sync on their own address; block 1 waits on it.
      RunResult r = Run(DsmemTrace(true,
                                   [](TraceBuilder& t) {
                                     t.ClusterArrive(0, kAll, 0, 0).ClusterArrive(2, kAll, 2, 0);
                                     t.ClusterArrive(3, kAll, 2, 0).ClusterWait(1, kAll, 2, 0);
                                   }),
                        m);
      CHECK(r.events.size() == 32);
    }
  }
}

TEST_CASE("barrier.cluster: arrive and wait are split", "[rules][sync][cluster]") {
  SECTION("a store between the writer's arrive and its wait is not ordered before the reader's wait") {
    TraceBuilder t;
    t.Begin(2, 32).ClusterShape(2);
    t.ClusterArrive(0, kAll, 0, 0);
    SharedWrite(t, 0, 1, 1);
    t.ClusterArrive(1, kAll, 0, 0).ClusterWait(1, kAll, 0, 0);
    SharedRead(t, 1, 1, 2);
    t.ClusterWait(0, kAll, 0, 0).End();
    CHECK(Run(t).events.size() == 32);
  }
  SECTION("a store before the arrive is ordered") {
    TraceBuilder t;
    t.Begin(2, 32).ClusterShape(2);
    SharedWrite(t, 0, 1, 1);
    t.ClusterArrive(0, kAll, 0, 0).ClusterArrive(1, kAll, 0, 0).ClusterWait(1, kAll, 0, 0);
    SharedRead(t, 1, 1, 2);
    t.ClusterWait(0, kAll, 0, 0).End();
    CHECK(Run(t).events.empty());
  }
  SECTION("a fast thread's next-phase arrival is not acquired by a slow thread's wait") {
    // Block 0 passes phase 0, writes, and arrives for phase 1 before block 1's
    // phase-0 wait is stamped: the two phases use different addresses.
    TraceBuilder t;
    t.Begin(2, 32).ClusterShape(2);
    t.ClusterArrive(0, kAll, 0, 0).ClusterArrive(1, kAll, 0, 0).ClusterWait(0, kAll, 0, 0);
    SharedWrite(t, 0, 1, 1);
    t.ClusterArrive(0, kAll, 0, 1).ClusterWait(1, kAll, 0, 0);
    SharedRead(t, 1, 1, 2);
    t.ClusterArrive(1, kAll, 0, 1).ClusterWait(0, kAll, 0, 1).ClusterWait(1, kAll, 0, 1).End();
    CHECK(Run(t).events.size() == 32);
  }
  SECTION("two-dimensional clusters: the blocks of a 1x2 cluster synchronise, others do not") {
    // A 2 x 2 grid with 1 x 2 clusters: blocks 0 = (0,0) and 2 = (0,1) form a cluster.
    TraceBuilder u;
    u.Begin(4, 32).GridShape(2, 2).ClusterShape(1, 2);
    SharedWrite(u, 0, 2, 1);
    u.ClusterArrive(0, kAll, 0, 0).ClusterArrive(2, kAll, 0, 0).ClusterWait(0, kAll, 0, 0).ClusterWait(2, kAll, 0, 0);
    SharedRead(u, 2, 2, 2);
    u.End();
    CHECK(Run(u).events.empty());
    // Blocks 0 and 1 = (1,0) are in different clusters.
    TraceBuilder v;
    v.Begin(4, 32).GridShape(2, 2).ClusterShape(1, 2);
    SharedWrite(v, 0, 1, 1);
    v.ClusterArrive(0, kAll, 0, 0).ClusterArrive(1, kAll, 1, 0).ClusterWait(0, kAll, 0, 0).ClusterWait(1, kAll, 1, 0);
    SharedRead(v, 1, 1, 2);
    v.End();
    CHECK(Run(v).events.size() == 32);
  }
  SECTION("a cluster shape that does not divide the grid is malformed") {
    TraceBuilder t;
    t.Begin(3, 32).ClusterShape(2).End();
    CHECK_FALSE(Run(t).ok);
  }
}

TEST_CASE("a remote shared access must happen before its owner block exits", "[rules][sync][cluster]") {
  // Block 0 (warp 0) reads block 1's window; block 1 (warp 1) exits.
  auto lifetime = [](const RunResult& r) {
    size_t n = 0;
    for (const RaceEvent& e : r.events) n += e.kind == RaceKind::kSharedLifetime;
    return n;
  };
  for (WarpModel m : {WarpModel::kLockstep, WarpModel::kIts}) {
    INFO("model " << static_cast<int>(m));
    SECTION("no cluster.sync before the owner's exit: one lifetime race per reading thread") {
      TraceBuilder t;
      t.Begin(2, 32).ClusterShape(2);
      SharedRead(t, 0, 1, 7);
      t.Exit(1, kAll).Exit(0, kAll).End();
      const RunResult r = Run(t, m);
      REQUIRE(r.events.size() == 32);
      CHECK(lifetime(r) == 32);
      const RaceEvent& e = r.events.front();
      CHECK(e.cls == RaceClass::kInterBlock);
      CHECK(e.space == Space::kShared);
      CHECK(protocol::SharedBlock(e.address) == 1);
      CHECK(e.earlier.block == 0);
      CHECK(e.earlier.site == 7);
      CHECK(e.earlier.op == Op::kRead);
      CHECK(e.later.block == 1);
      CHECK(e.later.op == Op::kExit);
      CHECK(r.entries.size() == 1);
    }
    SECTION("the access analysed after the owner exited: the same races") {
      TraceBuilder t;
      t.Begin(2, 32).ClusterShape(2);
      t.Exit(1, kAll);
      SharedRead(t, 0, 1, 7);
      t.Exit(0, kAll).End();
      CHECK(lifetime(Run(t, m)) == 32);
    }
    SECTION("cluster.sync between the access and the owner's exit: none") {
      TraceBuilder t;
      t.Begin(2, 32).ClusterShape(2);
      SharedRead(t, 0, 1, 7);
      ClusterSync(t);
      t.Exit(1, kAll).Exit(0, kAll).End();
      CHECK(Run(t, m).events.empty());
    }
    SECTION("the owner's exit is its last thread's: a warp still running keeps the window alive") {
      TraceBuilder t;
      t.Begin(2, 64).ClusterShape(2);  // warps 0, 1 = block 0; 2, 3 = block 1
      t.Mem(Op::kRead, 0, kAll, [](unsigned l) { return Dsmem(1, 4 * l); }, 7, 4, Space::kShared);
      t.Exit(2, kAll);
      // Block 1's warp 3 acquires the read through cluster.sync, then exits.
      t.ClusterArrive(0, kAll, 0, 0).ClusterArrive(1, kAll, 0, 0).ClusterArrive(3, kAll, 0, 0);
      t.ClusterWait(3, kAll, 0, 0).Exit(3, kAll).ClusterWait(0, kAll, 0, 0).ClusterWait(1, kAll, 0, 0);
      t.Exit(0, kAll).Exit(1, kAll).End();
      CHECK(Run(t, m).events.empty());
    }
    SECTION("a block's accesses to its own window are not remote") {
      TraceBuilder t;
      t.Begin(2, 32).ClusterShape(2);
      SharedRead(t, 1, 1, 7);
      t.Exit(1, kAll).Exit(0, kAll).End();
      CHECK(Run(t, m).events.empty());
    }
  }
  SECTION("the same report whichever worker runs first") {
    TraceBuilder t;
    t.Begin(2, 32).ClusterShape(2);
    SharedRead(t, 0, 1, 7);
    SharedRead(t, 0, 1, 8);
    t.Exit(1, kAll).Exit(0, kAll).End();
    const auto& recs = t.records();
    // One record at a time from the last runnable ring (the owner's) or the first (the reader's).
    class EndFirst final : public RingSchedule {
     public:
      explicit EndFirst(bool last) : last_(last) {}
      size_t PickRing(std::span<const uint32_t> runnable) override { return last_ ? runnable.back() : runnable.front(); }
      size_t Burst() override { return 1; }

     private:
      bool last_;
    };
    for (int mode = 0; mode < 3; ++mode) {
      INFO("mode " << mode);
      std::vector<Record> ring[2];
      for (size_t i = 1; i + 1 < recs.size(); ++i) ring[recs[i].header.warp_id].push_back(recs[i]);
      RingInput inputs[2] = {RingInput{ring[0], {}}, RingInput{ring[1], {}}};
      Detector d;
      std::vector<std::pair<uint64_t, uint32_t>> seen;
      d.SetRaceListener([&](const RaceEvent& e) {
        CHECK(e.kind == RaceKind::kSharedLifetime);
        seen.push_back({e.earlier.tid, e.earlier.site});
      });
      EndFirst owner_first(true), reader_first(false);
      ParallelOptions p;
      p.schedule = mode == 0 ? static_cast<RingSchedule*>(&owner_first)
                 : mode == 1 ? static_cast<RingSchedule*>(&reader_first)
                             : nullptr;
      p.workers = 2;
      REQUIRE(AnalyzeLaunchParallel(d, recs.front(), inputs, p).ok());
      std::sort(seen.begin(), seen.end());
      REQUIRE(seen.size() == 64);
      for (size_t i = 0; i < 64; ++i) CHECK(seen[i] == std::pair<uint64_t, uint32_t>{i / 2, 7 + i % 2});
    }
  }
}

TEST_CASE("distributed shared memory under parallel ring analysis", "[rules][sync][cluster][parallel]") {
  // One ring per block, drained adversarially (the reader's ring first) or
  // by real TBB workers: the neighbour's window is touched from the writer's ring.
  class ReaderFirst final : public RingSchedule {
   public:
    size_t PickRing(std::span<const uint32_t> runnable) override { return runnable.back(); }
    size_t Burst() override { return 1; }
  };
  for (bool synced : {true, false}) {
    INFO((synced ? "cluster.sync" : "block barriers only"));
    const TraceBuilder t =
        DsmemTrace(true, synced ? std::function<void(TraceBuilder&)>(ClusterSync)
                                : [](TraceBuilder& b) { b.Bar(0, kAll).Bar(1, kAll); });
    const auto& recs = t.records();
    for (int mode = 0; mode < 2; ++mode) {
      std::vector<Record> ring[2];
      for (size_t i = 1; i + 1 < recs.size(); ++i) ring[recs[i].header.warp_id].push_back(recs[i]);
      RingInput inputs[2] = {RingInput{ring[0], {}}, RingInput{ring[1], {}}};
      Detector d;
      size_t events = 0;
      d.SetRaceListener([&](const RaceEvent&) { ++events; });
      ReaderFirst schedule;
      ParallelOptions p;
      p.schedule = mode == 0 ? &schedule : nullptr;
      p.workers = 2;
      REQUIRE(AnalyzeLaunchParallel(d, recs.front(), inputs, p).ok());
      CHECK(d.status().ok());
      // Unsynced, the read may be analysed before the write (then the write is
      // the later access of a WAR race): a race either way.
      if (synced) {
        CHECK(events == 0);
      } else {
        CHECK(events == 32);
      }
    }
  }
}

}  // namespace
}  // namespace barracuda::detector::testing
