// Real races for the report tests: hand-built record streams (trace_builder.h)
// run through the real Detector, with real site tables built from PTX text by
// ptx_rewriter, for two processes:
//
// process 4242 (module racy.ptx, built with -lineinfo, file "/home/user/app/racy kernels.cu"):
//   launch 1  racyRW(int*, int*)  grid (2,2,1) block (16,4,1), allocation d_buf
//     RAW inter-block   global  write line 12 / read line 15 (4 occurrences)
//     atomic-vs-plain   global  write line 12 / atomicAdd inlined at line 17
//     WAW inter-block   global  at 0x9000 (in no allocation)
//   launch 2  tileShared(float*)  grid (1,1,1) block (64,1,1), 256 shared bytes
//     RAW intra-block   shared  line 31 / line 33
//     WAR intra-warp    shared  line 33 / line 31
// process 4243 (module nolineinfo.ptx, no .loc):
//   launch 1  void reduce<float>(float*, int)  grid (2,1,1) block (64,1,1)
//     barrier divergence        (bar.sync by 16 of 32 lanes)
//     WAW inter-block   global  freed allocation "scratch"
//     WAW inter-block   global  site id outside every site table
#ifndef BARRACUDA_HOST_DETECTOR_TESTS_REPORT_FIXTURE_H_
#define BARRACUDA_HOST_DETECTOR_TESTS_REPORT_FIXTURE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "host_detector/reports/report_context.h"
#include "host_detector/detector/report_model.h"

namespace barracuda::reports::testing {

inline constexpr uint32_t kPidA = 4242;
inline constexpr uint32_t kPidB = 4243;
inline constexpr uint64_t kBufBase = 0x7f0000001000;  // d_buf, 1024 bytes
inline constexpr uint64_t kScratchBase = 0x7f0000100000;  // scratch, 256 bytes, freed
inline constexpr uint64_t kUnallocated = 0x9000;
inline constexpr uint32_t kUnknownSite = 999999;
inline constexpr const char* kSourceFile = "/home/user/app/racy kernels.cu";

struct Fixture {
  ReportContext context;
  detector::RaceReport report_a;  // process 4242
  detector::RaceReport report_b;  // process 4243
  std::vector<ProcessRaces> Inputs() const { return {{kPidA, &report_a}, {kPidB, &report_b}}; }
  std::vector<ResolvedRace> Resolve() const {
    std::vector<ProcessRaces> in = Inputs();
    return ResolveRaces(context, in);
  }
};

// Builds the fixture (parses PTX, runs the detector); REQUIREs inside.
Fixture MakeFixture();

// Process A's module (racy.ptx), for a test that adds another run of the same
// program (schedule exploration).
ptx::SiteTable RacySites();

// Program-wide id of the site in `function` whose opcode starts with `opcode`
// (and, when line != 0, whose source line is `line`); fails the test if none.
uint32_t SiteId(const ReportContext& context, uint32_t pid, std::string_view function,
                std::string_view opcode, uint32_t line = 0);

// The first resolved race of `kind` in process `pid` (REQUIREs one exists).
const ResolvedRace& RaceOf(const std::vector<ResolvedRace>& races, uint32_t pid, detector::RaceKind kind,
                           protocol::Space space = protocol::Space::kGlobal);

// Where [report-files] tests write reports: $BARRACUDA_REPORT_OUTPUT_DIR, else
// the build tree's report_outputs directory. Created when missing.
std::string ReportOutputPath(const std::string& file_name);

}  // namespace barracuda::reports::testing

#endif  // BARRACUDA_HOST_DETECTOR_TESTS_REPORT_FIXTURE_H_
