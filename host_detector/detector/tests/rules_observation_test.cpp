// PTX causality order, clause 2 (SEMANTICS.md "Observation order"): a strong
// write is ordered before everything a strong read that observed it (directly
// or through a chain of morally strong read-modify-writes) happens before, with
// no fence anywhere. The sample's last-block counter reset and a polling
// loop's plain flag reset rely on it; what it does not order still races.
// Geometry: blocks of 32 threads, so warp w is block w.
#include <catch2/catch.hpp>

#include "host_detector/detector/tests/trace_builder.h"

namespace barracuda::detector::testing {
namespace {

constexpr uint64_t kFlag = 0x8000;

TEST_CASE("a plain reset after polling the flag is ordered after the flag store", "[rules][observation]") {
  for (WarpModel m : {WarpModel::kIts, WarpModel::kLockstep}) {
    TraceBuilder t;
    t.Begin(2, 32).StrongStore(Scope::kSys, 0, 0x1u, kFlag, 1);
    for (int i = 0; i < 3; ++i) t.StrongLoad(Scope::kSys, 1, 0x1u, kFlag, 2);
    t.Write(1, 0x1u, Same(kFlag), 3).End();
    CHECK(Run(t, m).events.empty());
  }
}

TEST_CASE("a reset by a thread that did not observe the flag races with the flag store", "[rules][observation]") {
  // Thread 1 of the polling warp resets: lanes of a warp are not ordered (ITS).
  TraceBuilder t;
  t.Begin(2, 32).StrongStore(Scope::kSys, 0, 0x1u, kFlag, 1).StrongLoad(Scope::kSys, 1, 0x1u, kFlag, 2);
  t.If(1, 0x3u, 0x2u).Write(1, 0x2u, Same(kFlag), 3).Else(1).Fi(1).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].kind == RaceKind::kAtomicVsPlain);
  CHECK(r.events[0].earlier.site == 1);
  CHECK(r.events[0].later.site == 3);
}

TEST_CASE("the last ticket of a counter orders the reset after every block's increment", "[rules][observation]") {
  for (WarpModel m : {WarpModel::kIts, WarpModel::kLockstep}) {
    TraceBuilder t;
    t.Begin(4, 32);
    for (uint32_t b = 0; b < 4; ++b) t.StrongRmw(Scope::kGpu, b, 0x1u, kFlag, 10 + b);
    t.Write(3, 0x1u, Same(kFlag), 20).End();  // the block that drew the last ticket
    CHECK(Run(t, m).events.empty());
  }
  // The first block resets: the later blocks' increments are not ordered
  // after its plain store (a weak write starts no observation chain).
  TraceBuilder u;
  u.Begin(4, 32).StrongRmw(Scope::kGpu, 0, 0x1u, kFlag, 10).Write(0, 0x1u, Same(kFlag), 20);
  for (uint32_t b = 1; b < 4; ++b) u.StrongRmw(Scope::kGpu, b, 0x1u, kFlag, 10 + b);
  RunResult r = Run(u.End());
  REQUIRE(r.events.size() == 3);
  for (uint32_t i = 0; i < 3; ++i) {
    CHECK(r.events[i].kind == RaceKind::kAtomicVsPlain);
    CHECK(r.events[i].earlier.site == 20);
    CHECK(r.events[i].later.site == 11 + i);
  }
}

TEST_CASE("a strong store breaks the chain: a load of it observes nothing before it", "[rules][observation]") {
  // Block 0 increments, block 2 stores (not a read-modify-write), block 1
  // reads block 2's value and resets: block 0's increment is not before it.
  TraceBuilder t;
  t.Begin(3, 32).StrongRmw(Scope::kGpu, 0, 0x1u, kFlag, 1).StrongStore(Scope::kGpu, 2, 0x1u, kFlag, 2);
  t.StrongLoad(Scope::kGpu, 1, 0x1u, kFlag, 3).Write(1, 0x1u, Same(kFlag), 4).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].kind == RaceKind::kAtomicVsPlain);
  CHECK(r.events[0].later.site == 4);
}

TEST_CASE("a load observes only the write it read, not a later one of the same thread and clock",
          "[rules][observation]") {
  // ITS: block 0's thread increments twice at one clock (nothing in between
  // orders anything); block 1 read the first value only.
  TraceBuilder t;
  t.Begin(2, 32).StrongRmw(Scope::kGpu, 0, 0x1u, kFlag, 1).StrongLoad(Scope::kGpu, 1, 0x1u, kFlag, 2);
  t.StrongRmw(Scope::kGpu, 0, 0x1u, kFlag, 3).Write(1, 0x1u, Same(kFlag), 4).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].earlier.site == 3);
  CHECK(r.events[0].later.site == 4);
}

TEST_CASE("observation orders a cta-scope atomic of another block after the observed writes",
          "[rules][observation]") {
  // Block 0's gpu-scope increment is read by block 1's load; block 1's later
  // cta-scope atomic is not morally strong with block 0's, but ordered after it.
  TraceBuilder t;
  t.Begin(2, 32).StrongRmw(Scope::kGpu, 0, 0x1u, kFlag, 1).StrongLoad(Scope::kGpu, 1, 0x1u, kFlag, 2);
  t.StrongRmw(Scope::kCta, 1, 0x1u, kFlag, 3).End();
  CHECK(Run(t).events.empty());
  // Without the load it races (not morally strong).
  TraceBuilder u;
  u.Begin(2, 32).StrongRmw(Scope::kGpu, 0, 0x1u, kFlag, 1).StrongRmw(Scope::kCta, 1, 0x1u, kFlag, 3).End();
  RunResult r = Run(u);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].kind == RaceKind::kNotMorallyStrong);
}

}  // namespace
}  // namespace barracuda::detector::testing
