// Launch boundaries: kernels on one stream are ordered, state is per launch.
#include <catch2/catch.hpp>

#include "host_detector/detector/tests/trace_builder.h"
#include "shadow_memory/global_shadow.h"

namespace barracuda::detector::testing {
namespace {

TEST_CASE("launches on one stream never race with each other", "[launch]") {
  TraceBuilder t;
  t.Begin(2, 64, 4096, 1).Write(0, 0xffffffffu, Strided(0x1000, 4), 1).End();
  t.Begin(2, 64, 4096, 2).Read(2, 0xffffffffu, Strided(0x1000, 4), 2).End();
  RunResult r = Run(t);
  CHECK(r.events.empty());
  CHECK(r.stats.launches == 2);
}

TEST_CASE("races carry their launch", "[launch]") {
  TraceBuilder t;
  t.Begin(1, 64, 0, 7).Write(0, 1, Same(0x10), 1).Read(1, 1, Same(0x10), 2).End();
  RunResult r = Run(t);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].launch_id == 7);
}

TEST_CASE("memory does not grow with launches", "[launch][memory]") {
  DetectorOptions o;
  Detector d(o);
  size_t clock_bytes_first = 0, shadow_after_first = 0;
  for (int launch = 1; launch <= 100; ++launch) {
    TraceBuilder t;
    t.Begin(8, 128, 1024, launch);
    for (uint32_t w = 0; w < 32; ++w) {
      t.Write(w, 0xffffffffu, Strided(0x100000 + 0x1000 * w + 4 * launch, 4), 1);
      t.AcqRel(protocol::Scope::kGpu, w, 1, 0x9000 + launch * 8);
      t.Mem(Op::kRead, w, 0xffffffffu, Strided(protocol::SharedAddress(w / 4, 0), 4), 2, 4, Space::kShared);
    }
    for (const Record& r : t.records()) d.Process(r);
    if (launch == 1) clock_bytes_first = d.Stats().clock_state_bytes;
    d.Process(TraceBuilder().End().records()[0]);
    if (launch == 1) shadow_after_first = d.Stats().shadow_bytes;
  }
  Statistics s = d.Stats();
  CHECK(s.launches == 100);
  CHECK(s.peak_clock_state_bytes <= clock_bytes_first);
  // Apart from zeroed cells kept resident for reuse (bounded by
  // GlobalShadow::kMaxSpareResidentBytes, however many launches run).
  CHECK(s.shadow_bytes - s.shadow_spare_bytes <= shadow_after_first);
  CHECK(s.shadow_spare_bytes <= shadow::GlobalShadow::kMaxSpareResidentBytes);
  CHECK(s.clock_state_bytes < 4096);  // nothing of the last launch is kept
  CHECK(d.Report().empty());
  CHECK(d.status().ok());
}

TEST_CASE("a new kKernelBegin ends an unterminated launch", "[launch]") {
  TraceBuilder t;
  t.Begin(1, 32).Write(0, 1, Same(0x10), 1).Begin(1, 32, 0, 2).Read(0, 2, Same(0x10), 2).End();
  RunResult r = Run(t);
  CHECK(r.events.empty());
  CHECK(r.stats.launches == 2);
}

TEST_CASE("unsupported launch shapes are rejected", "[launch][robustness]") {
  TraceBuilder t;
  t.Begin(1, 2048).Read(0, 1, Same(0x10), 1);
  RunResult r = Run(t);
  CHECK_FALSE(r.ok);
  CHECK(r.stats.malformed_records == 2);
}

}  // namespace
}  // namespace barracuda::detector::testing
