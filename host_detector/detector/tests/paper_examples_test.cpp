// The paper's worked examples as record traces.
#include <catch2/catch.hpp>

#include "host_detector/detector/tests/trace_builder.h"

namespace barracuda::detector::testing {
namespace {

constexpr uint64_t kX = 0x100, kY = 0x200, kZ = 0x300;

// Processes records one by one so that tests can look at clocks in between.
struct Stepper {
  explicit Stepper(WarpModel m) : d(Options(m)) {
    d.SetRaceListener([this](const RaceEvent& e) { events.push_back(e); });
  }
  static DetectorOptions Options(WarpModel m) {
    DetectorOptions o;
    o.warp_model = m;
    return o;
  }
  void Feed(const TraceBuilder& t) {
    for (; fed < t.size(); ++fed) d.Process(t.records()[fed]);
  }
  Detector d;
  std::vector<RaceEvent> events;
  size_t fed = 0;
};

// Figure 1 (a warp w with two threads t0, t1), as its caption and §3.1
// describe it (the figure body is not in our copy of the text):
//   ld.global r,[x]                 rd(t0,x) rd(t1,x) endi(w)
//   @p bra ELSE                     if(w): t0 takes the then path
//   st.global [y],1                 wr(t0,y) endi(w)
//   ELSE: st.global [y],2           else(w) wr(t1,y) endi(w)
//   fi                              fi(w)
//   membar.cta; st.global [z],r     relBlk(t0,z) relBlk(t1,z) endi(w)
// Vector clocks are checked exactly against the paper's rules (lockstep).
TEST_CASE("paper Figure 1: trace operations and synchronisation order", "[paper][figure1]") {
  TraceBuilder t;
  Stepper s(WarpModel::kLockstep);
  t.Begin(1, 2).Read(0, 0x3u, Same(kX), 1);
  s.Feed(t);
  CHECK(s.d.ThreadClock(0).Get(0) == 2);
  CHECK(s.d.ThreadClock(0).Get(1) == 1);
  t.If(0, 0x3u, 0x1u);
  s.Feed(t);
  CHECK(s.d.ThreadClock(0).Get(0) == 3);
  t.Write(0, 0x1u, Same(kY), 2).Else(0);
  s.Feed(t);
  CHECK(s.d.ThreadClock(0).Get(0) == 4);
  CHECK(s.d.ThreadClock(1).Get(0) == 1);  // t1 never saw t0's then path
  CHECK(s.d.ThreadClock(1).Get(1) == 3);
  t.Write(0, 0x2u, Same(kY), 3);  // branch-ordering race with t0's write
  s.Feed(t);
  REQUIRE(s.events.size() == 1);
  CHECK(s.events[0].kind == RaceKind::kWriteAfterWrite);
  CHECK(s.events[0].cls == RaceClass::kDivergence);
  CHECK(s.events[0].address == kY);
  t.Fi(0);
  s.Feed(t);
  CHECK(s.d.ThreadClock(0).Get(0) == 5);
  CHECK(s.d.ThreadClock(0).Get(1) == 4);
  CHECK(s.d.ThreadClock(1).Get(0) == 4);
  CHECK(s.d.ThreadClock(1).Get(1) == 5);
  t.Sync(Op::kRelease, Scope::kCta, 0, 0x3u, Same(kZ), protocol::kFlagStore);
  s.Feed(t);
  CHECK(s.d.ThreadClock(0).Get(0) == 7);
  CHECK(s.d.ThreadClock(0).Get(1) == 6);
  CHECK(s.d.ThreadClock(1).Get(1) == 7);
  t.End();
  s.Feed(t);
  CHECK(s.events.size() == 1);
  CHECK(s.d.Report().size() == 1);
}

// Figure 7: 3 threads per warp, 2 warps per block, 2 blocks. Warps here have 32
// lanes, so the kernel launches 2 blocks of 64 threads and lanes 3..31 of every
// warp exit at once: T0..T11 are lanes 0..2 of warps 0..3 (T = 6b + 3w + lane).
TEST_CASE("paper Figure 7: converged, barrier, diverged, nested, sparse", "[paper][figure7]") {
  auto tid = [](uint32_t T) { return (T / 6) * 64 + ((T % 6) / 3) * 32 + T % 3; };
  auto C = [&](Stepper& s, uint32_t T, uint32_t U) { return s.d.ThreadClock(tid(T)).Get(tid(U)); };
  const uint32_t kLive = 0x7u;
  TraceBuilder t;
  Stepper s(WarpModel::kLockstep);
  t.Begin(2, 64);
  for (uint32_t w = 0; w < 4; ++w) t.Exit(w, ~kLive);
  // CONVERGED: every warp runs an instruction in lockstep.
  for (uint32_t w = 0; w < 4; ++w) t.Write(w, kLive, [w](unsigned l) { return kX + 16 * w + 4 * l; }, 1);
  s.Feed(t);
  CHECK(C(s, 1, 1) == 2);  // local clock
  CHECK(C(s, 1, 0) == 1);  // warp-mates at the end of the instruction
  CHECK(C(s, 1, 3) == 0);  // never synchronised with warp 1
  // Barrier of block 0: the block clock.
  t.Bar(0, kLive).Bar(1, kLive);
  s.Feed(t);
  CHECK(s.d.Stats().barriers_completed == 1);
  CHECK(C(s, 1, 3) == C(s, 0, 4));          // one block clock for warp 1's threads
  CHECK(C(s, 1, 3) == C(s, 3, 3) - 1);      // threads moved on past the barrier
  CHECK(C(s, 1, 1) == C(s, 1, 3) + 1);
  // DIVERGED: T0 takes one path, T1 and T2 the other.
  t.If(0, kLive, 0x6u).Write(0, 0x6u, [](unsigned l) { return kY + 4 * l; }, 2);
  s.Feed(t);
  const uint32_t warp_clock = C(s, 1, 0);
  CHECK(warp_clock < C(s, 0, 0));  // T0 is concurrent with the path
  CHECK(C(s, 2, 1) == C(s, 1, 1) - 1);
  // NESTEDDIVERGED: T1 alone.
  t.If(0, 0x6u, 0x2u).Write(0, 0x2u, Same(kZ), 3);
  s.Feed(t);
  CHECK(C(s, 1, 0) == warp_clock);     // last synchronised with T0 before the outer if
  CHECK(C(s, 1, 2) < C(s, 2, 2));      // and with T2 before the inner if
  CHECK(C(s, 1, 2) > warp_clock);
  // SPARSEVC: T7 (block 1) writes and releases lock l; T1 acquires it.
  t.Write(2, 0x2u, Same(kZ + 64), 4).Sync(Op::kRelease, Scope::kGpu, 2, 0x2u, Same(0x900), protocol::kFlagStore);
  s.Feed(t);
  const uint32_t t7_at_release = C(s, 7, 7) - 2;  // release inc + ENDINSN inc
  t.Acquire(Scope::kGpu, 0, 0x2u, 0x900);
  s.Feed(t);
  CHECK(C(s, 1, 7) == t7_at_release);
  CHECK(C(s, 2, 7) == 0);
  CHECK(C(s, 1, 6) > 0);  // T7's own view of its warp-mates came along
  CHECK(s.events.empty());
  // Consequences: T1 reads T7's data race-free, T2 does not; T0 on the else
  // path writing what T1 wrote on the then path is a divergence race.
  t.Read(0, 0x2u, Same(kZ + 64), 5).Else(0).Read(0, 0x4u, Same(kZ + 64), 6).Fi(0);
  t.Else(0).Write(0, 0x1u, Same(kZ), 7).Fi(0).End();
  s.Feed(t);
  REQUIRE(s.events.size() == 2);
  CHECK(s.events[0].later.site == 6);
  CHECK(s.events[0].cls == RaceClass::kInterBlock);
  CHECK(s.events[1].later.site == 7);
  CHECK(s.events[1].cls == RaceClass::kDivergence);
  CHECK(s.d.status().ok());
}

}  // namespace
}  // namespace barracuda::detector::testing
