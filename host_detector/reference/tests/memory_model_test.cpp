// Hand-written checks of the wave-2 rules of host_detector/detector/SEMANTICS.md in the
// reference: strong vs weak accesses, morally strong pairs, and release /
// acquire patterns built from fences and strong (relaxed) accesses.
#include <catch2/catch.hpp>

#include "host_detector/reference/reference_detector.h"
#include "host_detector/reference/tests/trace_builder.h"

namespace barracuda::reference {
namespace {

using protocol::Op;
using protocol::Scope;
using protocol::Space;
using testing::Lanes;
using testing::TraceBuilder;

constexpr uint64_t X = 0x1000, Y = 0x2000, F = 0x8000, G = 0x8008;

ReferenceDetector Run(const TraceBuilder& t, WarpModel model) {
  ReferenceDetector d(Options{model});
  const absl::Status s = d.ProcessAll(t.records());
  INFO(s.ToString());
  REQUIRE(s.ok());
  return d;
}

std::optional<AccessRef> FirstRace(const ReferenceDetector& d, uint64_t address) {
  auto it = d.first_racy().find(ByteLocation{0, Space::kGlobal, address});
  if (it == d.first_racy().end()) return std::nullopt;
  return it->second;
}

// The race kind of the first racy access on `address`.
std::optional<RaceKind> KindAt(const ReferenceDetector& d, uint64_t address) {
  for (const RacyAccess& r : d.racy_accesses()) {
    if (r.location.address == address) return r.race_kind;
  }
  return std::nullopt;
}

const WarpModel kBoth[] = {WarpModel::kLockstep, WarpModel::kIts};

// Message passing between warp `producer` and warp `consumer` (lane 0 each):
// data X, flag F. fence flags: 0 = both sides, kFlagStore = release only,
// kFlagLoad = acquire only; `none` = no fence on that side.
struct Mp {
  uint32_t blocks = 2, tpb = 32, producer = 0, consumer = 1;
  bool release_fence = true, acquire_fence = true;
  uint8_t release_flags = protocol::kFlagStore, acquire_flags = protocol::kFlagLoad;
  Scope release_fence_scope = Scope::kGpu, acquire_fence_scope = Scope::kGpu;
  Scope store_scope = Scope::kGpu, load_scope = Scope::kGpu;
  bool weak_flag_store = false;
};
TraceBuilder MessagePassing(const Mp& p) {
  TraceBuilder t;
  t.Begin(p.blocks, p.tpb).Wr(p.producer, 0, X);
  if (p.release_fence) t.Fence(p.producer, 1, p.release_fence_scope, p.release_flags);
  if (p.weak_flag_store) {
    t.Wr(p.producer, 0, F);
  } else {
    t.StrongSt(p.producer, 0, F, p.store_scope);
  }
  t.StrongLd(p.consumer, 0, F, p.load_scope);
  if (p.acquire_fence) t.Fence(p.consumer, 1, p.acquire_fence_scope, p.acquire_flags);
  t.Rd(p.consumer, 0, X);
  return t;
}

TEST_CASE("message passing: fence + strong store / strong load + fence synchronises", "[reference][ptx]") {
  for (WarpModel m : kBoth) {
    Mp p;  // warps 0 and 1 in different blocks
    REQUIRE_FALSE(Run(MessagePassing(p), m).has_race());
    p.release_flags = p.acquire_flags = 0;  // fence.sc / fence.acq_rel: both sides
    REQUIRE_FALSE(Run(MessagePassing(p), m).has_race());
    p.release_flags = p.acquire_flags = protocol::kFlagLoad | protocol::kFlagStore;
    REQUIRE_FALSE(Run(MessagePassing(p), m).has_race());
    p.release_fence_scope = p.acquire_fence_scope = Scope::kSys;
    p.store_scope = Scope::kNone;  // kAtomic: kNone reads as gpu
    REQUIRE_FALSE(Run(MessagePassing(p), m).has_race());
  }
}

TEST_CASE("message passing without one of its fences races", "[reference][ptx]") {
  for (WarpModel m : kBoth) {
    Mp p;
    p.release_fence = false;
    ReferenceDetector d = Run(MessagePassing(p), m);
    REQUIRE(FirstRace(d, X).has_value());
    REQUIRE_FALSE(FirstRace(d, F).has_value());  // the flag accesses are morally strong
    REQUIRE(KindAt(d, X) == RaceKind::kRaw);
    Mp q;
    q.acquire_fence = false;
    ReferenceDetector e = Run(MessagePassing(q), m);
    REQUIRE(FirstRace(e, X).has_value());
    REQUIRE(e.PendingAcquireCount(32) == 1);  // observed, never acquired
    // A fence on the wrong side does nothing: acquire-only at the producer,
    // release-only at the consumer.
    Mp r;
    r.release_flags = protocol::kFlagLoad;
    r.acquire_flags = protocol::kFlagStore;
    REQUIRE(FirstRace(Run(MessagePassing(r), m), X).has_value());
  }
}

TEST_CASE("a cta fence does not synchronise across blocks", "[reference][ptx]") {
  for (WarpModel m : kBoth) {
    Mp p;
    p.release_fence_scope = Scope::kCta;  // publishes at min(gpu, cta) = cta
    REQUIRE(FirstRace(Run(MessagePassing(p), m), X).has_value());
    Mp q;
    q.acquire_fence_scope = Scope::kCta;  // joins only what block-mates released
    ReferenceDetector d = Run(MessagePassing(q), m);
    REQUIRE(FirstRace(d, X).has_value());
    REQUIRE(d.PendingAcquireCount(32) == 1);  // kept for a wider fence
    Mp c;
    c.release_fence_scope = c.acquire_fence_scope = Scope::kCluster;  // no clusters: a block
    REQUIRE(FirstRace(Run(MessagePassing(c), m), X).has_value());
    Mp l;
    l.load_scope = Scope::kCta;  // the read's scope bounds what the fence joins
    REQUIRE(FirstRace(Run(MessagePassing(l), m), X).has_value());
    Mp s;
    s.store_scope = Scope::kCta;
    REQUIRE(FirstRace(Run(MessagePassing(s), m), X).has_value());
    // Within one block, cta everywhere is enough.
    Mp b;
    b.blocks = 1;
    b.tpb = 64;
    b.release_fence_scope = b.acquire_fence_scope = b.store_scope = b.load_scope = Scope::kCta;
    REQUIRE_FALSE(Run(MessagePassing(b), m).has_race());
  }
}

TEST_CASE("a later wider acquire fence joins what a narrow one kept", "[reference][ptx]") {
  TraceBuilder t;
  t.Begin(2, 32)
      .Wr(0, 0, X)
      .FenceRel(0, 0, Scope::kGpu)
      .StrongSt(0, 0, F, Scope::kGpu)
      .StrongLd(1, 0, F, Scope::kGpu)
      .FenceAcq(1, 0, Scope::kCta)
      .FenceAcq(1, 0, Scope::kGpu)
      .Rd(1, 0, X);
  ReferenceDetector d = Run(t, WarpModel::kIts);
  REQUIRE_FALSE(d.has_race());
  REQUIRE(d.PendingAcquireCount(32) == 0);
}

TEST_CASE("fence then a weak store publishes nothing and the store is data", "[reference][ptx]") {
  for (WarpModel m : kBoth) {
    Mp p;
    p.weak_flag_store = true;
    ReferenceDetector d = Run(MessagePassing(p), m);
    REQUIRE(FirstRace(d, X).has_value());
    REQUIRE(d.ReleaseEntryCount(Space::kGlobal, F) == 0);
    // The strong load of F races with the weak store (atomic vs plain).
    REQUIRE(FirstRace(d, F) == AccessRef{4, 0});
    REQUIRE(KindAt(d, F) == RaceKind::kAtomicVsPlain);
    // Another weak store to the flag from elsewhere races with it (WAW).
    TraceBuilder t;
    t.Begin(2, 32).Wr(0, 0, X).FenceRel(0, 0, Scope::kGpu).Wr(0, 0, F).Wr(1, 0, F);
    ReferenceDetector e = Run(t, m);
    REQUIRE(FirstRace(e, F) == AccessRef{4, 0});
    REQUIRE(KindAt(e, F) == RaceKind::kWaw);
  }
}

TEST_CASE("volatile flag accesses never race with each other", "[reference][ptx]") {
  for (WarpModel m : kBoth) {
    const uint8_t v = protocol::kFlagVolatile;
    TraceBuilder t;
    t.Begin(3, 32)
        .StrongSt(0, 0, F, Scope::kSys, 4, v)
        .StrongLd(1, 0, F, Scope::kSys, 4, v)
        .StrongSt(2, 0, F, Scope::kSys, 4, v)
        .StrongLd(0, 0, F, Scope::kSys, 4, v)
        .Access(Op::kAtomic, 1, {{3, F}, {4, F}}, 4, Space::kGlobal, protocol::kFlagStore | v, Scope::kSys);
    REQUIRE_FALSE(Run(t, m).has_race());
    // ... but they order nothing by themselves: data passed this way races.
    TraceBuilder u;
    u.Begin(2, 32).Wr(0, 0, X).StrongSt(0, 0, F, Scope::kSys, 4, v).StrongLd(1, 0, F, Scope::kSys, 4, v).Rd(1, 0, X);
    ReferenceDetector d = Run(u, m);
    REQUIRE(FirstRace(d, X) == AccessRef{4, 0});
    REQUIRE_FALSE(FirstRace(d, F).has_value());
  }
}

TEST_CASE("cta atomics from two blocks race (not morally strong)", "[reference][ptx]") {
  for (WarpModel m : kBoth) {
    TraceBuilder t;
    t.Begin(2, 32).StrongRmw(0, 0, X, Scope::kCta).StrongRmw(1, 0, X, Scope::kCta);
    ReferenceDetector d = Run(t, m);
    REQUIRE(FirstRace(d, X) == AccessRef{2, 0});
    REQUIRE(KindAt(d, X) == RaceKind::kNotMorallyStrong);
    REQUIRE(d.racy_accesses()[0].earlier_kind == AccessKind::kAtomic);
    // One cta and one gpu: the cta one still excludes the other block.
    TraceBuilder u;
    u.Begin(2, 32).StrongRmw(0, 0, X, Scope::kGpu).StrongLd(1, 0, X, Scope::kCta);
    REQUIRE(KindAt(Run(u, m), X) == RaceKind::kNotMorallyStrong);
    // kRelease without a scope reads as cta.
    TraceBuilder w;
    w.Begin(2, 32).Rel(0, 0, F, Scope::kNone).Rel(1, 0, F, Scope::kNone);
    REQUIRE(KindAt(Run(w, m), F) == RaceKind::kNotMorallyStrong);
    // Same block (two warps): cta is wide enough.
    TraceBuilder s;
    s.Begin(1, 64).StrongRmw(0, 0, X, Scope::kCta).StrongRmw(1, 0, X, Scope::kCta).StrongLd(1, 1, X, Scope::kCta);
    REQUIRE_FALSE(Run(s, m).has_race());
    // Two strong loads never conflict, whatever their scopes.
    TraceBuilder r;
    r.Begin(2, 32).StrongLd(0, 0, X, Scope::kCta).StrongLd(1, 0, X, Scope::kCta);
    REQUIRE_FALSE(Run(r, m).has_race());
  }
}

TEST_CASE("mixed-size atomics race", "[reference][ptx]") {
  for (WarpModel m : kBoth) {
    TraceBuilder t;
    t.Begin(2, 32).StrongSt(0, 0, X, Scope::kGpu, 8).StrongLd(1, 0, X + 4, Scope::kGpu, 4);
    ReferenceDetector d = Run(t, m);
    REQUIRE(FirstRace(d, X + 4) == AccessRef{2, 0});
    REQUIRE(KindAt(d, X + 4) == RaceKind::kNotMorallyStrong);
    TraceBuilder u;
    u.Begin(2, 32).StrongRmw(0, 0, X, Scope::kGpu, 8).StrongRmw(1, 0, X, Scope::kGpu, 4);
    REQUIRE(FirstRace(Run(u, m), X) == AccessRef{2, 0});
    TraceBuilder same;
    same.Begin(2, 32).StrongRmw(0, 0, X, Scope::kGpu, 8).StrongRmw(1, 0, X, Scope::kGpu, 8);
    REQUIRE_FALSE(Run(same, m).has_race());
  }
}

TEST_CASE("a chain of 64 blocks passes block 0's data to block 63", "[reference][ptx]") {
  // Block b (warp b, lane 0): strong load of flag b-1, fence (both sides),
  // strong store of flag b. Block 0 writes X first, block 63 reads it last.
  auto chain = [](Scope weak_link_scope, uint32_t weak_link) {
    TraceBuilder t;
    t.Begin(64, 32).Wr(0, 0, X).FenceRel(0, 0, Scope::kGpu).StrongSt(0, 0, F, Scope::kGpu);
    for (uint32_t b = 1; b < 64; ++b) {
      t.StrongLd(b, 0, F + 8 * (b - 1), Scope::kGpu);
      t.Fence(b, 1, b == weak_link ? weak_link_scope : Scope::kGpu);
      if (b < 63) t.StrongSt(b, 0, F + 8 * b, Scope::kGpu);
    }
    t.Rd(63, 0, X);
    return t;
  };
  for (WarpModel m : kBoth) {
    ReferenceDetector d = Run(chain(Scope::kGpu, 0), m);
    REQUIRE_FALSE(d.has_race());
    REQUIRE(d.ClockOf(63 * 32).Get(0) >= 1);  // thread 0's write, released by its fence
    // One cta link anywhere breaks it.
    REQUIRE(FirstRace(Run(chain(Scope::kCta, 17), m), X).has_value());
    REQUIRE(FirstRace(Run(chain(Scope::kCta, 63), m), X).has_value());
  }
}

TEST_CASE("release sequence: a read-modify-write continues it, a store breaks it", "[reference][ptx]") {
  auto trace = [](bool middle_store, bool middle_release) {
    TraceBuilder t;
    t.Begin(3, 32).Wr(0, 0, X).FenceRel(0, 0, Scope::kGpu).StrongSt(0, 0, F, Scope::kGpu);
    if (middle_release) t.FenceRel(1, 0, Scope::kGpu);
    if (middle_store) {
      t.StrongSt(1, 0, F, Scope::kGpu);
    } else {
      t.StrongRmw(1, 0, F, Scope::kGpu);
    }
    t.StrongLd(2, 0, F, Scope::kGpu).FenceAcq(2, 0, Scope::kGpu).Rd(2, 0, X);
    return t;
  };
  for (WarpModel m : kBoth) {
    // RMW without a pending release: block 0's release still heads the sequence.
    ReferenceDetector rmw = Run(trace(false, false), m);
    REQUIRE_FALSE(rmw.has_race());
    REQUIRE(rmw.ReleaseEntryCount(Space::kGlobal, F) == 1);
    // RMW with a pending release: appended, both released.
    ReferenceDetector rmw_rel = Run(trace(false, true), m);
    REQUIRE_FALSE(rmw_rel.has_race());
    REQUIRE(rmw_rel.ReleaseEntryCount(Space::kGlobal, F) == 2);
    // A store without a release clears the sequence: nothing to acquire.
    ReferenceDetector st = Run(trace(true, false), m);
    REQUIRE(FirstRace(st, X).has_value());
    REQUIRE(st.ReleaseEntryCount(Space::kGlobal, F) == 0);
    // A releasing store replaces it: only its own release remains.
    ReferenceDetector st_rel = Run(trace(true, true), m);
    REQUIRE(FirstRace(st_rel, X).has_value());
    REQUIRE(st_rel.ReleaseEntryCount(Space::kGlobal, F) == 1);
  }
}

TEST_CASE("kRelease / kAcquire mix with fence patterns on one flag", "[reference][ptx]") {
  for (WarpModel m : kBoth) {
    // st.release read by ld.relaxed + fence.acquire.
    TraceBuilder t;
    t.Begin(2, 32).Wr(0, 0, X).Rel(0, 0, F, Scope::kGpu).StrongLd(1, 0, F, Scope::kGpu).FenceAcq(1, 0, Scope::kGpu).Rd(1, 0, X);
    REQUIRE_FALSE(Run(t, m).has_race());
    // fence.release + st.relaxed read by ld.acquire.
    TraceBuilder u;
    u.Begin(2, 32).Wr(0, 0, X).FenceRel(0, 0, Scope::kGpu).StrongSt(0, 0, F, Scope::kGpu).Acq(1, 0, F, Scope::kGpu).Rd(1, 0, X);
    REQUIRE_FALSE(Run(u, m).has_race());
    // An atom RMW observes and then publishes: a lock hand-over through two
    // relaxed RMWs and fences.
    TraceBuilder v;
    v.Begin(2, 32)
        .Wr(0, 0, X)
        .Fence(0, 1, Scope::kGpu)
        .StrongRmw(0, 0, F, Scope::kGpu)
        .StrongRmw(1, 0, F, Scope::kGpu)
        .Fence(1, 1, Scope::kGpu)
        .Wr(1, 0, X);
    REQUIRE_FALSE(Run(v, m).has_race());
  }
}

TEST_CASE("any strong write forms a release pattern with a fence, any strong read an acquire pattern", "[reference][ptx]") {
  for (WarpModel m : kBoth) {
    // fence.release; atom.acquire (its write half publishes the fence's clock).
    TraceBuilder t;
    t.Begin(2, 32)
        .Wr(0, 0, X)
        .FenceRel(0, 0, Scope::kGpu)
        .Access(Op::kAcquire, 0, {{0, F}}, 4, Space::kGlobal, protocol::kFlagLoad | protocol::kFlagStore, Scope::kGpu)
        .Acq(1, 0, F, Scope::kGpu)
        .Rd(1, 0, X);
    REQUIRE_FALSE(Run(t, m).has_race());
    // atom.release (its read half observes); fence.acquire.
    TraceBuilder u;
    u.Begin(2, 32)
        .Wr(0, 0, X)
        .Rel(0, 0, F, Scope::kGpu)
        .Rel(1, 0, F, Scope::kGpu, /*rmw=*/true)
        .FenceAcq(1, 0, Scope::kGpu)
        .Rd(1, 0, X);
    REQUIRE_FALSE(Run(u, m).has_race());
    TraceBuilder v;  // without the fence: nothing acquired
    v.Begin(2, 32).Wr(0, 0, X).Rel(0, 0, F, Scope::kGpu).Rel(1, 0, F, Scope::kGpu, true).Rd(1, 0, X);
    REQUIRE(FirstRace(Run(v, m), X).has_value());
  }
}

TEST_CASE("the pending release is the clock at the fence, not later", "[reference][ptx]") {
  TraceBuilder t;
  t.Begin(2, 32)
      .Wr(0, 0, X)
      .FenceRel(0, 0, Scope::kGpu)
      .Wr(0, 0, Y)  // after the fence: not released
      .StrongSt(0, 0, F, Scope::kGpu)
      .StrongLd(1, 0, F, Scope::kGpu)
      .FenceAcq(1, 0, Scope::kGpu)
      .Rd(1, 0, X)
      .Rd(1, 0, Y);
  ReferenceDetector d = Run(t, WarpModel::kIts);
  REQUIRE_FALSE(FirstRace(d, X).has_value());
  REQUIRE(FirstRace(d, Y) == AccessRef{8, 0});
  REQUIRE(d.HasPendingRelease(0));
  // One fence serves several later strong stores.
  TraceBuilder u;
  u.Begin(3, 32)
      .Wr(0, 0, X)
      .FenceRel(0, 0, Scope::kGpu)
      .StrongSt(0, 0, F, Scope::kGpu)
      .StrongSt(0, 0, G, Scope::kGpu)
      .StrongLd(2, 0, G, Scope::kGpu)
      .FenceAcq(2, 0, Scope::kGpu)
      .Rd(2, 0, X);
  REQUIRE_FALSE(Run(u, WarpModel::kIts).has_race());
}

TEST_CASE("lockstep: ENDINSN after a fence joins its lanes", "[reference][ptx]") {
  TraceBuilder t;
  t.Begin(1, 32).Wr(0, 0, X).Fence(0, Lanes({0, 1}), Scope::kCta).Rd(0, 1, X);
  REQUIRE_FALSE(Run(t, WarpModel::kLockstep).has_race());
  REQUIRE(FirstRace(Run(t, WarpModel::kIts), X) == AccessRef{3, 1});
}

TEST_CASE("a store by several lanes keeps only the last lane's release", "[reference][ptx]") {
  // Lanes 0 and 1 each write their slot, fence, store the flag (lane order:
  // lane 1's store replaces lane 0's); the consumer reads both slots.
  TraceBuilder t;
  t.Begin(2, 32)
      .Access(Op::kWrite, 0, {{0, X}, {1, X + 4}})
      .Fence(0, Lanes({0, 1}), Scope::kGpu, protocol::kFlagStore)
      .Access(Op::kAtomic, 0, {{0, F}, {1, F}}, 4, Space::kGlobal, protocol::kFlagStore, Scope::kGpu)
      .StrongLd(1, 0, F, Scope::kGpu)
      .FenceAcq(1, 0, Scope::kGpu)
      .Rd(1, 0, X + 4)
      .Rd(1, 0, X);
  ReferenceDetector its = Run(t, WarpModel::kIts);
  REQUIRE_FALSE(FirstRace(its, X + 4).has_value());
  REQUIRE(FirstRace(its, X) == AccessRef{7, 0});
  // In lockstep the fence's ENDINSN joins the lanes first, so lane 1's
  // release covers lane 0's write too.
  REQUIRE_FALSE(Run(t, WarpModel::kLockstep).has_race());
}

}  // namespace
}  // namespace barracuda::reference
