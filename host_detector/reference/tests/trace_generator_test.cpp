// The generator's promises: deterministic, feasible, varied, and racy often
// but not always; the ring splitter keeps stream order per block group.
#include <catch2/catch.hpp>

#include <cstring>
#include <set>

#include "host_detector/reference/reference_detector.h"
#include "host_detector/reference/tests/trace_builder.h"
#include "host_detector/reference/trace_generator.h"

namespace barracuda::reference {
namespace {

using protocol::Op;

TEST_CASE("generator is deterministic for a seed", "[generator]") {
  for (uint64_t seed : {1ull, 42ull, 0xdeadbeefull}) {
    const GeneratedTrace a = GenerateTrace(seed);
    const GeneratedTrace b = GenerateTrace(seed);
    REQUIRE(a.records.size() == b.records.size());
    REQUIRE(std::memcmp(a.records.data(), b.records.data(), a.records.size() * sizeof(protocol::Record)) == 0);
  }
  REQUIRE(DumpTrace(GenerateTrace(1).records) != DumpTrace(GenerateTrace(2).records));
}

TEST_CASE("generated traces are feasible and cover every op", "[generator]") {
  std::set<Op> ops;
  std::set<protocol::Scope> scopes;
  uint32_t racy[2] = {0, 0}, divergent = 0, partial_warps = 0, multi_launch = 0, arrive_then_sync = 0;
  // Wave-2 shapes: fence sides, strong access kinds, scopes and sizes, and
  // message-passing reads that do / do not synchronise (its model).
  std::set<uint8_t> fence_flags, atomic_sizes;
  std::set<protocol::Scope> atomic_scopes;
  uint32_t strong_load = 0, strong_store = 0, strong_rmw = 0, volatiles = 0, mp_synced = 0, mp_racy = 0;
  std::set<RaceKind> race_kinds;
#ifdef BARRACUDA_REFERENCE_SANITIZED
  constexpr uint32_t kTraces = 1000;  // ~10x slower under ASan
#else
  constexpr uint32_t kTraces = 3000;
#endif
  for (uint64_t seed = 0; seed < kTraces; ++seed) {
    const GeneratedTrace trace = GenerateTrace(seed);
    const absl::Status feasible = CheckFeasible(trace.records);
    INFO("seed " << seed << "\n" << feasible.ToString() << "\n" << DumpTrace(trace.records));
    REQUIRE(feasible.ok());
    uint32_t begins = 0;
    for (const protocol::Record& r : trace.records) {
      const Op op = protocol::OpOf(r.header);
      ops.insert(op);
      if (protocol::IsSyncOp(op)) scopes.insert(protocol::ScopeOf(r.header));
      if (op == Op::kKernelBegin) {
        ++begins;
        if (r.kernel.block[0] * r.kernel.block[1] % 32 != 0) ++partial_warps;
      }
      if (op == Op::kBarrierArrive) ++arrive_then_sync;
      if (op == Op::kFence) fence_flags.insert(r.header.flags);
      if (op == Op::kAtomic) {
        atomic_sizes.insert(r.header.access_size);
        atomic_scopes.insert(protocol::ScopeOf(r.header));
        const bool ld = r.header.flags & protocol::kFlagLoad, st = r.header.flags & protocol::kFlagStore;
        strong_load += ld && !st;
        strong_store += st && !ld;
        strong_rmw += ld && st;
        volatiles += (r.header.flags & protocol::kFlagVolatile) != 0;
      }
    }
    if (begins > 1) ++multi_launch;
    for (WarpModel model : {WarpModel::kLockstep, WarpModel::kIts}) {
      ReferenceDetector d(Options{model});
      REQUIRE(d.ProcessAll(trace.records).ok());
      racy[model == WarpModel::kIts] += d.has_race();
      for (const RacyAccess& ra : d.racy_accesses()) race_kinds.insert(ra.race_kind);
      if (model == WarpModel::kIts) {
        divergent += !d.barrier_divergences().empty();
        std::set<AccessRef> racy_reads;
        for (const RacyAccess& ra : d.racy_accesses()) racy_reads.insert(ra.access);
        for (uint64_t i = 0; i < trace.records.size(); ++i) {
          const protocol::Record& r = trace.records[i];
          if (protocol::OpOf(r.header) != Op::kRead) continue;
          for (uint32_t l = 0; l < 32; ++l) {
            if (!(r.header.active_mask >> l & 1) || !IsMessagePassingData(protocol::SpaceOf(r.header), r.addr[l])) continue;
            ++(racy_reads.count(AccessRef{i, l}) ? mp_racy : mp_synced);
          }
        }
      }
    }
  }
  for (uint8_t op = 0; op < static_cast<uint8_t>(Op::kCount); ++op) {
    INFO("op " << protocol::OpName(static_cast<Op>(op)));
    REQUIRE(ops.count(static_cast<Op>(op)) == 1);
  }
  REQUIRE(scopes.size() == 4);
  // Both verdicts must be common, in both models, or the differential test is weak.
  for (uint32_t n : racy) {
    CHECK(n > kTraces / 5);
    CHECK(n < kTraces * 9 / 10);
  }
  CHECK(divergent > 10);
  CHECK(partial_warps > kTraces / 4);
  CHECK(multi_launch > kTraces / 5);
  CHECK(arrive_then_sync > 100);
  REQUIRE(fence_flags.size() == 4);  // both (0 or ld|st), acquire-only, release-only
  REQUIRE(atomic_sizes.count(4) == 1);
  REQUIRE(atomic_sizes.count(8) == 1);
  REQUIRE(atomic_scopes.size() == 4);  // none (= gpu), cta, gpu, sys
  CHECK(strong_load > kTraces / 2);
  CHECK(strong_store > kTraces / 2);
  CHECK(strong_rmw > kTraces / 2);
  CHECK(volatiles > kTraces / 10);
  CHECK(race_kinds.size() == 5);
  INFO("message-passing reads: " << mp_synced << " ordered, " << mp_racy << " racy");
  CHECK(mp_synced > 20 * kTraces);
  CHECK(mp_racy > 10 * kTraces);
}

TEST_CASE("feasibility check rejects what a SIMT machine cannot log", "[generator]") {
  using testing::TraceBuilder;
  {
    TraceBuilder t;  // a lane blocked at a barrier logs again before completion
    t.Begin(1, 64).Bar(0, ~0u).Rd(0, 0, 0x1000).Bar(1, ~0u).End();
    REQUIRE_FALSE(CheckFeasible(t.records()).ok());
  }
  {
    TraceBuilder t;  // the active mask is not the then-side
    t.Begin(1, 32).If(0, ~0u, 1).Rd(0, 1, 0x1000).Else(0, ~1u).Fi(0, ~0u).End();
    REQUIRE_FALSE(CheckFeasible(t.records()).ok());
  }
  {
    TraceBuilder t;  // the same, well-formed
    t.Begin(1, 32).If(0, ~0u, 1).Rd(0, 0, 0x1000).Else(0, ~1u).Fi(0, ~0u).End();
    REQUIRE(CheckFeasible(t.records()).ok());
  }
  {
    TraceBuilder t;  // volatile = relaxed at sys scope, a load or a store
    t.Begin(1, 1).StrongSt(0, 0, 0x1000, protocol::Scope::kSys, 4, protocol::kFlagVolatile).End();
    REQUIRE(CheckFeasible(t.records()).ok());
    TraceBuilder u;
    u.Begin(1, 1).StrongLd(0, 0, 0x1000, protocol::Scope::kCta, 4, protocol::kFlagVolatile).End();
    REQUIRE_FALSE(CheckFeasible(u.records()).ok());
  }
  {
    TraceBuilder t;  // strong accesses are stamped in stream order like fences
    t.Begin(1, 1).StrongRmw(0, 0, 0x1000, protocol::Scope::kGpu).FenceAcq(0, 0, protocol::Scope::kGpu).End();
    REQUIRE(CheckFeasible(t.records()).ok());
    std::vector<protocol::Record> unstamped = t.records();
    unstamped[1].stamp = 0;
    REQUIRE_FALSE(CheckFeasible(unstamped).ok());
  }
  {
    TraceBuilder t;  // exit while the block waits at a whole-block barrier
    t.Begin(1, 64).Bar(0, ~0u).Exit(1, ~0u).End();
    REQUIRE_FALSE(CheckFeasible(t.records()).ok());
  }
}

TEST_CASE("SplitIntoRings keeps each block group in stream order", "[generator]") {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const GeneratedTrace trace = GenerateTrace(seed);
    for (uint32_t n : {1u, 2u, 3u}) {
      const auto rings = SplitIntoRings(trace.records, n);
      REQUIRE(rings.size() == n);
      std::set<uint64_t> seen;
      uint32_t warps_per_block = 1;
      for (const auto& ring : rings) {
        for (size_t i = 0; i < ring.size(); ++i) {
          if (i > 0) REQUIRE(ring[i - 1].stream_index < ring[i].stream_index);
          const protocol::Record& original = trace.records[ring[i].stream_index];
          REQUIRE(std::memcmp(&original, &ring[i].record, sizeof original) == 0);
          seen.insert(ring[i].stream_index);
        }
      }
      REQUIRE(seen.size() == trace.records.size());
      for (const protocol::Record& r : trace.records) {
        if (protocol::OpOf(r.header) == Op::kKernelBegin) {
          warps_per_block = protocol::WarpsPerBlock(r.kernel.block[0] * r.kernel.block[1] * r.kernel.block[2]);
        }
      }
      (void)warps_per_block;
      for (uint32_t k = 0; k < n; ++k) {
        uint32_t wpb = 1;
        for (const RingRecord& rr : rings[k]) {
          const Op op = protocol::OpOf(rr.record.header);
          if (op == Op::kKernelBegin) {
            wpb = protocol::WarpsPerBlock(rr.record.kernel.block[0] * rr.record.kernel.block[1] * rr.record.kernel.block[2]);
          } else if (op != Op::kKernelEnd) {
            REQUIRE((rr.record.header.warp_id / wpb) % n == k);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace barracuda::reference
