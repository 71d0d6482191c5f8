// Asynchronous copies (cp.async) and mbarriers: SEMANTICS.md "Asynchronous
// copies". A copy's read of its source and write of its destination belong to
// the copy, not to the lane that issued it: unordered with everything until
// the lane observes the completion (kAsyncWait) or an mbarrier phase that the
// copies' arrive-on fed is waited for.
#include <catch2/catch.hpp>

#include "host_detector/detector/tests/trace_builder.h"

namespace barracuda::detector::testing {
namespace {

constexpr uint32_t kAll = 0xffffffffu;
constexpr uint64_t kSrc = 0x4000;  // global
constexpr uint64_t kSrc2 = 0x5000;
uint64_t Sh(uint32_t offset) { return protocol::SharedAddress(0, offset); }
AddrFn ShStrided(uint32_t base) {
  return [base](unsigned l) { return Sh(base + 4 * l); };
}
constexpr uint32_t kCopySite = 10, kReadSite = 11, kWriteSite = 12;

TEST_CASE("cp.async: the issuer reading its destination before the wait races with its copy",
          "[rules][async]") {
  for (WarpModel m : {WarpModel::kIts, WarpModel::kLockstep}) {
    TraceBuilder t;
    t.Begin(1, 32).AsyncCopy(0, kAll, ShStrided(0), Strided(kSrc, 4), kCopySite);
    t.Mem(Op::kRead, 0, kAll, ShStrided(0), kReadSite, 4, Space::kShared).End();
    RunResult r = Run(t, m);
    REQUIRE(r.events.size() == 32);
    const RaceEvent& e = r.events[0];
    CHECK(e.kind == RaceKind::kReadAfterWrite);
    CHECK(e.cls == RaceClass::kAsyncCopy);
    CHECK(e.earlier.async);
    CHECK_FALSE(e.later.async);
    CHECK(e.earlier.tid == e.later.tid);  // its own copy, named by the thread
    CHECK(e.earlier.site == kCopySite);
  }
}

TEST_CASE("cp.async: after the wait the issuer, and after a barrier its block, see the copy", "[rules][async]") {
  for (WarpModel m : {WarpModel::kIts, WarpModel::kLockstep}) {
    TraceBuilder t;
    t.Begin(1, 64).AsyncCopy(0, kAll, ShStrided(0), Strided(kSrc, 4), kCopySite).AsyncWait(0, kAll, 2);
    t.Mem(Op::kRead, 0, kAll, ShStrided(0), kReadSite, 4, Space::kShared);
    t.BlockBar(0, 2).Mem(Op::kRead, 1, kAll, ShStrided(0), kReadSite, 4, Space::kShared);
    t.Write(1, kAll, Strided(kSrc, 4), kWriteSite).End();  // the source may be reused too
    CHECK(Run(t, m).events.empty());
  }
}

TEST_CASE("cp.async: a barrier without the wait does not order the copy", "[rules][async]") {
  TraceBuilder t;
  t.Begin(1, 64).AsyncCopy(0, kAll, ShStrided(0), Strided(kSrc, 4), kCopySite).BlockBar(0, 2);
  t.Mem(Op::kRead, 1, kAll, ShStrided(0), kReadSite, 4, Space::kShared).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 32);
  CHECK(r.events[0].cls == RaceClass::kAsyncCopy);
  CHECK(r.events[0].earlier.warp == 0);
  CHECK(r.events[0].later.warp == 1);
}

TEST_CASE("cp.async: a wait covers the copies up to its count only (wait_group N)", "[rules][async]") {
  TraceBuilder t;
  t.Begin(1, 32).AsyncCopy(0, kAll, ShStrided(0), Strided(kSrc, 4), kCopySite);
  t.AsyncCopy(0, kAll, ShStrided(256), Strided(kSrc2, 4), kCopySite + 1).AsyncWait(0, kAll, 2);
  t.Mem(Op::kRead, 0, kAll, ShStrided(0), kReadSite, 4, Space::kShared);        // first copy: complete
  t.Mem(Op::kRead, 0, kAll, ShStrided(256), kReadSite + 1, 4, Space::kShared).End();  // second: in flight
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 32);
  CHECK(r.events[0].earlier.site == kCopySite + 1);
  CHECK(r.events[0].later.site == kReadSite + 1);
}

TEST_CASE("cp.async: overwriting the source before the wait races with the copy's read", "[rules][async]") {
  TraceBuilder t;
  t.Begin(1, 32).AsyncCopy(0, kAll, ShStrided(0), Strided(kSrc, 4), kCopySite);
  t.Write(0, kAll, Strided(kSrc, 4), kWriteSite).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 32);
  CHECK(r.events[0].kind == RaceKind::kWriteAfterRead);
  CHECK(r.events[0].cls == RaceClass::kAsyncCopy);
  CHECK(r.events[0].earlier.async);
  CHECK(r.events[0].space == protocol::Space::kGlobal);
}

TEST_CASE("cp.async: two copies in flight to one destination race, ordered ones do not", "[rules][async]") {
  TraceBuilder t;
  t.Begin(1, 32).AsyncCopy(0, kAll, ShStrided(0), Strided(kSrc, 4), kCopySite);
  t.AsyncCopy(0, kAll, ShStrided(0), Strided(kSrc2, 4), kCopySite + 1).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 32);
  CHECK(r.events[0].kind == RaceKind::kWriteAfterWrite);
  CHECK(r.events[0].earlier.async);
  CHECK(r.events[0].later.async);

  TraceBuilder ok;
  ok.Begin(1, 32).AsyncCopy(0, kAll, ShStrided(0), Strided(kSrc, 4), kCopySite).AsyncWait(0, kAll, 2);
  ok.AsyncCopy(0, kAll, ShStrided(0), Strided(kSrc2, 4), kCopySite + 1).End();
  CHECK(Run(ok).events.empty());
}

TEST_CASE("cp.async: the copy starts after what its issuer is ordered after", "[rules][async]") {
  // Warp 1 reads the destination; only with the barrier before the issue is
  // the copy's write ordered after that read.
  for (bool barrier : {true, false}) {
    TraceBuilder t;
    t.Begin(1, 64).Mem(Op::kRead, 1, kAll, ShStrided(0), kReadSite, 4, Space::kShared);
    if (barrier) t.BlockBar(0, 2);
    t.AsyncCopy(0, kAll, ShStrided(0), Strided(kSrc, 4), kCopySite).End();
    RunResult r = Run(t);
    INFO("barrier " << barrier);
    if (barrier) {
      CHECK(r.events.empty());
    } else {
      REQUIRE(r.events.size() == 32);
      CHECK(r.events[0].kind == RaceKind::kWriteAfterRead);
      CHECK(r.events[0].later.async);
      CHECK(r.events[0].cls == RaceClass::kAsyncCopy);
    }
  }
}

TEST_CASE("mbarrier: an arrive-on triggered by the copies releases them to the phase's waiters",
          "[rules][async][mbarrier]") {
  const uint64_t bar = Sh(1024);
  TraceBuilder t;
  t.Begin(1, 64).AsyncCopy(0, kAll, ShStrided(0), Strided(kSrc, 4), kCopySite).MbarArrive(0, kAll, bar, true);
  t.MbarArrive(1, kAll, bar).MbarWaitDone(1, kAll, bar);
  t.Mem(Op::kRead, 1, kAll, ShStrided(0), kReadSite, 4, Space::kShared);
  // The issuer has not observed its copies until it waits on the phase too.
  t.Mem(Op::kRead, 0, kAll, ShStrided(0), kReadSite + 1, 4, Space::kShared);
  t.MbarWaitDone(0, kAll, bar).Mem(Op::kRead, 0, kAll, ShStrided(0), kReadSite + 2, 4, Space::kShared).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 32);
  for (const RaceEvent& e : r.events) CHECK(e.later.site == kReadSite + 1);
}

TEST_CASE("mbarrier: a plain arrive does not release the issuer's copies", "[rules][async][mbarrier]") {
  const uint64_t bar = Sh(1024);
  TraceBuilder t;
  t.Begin(1, 64).AsyncCopy(0, kAll, ShStrided(0), Strided(kSrc, 4), kCopySite).MbarArrive(0, kAll, bar);
  t.MbarArrive(1, kAll, bar).MbarWaitDone(1, kAll, bar);
  t.Mem(Op::kRead, 1, kAll, ShStrided(0), kReadSite, 4, Space::kShared).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 32);
  CHECK(r.events[0].cls == RaceClass::kAsyncCopy);
}

TEST_CASE("mbarrier: arrive releases and a completed wait acquires plain stores", "[rules][mbarrier]") {
  const uint64_t bar = Sh(1024);
  for (bool store_first : {true, false}) {
    TraceBuilder t;
    t.Begin(1, 64);
    if (store_first) t.Mem(Op::kWrite, 0, kAll, ShStrided(0), kWriteSite, 4, Space::kShared);
    t.MbarArrive(0, kAll, bar);
    if (!store_first) t.Mem(Op::kWrite, 0, kAll, ShStrided(0), kWriteSite, 4, Space::kShared);
    t.MbarArrive(1, kAll, bar).MbarWaitDone(1, kAll, bar);
    t.Mem(Op::kRead, 1, kAll, ShStrided(0), kReadSite, 4, Space::kShared).End();
    RunResult r = Run(t);
    INFO("store before the arrive: " << store_first);
    CHECK(r.events.size() == (store_first ? 0u : 32u));
  }
}

TEST_CASE("bulk copy into a neighbour block: its complete-tx on that block's mbarrier releases to that block's waiters",
          "[rules][async][mbarrier][cluster]") {
  // A cluster of two blocks; block 0's lane 0 copies 128 bytes into block 1's
  // window (a multicast, or a copy to .shared::cluster) and completes them on
  // block 1's mbarrier; block 1 waits on it at cta scope, as CUTLASS does.
  const uint64_t buf = protocol::SharedAddress(1, 0), bar = protocol::SharedAddress(1, 1024);
  for (bool wait_first : {true, false}) {
    for (WarpModel m : {WarpModel::kIts, WarpModel::kLockstep}) {
      TraceBuilder t;
      t.Begin(2, 32).ClusterShape(2);
      t.BulkCopy(0, 0, buf, Space::kShared, kSrc, Space::kGlobal, 128, kCopySite).MbarArrive(0, 1, bar, true);
      if (wait_first) t.MbarWaitDone(1, kAll, bar);
      t.Mem(Op::kRead, 1, kAll, Strided(buf, 4), kReadSite, 4, Space::kShared);
      if (!wait_first) t.MbarWaitDone(1, kAll, bar);
      t.End();
      const RunResult r = Run(t, m);
      INFO("wait before the read: " << wait_first);
      REQUIRE(r.ok);
      if (wait_first) {
        CHECK(r.events.empty());  // neither the bytes nor the mbarrier word race
      } else {
        REQUIRE(r.events.size() == 32);
        for (const RaceEvent& e : r.events) {
          CHECK(e.cls == RaceClass::kAsyncCopy);
          CHECK(e.earlier.site == kCopySite);
          CHECK(e.later.site == kReadSite);
        }
      }
    }
  }
}

TEST_CASE("cp.async: a wait count above what the lane issued is clamped", "[rules][async]") {
  TraceBuilder t;
  t.Begin(1, 32).AsyncWait(0, kAll, 99).AsyncCopy(0, kAll, ShStrided(0), Strided(kSrc, 4), kCopySite);
  t.Mem(Op::kRead, 0, kAll, ShStrided(0), kReadSite, 4, Space::kShared).End();
  RunResult r = Run(t);
  CHECK(r.ok);
  CHECK(r.events.size() == 32);  // the early wait observed nothing of the later copy
}

}  // namespace
}  // namespace barracuda::detector::testing
