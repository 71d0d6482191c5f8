// ReportContext lookups and ResolveRaces over real detector output
// (report_fixture.h): coordinates, names, sites, allocations, order.
#include <catch2/catch.hpp>

#include "host_detector/detector/detector.h"
#include "host_detector/reports/report_context.h"
#include "host_detector/detector/tests/trace_builder.h"
#include "host_detector/reports/tests/report_fixture.h"

namespace barracuda::reports::testing {
namespace {

using detector::RaceClass;
using detector::RaceKind;
using protocol::Space;

TEST_CASE("Unlinearize: x fastest, then y, then z", "[reports][context]") {
  CHECK(Unlinearize(0, {16, 4, 2}) == Dim3{0, 0, 0});
  CHECK(Unlinearize(52, {16, 4, 1}) == Dim3{4, 3, 0});
  CHECK(Unlinearize(16 * 4 + 17, {16, 4, 2}) == Dim3{1, 1, 1});
  CHECK(Unlinearize(5, {0, 0, 0}) == Dim3{0, 0, 5});  // degenerate shape: no division by zero
  for (const uint64_t i : {uint64_t{0}, uint64_t{52}, uint64_t{16 * 4 + 17}, uint64_t{127}})
    CHECK(Linearize(Unlinearize(i, {16, 4, 2}), {16, 4, 2}) == i);
}

TEST_CASE("Demangle: Itanium names only", "[reports][context]") {
  CHECK(Demangle("_Z6racyRWPiS_") == "racyRW(int*, int*)");
  CHECK(Demangle("_Z6reduceIfEvPT_i") == "void reduce<float>(float*, int)");
  CHECK(Demangle("i") == "i");            // extern "C" kernel named i, not the type int
  CHECK(Demangle("my_kernel") == "my_kernel");
  CHECK(Demangle("_Zbroken") == "_Zbroken");  // not demangleable: unchanged
}

TEST_CASE("Site ids are program-wide per process, overlapping modules are refused", "[reports][context]") {
  ReportContext c;
  ptx::SiteTable t;
  t.sites.resize(3);
  for (uint32_t i = 0; i < 3; ++i) t.sites[i].id = i, t.sites[i].ptx_line = 10 + i;
  REQUIRE(c.AddModule(1, 0, 10, "b.ptx", t).ok());
  REQUIRE(c.AddModule(1, 1, 0, "a.ptx", t).ok());
  absl::Status overlap = c.AddModule(1, 2, 12, "c.ptx", t);
  CHECK(absl::IsInvalidArgument(overlap));
  CHECK_THAT(std::string(overlap.message()), Catch::Contains("'c.ptx'") && Catch::Contains("'b.ptx'"));
  CHECK(c.AddModule(2, 0, 0, "other-process.ptx", t).ok());  // another process: own ids

  const ModuleInfo* m = nullptr;
  const ptx::Site* s = c.FindSite(1, 11, &m);
  REQUIRE(s != nullptr);
  CHECK(m->name == "b.ptx");
  CHECK(s->ptx_line == 11);
  CHECK(c.FindSite(1, 2, &m)->ptx_line == 12);
  CHECK(m->name == "a.ptx");
  CHECK(c.FindSite(1, 5) == nullptr);   // between the modules
  CHECK(c.FindSite(1, 13) == nullptr);  // past the last
  CHECK(c.FindSite(1, protocol::kNoSite) == nullptr);
  CHECK(c.FindSite(3, 0) == nullptr);   // unknown process
}

TEST_CASE("Allocations: containing range, replacement on reuse, freed", "[reports][context]") {
  ReportContext c;
  c.AddAllocation(1, {0x1000, 0x100, AllocationKind::kDevice, "a"});
  c.AddAllocation(1, {0x2000, 0x100, AllocationKind::kManaged, "b"});
  CHECK(c.FindAllocation(1, 0x0fff) == nullptr);
  CHECK(c.FindAllocation(1, 0x1000)->label == "a");
  CHECK(c.FindAllocation(1, 0x10ff)->label == "a");
  CHECK(c.FindAllocation(1, 0x1100) == nullptr);
  CHECK(c.FindAllocation(2, 0x1000) == nullptr);  // other process, other address space
  CHECK(c.FreeAllocation(1, 0x1000));
  CHECK_FALSE(c.FreeAllocation(1, 0x1001));
  CHECK(c.FindAllocation(1, 0x1010)->freed);
  // Reuse of the freed range (and part of b) by a new allocation.
  c.AddAllocation(1, {0x1080, 0x1000, AllocationKind::kAsync, "c"});
  CHECK(c.FindAllocation(1, 0x1000) == nullptr);
  CHECK(c.FindAllocation(1, 0x1080)->label == "c");
  CHECK(c.FindAllocation(1, 0x2050)->label == "c");
  CHECK(c.processes().front().allocations.size() == 1);
}

TEST_CASE("ResolveRaces: every race of the fixture, deterministic order", "[reports][context]") {
  Fixture f = MakeFixture();
  const std::vector<ResolvedRace> races = f.Resolve();
  // Process A: RAW, atomic-vs-plain, WAW (launch 1), RAW + WAR shared (launch 2).
  // Process B: barrier divergence, two WAWs. The detector may report more
  // entries (e.g. the atomic against the reads too); at least these.
  REQUIRE(races.size() >= 8);
  for (size_t i = 0; i < races.size(); ++i) CHECK(races[i].ordinal == i + 1);
  // Processes in the order given, launches in order within a process.
  size_t first_b = 0;
  while (first_b < races.size() && races[first_b].process_id == kPidA) first_b++;
  for (size_t i = first_b; i < races.size(); ++i) CHECK(races[i].process_id == kPidB);
  for (size_t i = 1; i < first_b; ++i) CHECK(races[i - 1].launch_id <= races[i].launch_id);

  SECTION("RAW inter-block: 2-D coordinates, demangled kernel, allocation offset") {
    const ResolvedRace& r = RaceOf(races, kPidA, RaceKind::kReadAfterWrite);
    CHECK(r.cls == RaceClass::kInterBlock);
    CHECK(r.count == 4);
    CHECK(r.kernel == "racyRW(int*, int*)");
    CHECK(r.kernel_mangled == "_Z6racyRWPiS_");
    REQUIRE(r.launch != nullptr);
    CHECK(r.launch->stream_id == 7);
    CHECK(r.earlier.op == protocol::Op::kWrite);
    CHECK(r.earlier.thread == Dim3{0, 0, 0});
    CHECK(r.earlier.block == Dim3{0, 0, 0});
    CHECK(r.later.op == protocol::Op::kRead);
    CHECK(r.later.thread == Dim3{4, 3, 0});  // in-block thread 52 = 32 + lane 20 of a 16x4 block
    CHECK(r.later.block == Dim3{1, 0, 0});
    CHECK(r.later.warp == 1);
    CHECK(r.later.lane == 20);
    CHECK(r.later.access_size == 4);
    REQUIRE(r.earlier.site != nullptr);
    REQUIRE(r.earlier.site->source.has_value());
    CHECK(r.earlier.site->source->line == 12);
    CHECK(r.later.site->source->line == 15);
    CHECK(AccessLocationText(r.later) == std::string(kSourceFile) + ":15");
    REQUIRE(r.allocation.has_value());
    CHECK(r.allocation->base == kBufBase);
    CHECK(r.allocation->offset == 4);
    CHECK(r.allocation->size == 1024);
    CHECK(r.allocation->kind == "device");
    CHECK(r.allocation->label == "d_buf");
  }
  SECTION("atomic-vs-plain: block (0,1,0), atomic inlined from a header") {
    const ResolvedRace& r = RaceOf(races, kPidA, RaceKind::kAtomicVsPlain);
    CHECK(r.later.op == protocol::Op::kAtomic);
    CHECK(r.later.block == Dim3{0, 1, 0});
    CHECK(r.later.thread == Dim3{1, 0, 0});
    REQUIRE(r.later.site != nullptr);
    CHECK(r.later.site->source->line == 107);
    REQUIRE(r.later.site->inlined_at.has_value());
    CHECK(r.later.site->inlined_at->line == 17);
  }
  SECTION("a global address in no allocation") {
    bool found = false;
    for (const ResolvedRace& r : races) {
      if (r.process_id == kPidA && r.address == kUnallocated) {
        found = true;
        CHECK(r.kind == RaceKind::kWriteAfterWrite);
        CHECK_FALSE(r.allocation.has_value());
      }
    }
    CHECK(found);
  }
  SECTION("shared memory: offset in the block's window, the window as allocation") {
    const ResolvedRace& raw = RaceOf(races, kPidA, RaceKind::kReadAfterWrite, Space::kShared);
    CHECK(raw.cls == RaceClass::kIntraBlock);
    CHECK(raw.address == 16);
    CHECK(raw.shared_block == 0);
    CHECK(raw.kernel == "tileShared(float*)");
    REQUIRE(raw.allocation.has_value());
    CHECK(raw.allocation->kind == "shared");
    CHECK(raw.allocation->offset == 16);
    CHECK(raw.allocation->size == 256);
    CHECK(raw.allocation->label == "shared memory of block (0,0,0)");
    const ResolvedRace& war = RaceOf(races, kPidA, RaceKind::kWriteAfterRead, Space::kShared);
    CHECK(war.cls == RaceClass::kIntraWarp);
    CHECK(war.earlier.lane == 2);
    CHECK(war.later.lane == 3);
  }
  SECTION("process B: PTX-only sites, freed allocation, unknown site, barrier divergence") {
    const ResolvedRace& bar = RaceOf(races, kPidB, RaceKind::kBarrierDivergence);
    CHECK(bar.kernel == "void reduce<float>(float*, int)");
    CHECK_FALSE(bar.allocation.has_value());
    REQUIRE(bar.later.site != nullptr);
    CHECK_FALSE(bar.later.site->source.has_value());
    CHECK(bar.later.module->name == "nolineinfo.ptx");
    CHECK(AccessLocationText(bar.later) == "nolineinfo.ptx:" + std::to_string(bar.later.site->ptx_line));
    CHECK(bar.later.site_id >= 100);  // the module's site_base
    int waws = 0;
    for (const ResolvedRace& r : races) {
      if (r.process_id != kPidB || r.kind != RaceKind::kWriteAfterWrite) continue;
      waws++;
      REQUIRE(r.allocation.has_value());
      CHECK(r.allocation->freed);
      CHECK(r.allocation->kind == "async");
      if (r.later.site_id == kUnknownSite) {
        CHECK(r.later.site == nullptr);
        CHECK(AccessLocationText(r.later) == "site 999999");
        CHECK(r.allocation->offset == 64);
      } else {
        CHECK(r.allocation->offset == 8);
      }
    }
    CHECK(waws == 2);
  }
  SECTION("the same reports resolve to the same list (no hidden state)") {
    const std::vector<ResolvedRace> again = f.Resolve();
    REQUIRE(again.size() == races.size());
    for (size_t i = 0; i < races.size(); ++i) {
      CHECK(again[i].key == races[i].key);
      CHECK(again[i].process_id == races[i].process_id);
    }
  }
}

TEST_CASE("ResolveRaces: code order, whatever order the races were detected in", "[reports][context]") {
  using detector::testing::Same;
  using detector::testing::TraceBuilder;
  // Blocks 0 and 1 both write A (site 3) and B (site 1); block 1 in the order
  // given, so the WAW on B or the one on A is detected first.
  auto run = [](bool a_first) {
    TraceBuilder t;
    t.Begin(2, 64).Write(0, 1, Same(0x100), 3).Write(0, 1, Same(0x200), 1);
    if (a_first) {
      t.Write(2, 1, Same(0x100), 3).Write(2, 1, Same(0x200), 1);
    } else {
      t.Write(2, 1, Same(0x200), 1).Write(2, 1, Same(0x100), 3);
    }
    t.End();
    detector::Detector d;
    for (const protocol::Record& r : t.records()) d.Process(r);
    return d.Report();
  };
  const detector::RaceReport a_first = run(true), b_first = run(false);
  REQUIRE(a_first.size() == 2);
  REQUIRE(b_first.size() == 2);
  REQUIRE(a_first.entries()[0].key.earlier_site == 3);  // detection order differs...
  REQUIRE(b_first.entries()[0].key.earlier_site == 1);
  ReportContext c;
  const std::vector<ProcessRaces> in_a = {{1, &a_first}}, in_b = {{1, &b_first}};
  const std::vector<ResolvedRace> ra = ResolveRaces(c, in_a), rb = ResolveRaces(c, in_b);
  REQUIRE(ra.size() == 2);
  REQUIRE(rb.size() == 2);
  for (size_t i = 0; i < 2; ++i) CHECK(ra[i].key == rb[i].key);  // ...the report order does not
  CHECK(ra[0].key.earlier_site == 1);                          // site order: B's race first
  CHECK(ra[1].key.earlier_site == 3);
}

TEST_CASE("ResolveRaces without side tables: linear ids and placeholders", "[reports][context]") {
  Fixture f = MakeFixture();
  ReportContext empty;
  std::vector<ProcessRaces> in = f.Inputs();
  const std::vector<ResolvedRace> races = ResolveRaces(empty, in);
  REQUIRE_FALSE(races.empty());
  for (const ResolvedRace& r : races) {
    CHECK(r.launch == nullptr);
    CHECK_FALSE(r.later.thread.has_value());
    CHECK(r.later.site == nullptr);
    CHECK(r.kernel.rfind("kernel#", 0) == 0);
    CHECK(r.kernel_mangled.empty());
  }
  const ResolvedRace& raw = RaceOf(races, kPidA, RaceKind::kReadAfterWrite);
  CHECK(raw.later.thread_linear == 64 + 32 + 20);
  CHECK(raw.later.block_linear == 1);
  CHECK(raw.later.warp == 3);  // grid-unique warp id when the shape is unknown
}

}  // namespace
}  // namespace barracuda::reports::testing
