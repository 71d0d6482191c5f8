// Proxies: SEMANTICS.md "Proxies". A bulk copy or TMA (kFlagAsyncProxy)
// accesses memory through the async proxy; a generic-proxy write is ordered
// before it only when a fence.proxy.async lies on the causality path from the
// write to the copy's issue: in the writer after the write, or in the issuer
// after it was ordered after the write. Ordered but unfenced pairs are races
// of class `proxy`; unordered ones keep their usual class.
#include <catch2/catch.hpp>

#include "host_detector/detector/tests/trace_builder.h"

namespace barracuda::detector::testing {
namespace {

constexpr uint32_t kAll = 0xffffffffu;
constexpr uint64_t kOut = 0x8000;  // global
uint64_t Sh(uint32_t offset) { return protocol::SharedAddress(0, offset); }
AddrFn ShStrided(uint32_t base) {
  return [base](unsigned l) { return Sh(base + 4 * l); };
}
constexpr uint32_t kWriteSite = 20, kBulkSite = 21;

// Warp 1 fills shared [0, 128); warp 0 lane 0 then bulk-copies it to global.
// `where` places the proxy fence: none, in the writer after its writes, in
// the issuer after the barrier, in the issuer before the barrier, in the
// writer before its writes.
enum class FenceAt { kNone, kWriterAfter, kIssuerAfter, kIssuerBefore, kWriterBefore };

TraceBuilder SharedToGlobal(FenceAt where) {
  TraceBuilder t;
  t.Begin(1, 64);
  if (where == FenceAt::kWriterBefore) t.ProxyFence(1, kAll);
  t.Mem(Op::kWrite, 1, kAll, ShStrided(0), kWriteSite, 4, Space::kShared);
  if (where == FenceAt::kWriterAfter) t.ProxyFence(1, kAll);
  if (where == FenceAt::kIssuerBefore) t.ProxyFence(0, kAll);
  t.BlockBar(0, 2);
  if (where == FenceAt::kIssuerAfter) t.ProxyFence(0, kAll);
  t.BulkCopy(0, 0, kOut, Space::kGlobal, Sh(0), Space::kShared, 128, kBulkSite);
  t.End();
  return t;
}

TEST_CASE("proxy: a bulk copy reading generic writes without a proxy fence is a proxy race", "[rules][proxy]") {
  for (FenceAt where : {FenceAt::kNone, FenceAt::kIssuerBefore, FenceAt::kWriterBefore}) {
    for (WarpModel m : {WarpModel::kIts, WarpModel::kLockstep}) {
      RunResult r = Run(SharedToGlobal(where), m);
      REQUIRE(r.events.size() == 8);  // one per 16-byte read of the copy
      for (const RaceEvent& e : r.events) {
        CHECK(e.cls == RaceClass::kProxy);
        CHECK(e.kind == RaceKind::kReadAfterWrite);
        CHECK(e.earlier.warp == 1);
        CHECK(e.earlier.site == kWriteSite);
        CHECK_FALSE(e.earlier.async);
        CHECK(e.later.async);
        CHECK(e.later.site == kBulkSite);
      }
    }
  }
}

TEST_CASE("proxy: a proxy fence in the writer or in the ordered issuer orders the copy", "[rules][proxy]") {
  for (FenceAt where : {FenceAt::kWriterAfter, FenceAt::kIssuerAfter}) {
    for (WarpModel m : {WarpModel::kIts, WarpModel::kLockstep}) {
      CHECK(Run(SharedToGlobal(where), m).events.empty());
    }
  }
}

TEST_CASE("proxy: a proxy fence does not order memory: without the barrier the race keeps its class",
          "[rules][proxy]") {
  TraceBuilder t;
  t.Begin(1, 64).Mem(Op::kWrite, 1, kAll, ShStrided(0), kWriteSite, 4, Space::kShared).ProxyFence(1, kAll);
  t.ProxyFence(0, kAll).BulkCopy(0, 0, kOut, Space::kGlobal, Sh(0), Space::kShared, 128, kBulkSite).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 8);
  for (const RaceEvent& e : r.events) CHECK(e.cls == RaceClass::kAsyncCopy);
}

TEST_CASE("proxy: the issuer's own generic writes need its proxy fence too", "[rules][proxy]") {
  for (bool fence : {false, true}) {
    TraceBuilder t;
    t.Begin(1, 32);
    for (uint32_t off = 0; off < 128; off += 16) t.Mem(Op::kWrite, 0, 1, Same(Sh(off)), kWriteSite, 16, Space::kShared);
    if (fence) t.ProxyFence(0, 1);
    t.BulkCopy(0, 0, kOut, Space::kGlobal, Sh(0), Space::kShared, 128, kBulkSite).End();
    RunResult r = Run(t);
    if (fence) {
      CHECK(r.events.empty());
    } else {
      REQUIRE(r.events.size() == 8);
      CHECK(r.events[0].cls == RaceClass::kProxy);
    }
  }
}

TEST_CASE("proxy: a bulk copy overwriting generic writes without a proxy fence is a proxy WAW", "[rules][proxy]") {
  for (bool fence : {false, true}) {
    TraceBuilder t;
    t.Begin(1, 64).Write(1, kAll, Strided(kOut, 4), kWriteSite).BlockBar(0, 2);
    if (fence) t.ProxyFence(0, 1);
    t.BulkCopy(0, 0, kOut, Space::kGlobal, Sh(0), Space::kShared, 128, kBulkSite).End();
    RunResult r = Run(t);
    if (fence) {
      CHECK(r.events.empty());
      continue;
    }
    REQUIRE(r.events.size() == 8);  // one per 16-byte write of the copy
    for (const RaceEvent& e : r.events) {
      CHECK(e.cls == RaceClass::kProxy);
      CHECK(e.kind == RaceKind::kWriteAfterWrite);
      CHECK(e.earlier.site == kWriteSite);
    }
  }
}

TEST_CASE("proxy: async-proxy writes read by a later bulk copy need no proxy fence", "[rules][proxy]") {
  // A copy into shared, observed by its issuer, then copied out again: both
  // accesses are in the async proxy.
  TraceBuilder t;
  t.Begin(1, 32).BulkCopy(0, 0, Sh(0), Space::kShared, kOut, Space::kGlobal, 128, kBulkSite);
  t.AsyncWait(0, 1, 16).BulkCopy(0, 0, kOut + 256, Space::kGlobal, Sh(0), Space::kShared, 128, kBulkSite + 1);
  t.End();
  CHECK(Run(t).events.empty());
}

TEST_CASE("proxy: generic accesses after an observed bulk copy are ordered by its completion", "[rules][proxy]") {
  TraceBuilder t;
  t.Begin(1, 64).BulkCopy(0, 0, Sh(0), Space::kShared, kOut, Space::kGlobal, 128, kBulkSite);
  t.AsyncWait(0, 1, 16).BlockBar(0, 2).Mem(Op::kRead, 1, kAll, ShStrided(0), kWriteSite, 4, Space::kShared);
  t.Write(1, kAll, Strided(kOut, 4), kWriteSite + 1).End();
  CHECK(Run(t).events.empty());
}

}  // namespace
}  // namespace barracuda::detector::testing
