#include "host_detector/reports/tests/report_fixture.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

#include "host_detector/detector/detector.h"
#include "host_detector/detector/tests/trace_builder.h"
#include "ptx_rewriter/parser.h"

namespace barracuda::reports::testing {
namespace {

using detector::testing::Same;
using detector::testing::TraceBuilder;
using protocol::Op;
using protocol::Space;

// nvcc -lineinfo style: .file table, .loc before each statement, one atomic
// inlined from a CUDA header.
constexpr const char* kRacyPtx = R"(.version 8.0
.target sm_75
.address_size 64

.file 1 "/home/user/app/racy kernels.cu"
.file 2 "/usr/local/cuda/include/sm_60_atomic_functions.h"

.visible .entry _Z6racyRWPiS_(
	.param .u64 _Z6racyRWPiS__param_0,
	.param .u64 _Z6racyRWPiS__param_1
)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.loc 1 10 0
	ld.param.u64 %rd1, [_Z6racyRWPiS__param_0];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	.loc 1 12 5
	st.global.u32 [%rd2], %r1;
	.loc 1 15 9
	ld.global.u32 %r2, [%rd2];
	.loc 1 17 3
	.loc 2 107 3, function_name $L__info_string0, inlined_at 1 17 3
	atom.global.add.u32 %r3, [%rd2], 1;
	.loc 1 18 3
	ret;
}

.visible .entry _Z10tileSharedPf(
	.param .u64 _Z10tileSharedPf_param_0
)
{
	.reg .b32 %r<8>;
	.shared .align 4 .b8 tile[256];
	.loc 1 30 0
	mov.u32 %r1, tile;
	.loc 1 31 5
	st.shared.u32 [%r1], %r1;
	.loc 1 33 5
	ld.shared.u32 %r3, [%r1+4];
	ret;
}
)";

// No -lineinfo: reports fall back to PTX lines.
constexpr const char* kNoLineInfoPtx = R"(.version 8.0
.target sm_75
.address_size 64

.visible .entry _Z6reduceIfEvPT_i(
	.param .u64 _Z6reduceIfEvPT_i_param_0,
	.param .u32 _Z6reduceIfEvPT_i_param_1
)
{
	.reg .b64 %rd<4>;
	.reg .f32 %f<4>;
	ld.param.u64 %rd1, [_Z6reduceIfEvPT_i_param_0];
	ld.global.f32 %f1, [%rd1];
	st.global.f32 [%rd1], %f1;
	bar.sync 0;
	ret;
}
)";

ptx::SiteTable Sites(const char* text, const char* name) {
  absl::StatusOr<ptx::Module> module = ptx::ParseModule(text, name);
  INFO(module.status().ToString());
  REQUIRE(module.ok());
  return ptx::BuildSiteTable(*module);
}

// Runs `trace` (one launch) through a detector after giving its kKernelBegin
// the launch's real shape, name id and process id; records the launch.
detector::RaceReport Analyse(const std::vector<TraceBuilder>& traces, const std::vector<LaunchInfo>& launches,
                             ReportContext& context) {
  detector::Detector d;
  for (size_t i = 0; i < traces.size(); ++i) {
    std::vector<protocol::Record> records = traces[i].records();
    REQUIRE(protocol::OpOf(records.front().header) == Op::kKernelBegin);
    protocol::KernelPayload& k = records.front().kernel;
    const LaunchInfo& l = launches[i];
    REQUIRE(uint64_t{k.grid[0]} * k.block[0] == l.grid.Volume() * l.block.Volume());
    k.grid[0] = l.grid.x, k.grid[1] = l.grid.y, k.grid[2] = l.grid.z;
    k.block[0] = l.block.x, k.block[1] = l.block.y, k.block[2] = l.block.z;
    k.static_shared_bytes = l.static_shared_bytes;
    k.launch_id = l.launch_id;
    k.stream_id = l.stream_id;
    k.name_id = l.kernel_name_id;
    k.process_id = l.process_id;
    context.AddLaunch(records.front());
    for (const protocol::Record& r : records) d.Process(r);
  }
  INFO(d.status().ToString());
  REQUIRE(d.status().ok());
  return d.Report();
}

LaunchInfo Launch(uint32_t pid, uint64_t id, uint32_t name_id, Dim3 grid, Dim3 block, uint32_t shared = 0) {
  LaunchInfo l;
  l.process_id = pid;
  l.launch_id = id;
  l.kernel_name_id = name_id;
  l.grid = grid;
  l.block = block;
  l.stream_id = 7;
  l.static_shared_bytes = shared;
  return l;
}

}  // namespace

uint32_t SiteId(const ReportContext& context, uint32_t pid, std::string_view function, std::string_view opcode,
                uint32_t line) {
  const ProcessInfo* p = context.FindProcess(pid);
  REQUIRE(p != nullptr);
  for (const ModuleInfo& m : p->modules) {
    for (const ptx::Site& s : m.sites.sites) {
      if (s.function != function || s.opcode.rfind(opcode, 0) != 0) continue;
      if (line != 0 && (!s.source || s.source->line != line)) continue;
      return m.site_base + s.id;
    }
  }
  FAIL("no site " << opcode << " in " << function << " line " << line);
  return protocol::kNoSite;
}

const ResolvedRace& RaceOf(const std::vector<ResolvedRace>& races, uint32_t pid, detector::RaceKind kind,
                           protocol::Space space) {
  for (const ResolvedRace& r : races) {
    if (r.process_id == pid && r.kind == kind && (r.space == space || kind == detector::RaceKind::kBarrierDivergence)) {
      return r;
    }
  }
  FAIL("no " << detector::RaceKindName(kind) << " race in process " << pid);
  return races.front();
}

std::string ReportOutputPath(const std::string& file_name) {
  const char* env = std::getenv("BARRACUDA_REPORT_OUTPUT_DIR");
  const std::filesystem::path dir = env != nullptr && *env != '\0' ? env : BARRACUDA_REPORT_OUTPUT_DIR;
  std::filesystem::create_directories(dir);
  return (dir / file_name).string();
}

ptx::SiteTable RacySites() { return Sites(kRacyPtx, "racy.ptx"); }

Fixture MakeFixture() {
  Fixture f;
  ReportContext& c = f.context;
  c.SetBackend("emu");
  c.SetCommandLine({"./racy", "--size", "1024"});
  c.SetProcessCommandLine(kPidA, {"./racy", "--size", "1024"});
  c.SetProcessCommandLine(kPidB, {"./reduce"});

  const ptx::SiteTable racy = RacySites();
  const ptx::SiteTable plain = Sites(kNoLineInfoPtx, "nolineinfo.ptx");
  // Process B's module does not start at site 0: ids are program-wide.
  REQUIRE(c.AddModule(kPidA, 0, 0, "racy.ptx", racy).ok());
  REQUIRE(c.AddModule(kPidB, 3, 100, "nolineinfo.ptx", plain).ok());
  c.AddKernelName(kPidA, 0, "_Z6racyRWPiS_");
  c.AddKernelName(kPidA, 1, "_Z10tileSharedPf");
  c.AddKernelName(kPidB, 0, "_Z6reduceIfEvPT_i");
  c.AddAllocation(kPidA, Allocation{kBufBase, 1024, AllocationKind::kDevice, "d_buf"});
  c.AddAllocation(kPidB, Allocation{kScratchBase, 256, AllocationKind::kAsync, "scratch"});
  REQUIRE(c.FreeAllocation(kPidB, kScratchBase));

  const uint32_t w = SiteId(c, kPidA, "_Z6racyRWPiS_", "st.global", 12);
  const uint32_t r = SiteId(c, kPidA, "_Z6racyRWPiS_", "ld.global", 15);
  const uint32_t a = SiteId(c, kPidA, "_Z6racyRWPiS_", "atom.global", 107);
  const uint32_t sw = SiteId(c, kPidA, "_Z10tileSharedPf", "st.shared", 31);
  const uint32_t sr = SiteId(c, kPidA, "_Z10tileSharedPf", "ld.shared", 33);

  // Process A. racyRW: 4 blocks of 64 threads = 2 warps per block, so warp
  // ids 0,1 are block (0,0,0), 2,3 block (1,0,0), 4,5 block (0,1,0).
  TraceBuilder t1;
  t1.Begin(4, 64)
      .Write(0, 1u << 0, Same(kBufBase + 4), w)
      .Read(3, 0xfu << 20, Same(kBufBase + 4), r)  // lanes 20..23 of block 1's warp 1
      .Atomic(4, 1u << 1, Same(kBufBase + 4), a)
      .Write(0, 1u << 2, Same(kUnallocated), w)
      .Write(2, 1u << 2, Same(kUnallocated), w)
      .End();
  // tileShared: one block of 64 threads, 256 bytes of shared memory.
  TraceBuilder t2;
  t2.Begin(1, 64, 256, 2)
      .Mem(Op::kWrite, 0, 1u << 0, Same(protocol::SharedAddress(0, 16)), sw, 4, Space::kShared)
      .Mem(Op::kRead, 1, 1u << 0, Same(protocol::SharedAddress(0, 16)), sr, 4, Space::kShared)
      .Mem(Op::kRead, 0, 1u << 2, Same(protocol::SharedAddress(0, 32)), sr, 4, Space::kShared)
      .Mem(Op::kWrite, 0, 1u << 3, Same(protocol::SharedAddress(0, 32)), sw, 4, Space::kShared)
      .End();
  f.report_a = Analyse({t1, t2},
                       {Launch(kPidA, 1, 0, {2, 2, 1}, {16, 4, 1}), Launch(kPidA, 2, 1, {1, 1, 1}, {64, 1, 1}, 256)},
                       c);

  // Process B. reduce<float>: 2 blocks of 64 threads.
  const uint32_t st = SiteId(c, kPidB, "_Z6reduceIfEvPT_i", "st.global");
  const uint32_t bar = SiteId(c, kPidB, "_Z6reduceIfEvPT_i", "bar.sync");
  TraceBuilder t3;
  t3.Begin(2, 64)
      .Bar(0, 0xffffu, 0, 0, bar)  // half of warp 0: barrier divergence
      .Write(0, 1u << 0, Same(kScratchBase + 8), st)
      .Write(2, 1u << 0, Same(kScratchBase + 8), st)
      .Write(1, 1u << 0, Same(kScratchBase + 64), kUnknownSite)
      .Write(3, 1u << 0, Same(kScratchBase + 64), kUnknownSite)
      .End();
  f.report_b = Analyse({t3}, {Launch(kPidB, 1, 0, {2, 1, 1}, {64, 1, 1})}, c);
  return f;
}

}  // namespace barracuda::reports::testing
