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
    }
    if (begins > 1) ++multi_launch;
    for (WarpModel model : {WarpModel::kLockstep, WarpModel::kIts}) {
      ReferenceDetector d(Options{model});
      REQUIRE(d.ProcessAll(trace.records).ok());
      racy[model == WarpModel::kIts] += d.has_race();
      if (model == WarpModel::kIts) divergent += !d.barrier_divergences().empty();
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
