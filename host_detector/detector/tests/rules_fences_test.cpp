// The PTX memory model's release and acquire patterns, handled at run time
// (SEMANTICS.md "Synchronizes-with"), and its race definition for strong
// accesses ("morally strong"): message passing through volatile/relaxed flags
// with and without fences, fence scopes, spin loops, long chains of blocks,
// release sequences, weak stores after fences, scope and mixed-size races.
// Geometry unless said otherwise: 2 blocks x 64 threads (warps 0,1 | 2,3).
#include <catch2/catch.hpp>

#include "host_detector/detector/tests/trace_builder.h"

namespace barracuda::detector::testing {
namespace {

constexpr uint64_t kData = 0x2000;
constexpr uint64_t kFlag = 0x8000;

// Thread 0 of block 0 writes data, (fence), sets a volatile flag; thread 0 of
// block 1 polls the flag (three strong loads), (fence), reads data.
TraceBuilder MessagePassing(bool producer_fence, bool consumer_fence, Scope producer_scope = Scope::kGpu,
                            Scope consumer_scope = Scope::kGpu) {
  TraceBuilder t;
  t.Begin(2, 64).Write(0, 0x1u, Same(kData), 1);
  if (producer_fence) t.FenceOp(producer_scope, 0, 0x1u);
  t.StrongStore(Scope::kSys, 0, 0x1u, kFlag, 2);
  for (int i = 0; i < 3; ++i) t.StrongLoad(Scope::kSys, 2, 0x1u, kFlag, 3);
  if (consumer_fence) t.FenceOp(consumer_scope, 2, 0x1u);
  t.Read(2, 0x1u, Same(kData), 4).End();
  return t;
}

TEST_CASE("message passing: fence + strong store, strong load + fence synchronise", "[rules][fence]") {
  for (WarpModel m : {WarpModel::kIts, WarpModel::kLockstep}) {
    CHECK(Run(MessagePassing(true, true), m).events.empty());
  }
}

TEST_CASE("message passing without a fence on either side races on the data, never on the flag",
          "[rules][fence]") {
  for (auto [p, c] : {std::pair{false, false}, std::pair{true, false}, std::pair{false, true}}) {
    RunResult r = Run(MessagePassing(p, c));
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].kind == RaceKind::kReadAfterWrite);
    CHECK(r.events[0].earlier.site == 1);
    CHECK(r.events[0].later.site == 4);
  }
}

TEST_CASE("a race whose release the reader observed but never acquired says the acquire is missing",
          "[rules][fence]") {
  // Producer fence, no consumer fence: only the acquire is missing.
  RunResult missing_acquire = Run(MessagePassing(true, false));
  REQUIRE(missing_acquire.events.size() == 1);
  CHECK(missing_acquire.events[0].unacquired_release);
  // No producer fence: the flag's store released nothing; a fence after the
  // load would not help, so no such hint.
  for (bool consumer_fence : {false, true}) {
    RunResult missing_release = Run(MessagePassing(false, consumer_fence));
    REQUIRE(missing_release.events.size() == 1);
    CHECK_FALSE(missing_release.events[0].unacquired_release);
  }
  // A consumer fence of too narrow a scope: the observation stays unacquired
  // at gpu scope.
  RunResult narrow = Run(MessagePassing(true, true, Scope::kGpu, Scope::kCta));
  REQUIRE(narrow.events.size() == 1);
  CHECK(narrow.events[0].unacquired_release);
  // Another thread of the reading block observed the release (the last-block
  // pattern: thread 0 takes the ticket, a barrier, every thread reads).
  TraceBuilder last_block;
  last_block.Begin(2, 64).Write(0, 0x1u, Same(kData), 1).FenceOp(Scope::kGpu, 0, 0x1u);
  last_block.StrongStore(Scope::kGpu, 0, 0x1u, kFlag, 2).StrongLoad(Scope::kGpu, 2, 0x1u, kFlag, 3);
  last_block.Bar(2, ~0u).Bar(3, ~0u).Read(3, 0x1u, Same(kData), 4).End();
  RunResult last = Run(last_block);
  REQUIRE(last.events.size() == 1);
  CHECK(last.events[0].later.site == 4);
  CHECK(last.events[0].unacquired_release);
}

TEST_CASE("fence scopes: both must include the other thread", "[rules][fence]") {
  CHECK(Run(MessagePassing(true, true, Scope::kCta, Scope::kGpu)).events.size() == 1);
  CHECK(Run(MessagePassing(true, true, Scope::kGpu, Scope::kCta)).events.size() == 1);
  CHECK(Run(MessagePassing(true, true, Scope::kSys, Scope::kSys)).events.empty());
  // Within one block a cta fence on both sides suffices.
  TraceBuilder t;
  t.Begin(1, 64).Write(0, 0x1u, Same(kData), 1).FenceOp(Scope::kCta, 0, 0x1u).StrongStore(Scope::kCta, 0, 0x1u, kFlag);
  t.StrongLoad(Scope::kCta, 1, 0x1u, kFlag).FenceOp(Scope::kCta, 1, 0x1u).Read(1, 0x1u, Same(kData), 4).End();
  CHECK(Run(t).events.empty());
}

TEST_CASE("one-sided fences: a release fence does not acquire and an acquire fence does not release",
          "[rules][fence]") {
  TraceBuilder ok;
  ok.Begin(2, 64).Write(0, 0x1u, Same(kData), 1).FenceOp(Scope::kGpu, 0, 0x1u, protocol::kFlagStore);
  ok.StrongStore(Scope::kGpu, 0, 0x1u, kFlag).StrongLoad(Scope::kGpu, 2, 0x1u, kFlag);
  ok.FenceOp(Scope::kGpu, 2, 0x1u, protocol::kFlagLoad).Read(2, 0x1u, Same(kData), 4).End();
  CHECK(Run(ok).events.empty());
  TraceBuilder swapped;
  swapped.Begin(2, 64).Write(0, 0x1u, Same(kData), 1).FenceOp(Scope::kGpu, 0, 0x1u, protocol::kFlagLoad);
  swapped.StrongStore(Scope::kGpu, 0, 0x1u, kFlag).StrongLoad(Scope::kGpu, 2, 0x1u, kFlag);
  swapped.FenceOp(Scope::kGpu, 2, 0x1u, protocol::kFlagStore).Read(2, 0x1u, Same(kData), 4).End();
  CHECK(Run(swapped).events.size() == 1);
}

TEST_CASE("what a thread does between its release fence and the strong store is not released", "[rules][fence]") {
  TraceBuilder t;
  t.Begin(2, 64).FenceOp(Scope::kGpu, 0, 0x1u).Write(0, 0x1u, Same(kData), 1);
  t.StrongStore(Scope::kGpu, 0, 0x1u, kFlag).StrongLoad(Scope::kGpu, 2, 0x1u, kFlag);
  t.FenceOp(Scope::kGpu, 2, 0x1u).Read(2, 0x1u, Same(kData), 4).End();
  CHECK(Run(t).events.size() == 1);
}

TEST_CASE("a fence followed by a WEAK store is no release: the store is data and races", "[rules][fence]") {
  // Two blocks each fence and then write data[0] with a plain store: a WAW.
  TraceBuilder t;
  t.Begin(2, 64).FenceOp(Scope::kGpu, 0, 0x1u).Write(0, 0x1u, Same(kData), 1);
  t.FenceOp(Scope::kGpu, 2, 0x1u).Write(2, 0x1u, Same(kData), 2).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].kind == RaceKind::kWriteAfterWrite);
  // And a weak flag store after the fence publishes nothing: the data read races too.
  TraceBuilder u;
  u.Begin(2, 64).Write(0, 0x1u, Same(kData), 1).FenceOp(Scope::kGpu, 0, 0x1u).Write(0, 0x1u, Same(kFlag), 2);
  u.StrongLoad(Scope::kGpu, 2, 0x1u, kFlag, 3).FenceOp(Scope::kGpu, 2, 0x1u).Read(2, 0x1u, Same(kData), 4).End();
  RunResult ru = Run(u);
  REQUIRE(ru.events.size() == 2);
  CHECK(ru.events[0].kind == RaceKind::kAtomicVsPlain);  // the flag: weak store vs strong load
  CHECK(ru.events[1].kind == RaceKind::kReadAfterWrite);
}

TEST_CASE("strong accesses: morally strong ones never race, others do", "[rules][fence]") {
  SECTION("gpu-scope atomics of two blocks") {
    TraceBuilder t;
    t.Begin(2, 64).StrongRmw(Scope::kGpu, 0, 0x1u, kFlag).StrongRmw(Scope::kGpu, 2, 0x1u, kFlag);
    t.StrongLoad(Scope::kSys, 3, 0x1u, kFlag).StrongStore(Scope::kSys, 1, 0x1u, kFlag).End();
    CHECK(Run(t).events.empty());
  }
  SECTION("block-scope atomics used by two blocks: a scope race") {
    TraceBuilder t;
    t.Begin(2, 64).StrongRmw(Scope::kCta, 0, 0x1u, kFlag, 1).StrongRmw(Scope::kCta, 2, 0x1u, kFlag, 2).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].kind == RaceKind::kNotMorallyStrong);
    CHECK(r.events[0].cls == RaceClass::kInterBlock);
  }
  SECTION("block-scope atomics within one block are fine") {
    TraceBuilder t;
    t.Begin(2, 64).StrongRmw(Scope::kCta, 0, 0x1u, kFlag).StrongRmw(Scope::kCta, 1, 0x1u, kFlag).End();
    CHECK(Run(t).events.empty());
  }
  SECTION("a block-scope load of a gpu-scope store in another block") {
    TraceBuilder t;
    t.Begin(2, 64).StrongStore(Scope::kGpu, 0, 0x1u, kFlag).StrongLoad(Scope::kCta, 2, 0x1u, kFlag).End();
    CHECK(Run(t).events.size() == 1);
  }
  SECTION("mixed sizes are not morally strong") {
    TraceBuilder t;
    t.Begin(2, 64).StrongRmw(Scope::kGpu, 0, 0x1u, kFlag, 1, 8).StrongRmw(Scope::kGpu, 2, 0x1u, kFlag, 2, 4).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].kind == RaceKind::kNotMorallyStrong);
  }
  SECTION("a strong load against a weak write races (atomic vs plain)") {
    TraceBuilder t;
    t.Begin(2, 64).Write(0, 0x1u, Same(kFlag), 1).StrongLoad(Scope::kSys, 2, 0x1u, kFlag, 2).End();
    RunResult r = Run(t);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].kind == RaceKind::kAtomicVsPlain);
  }
}

TEST_CASE("spin loop: many strong loads, the fence after the loop exit acquires", "[rules][fence]") {
  TraceBuilder t;
  t.Begin(2, 64);
  for (int i = 0; i < 5; ++i) t.StrongLoad(Scope::kGpu, 2, 0x1u, kFlag);  // before the release: nothing
  t.Write(0, 0x1u, Same(kData), 1).FenceOp(Scope::kGpu, 0, 0x1u).StrongStore(Scope::kGpu, 0, 0x1u, kFlag);
  t.StrongLoad(Scope::kGpu, 2, 0x1u, kFlag);
  // A warp vote in between changes nothing (CUB's WaitForValid).
  t.WarpSync(2, 0xffffffffu).FenceOp(Scope::kGpu, 2, 0x1u).Read(2, 0x1u, Same(kData), 4).End();
  CHECK(Run(t).events.empty());
}

TEST_CASE("a fence acquires only what strong loads observed before it", "[rules][fence]") {
  TraceBuilder t;
  t.Begin(2, 64).Write(0, 0x1u, Same(kData), 1).FenceOp(Scope::kGpu, 0, 0x1u).StrongStore(Scope::kGpu, 0, 0x1u, kFlag);
  t.FenceOp(Scope::kGpu, 2, 0x1u).StrongLoad(Scope::kGpu, 2, 0x1u, kFlag).Read(2, 0x1u, Same(kData), 4).End();
  CHECK(Run(t).events.size() == 1);
}

TEST_CASE("decoupled look-back chain through 64 blocks orders block 0's data before block 63", "[rules][fence]") {
  constexpr uint32_t kBlocks = 64;
  for (WarpModel m : {WarpModel::kIts, WarpModel::kLockstep}) {
    TraceBuilder t;
    t.Begin(kBlocks, 32).Write(0, 0x1u, Same(kData), 1).FenceOp(Scope::kGpu, 0, 0x1u);
    t.StrongStore(Scope::kGpu, 0, 0x1u, kFlag);
    for (uint32_t b = 1; b < kBlocks; ++b) {
      // Block b waits for b-1's status word, fences, publishes its own.
      t.StrongLoad(Scope::kGpu, b, 0x1u, kFlag + 8 * (b - 1)).FenceOp(Scope::kGpu, b, 0x1u);
      t.StrongStore(Scope::kGpu, b, 0x1u, kFlag + 8 * b);
    }
    t.Read(kBlocks - 1, 0x1u, Same(kData), 4).End();
    CHECK(Run(t, m).events.empty());
  }
  // Break one link (block 30 does not fence): block 63 is no longer ordered.
  TraceBuilder t;
  t.Begin(kBlocks, 32).Write(0, 0x1u, Same(kData), 1).FenceOp(Scope::kGpu, 0, 0x1u);
  t.StrongStore(Scope::kGpu, 0, 0x1u, kFlag);
  for (uint32_t b = 1; b < kBlocks; ++b) {
    t.StrongLoad(Scope::kGpu, b, 0x1u, kFlag + 8 * (b - 1));
    if (b != 30) t.FenceOp(Scope::kGpu, b, 0x1u);
    t.StrongStore(Scope::kGpu, b, 0x1u, kFlag + 8 * b);
  }
  t.Read(kBlocks - 1, 0x1u, Same(kData), 4).End();
  CHECK(Run(t).events.size() == 1);
}

TEST_CASE("release sequences: a relaxed RMW continues it, a strong store ends it", "[rules][fence]") {
  for (bool rmw : {true, false}) {
    TraceBuilder t;
    t.Begin(3, 32).Write(0, 0x1u, Same(kData), 1).FenceOp(Scope::kGpu, 0, 0x1u).StrongStore(Scope::kGpu, 0, 0x1u, kFlag);
    if (rmw) {
      t.StrongRmw(Scope::kGpu, 1, 0x1u, kFlag);  // atomicAdd without a fence
    } else {
      t.StrongStore(Scope::kGpu, 1, 0x1u, kFlag);
    }
    t.StrongLoad(Scope::kGpu, 2, 0x1u, kFlag).FenceOp(Scope::kGpu, 2, 0x1u).Read(2, 0x1u, Same(kData), 4).End();
    CHECK(Run(t).events.size() == (rmw ? 0u : 1u));
  }
}

// Observation order links a write to an RMW that read it only when the two
// are morally strong: a cta-scope RMW by another block (atomicAdd_block)
// ends block 0's release sequence; one by block 0's own block continues it
// only for block 0's threads, so block 2, reading the RMW's value, still
// races on the data (found without the flag race: a suppressed flag race must
// not hide it).
TEST_CASE("release sequences: an RMW whose scope excludes the releaser ends it", "[rules][fence]") {
  for (int rmw_block : {1, 0}) {
    TraceBuilder t;
    t.Begin(3, 32).Write(0, 0x1u, Same(kData), 1).FenceOp(Scope::kGpu, 0, 0x1u).StrongStore(Scope::kGpu, 0, 0x1u, kFlag);
    t.StrongRmw(Scope::kCta, static_cast<unsigned>(rmw_block), rmw_block == 0 ? 0x2u : 0x1u, kFlag);
    t.StrongLoad(Scope::kGpu, 2, 0x1u, kFlag).FenceOp(Scope::kGpu, 2, 0x1u).Read(2, 0x1u, Same(kData), 4).End();
    const RunResult r = Run(t);
    size_t data_races = 0;
    for (const auto& e : r.events) data_races += e.later.site == 4 ? 1 : 0;
    INFO("RMW by block " << rmw_block);
    CHECK(data_races == 1u);
  }
}

TEST_CASE("a lock taken with atomicCAS + fence and released with fence + atomicExch", "[rules][fence]") {
  // Blocks 0..3 in turn: CAS (strong RMW), fence, critical section, fence, exch.
  TraceBuilder t;
  t.Begin(4, 32);
  for (uint32_t b : {0u, 2u, 1u, 3u}) {
    t.StrongRmw(Scope::kGpu, b, 0x1u, kFlag).FenceOp(Scope::kGpu, b, 0x1u);
    t.Read(b, 0x1u, Same(kData), 10).Write(b, 0x1u, Same(kData), 11);
    t.FenceOp(Scope::kGpu, b, 0x1u).StrongRmw(Scope::kGpu, b, 0x1u, kFlag);
  }
  t.End();
  CHECK(Run(t).events.empty());
  // Released with a plain store: the store races with the next CAS and the
  // critical sections are no longer ordered.
  TraceBuilder u;
  u.Begin(2, 32).StrongRmw(Scope::kGpu, 0, 0x1u, kFlag).FenceOp(Scope::kGpu, 0, 0x1u);
  u.Write(0, 0x1u, Same(kData), 11).FenceOp(Scope::kGpu, 0, 0x1u).Write(0, 0x1u, Same(kFlag), 12);
  u.StrongRmw(Scope::kGpu, 1, 0x1u, kFlag, 13).FenceOp(Scope::kGpu, 1, 0x1u).Write(1, 0x1u, Same(kData), 14).End();
  RunResult r = Run(u);
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].kind == RaceKind::kAtomicVsPlain);
  CHECK(r.events[1].kind == RaceKind::kWriteAfterWrite);
}

TEST_CASE("ordered only by a relaxed publication chain: a WAR is a dependency-ordered warning", "[rules][fence]") {
  // Decoupled look-back with relaxed tile status (CUB for int): block 0 loads its
  // tile, publishes its status with a relaxed store, no fence; block 1 polls it with
  // relaxed loads, no fence, and writes into block 0's tile. Not ordered by the PTX
  // model; a data and an address dependency carry it: a warning kind, not a race.
  TraceBuilder t;
  t.Begin(2, 64).Read(0, 0x1u, Same(kData), 1).StrongStore(Scope::kGpu, 0, 0x1u, kFlag);
  t.StrongLoad(Scope::kGpu, 2, 0x1u, kFlag).Write(3, 0x1u, Same(kData), 4).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].kind == RaceKind::kDependencyOrdered);
  CHECK(IsWarningKind(r.events[0].kind));
  // The same chain does not excuse a write published without a fence (message
  // passing: stores may become visible out of order): RAW stays a race.
  TraceBuilder u;
  u.Begin(2, 64).Write(0, 0x1u, Same(kData), 1).StrongStore(Scope::kGpu, 0, 0x1u, kFlag);
  u.StrongLoad(Scope::kGpu, 2, 0x1u, kFlag).Read(2, 0x1u, Same(kData), 4).End();
  RunResult ru = Run(u);
  REQUIRE(ru.events.size() == 1);
  CHECK(ru.events[0].kind == RaceKind::kReadAfterWrite);
  // A read AFTER the publishing store is not covered by it: nothing orders it
  // before the other block's write (a probe's labelled race was a warning).
  TraceBuilder w;
  w.Begin(2, 64).StrongStore(Scope::kGpu, 0, 0x1u, kFlag).Read(0, 0x1u, Same(kData), 1);
  w.StrongLoad(Scope::kGpu, 2, 0x1u, kFlag).Write(3, 0x1u, Same(kData), 4).End();
  RunResult rw = Run(w);
  REQUIRE(rw.events.size() == 1);
  CHECK(rw.events[0].kind == RaceKind::kWriteAfterRead);
  // Without the chain the WAR is an ordinary race.
  TraceBuilder v;
  v.Begin(2, 64).Read(0, 0x1u, Same(kData), 1).Write(3, 0x1u, Same(kData), 4).End();
  RunResult rv = Run(v);
  REQUIRE(rv.events.size() == 1);
  CHECK(rv.events[0].kind == RaceKind::kWriteAfterRead);
}

}  // namespace
}  // namespace barracuda::detector::testing
