// Hand-written checks of the reference detector, one rule at a time
// (paper Figures 2-3 and host_detector/detector/SEMANTICS.md).
#include <catch2/catch.hpp>

#include "host_detector/reference/reference_detector.h"
#include "host_detector/reference/tests/trace_builder.h"

namespace barracuda::reference {
namespace {

using protocol::Op;
using protocol::Record;
using protocol::Scope;
using protocol::Space;
using testing::Lanes;
using testing::TraceBuilder;

constexpr uint64_t X = 0x1000, Y = 0x2000, F = 0x8000;

ReferenceDetector Run(const TraceBuilder& t, WarpModel model) {
  ReferenceDetector d(Options{model});
  const absl::Status s = d.ProcessAll(t.records());
  INFO(s.ToString());
  REQUIRE(s.ok());
  return d;
}

// The first racy access on byte `address` (global, launch 0), if any.
std::optional<AccessRef> FirstRace(const ReferenceDetector& d, uint64_t address, uint64_t launch = 0) {
  auto it = d.first_racy().find(ByteLocation{launch, protocol::Space::kGlobal, address});
  if (it == d.first_racy().end()) return std::nullopt;
  return it->second;
}

const WarpModel kBoth[] = {WarpModel::kLockstep, WarpModel::kIts};

TEST_CASE("initial clocks are inc_t(bottom)", "[reference]") {
  TraceBuilder t;
  t.Begin(2, 48);
  ReferenceDetector d = Run(t, WarpModel::kIts);
  REQUIRE(d.ThreadCount() == 96);
  for (uint32_t u = 0; u < 96; ++u) {
    for (uint32_t v = 0; v < 96; ++v) REQUIRE(d.ClockOf(u).Get(v) == (u == v ? 1u : 0u));
  }
  // The last warp of each block is partial: 16 live lanes.
  REQUIRE(d.LiveMask(1) == 0xffffu);
  REQUIRE(d.LiveMask(0) == ~0u);
}

TEST_CASE("intra-warp write-write in one record races unless same-value", "[reference]") {
  for (WarpModel m : kBoth) {
    TraceBuilder t;
    t.Begin(1, 32).Access(Op::kWrite, 0, {{3, X}, {5, X}});
    ReferenceDetector d = Run(t, m);
    REQUIRE(FirstRace(d, X) == AccessRef{1, 5});  // detected at the later lane
    REQUIRE(d.racy_accesses().size() == 4);       // 4 bytes
    REQUIRE(d.racy_accesses()[0].earlier == AccessRef{1, 3});

    TraceBuilder same;
    same.Begin(1, 32).Access(Op::kWrite, 0, {{3, X}, {5, X}}, 4, Space::kGlobal, protocol::kFlagSameValue);
    REQUIRE_FALSE(Run(same, m).has_race());
  }
}

TEST_CASE("same-value filter applies within one record only", "[reference]") {
  TraceBuilder t;
  t.Begin(1, 64)
      .Access(Op::kWrite, 0, {{0, X}}, 4, Space::kGlobal, protocol::kFlagSameValue)
      .Access(Op::kWrite, 1, {{0, X}}, 4, Space::kGlobal, protocol::kFlagSameValue);
  REQUIRE(FirstRace(Run(t, WarpModel::kLockstep), X) == AccessRef{2, 0});
}

TEST_CASE("reads never race with reads and overlapping bytes are per byte", "[reference]") {
  for (WarpModel m : kBoth) {
    TraceBuilder t;
    t.Begin(1, 64).Rd(0, 0, X).Rd(1, 0, X).Rd(1, 1, X, 8);
    REQUIRE_FALSE(Run(t, m).has_race());
    // An 8-byte write over X..X+7 against a 2-byte read at X+6: bytes 6,7 only.
    TraceBuilder u;
    u.Begin(1, 64).Rd(0, 0, X + 6, 2).Wr(1, 0, X, 8);
    ReferenceDetector d = Run(u, m);
    REQUIRE(d.first_racy().size() == 2);
    REQUIRE(FirstRace(d, X + 6) == AccessRef{2, 0});
    REQUIRE(FirstRace(d, X + 7) == AccessRef{2, 0});
  }
}

TEST_CASE("lockstep orders consecutive records of a warp (ENDINSN) and its does not", "[reference]") {
  TraceBuilder t;
  t.Begin(1, 32).Access(Op::kWrite, 0, {{0, X}, {1, Y}}).Rd(0, 1, X);
  REQUIRE_FALSE(Run(t, WarpModel::kLockstep).has_race());
  REQUIRE(FirstRace(Run(t, WarpModel::kIts), X) == AccessRef{2, 1});
  // Program order of one thread holds in both models.
  TraceBuilder p;
  p.Begin(1, 32).Wr(0, 1, X).Rd(0, 1, X).Wr(0, 1, X);
  REQUIRE_FALSE(Run(p, WarpModel::kIts).has_race());
}

TEST_CASE("ENDINSN covers only the active lanes", "[reference]") {
  // Lane 2 is not in the writing record, so it is not ordered after lane 0's write.
  TraceBuilder t;
  t.Begin(1, 32).Access(Op::kWrite, 0, {{0, X}, {1, Y}}).Rd(0, 2, X);
  REQUIRE(FirstRace(Run(t, WarpModel::kLockstep), X) == AccessRef{2, 2});
}

TEST_CASE("warp-sync orders its members in both models", "[reference]") {
  for (WarpModel m : kBoth) {
    TraceBuilder t;
    t.Begin(1, 32).Wr(0, 0, X).WarpSync(0, Lanes({0, 1})).Rd(0, 1, X).Rd(0, 2, Y).Wr(0, 3, Y);
    ReferenceDetector d = Run(t, m);
    REQUIRE_FALSE(FirstRace(d, X).has_value());
    // Lanes 2 and 3 are not members and no record joins them.
    REQUIRE(FirstRace(d, Y) == AccessRef{5, 3});
  }
}

TEST_CASE("paper Figure 1: a warp of two threads with a branch", "[reference]") {
  // rd x by both; if (t0 then, t1 else): t0 writes y, t1 reads y (a branch
  // ordering race in lockstep); fi; both read x, t1 writes x: ordered after fi.
  TraceBuilder t;
  t.Begin(1, 2)
      .All(Op::kRead, 0, 0b11, X)
      .If(0, 0b11, 0b01)
      .Wr(0, 0, Y)
      .Else(0, 0b10)
      .Rd(0, 1, Y)
      .Fi(0, 0b11)
      .Rd(0, 0, Y)
      .Wr(0, 1, Y + 4);
  ReferenceDetector lock = Run(t, WarpModel::kLockstep);
  REQUIRE(FirstRace(lock, Y) == AccessRef{5, 1});
  REQUIRE(lock.first_racy().size() == 4);
  REQUIRE(lock.StackDepth(0) == 1);
  ReferenceDetector its = Run(t, WarpModel::kIts);
  REQUIRE(FirstRace(its, Y) == AccessRef{5, 1});
}

TEST_CASE("lockstep: fi joins both sides and its: branches order nothing", "[reference]") {
  TraceBuilder t;
  t.Begin(1, 32).If(0, 0b11, 0b01).Wr(0, 0, X).Else(0, 0b10).Fi(0, 0b11).Rd(0, 1, X);
  REQUIRE_FALSE(Run(t, WarpModel::kLockstep).has_race());
  REQUIRE(FirstRace(Run(t, WarpModel::kIts), X) == AccessRef{5, 1});
  // Nested with an empty side: the inner then-lanes are joined at the inner fi.
  TraceBuilder n;
  n.Begin(1, 32)
      .If(0, 0b111, 0b011)
      .If(0, 0b011, 0b000)
      .Else(0, 0b011)
      .Wr(0, 0, X)
      .Fi(0, 0b011)
      .Rd(0, 1, X)
      .Else(0, 0b100)
      .Rd(0, 2, Y)
      .Fi(0, 0b111)
      .Rd(0, 2, X);
  REQUIRE_FALSE(Run(n, WarpModel::kLockstep).has_race());
}

TEST_CASE("lockstep: the else side is concurrent with the then side", "[reference]") {
  TraceBuilder t;
  t.Begin(1, 32).If(0, 0b11, 0b01).Wr(0, 0, X).Else(0, 0b10).Wr(0, 1, X).Fi(0, 0b11);
  REQUIRE(FirstRace(Run(t, WarpModel::kLockstep), X) == AccessRef{4, 1});
}

TEST_CASE("whole-block barrier orders the block and not other blocks", "[reference]") {
  for (WarpModel m : kBoth) {
    // Block 0: warps 0 and 1 (48 threads: warp 1 has 16 lanes). Block 1: warps 2, 3.
    TraceBuilder t;
    t.Begin(2, 48)
        .Wr(0, 0, X)
        .Wr(2, 0, Y)
        .Bar(0, ~0u)
        .Bar(1, 0xffff)
        .Bar(2, ~0u)
        .Bar(3, 0xffff)
        .Rd(1, 15, X)   // same block: ordered
        .Rd(0, 0, Y);   // block 1's write: not ordered
    ReferenceDetector d = Run(t, m);
    REQUIRE_FALSE(FirstRace(d, X).has_value());
    REQUIRE(FirstRace(d, Y) == AccessRef{8, 0});
    REQUIRE(d.barrier_divergences().empty());
  }
}

TEST_CASE("barrier waits for every live thread and exited threads do not count", "[reference]") {
  TraceBuilder t;
  t.Begin(1, 64).Wr(0, 0, X).Exit(1, 0xffff0000u).Bar(0, ~0u);
  // Warp 1 still has 16 live lanes: the barrier is not complete.
  t.Rd(1, 0, X);
  ReferenceDetector d = Run(t, WarpModel::kIts);
  REQUIRE(FirstRace(d, X) == AccessRef{4, 0});

  TraceBuilder u;
  u.Begin(1, 64).Wr(0, 0, X).Exit(1, 0xffff0000u).Bar(0, ~0u).Bar(1, 0xffff).Rd(1, 0, X);
  REQUIRE_FALSE(Run(u, WarpModel::kIts).has_race());

  // A warp exiting while the other waits completes the barrier.
  TraceBuilder v;
  v.Begin(1, 64).Wr(0, 0, X).Wr(0, 1, Y).Bar(0, ~0u).Exit(1, ~0u).Rd(0, 1, X).Rd(0, 0, Y);
  ReferenceDetector dv = Run(v, WarpModel::kIts);
  REQUIRE_FALSE(dv.has_race());
  REQUIRE(dv.dropped_barrier_generations() == 0);
}

TEST_CASE("barrier divergence is reported and the arrival still counts", "[reference]") {
  for (WarpModel m : kBoth) {
    TraceBuilder t;
    t.Begin(1, 32)
        .Wr(0, 0, X)
        .If(0, ~0u, 0x0000ffffu)
        .Bar(0, 0x0000ffffu)
        .Else(0, 0xffff0000u)
        .Bar(0, 0xffff0000u)
        .Fi(0, ~0u)
        .Rd(0, 31, X);
    ReferenceDetector d = Run(t, m);
    REQUIRE(d.barrier_divergences().size() == 2);
    REQUIRE(d.barrier_divergences()[0].record_index == 3);
    REQUIRE(d.barrier_divergences()[1].record_index == 5);
    REQUIRE_FALSE(d.has_race());  // the generation completed with both halves
  }
  // A named barrier with a count is never divergent.
  TraceBuilder n;
  n.Begin(1, 64).If(0, ~0u, 0xffu).Bar(0, 0xffu, 1, 8);
  REQUIRE(Run(n, WarpModel::kIts).barrier_divergences().empty());
}

TEST_CASE("named barrier: producer bar.arrive releases and consumer bar.sync acquires", "[reference]") {
  for (WarpModel m : kBoth) {
    TraceBuilder t;
    t.Begin(1, 96)
        .Wr(0, 0, X)           // producer data
        .Wr(1, 0, Y)           // consumer's own data
        .Arrive(0, ~0u, 1, 64)
        .Wr(0, 1, X + 8)       // producer writes after its arrival
        .Bar(1, ~0u, 1, 64)    // completes the generation
        .Rd(1, 5, X)           // ordered after the producer's earlier write
        .Rd(0, 2, Y)           // bar.arrive does not acquire: races
        .Rd(1, 6, X + 8)       // after the arrival: not released, races
        .Rd(2, 0, X);          // warp 2 took no part: races
    ReferenceDetector d = Run(t, m);
    REQUIRE(FirstRace(d, Y) == AccessRef{7, 2});
    REQUIRE(FirstRace(d, X + 8) == AccessRef{8, 6});
    REQUIRE(FirstRace(d, X) == AccessRef{9, 0});
  }
}

TEST_CASE("arrive semantics: literal join-at-completion misses the post-arrival write", "[reference]") {
  TraceBuilder t;
  t.Begin(1, 64).Arrive(0, ~0u, 1, 64).Wr(0, 1, X).Bar(1, ~0u, 1, 64).Rd(1, 0, X);
  REQUIRE(Run(t, WarpModel::kIts).has_race());
  ReferenceDetector literal(Options{WarpModel::kIts, ArriveSemantics::kJoinAtCompletion});
  REQUIRE(literal.ProcessAll(t.records()).ok());
  REQUIRE_FALSE(literal.has_race());
}

TEST_CASE("barrier generations reset and incomplete ones are dropped at kernel end", "[reference]") {
  TraceBuilder t;
  t.Begin(1, 64)
      .Bar(0, ~0u).Bar(1, ~0u)       // generation 1
      .Wr(0, 0, X)
      .Bar(0, ~0u).Bar(1, ~0u)       // generation 2
      .Rd(1, 0, X)
      .Bar(0, ~0u)                   // generation 3 never completes
      .End();
  ReferenceDetector d = Run(t, WarpModel::kIts);
  REQUIRE_FALSE(d.has_race());
  REQUIRE(d.dropped_barrier_generations() == 1);
}

TEST_CASE("atomics: never race with each other and race with plain accesses", "[reference]") {
  for (WarpModel m : kBoth) {
    TraceBuilder t;
    t.Begin(2, 32).Atm(0, 0, X).Atm(1, 0, X).Access(Op::kAtomic, 0, {{1, X}, {2, X}});
    REQUIRE_FALSE(Run(t, m).has_race());
    TraceBuilder u;
    u.Begin(2, 32).Atm(0, 0, X).Rd(1, 0, X);
    REQUIRE(FirstRace(Run(u, m), X) == AccessRef{2, 0});
    TraceBuilder v;
    v.Begin(2, 32).Rd(0, 0, X).Atm(1, 0, X);
    REQUIRE(FirstRace(Run(v, m), X) == AccessRef{2, 0});
  }
}

TEST_CASE("a plain access after two concurrent atomics is checked against both", "[reference]") {
  // Thread A (block 0) stores X with st.relaxed then releases; thread B (block
  // 1) atomics X first; C acquires A's release and reads: ordered after A's
  // store, not after B's atomic (A's store did not read it).
  TraceBuilder t;
  t.Begin(3, 32).Atm(1, 0, X).StrongSt(0, 0, X, Scope::kGpu).Rel(0, 0, F, Scope::kGpu).Acq(2, 0, F, Scope::kGpu).Rd(2, 0, X);
  REQUIRE(FirstRace(Run(t, WarpModel::kIts), X) == AccessRef{5, 0});
  // With a read-modify-write, A read B's value: B's atomic precedes A's in
  // observation order, so it is ordered before what A's atomic happens
  // before (PTX causality order, clause 2): C's read does not race.
  TraceBuilder o;
  o.Begin(3, 32).Atm(1, 0, X).Atm(0, 0, X).Rel(0, 0, F, Scope::kGpu).Acq(2, 0, F, Scope::kGpu).Rd(2, 0, X);
  REQUIRE_FALSE(Run(o, WarpModel::kIts).has_race());
  // A read before the first atomic is not ordered before a concurrent second atomic.
  TraceBuilder u;
  u.Begin(3, 32).Rd(2, 0, X).Rel(2, 0, F, Scope::kGpu).Acq(0, 0, F, Scope::kGpu).Atm(0, 0, X).Atm(1, 0, X);
  REQUIRE(FirstRace(Run(u, WarpModel::kIts), X) == AccessRef{5, 0});
}

TEST_CASE("scope: release and acquire synchronise only when each scope includes the other thread", "[reference]") {
  auto trace = [](Scope rel, Scope acq, uint32_t consumer_warp) {
    TraceBuilder t;
    t.Begin(2, 64).Wr(0, 0, X).Rel(0, 0, F, rel).Acq(consumer_warp, 0, F, acq).Rd(consumer_warp, 0, X);
    return t;
  };
  auto x_races = [](const ReferenceDetector& d) { return FirstRace(d, X).has_value(); };
  for (WarpModel m : kBoth) {
    // Warp 2 is in block 1; warp 1 in block 0.
    REQUIRE(x_races(Run(trace(Scope::kCta, Scope::kCta, 2), m)));
    REQUIRE(x_races(Run(trace(Scope::kCluster, Scope::kCluster, 2), m)));
    REQUIRE_FALSE(x_races(Run(trace(Scope::kCta, Scope::kCta, 1), m)));
    REQUIRE_FALSE(x_races(Run(trace(Scope::kGpu, Scope::kGpu, 2), m)));
    REQUIRE_FALSE(x_races(Run(trace(Scope::kSys, Scope::kGpu, 2), m)));
    // Wave 2 (PTX model): one narrow scope is enough to break the pattern.
    REQUIRE(x_races(Run(trace(Scope::kGpu, Scope::kCta, 2), m)));
    REQUIRE(x_races(Run(trace(Scope::kCta, Scope::kGpu, 2), m)));
    REQUIRE(x_races(Run(trace(Scope::kSys, Scope::kCta, 2), m)));
    REQUIRE(x_races(Run(trace(Scope::kCta, Scope::kSys, 2), m)));
    // ... and the two flag accesses are then not morally strong either.
    ReferenceDetector d = Run(trace(Scope::kGpu, Scope::kCta, 2), m);
    REQUIRE(FirstRace(d, F) == AccessRef{3, 0});
    REQUIRE(d.racy_accesses()[0].race_kind == RaceKind::kNotMorallyStrong);
  }
}

TEST_CASE("acquire before the release gets nothing and release increments", "[reference]") {
  TraceBuilder t;
  t.Begin(2, 32).Wr(0, 0, X).Acq(1, 0, F, Scope::kGpu).Rel(0, 0, F, Scope::kGpu).Rd(1, 0, X);
  REQUIRE(Run(t, WarpModel::kIts).has_race());
  // Accesses after the release are not covered by it.
  TraceBuilder u;
  u.Begin(2, 32).Rel(0, 0, F, Scope::kGpu).Wr(0, 0, X).Acq(1, 0, F, Scope::kGpu).Rd(1, 0, X);
  REQUIRE(Run(u, WarpModel::kIts).has_race());
}

TEST_CASE("plain-store release overwrites S_x and RMW release joins", "[reference]") {
  auto trace = [](bool rmw) {
    TraceBuilder t;
    t.Begin(3, 32)
        .Wr(0, 0, X)
        .Rel(0, 0, F, Scope::kGpu)
        .Wr(1, 0, Y)
        .Rel(1, 0, F, Scope::kGpu, rmw)
        .Acq(2, 0, F, Scope::kGpu)
        .Rd(2, 0, X)
        .Rd(2, 0, Y);
    return t;
  };
  for (WarpModel m : kBoth) {
    ReferenceDetector overwrite = Run(trace(false), m);
    REQUIRE(FirstRace(overwrite, X) == AccessRef{6, 0});
    REQUIRE_FALSE(FirstRace(overwrite, Y).has_value());
    REQUIRE_FALSE(Run(trace(true), m).has_race());
  }
}

TEST_CASE("acq_rel acquires then releases with a join", "[reference]") {
  // Lock hand-over: A writes, releases; B acq_rel's (gets A), writes, releases; C acquires: both.
  TraceBuilder t;
  t.Begin(3, 32)
      .Wr(0, 0, X)
      .Rel(0, 0, F, Scope::kGpu)
      .AcqRel(1, 0, F, Scope::kGpu)
      .Wr(1, 0, X)
      .Wr(1, 0, Y)
      .Rel(1, 0, F, Scope::kGpu)
      .Acq(2, 0, F, Scope::kGpu)
      .Rd(2, 0, X)
      .Rd(2, 0, Y);
  REQUIRE_FALSE(Run(t, WarpModel::kIts).has_race());
}

TEST_CASE("sync accesses are race-checked like strong accesses and fences alone order nothing", "[reference]") {
  // A plain store to a lock word races with the release that follows it in another warp.
  TraceBuilder t;
  t.Begin(2, 32).Wr(0, 0, F).Rel(1, 0, F, Scope::kGpu).Acq(0, 0, F, Scope::kCta);
  ReferenceDetector d = Run(t, WarpModel::kIts);
  REQUIRE(FirstRace(d, F) == AccessRef{2, 0});
  REQUIRE(d.racy_accesses()[0].race_kind == RaceKind::kAtomicVsPlain);
  REQUIRE(d.racy_accesses()[0].kind == AccessKind::kAtomic);
  TraceBuilder u;
  u.Begin(2, 32).Wr(0, 0, X).Fence(0, 1, Scope::kGpu).Fence(1, 1, Scope::kGpu).Rd(1, 0, X);
  REQUIRE(Run(u, WarpModel::kIts).has_race());
  // The synthetic cluster-barrier locations are never checked.
  const uint64_t cb = protocol::ClusterBarrierAddress(0, 0);
  TraceBuilder v;
  v.Begin(1, 64)
      .All(Op::kWrite, 0, 1, cb, 4, Space::kShared)
      .All(Op::kRelease, 1, 1, cb, 4, Space::kShared, protocol::kFlagLoad | protocol::kFlagStore, Scope::kCluster)
      .All(Op::kAcquire, 0, 1, cb, 4, Space::kShared, protocol::kFlagLoad, Scope::kCluster);
  REQUIRE_FALSE(Run(v, WarpModel::kIts).has_race());
}

TEST_CASE("an acquire's own read is ordered after what it acquires", "[reference]") {
  // A plain write to the flag before the release: the acquiring read of that
  // flag is ordered after it (write -po-> release -sw-> acquire).
  TraceBuilder t;
  t.Begin(2, 32).Wr(0, 0, F).Rel(0, 0, F, Scope::kGpu).Acq(1, 0, F, Scope::kGpu);
  REQUIRE_FALSE(Run(t, WarpModel::kIts).has_race());
}

TEST_CASE("a sync record applies lane by lane and then ENDINSN in lockstep", "[reference]") {
  // Lane 0 of warp 1 acquires; lane 1 of warp 1 did not but is joined by ENDINSN.
  TraceBuilder t;
  t.Begin(2, 32).Wr(0, 0, X).Rel(0, 0, F, Scope::kGpu).Access(Op::kAcquire, 1, {{0, F}, {1, Y}}, 4, Space::kGlobal,
                                                                 protocol::kFlagLoad, Scope::kGpu).Rd(1, 1, X);
  REQUIRE_FALSE(Run(t, WarpModel::kLockstep).has_race());
  REQUIRE(Run(t, WarpModel::kIts).has_race());
}

TEST_CASE("shared memory: block-tagged addresses are distinct locations", "[reference]") {
  TraceBuilder t;
  t.Begin(2, 32)
      .All(Op::kWrite, 0, 1, protocol::SharedAddress(0, 16), 4, Space::kShared)
      .All(Op::kWrite, 1, 1, protocol::SharedAddress(1, 16), 4, Space::kShared)
      .All(Op::kWrite, 0, 2, protocol::SharedAddress(0, 16), 4, Space::kShared);
  ReferenceDetector d = Run(t, WarpModel::kIts);
  REQUIRE(d.first_racy().size() == 4);
  REQUIRE(d.first_racy().begin()->first.space == Space::kShared);
  REQUIRE(d.first_racy().begin()->first.address == protocol::SharedAddress(0, 16));
  REQUIRE(d.first_racy().begin()->second == AccessRef{3, 1});
}

TEST_CASE("launches are ordered and locations are per launch", "[reference]") {
  TraceBuilder t;
  t.Begin(2, 32).Wr(0, 0, X).End().Begin(2, 32).Rd(1, 0, X).Wr(0, 0, X).End();
  ReferenceDetector d = Run(t, WarpModel::kIts);
  REQUIRE(FirstRace(d, X, 0) == std::nullopt);
  REQUIRE(FirstRace(d, X, 1) == AccessRef{5, 0});
}

TEST_CASE("only the first racy access of a location is in first_racy", "[reference]") {
  TraceBuilder t;
  t.Begin(1, 64).Wr(0, 0, X).Wr(1, 0, X).Wr(1, 1, X);
  ReferenceDetector d = Run(t, WarpModel::kIts);
  REQUIRE(FirstRace(d, X) == AccessRef{2, 0});
  REQUIRE(d.racy_accesses().size() == 8);  // both later writes, 4 bytes each
}

TEST_CASE("exited lanes take no part in lockstep joins", "[reference]") {
  // Lane 0 writes in the then-side and exits; at fi only lane 1 is live, so
  // lane 0's write stays unordered with lane 1.
  TraceBuilder t;
  t.Begin(1, 2).If(0, 0b11, 0b01).Wr(0, 0, X).Exit(0, 0b01).Else(0, 0b10).Fi(0, 0b10).Rd(0, 1, X);
  ReferenceDetector d = Run(t, WarpModel::kLockstep);
  REQUIRE(FirstRace(d, X) == AccessRef{6, 1});
  REQUIRE(d.LiveMask(0) == 0b10);
}

TEST_CASE("malformed records are refused", "[reference]") {
  ReferenceDetector d;
  Record r{};
  r.header.op = static_cast<uint8_t>(Op::kRead);
  REQUIRE_FALSE(d.Process(r).ok());  // outside a launch
  TraceBuilder t;
  t.Begin(1, 48);
  REQUIRE(d.ProcessAll(t.records()).ok());
  r.header.warp_id = 7;
  r.header.active_mask = 1;
  r.header.access_size = 4;
  REQUIRE_FALSE(d.Process(r).ok());  // no such warp
  r.header.warp_id = 1;
  r.header.active_mask = 1u << 20;   // lane 20 of a 16-lane warp
  REQUIRE_FALSE(d.Process(r).ok());
  r.header.active_mask = 1;
  r.header.access_size = 3;
  REQUIRE_FALSE(d.Process(r).ok());
  r.header.op = static_cast<uint8_t>(Op::kFi);
  REQUIRE_FALSE(d.Process(r).ok());  // no open if
  REQUIRE(d.records_processed() == 6);
}

}  // namespace
}  // namespace barracuda::reference
