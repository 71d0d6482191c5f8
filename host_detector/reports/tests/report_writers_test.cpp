// The text, JSON and SARIF writers over the fixture's real races. Text:
// golden lines for one race of each shape and the summary. JSON and SARIF:
// field checks here; test cases tagged [report-files] also write their
// reports to disk, and the CTest report_schemas validates those files against
// barracuda-report-v2 and the official SARIF 2.1.0 schema.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "host_detector/reports/race_grouping.h"
#include "host_detector/reports/report_json.h"
#include "host_detector/reports/report_sarif.h"
#include "host_detector/reports/report_text.h"
#include "host_detector/reports/suppressions.h"
#include "host_detector/reports/memory_errors.h"
#include "host_detector/reports/tests/report_fixture.h"

namespace barracuda::reports::testing {
namespace {

using detector::RaceKind;
using nlohmann::json;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The block of text lines of race #n ("Race #n: ..." up to the blank line).
std::vector<std::string> Block(const std::string& text, uint64_t n) {
  const std::vector<std::string> lines = Lines(text);
  const std::string head = std::string(kTextPrefix) + "Race #" + std::to_string(n) + ":";
  std::vector<std::string> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind(head, 0) != 0) continue;
    for (size_t j = i; j < lines.size() && lines[j] != "========= "; ++j) out.push_back(lines[j]);
    break;
  }
  return out;
}

void WriteBoth(const ReportData& d, const ReportContext& c, const std::string& stem) {
  REQUIRE(WriteJsonFile(JsonReport(d, c), ReportOutputPath(stem + ".json")).ok());
  REQUIRE(WriteJsonFile(SarifReport(d, c), ReportOutputPath(stem + ".sarif")).ok());
  // The text too, for people reviewing a change of format (not validated).
  std::ofstream(ReportOutputPath(stem + ".txt")) << TextReport(d, c);
}

const json& ResultWithRule(const json& sarif, const std::string& rule) {
  for (const json& r : sarif["runs"][0]["results"]) {
    if (r["ruleId"] == rule) return r;
  }
  FAIL("no SARIF result with rule " << rule);
  return sarif;
}

TEST_CASE("Text: one compute-sanitizer style block per race, then a summary", "[reports][text]") {
  const Fixture f = MakeFixture();
  const ReportData d = FilterRaces(f.Resolve(), nullptr, std::nullopt);
  const std::string text = TextReport(d, f.context);
  for (const std::string& line : Lines(text)) CHECK(line.rfind(kTextPrefix, 0) == 0);

  const ResolvedRace& raw = RaceOf(d.races, kPidA, RaceKind::kReadAfterWrite);
  const std::vector<std::string> block = Block(text, raw.ordinal);
  const std::string ptx_w = std::to_string(raw.earlier.site->ptx_line);
  const std::string ptx_r = std::to_string(raw.later.site->ptx_line);
  const std::vector<std::string> expected = {
      "========= Race #" + std::to_string(raw.ordinal) +
          ": read-after-write (RAW) race (inter-block) on global memory [4 occurrences]",
      "=========     First:  Write of 4 bytes by thread (0,0,0) in block (0,0,0) (warp 0, lane 0)",
      "=========             at /home/user/app/racy kernels.cu:12:5 in racyRW(int*, int*) [PTX racy.ptx:" + ptx_w +
          " st.global.u32]",
      "=========     Second: Read of 4 bytes by thread (4,3,0) in block (1,0,0) (warp 1, lane 20)",
      "=========             at /home/user/app/racy kernels.cu:15:9 in racyRW(int*, int*) [PTX racy.ptx:" + ptx_r +
          " ld.global.u32]",
      "=========     Address 0x7f0000001004 = 0x7f0000001000 + 4 in device allocation 'd_buf' of 1024 bytes",
      "=========     Kernel racyRW(int*, int*), launch 1 (grid (2,2,1), block (16,4,1), stream 7), process 4242",
  };
  CHECK(block == expected);

  SECTION("atomic inlined from a header names the call site") {
    const ResolvedRace& r = RaceOf(d.races, kPidA, RaceKind::kAtomicVsPlain);
    const std::vector<std::string> b = Block(text, r.ordinal);
    REQUIRE(b.size() == 7);
    CHECK_THAT(b[0], Catch::Contains("atomic-vs-plain race (inter-block) on global memory [1 occurrence]"));
    CHECK(b[3] == "=========     Second: Atomic of 4 bytes by thread (1,0,0) in block (0,1,0) (warp 0, lane 1)");
    CHECK_THAT(b[4], Catch::StartsWith("=========             at /usr/local/cuda/include/sm_60_atomic_functions.h:107:3 "
                                       "(inlined at /home/user/app/racy kernels.cu:17:3) in racyRW(int*, int*) [PTX racy.ptx:"));
  }
  SECTION("shared memory: offset in the block's window") {
    const ResolvedRace& r = RaceOf(d.races, kPidA, RaceKind::kReadAfterWrite, protocol::Space::kShared);
    const std::vector<std::string> b = Block(text, r.ordinal);
    REQUIRE(b.size() == 7);
    CHECK_THAT(b[0], Catch::EndsWith("read-after-write (RAW) race (intra-block) on shared memory [1 occurrence]"));
    CHECK(b[5] == "=========     Address shared offset 0x10 in the 256-byte shared memory of block (0,0,0)");
    CHECK(b[6] == "=========     Kernel tileShared(float*), launch 2 (grid (1,1,1), block (64,1,1), stream 7), process 4242");
  }
  SECTION("no -lineinfo: PTX file and line; freed allocation; unknown site") {
    const ResolvedRace& bar = RaceOf(d.races, kPidB, RaceKind::kBarrierDivergence);
    const std::vector<std::string> b = Block(text, bar.ordinal);
    REQUIRE(b.size() == 4);
    CHECK_THAT(b[0], Catch::EndsWith(": barrier divergence [1 occurrence]"));
    CHECK(b[1] == "=========     Barrier reached by part of a warp: thread (0,0,0) in block (0,0,0) (warp 0, lane 0)");
    CHECK(b[2] == "=========         at PTX nolineinfo.ptx:" + std::to_string(bar.later.site->ptx_line) +
                      " bar.sync in void reduce<float>(float*, int)");
    CHECK(b[3] == "=========     Kernel void reduce<float>(float*, int), launch 1 (grid (2,1,1), block (64,1,1), stream 7), process 4243");
    bool unknown = false, freed = false;
    for (const ResolvedRace& r : d.races) {
      if (r.process_id != kPidB || r.kind != RaceKind::kWriteAfterWrite) continue;
      const std::vector<std::string> w = Block(text, r.ordinal);
      REQUIRE(w.size() == 7);
      CHECK_THAT(w[5], Catch::Contains("in async allocation 'scratch' of 256 bytes (freed since)"));
      freed = true;
      if (r.later.site_id == kUnknownSite) {
        unknown = true;
        CHECK(w[4] == "=========             at site 999999 (no site table)");
      }
    }
    CHECK((unknown && freed));
  }
  SECTION("an address in no allocation says so") {
    CHECK_THAT(text, Catch::Contains("Address 0x9000 (in no known allocation)"));
  }
  SECTION("summary line") {
    const std::vector<std::string> lines = Lines(text);
    REQUIRE_FALSE(lines.empty());
    uint64_t dynamic = 0;
    size_t n[5] = {};
    for (const ResolvedRace& r : d.races) dynamic += r.count, n[static_cast<int>(r.kind)]++;
    std::string kinds;
    const char* names[5] = {"RAW", "WAR", "WAW", "atomic-vs-plain", "barrier-divergence"};
    for (int k = 0; k < 5; ++k) {
      if (n[k] != 0) kinds += (kinds.empty() ? "" : ", ") + std::to_string(n[k]) + " " + names[k];
    }
    CHECK(lines.back() == "========= BARRACUDA SUMMARY: " + std::to_string(d.races.size()) + " races (" + kinds +
                              "), " + std::to_string(dynamic) + " racy accesses");
  }
}

TEST_CASE("Text: a not-morally-strong race says which condition fails", "[reports][text]") {
  ptx::Site first, second;
  ResolvedRace r;
  r.kind = RaceKind::kNotMorallyStrong;
  r.cls = detector::RaceClass::kInterBlock;
  r.earlier.site = &first;
  r.later.site = &second;
  first.opcode = "atom.global.cta.add.u32";
  second.opcode = "atom.global.add.u32";  // gpu scope by default
  CHECK(RaceKindsAndClassesText(r) ==
        "race between strong accesses that are not morally strong (the first access is at .cta scope and the other "
        "thread is in another block) (inter-block)");
  second.opcode = "red.relaxed.cta.global.add.u32";
  CHECK_THAT(RaceKindsAndClassesText(r), Catch::Contains("(both accesses are at .cta scope and the other thread"));
  first.opcode = "ld.volatile.global.u32";  // relaxed at system scope
  second.opcode = "atom.relaxed.cluster.global.exch.b32";
  CHECK_THAT(RaceKindsAndClassesText(r), Catch::Contains("(the second access is at .cluster scope and the other "
                                                         "thread is in another cluster)"));
  second.opcode = "atom.global.add.u64";
  CHECK_THAT(RaceKindsAndClassesText(r), Catch::Contains("(sizes differ: 4 and 8 bytes)"));
  second.opcode = "st.relaxed.gpu.global.v2.u32";
  CHECK_THAT(RaceKindsAndClassesText(r), Catch::Contains("(sizes differ: 4 and 8 bytes)"));
  r.later.site = nullptr;  // no site table
  CHECK_THAT(RaceKindsAndClassesText(r), Catch::Contains("(scope or size)"));
}

TEST_CASE("Text: a dsmem-lifetime race names the owner's exit and what orders the access before it", "[reports][text]") {
  Fixture f = MakeFixture();
  ReportData d = FilterRaces(f.Resolve(), nullptr, std::nullopt);
  REQUIRE_FALSE(d.races.empty());
  ResolvedRace& r = d.races.front();
  r.kind = RaceKind::kSharedLifetime;
  r.variants.clear();
  r.later.op = protocol::Op::kExit;  // the exit of the owner's last thread: no site
  r.later.site = nullptr;
  r.later.site_id = protocol::kNoSite;
  r.later.access_size = 0;
  const std::vector<std::string> block = Block(TextReport(d, f.context), r.ordinal);
  REQUIRE(block.size() >= 6);
  CHECK_THAT(block[0], Catch::Contains("distributed shared memory access not ordered before the owner block's exit"));
  CHECK_THAT(block[3], Catch::StartsWith("=========     Second: Exit by thread"));
  CHECK(block[4] == "=========             at the thread's ret or exit (no source line)");
  bool hint = false;
  for (const std::string& line : block) hint |= line.find("cluster.sync() or barrier.cluster before the owner exits") != std::string::npos;
  CHECK(hint);
}

TEST_CASE("Text: the missing-acquire hint fits where the writer is", "[reports][text]") {
  ResolvedRace r;
  r.unacquired_release = true;
  r.cls = detector::RaceClass::kInterBlock;
  const std::string other_block = UnacquiredReleaseHint(r);
  CHECK_THAT(other_block, Catch::Contains("no device-scope fence followed that read"));
  CHECK_THAT(other_block, Catch::Contains("add __threadfence() after the observing read"));
  r.cls = detector::RaceClass::kIntraBlock;  // e.g. a read between a barrier's arrive and its wait
  const std::string same_block = UnacquiredReleaseHint(r);
  CHECK_THAT(same_block, Catch::Contains("a thread of this block observed the writer's release"));
  CHECK_THAT(same_block, Catch::Contains("the barrier's wait"));
  CHECK_THAT(same_block, !Catch::Contains("__threadfence()"));
}

TEST_CASE("Text: suppressed, limited, incomplete, empty", "[reports][text]") {
  Fixture f = MakeFixture();
  const SuppressionSet set = *SuppressionSet::Parse("kind=RAW\n", "my.supp");
  const ReportData d = FilterRaces(f.Resolve(), &set, 2);
  f.context.MarkIncomplete("the app was killed by SIGSEGV; the daemon drained what it could");
  f.context.AddNote("1234 records lost: ring overflow");
  const std::vector<std::string> lines = Lines(TextReport(d, f.context));
  REQUIRE(lines.size() >= 4);
  const size_t n = lines.size();
  CHECK_THAT(lines[n - 4], Catch::StartsWith("========= BARRACUDA SUMMARY: 2 races ("));
  CHECK_THAT(lines[n - 4], Catch::EndsWith("; 2 suppressed (5 accesses); " + std::to_string(d.omitted.races) +
                                           " more not shown (--max-reports 2); analysis INCOMPLETE"));
  CHECK(lines[n - 3] == "========= Suppressed by my.supp:1 (kind=RAW): 2 races");
  CHECK(lines[n - 2] == "========= Analysis INCOMPLETE: the app was killed by SIGSEGV; the daemon drained what it "
                        "could; races in the part not analysed are missing");
  CHECK(lines[n - 1] == "========= Note: 1234 records lost: ring overflow");
  CHECK(Block(TextReport(d, f.context), 3).empty());

  const ReportData none = FilterRaces({}, nullptr, std::nullopt);
  CHECK(TextReport(none, ReportContext()) == "========= BARRACUDA SUMMARY: 0 races\n");
}

TEST_CASE("JSON: versioned document with every race", "[reports][json][report-files]") {
  const Fixture f = MakeFixture();
  const ReportData d = FilterRaces(f.Resolve(), nullptr, std::nullopt);
  const json j = JsonReport(d, f.context);
  WriteBoth(d, f.context, "full");

  CHECK(j["format"] == "barracuda-report");
  CHECK(j["version"] == 2);
  CHECK(j["tool"]["name"] == "barracuda");
  CHECK(j["run"]["backend"] == "emu");
  CHECK(j["run"]["warp_model"] == "its");
  CHECK(j["run"]["command_line"] == json({"./racy", "--size", "1024"}));
  CHECK(j["run"]["complete"] == true);
  REQUIRE(j["processes"].size() == 2);
  CHECK(j["processes"][0]["pid"] == kPidA);
  CHECK(j["processes"][1]["modules"][0]["site_base"] == 100);
  CHECK(j["processes"][1]["modules"][0]["name"] == "nolineinfo.ptx");
  REQUIRE(j["races"].size() == d.races.size());
  CHECK(j["summary"]["races"] == d.races.size());
  CHECK(j["summary"]["by_kind"]["barrier-divergence"] == 1);
  CHECK(j["summary"]["found"]["races"] == d.races.size());
  CHECK(j["summary"]["max_reports"].is_null());

  const ResolvedRace& raw = RaceOf(d.races, kPidA, RaceKind::kReadAfterWrite);
  const json& r = j["races"][raw.ordinal - 1];
  CHECK(r["id"] == raw.ordinal);
  CHECK(r["kind"] == "RAW");
  CHECK(r["class"] == "inter-block");
  CHECK(r["space"] == "global");
  CHECK(r["count"] == 4);
  CHECK(r["process_id"] == kPidA);
  CHECK(r["kernel"]["name"] == "racyRW(int*, int*)");
  CHECK(r["kernel"]["mangled"] == "_Z6racyRWPiS_");
  CHECK(r["kernel"]["grid"] == json({2, 2, 1}));
  CHECK(r["kernel"]["block"] == json({16, 4, 1}));
  CHECK(r["kernel"]["stream"] == 7);
  CHECK(r["address"] == "0x7f0000001004");
  CHECK(r["shared_block"].is_null());
  CHECK(r["allocation"] == json({{"base", "0x7f0000001000"}, {"offset", 4}, {"size", 1024}, {"kind", "device"},
                                 {"label", "d_buf"}, {"freed", false}}));
  CHECK(r["first"]["operation"] == "write");
  // The detector keeps no size for the earlier access: its site (st.global.u32) gives it.
  CHECK(r["first"]["size"] == 4);
  CHECK(r["second"]["operation"] == "read");
  CHECK(r["second"]["thread"] == json({4, 3, 0}));
  CHECK(r["second"]["block"] == json({1, 0, 0}));
  CHECK(r["second"]["thread_linear"] == 116);
  CHECK(r["second"]["size"] == 4);
  CHECK(r["second"]["site"]["module"] == "racy.ptx");
  CHECK(r["second"]["site"]["function"] == "_Z6racyRWPiS_");
  CHECK(r["second"]["site"]["opcode"] == "ld.global.u32");
  CHECK(r["second"]["site"]["source"] == json({{"file", kSourceFile}, {"line", 15}, {"column", 9}}));
  CHECK(r["second"]["site"]["inlined_at"].is_null());

  const ResolvedRace& shared = RaceOf(d.races, kPidA, RaceKind::kReadAfterWrite, protocol::Space::kShared);
  CHECK(j["races"][shared.ordinal - 1]["address"] == "0x10");
  CHECK(j["races"][shared.ordinal - 1]["shared_block"] == 0);
  CHECK(j["races"][shared.ordinal - 1]["allocation"]["kind"] == "shared");

  const ResolvedRace& bar = RaceOf(d.races, kPidB, RaceKind::kBarrierDivergence);
  const json& b = j["races"][bar.ordinal - 1];
  CHECK(b["address"].is_null());
  CHECK(b["space"].is_null());  // an instruction's misuse: no memory space
  CHECK(b["allocation"].is_null());
  CHECK(b["second"]["operation"] == "barrier");
  CHECK(b["second"]["site"]["source"].is_null());
  CHECK(b["second"]["site"]["ptx_line"] == bar.later.site->ptx_line);
}

TEST_CASE("JSON, SARIF and text name the emulator schedule", "[reports][json][sarif][text][report-files]") {
  Fixture f = MakeFixture();
  const ReportData d = FilterRaces(f.Resolve(), nullptr, std::nullopt);
  CHECK(JsonReport(d, f.context)["run"]["schedule"].is_null());  // not said (e.g. a GPU run)
  f.context.SetSchedule(Schedule{"random", 7, ""});
  const json j = JsonReport(d, f.context);
  WriteBoth(d, f.context, "scheduled");
  CHECK(j["run"]["schedule"] == json({{"policy", "random"}, {"seed", 7}}));
  CHECK(SarifReport(d, f.context)["runs"][0]["properties"]["schedule"]["seed"] == 7);
  const std::string text = TextReport(d, f.context);
  CHECK(text.find("Emulator schedule: random, seed 7 (replay: barracuda --seed 7 --schedule-policy random)") !=
        std::string::npos);
  f.context.SetSchedule(Schedule{"cd", 0, "--delays 1:0:17"});
  CHECK(TextReport(d, f.context).find("Emulator schedule: cd, --delays 1:0:17 (replay: barracuda --schedule-policy "
                                      "cd --delays 1:0:17)") != std::string::npos);
  CHECK(JsonReport(d, f.context)["run"]["schedule"]["arguments"] == "--delays 1:0:17");
  f.context.SetSchedule(Schedule{"round-robin", 0, ""});  // the default: not repeated in the text
  CHECK(TextReport(d, f.context).find("Emulator schedule") == std::string::npos);
}

TEST_CASE("Schedule exploration: one entry per race over the schedules' processes", "[reports][schedules]") {
  auto race = [](uint32_t pid, const char* kernel, uint32_t a, uint32_t b, detector::RaceKind kind, uint64_t count) {
    ResolvedRace r;
    r.process_id = pid;
    r.kernel_mangled = kernel;
    r.key = {a, b, kind, detector::RaceClass::kInterBlock};
    r.kind = kind;
    r.count = count;
    return r;
  };
  using K = detector::RaceKind;
  std::vector<ResolvedRace> in = {race(10, "_Z1kv", 3, 5, K::kWriteAfterWrite, 2),
                                  race(11, "_Z1kv", 3, 5, K::kWriteAfterWrite, 4),  // same race, schedule 2
                                  race(11, "_Z1kv", 3, 5, K::kReadAfterWrite, 1),   // another kind
                                  race(12, "_Z1gv", 3, 5, K::kWriteAfterWrite, 1),  // another kernel
                                  race(12, "_Z1kv", 3, 5, K::kWriteAfterWrite, 3)};
  const std::vector<ResolvedRace> out = MergeAcrossSchedules(std::move(in));
  REQUIRE(out.size() == 3);
  CHECK(out[0].process_id == 10);
  CHECK(out[0].count == 9);
  REQUIRE(out[0].seen_in.size() == 3);
  CHECK(out[0].seen_in[1].process_id == 11);
  CHECK(out[0].seen_in[1].count == 4);
  CHECK(out[1].kind == K::kReadAfterWrite);
  CHECK(out[1].seen_in.size() == 1);
  CHECK(out[2].kernel_mangled == "_Z1gv");
  CHECK(out[2].ordinal == 3);

  // Schedule numbers follow the processes' order; a repeated schedule (a
  // forked child) keeps its number.
  ReportContext ctx;
  ctx.SetProcessSchedule(10, {"round-robin", 0, ""});
  ctx.SetProcessSchedule(11, {"random", 1, ""});
  ctx.SetProcessSchedule(13, {"random", 1, ""});
  ctx.SetProcessSchedule(12, {"random", 2, ""});
  CHECK(ctx.Schedules().size() == 3);
  CHECK(ctx.ScheduleNumber(12) == 3);
  CHECK(ctx.ScheduleNumber(13) == 2);
  CHECK(ctx.ScheduleNumber(99) == 0);
  CHECK(ReplayText({"pct", 4, "--pct-depth 3 --pct-horizon 90"}) ==
        "barracuda --seed 4 --schedule-policy pct --pct-depth 3 --pct-horizon 90");
  CHECK(ScheduleText({"round-robin", 0, ""}) == "round-robin");
}

TEST_CASE("JSON and SARIF: filtered, incomplete and empty reports", "[reports][json][sarif][report-files]") {
  Fixture f = MakeFixture();
  const SuppressionSet set = *SuppressionSet::Parse("kernel=tileShared\n", "app.supp");
  const ReportData d = FilterRaces(f.Resolve(), &set, 3);
  f.context.MarkIncomplete("the app crashed (SIGSEGV)");
  f.context.AddNote("12 records lost");
  WriteBoth(d, f.context, "filtered_incomplete");
  const json j = JsonReport(d, f.context);
  CHECK(j["run"]["complete"] == false);
  CHECK(j["run"]["incomplete_reasons"] == json({"the app crashed (SIGSEGV)"}));
  CHECK(j["run"]["notes"] == json({"12 records lost"}));
  CHECK(j["summary"]["max_reports"] == 3);
  CHECK(j["summary"]["races"] == 3);
  CHECK(j["summary"]["suppressed"]["races"] == 2);
  CHECK(j["summary"]["suppressed"]["rules"][0]["where"] == "app.supp:1");
  CHECK(j["summary"]["omitted"]["races"] == d.omitted.races);
  const json s = SarifReport(d, f.context);
  CHECK(s["runs"][0]["invocations"][0]["executionSuccessful"] == false);
  CHECK(s["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["level"] == "error");
  CHECK(s["runs"][0]["results"].size() == 3);

  ReportContext empty;
  empty.SetWarpModel(detector::WarpModel::kLockstep);
  const ReportData none = FilterRaces({}, nullptr, std::nullopt);
  WriteBoth(none, empty, "empty");
  CHECK(JsonReport(none, empty)["run"]["warp_model"] == "lockstep");
  CHECK(JsonReport(none, empty)["run"]["backend"].is_null());
  CHECK(SarifReport(none, empty)["runs"][0]["results"].empty());

  // No side tables at all: linear ids, placeholders, still valid documents.
  std::vector<ProcessRaces> in = f.Inputs();
  const ReportData bare = FilterRaces(ResolveRaces(empty, in), nullptr, std::nullopt);
  WriteBoth(bare, empty, "no_side_tables");
  CHECK(JsonReport(bare, empty)["races"][0]["second"]["thread"].is_null());
}

TEST_CASE("SARIF: rules per race kind, first access as location, second as related", "[reports][sarif][report-files]") {
  const Fixture f = MakeFixture();
  const ReportData d = FilterRaces(f.Resolve(), nullptr, std::nullopt);
  const json s = SarifReport(d, f.context);
  WriteBoth(d, f.context, "sarif_full");

  CHECK(s["version"] == "2.1.0");
  CHECK(s["$schema"] == kSarifSchemaUri);
  REQUIRE(s["runs"].size() == 1);
  const json& run = s["runs"][0];
  CHECK(run["tool"]["driver"]["name"] == "barracuda");
  const json& rules = run["tool"]["driver"]["rules"];
  REQUIRE(rules.size() == 16);  // the race kinds, the memory error kinds, stream-order races
  std::vector<std::string> ids;
  for (const json& rule : rules) ids.push_back(rule["id"]);
  CHECK(ids == std::vector<std::string>{"RAW", "WAR", "WAW", "atomic-vs-plain", "not-morally-strong",
                                        "dependency-ordered", "barrier-divergence", "warp-sync-mask", "dsmem-lifetime",
                                        "same-value",
                                        "memory-error/out-of-bounds", "memory-error/use-after-free",
                                        "memory-error/invalid-address", "memory-error/misaligned",
                                        "memory-error/read-only", "stream-order-race"});
  CHECK(rules[5]["defaultConfiguration"]["level"] == "warning");  // dependency-ordered
  CHECK(rules[7]["defaultConfiguration"]["level"] == "error");    // warp-sync-mask
  CHECK(rules[8]["defaultConfiguration"]["level"] == "error");    // dsmem-lifetime
  CHECK(rules[9]["defaultConfiguration"]["level"] == "warning");  // same-value
  CHECK(rules[0]["defaultConfiguration"]["level"] == "error");
  CHECK(run["results"].size() == d.races.size());
  for (const json& r : run["results"]) CHECK(rules[r["ruleIndex"].get<size_t>()]["id"] == r["ruleId"]);
  CHECK(run["invocations"][0]["executionSuccessful"] == true);
  CHECK(run["invocations"][0]["commandLine"] == "./racy --size 1024");

  const json& raw = ResultWithRule(s, "RAW");
  CHECK(raw["level"] == "error");
  CHECK(raw["occurrenceCount"] == 4);
  const json& first = raw["locations"][0];
  CHECK(first["physicalLocation"]["artifactLocation"]["uri"] == "file:///home/user/app/racy%20kernels.cu");
  CHECK(first["physicalLocation"]["region"] == json({{"startLine", 12}, {"startColumn", 5}}));
  CHECK(first["logicalLocations"][0]["name"] == "racyRW(int*, int*)");
  CHECK(first["logicalLocations"][0]["decoratedName"] == "_Z6racyRWPiS_");
  CHECK_THAT(first["message"]["text"].get<std::string>(),
             Catch::StartsWith("first access: write by thread (0,0,0) in block (0,0,0)"));
  REQUIRE(raw["relatedLocations"].size() == 1);
  const json& second = raw["relatedLocations"][0];
  CHECK(second["id"] == 1);
  CHECK(second["physicalLocation"]["region"]["startLine"] == 15);
  CHECK_THAT(second["message"]["text"].get<std::string>(),
             Catch::StartsWith("second access: read by thread (4,3,0) in block (1,0,0)"));
  const std::string message = raw["message"]["text"];
  CHECK_THAT(message, Catch::StartsWith("Read-after-write (RAW) race (inter-block) on global memory 0x7f0000001004"));
  CHECK_THAT(message, Catch::Contains("[read by thread (4,3,0) in block (1,0,0)](1)"));
  CHECK(raw["properties"]["processId"] == kPidA);
  CHECK(raw["properties"]["allocation"]["label"] == "d_buf");
  CHECK(raw["partialFingerprints"]["barracudaRace/v1"].get<std::string>().size() == 16);

  // An atomic inlined from a toolkit header is located at the user's line
  // that called it (racy kernels.cu:17), the header line kept in the message.
  const json& atomic = ResultWithRule(s, "atomic-vs-plain");
  const ResolvedRace& atomic_race = RaceOf(d.races, kPidA, RaceKind::kAtomicVsPlain);
  const json& atomic_side = atomic_race.later.site->inlined_at ? atomic["relatedLocations"][0] : atomic["locations"][0];
  CHECK(atomic_side["physicalLocation"]["artifactLocation"]["uri"] == "file:///home/user/app/racy%20kernels.cu");
  CHECK(atomic_side["physicalLocation"]["region"]["startLine"] == 17);
  CHECK_THAT(atomic_side["message"]["text"].get<std::string>(), Catch::Contains("sm_60_atomic_functions.h:107"));
  CHECK(PathToUri("/usr/local/cuda/bin/../targets/x86_64-linux/include/a.h") ==
        "file:///usr/local/cuda/targets/x86_64-linux/include/a.h");

  // Without -lineinfo the PTX file and line are the location.
  const json& bar = ResultWithRule(s, "barrier-divergence");
  const ResolvedRace& bar_race = RaceOf(d.races, kPidB, RaceKind::kBarrierDivergence);
  CHECK(bar["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "nolineinfo.ptx");
  CHECK(bar["locations"][0]["physicalLocation"]["region"]["startLine"] == bar_race.later.site->ptx_line);
  CHECK_FALSE(bar.contains("relatedLocations"));
  CHECK(bar["properties"]["space"].is_null());

  // Grouped, the entries of one process have distinct fingerprints (the
  // fixture's two WAW pairs of process B are one statement pair: one entry).
  ReportData grouped = d;
  grouped.races = GroupBySource(d.races);
  CHECK(grouped.races.size() < d.races.size());
  const json g = SarifReport(grouped, f.context);
  std::set<std::pair<uint32_t, std::string>> prints;
  for (const json& r : g["runs"][0]["results"]) {
    const std::string print = r["partialFingerprints"]["barracudaRace/v1"];
    CHECK(prints.emplace(r["properties"]["processId"].get<uint32_t>(), print).second);
  }
}

TEST_CASE("PathToUri", "[reports][sarif]") {
  CHECK(PathToUri("/a/b c/d.cu") == "file:///a/b%20c/d.cu");
  CHECK(PathToUri("src/k.cu") == "src/k.cu");
  CHECK(PathToUri("/x/100%#?.cu") == "file:///x/100%25%23%3F.cu");
  CHECK(PathToUri("/x/\xc3\xa9.cu") == "file:///x/%C3%A9.cu");
}

TEST_CASE("WriteJsonFile: errors name the path", "[reports][json]") {
  absl::Status s = WriteJsonFile(json::object(), "/nonexistent-dir/r.json");
  CHECK_FALSE(s.ok());
  CHECK_THAT(std::string(s.message()), Catch::Contains("/nonexistent-dir/r.json"));
}

}  // namespace
}  // namespace barracuda::reports::testing

namespace barracuda::reports::testing {
namespace {

// Memory errors (memory_errors.h): a read 128 bytes before d_buf, a use after
// free in the freed scratch allocation, a shared-window read; every writer
// names the access, the thread, the site and the nearest allocation.
TEST_CASE("Memory errors: memcheck-style entries in text, JSON and SARIF", "[reports][memory-errors][report-files]") {
  Fixture f = MakeFixture();
  ReportContext& c = f.context;
  const uint32_t site = SiteId(c, kPidA, "_Z6racyRWPiS_", "ld.global", 15);
  transport::MemoryErrorInfo before;
  before.cuda_error = 700;
  before.kind = transport::MemoryErrorKind::kOutOfBounds;
  before.space = transport::MemorySpace::kGlobal;
  before.size = 4;
  before.address = kBufBase - 128;
  before.launch_id = 1;
  before.site = site;
  before.thread[0] = 5;
  before.block[0] = 1;
  before.kernel = "_Z6racyRWPiS_";
  c.AddMemoryError(kPidA, before, "cudaErrorIllegalAddress");
  transport::MemoryErrorInfo freed = before;
  freed.kind = transport::MemoryErrorKind::kUseAfterFree;
  freed.write = true;
  freed.address = kScratchBase + 16;
  freed.size = 8;
  c.AddMemoryError(kPidB, freed, "cudaErrorIllegalAddress");
  transport::MemoryErrorInfo shared = before;
  shared.kind = transport::MemoryErrorKind::kInvalidAddress;
  shared.space = transport::MemorySpace::kShared;
  shared.address = 0x400;
  c.AddMemoryError(kPidA, shared, "cudaErrorIllegalAddress");

  const std::vector<ResolvedMemoryError> errors = ResolveMemoryErrors(c);
  REQUIRE(errors.size() == 3);
  CHECK(errors[0].info.address == kBufBase - 128);  // process order: both of A, then B
  CHECK(errors[1].info.space == transport::MemorySpace::kShared);
  CHECK(errors[2].process_id == kPidB);
  REQUIRE(errors[0].nearest.has_value());
  CHECK(errors[0].nearest->offset == -128);
  CHECK(errors[0].nearest->label == "d_buf");
  CHECK(MemoryErrorAddressText(errors[0]) ==
        "is 128 bytes before the nearest device allocation at 0x7f0000001000 of size 1024 bytes ('d_buf')");
  CHECK_FALSE(errors[1].nearest.has_value());
  CHECK(MemoryErrorAddressText(errors[1]).empty());
  REQUIRE(errors[2].nearest.has_value());
  CHECK(errors[2].nearest->freed);
  CHECK(MemoryErrorHeadline(errors[2]) == "Invalid __global__ write of size 8 bytes");
  CHECK_THAT(MemoryErrorAddressText(errors[2]), Catch::StartsWith("is at offset 16 of the freed async allocation"));

  const ReportData d = FilterRaces(f.Resolve(), nullptr, std::nullopt);
  WriteBoth(d, c, "memory_errors");
  const std::string text = TextReport(d, c);
  CHECK_THAT(text, Catch::Contains("Memory error #1: Invalid __global__ read of size 4 bytes (out-of-bounds)"));
  CHECK_THAT(text, Catch::Contains("by thread (5,0,0) in block (1,0,0)"));
  CHECK_THAT(text, Catch::Contains("racy kernels.cu:15"));
  CHECK_THAT(text, Catch::Contains("Memory error #2: Invalid __shared__ read of size 4 bytes (invalid-address)"));
  CHECK_THAT(text, Catch::Contains("; 3 memory errors"));

  const json j = JsonReport(d, c);
  CHECK(j["summary"]["memory_errors"] == 3);
  REQUIRE(j["memory_errors"].size() == 3);
  const json& e = j["memory_errors"][0];
  CHECK(e["kind"] == "out-of-bounds");
  CHECK(e["address"] == "0x7f0000000f80");
  CHECK(e["nearest_allocation"]["offset"] == -128);
  CHECK(e["access"]["thread"] == json::array({5, 0, 0}));
  CHECK(e["access"]["site"]["source"]["line"] == 15);
  CHECK(j["memory_errors"][1]["nearest_allocation"].is_null());

  const json s = SarifReport(d, c);
  const json& results = s["runs"][0]["results"];
  REQUIRE(results.size() == 3 + d.races.size());
  CHECK(results[0]["ruleId"] == "memory-error/out-of-bounds");
  CHECK(results[2]["ruleId"] == "memory-error/use-after-free");
  const json& rules = s["runs"][0]["tool"]["driver"]["rules"];
  for (const json& r : results) CHECK(rules[r["ruleIndex"].get<size_t>()]["id"] == r["ruleId"]);
  CHECK(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 15);
}

// barracuda --schedules: the runs' faults at one instruction are one entry
// naming the schedules that showed it; another operation stays apart.
TEST_CASE("Memory errors under schedule exploration: one entry per fault over the runs",
          "[reports][memory-errors][schedules][report-files]") {
  Fixture f = MakeFixture();
  ReportContext& c = f.context;
  constexpr uint32_t kPidC = 4244;  // a second run of process A's program
  c.SetProcessCommandLine(kPidC, {"./racy", "--size", "1024"});
  REQUIRE(c.AddModule(kPidC, 0, 0, "racy.ptx", RacySites()).ok());
  c.AddKernelName(kPidC, 0, "_Z6racyRWPiS_");
  c.AddAllocation(kPidC, Allocation{kBufBase, 1024, AllocationKind::kDevice, "d_buf"});
  c.SetExploredSchedules(2);
  c.SetProcessSchedule(kPidA, {"round-robin", 0, ""});
  c.SetProcessSchedule(kPidB, {"round-robin", 0, ""});
  c.SetProcessSchedule(kPidC, {"random", 1, ""});
  transport::MemoryErrorInfo first;
  first.cuda_error = 700;
  first.kind = transport::MemoryErrorKind::kOutOfBounds;
  first.space = transport::MemorySpace::kGlobal;
  first.size = 4;
  first.address = kBufBase - 128;
  first.launch_id = 1;
  first.site = SiteId(c, kPidA, "_Z6racyRWPiS_", "ld.global", 15);
  first.thread[0] = 5;
  first.kernel = "_Z6racyRWPiS_";
  c.AddMemoryError(kPidA, first, "cudaErrorIllegalAddress");
  transport::MemoryErrorInfo again = first;  // another thread faulted first there
  again.site = SiteId(c, kPidC, "_Z6racyRWPiS_", "ld.global", 15);
  again.thread[0] = 9;
  again.address = kBufBase - 112;
  c.AddMemoryError(kPidC, again, "cudaErrorIllegalAddress");
  transport::MemoryErrorInfo store = again;
  store.write = true;
  c.AddMemoryError(kPidC, store, "cudaErrorIllegalAddress");

  const std::vector<ResolvedMemoryError> errors = ResolveMemoryErrors(c);
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].info.address == kBufBase - 128);  // the first run's details
  REQUIRE(errors[0].seen_in.size() == 2);
  CHECK(errors[0].seen_in[0].process_id == kPidA);
  CHECK(errors[0].seen_in[1].process_id == kPidC);
  CHECK(errors[1].info.write);
  CHECK(errors[1].ordinal == 2);
  REQUIRE(errors[1].seen_in.size() == 1);

  // The memory errors alone (the fixture's races come from no exploration).
  const ReportData d = FilterRaces(std::vector<ResolvedRace>{}, nullptr, std::nullopt);
  WriteBoth(d, c, "memory_errors_schedules");
  const std::string text = TextReport(d, c);
  CHECK_THAT(text, Catch::Contains("Seen under 2 of 2 schedules: #1 (round-robin) 1x, #2 (random, seed 1) 1x"));
  CHECK_THAT(text, Catch::Contains("; 2 memory errors"));
  const json j = JsonReport(d, c);
  REQUIRE(j["memory_errors"].size() == 2);
  CHECK(j["memory_errors"][0]["schedules"].size() == 2);
  CHECK(j["memory_errors"][0]["schedules"][1]["number"] == 2);
  CHECK(j["memory_errors"][1]["schedules"].size() == 1);
  const json s = SarifReport(d, c);
  CHECK(s["runs"][0]["results"][0]["properties"]["schedules"].size() == 2);
}

// A cudaMemcpyAsync on stream 16 writing, called at /src/app.cu:27.
ReportContext::StreamOpSide CopySide() {
  ReportContext::StreamOpSide copy;
  copy.api = "cudaMemcpyAsync";
  copy.stream_id = 16;
  copy.write = true;
  copy.host_location = "main at /src/app.cu:27";
  return copy;
}

TEST_CASE("SARIF: a stream-order race between host calls is located at their lines", "[reports][sarif][report-files]") {
  Fixture f = MakeFixture();
  ReportContext& c = f.context;
  const ReportContext::StreamOpSide copy = CopySide();
  ReportContext::StreamOpSide set = copy;
  set.api = "cudaMemsetAsync";
  set.stream_id = 17;
  set.host_location = "fill (app+0x1a0; no line information: build with -g for the host line)";
  c.AddStreamOrderRace({kPidA, copy, set, kBufBase, 1});
  ReportContext::StreamOpSide later = copy;
  later.stream_id = 18;
  later.host_location = "run(int) at /src/app.cu:31";
  c.AddStreamOrderRace({kPidA, copy, later, kBufBase + 4, 1});
  const ReportData d = FilterRaces(f.Resolve(), nullptr, std::nullopt);
  const json s = SarifReport(d, c);
  std::vector<json> stream_results;
  for (const json& r : s["runs"][0]["results"])
    if (r["ruleId"] == "stream-order-race") stream_results.push_back(r);
  REQUIRE(stream_results.size() == 2);
  // A side without a line (no -g) has no location; the other one has.
  const json& first = stream_results[0];
  REQUIRE(first["locations"].size() == 1);
  CHECK(first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "file:///src/app.cu");
  CHECK(first["locations"][0]["physicalLocation"]["region"]["startLine"] == 27);
  CHECK(first["locations"][0]["logicalLocations"][0]["name"] == "main");
  CHECK_FALSE(first.contains("relatedLocations"));
  const json& second = stream_results[1];
  CHECK(second["locations"][0]["physicalLocation"]["region"]["startLine"] == 27);
  REQUIRE(second["relatedLocations"].size() == 1);
  CHECK(second["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 31);
  CHECK(second["relatedLocations"][0]["logicalLocations"][0]["name"] == "run(int)");
}

TEST_CASE("reports: a host function side of a stream-order race", "[reports][report-files]") {
  Fixture f = MakeFixture();
  ReportContext& c = f.context;
  const ReportContext::StreamOpSide copy = CopySide();
  ReportContext::StreamOpSide fn;
  fn.host_function = true;
  fn.api = "host function";
  fn.stream_id = 17;
  fn.host_location = "Sum(void*) at /src/app.cu:12";
  fn.node_location = "main at /src/app.cu:30";
  c.AddStreamOrderRace({kPidA, copy, fn, kBufBase, 1});
  const ReportData d = FilterRaces(f.Resolve(), nullptr, std::nullopt);
  std::ostringstream text;
  WriteTextReport(d, c, text);
  CHECK_THAT(text.str(), Catch::Contains("Second: Read by a host function (stream 17)"));
  CHECK_THAT(text.str(), Catch::Contains("accessed at Sum(void*) at /src/app.cu:12"));
  CHECK_THAT(text.str(), Catch::Contains("enqueued at main at /src/app.cu:30"));
  CHECK_THAT(text.str(), Catch::Contains("operations of two streams with nothing ordering them"));
  const json j = JsonReport(d, c);
  const json& second = j["stream_order_races"][0]["second"];
  CHECK(second["operation"] == "host function");
  CHECK(second["graph_node"] == false);
  CHECK(second["node_location"] == "main at /src/app.cu:30");
  const json s = SarifReport(d, c);
  bool found = false;
  for (const json& r : s["runs"][0]["results"]) {
    if (r["ruleId"] != "stream-order-race") continue;
    found = true;
    CHECK_THAT(r["message"]["text"].get<std::string>(), Catch::Contains("(enqueued at main at /src/app.cu:30)"));
    REQUIRE(r["relatedLocations"].size() == 1);
    CHECK(r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 12);
  }
  CHECK(found);
}

}  // namespace
}  // namespace barracuda::reports::testing
