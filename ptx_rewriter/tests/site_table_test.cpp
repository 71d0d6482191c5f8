// The static site table: which instructions are sites, their kinds, spaces,
// lines and source locations, and the JSON form. Expected rows were read off
// the PTX files in tests/data/analysis/ by hand.
#include "ptx_rewriter/site_table.h"

#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include "ptx_rewriter/parser.h"
#include "ptx_rewriter/tests/analysis_test_data.h"

namespace barracuda::ptx {
namespace {

using testing::LoadDataFile;

// (kind, opcode, space, ptx line) of each site.
using Row = std::tuple<std::string, std::string, std::string, uint32_t>;

std::vector<Row> Rows(const SiteTable& t) {
  std::vector<Row> rows;
  for (const Site& s : t.sites) {
    rows.emplace_back(std::string(ToString(s.kind)), s.opcode, std::string(SiteSpaceName(s.space)),
                      s.ptx_line);
  }
  return rows;
}

TEST_CASE("every site kind, from hand-written PTX", "[sites]") {
  Module m = LoadDataFile("kinds.ptx");
  const SiteTable t = BuildSiteTable(m);
  CHECK(Rows(t) == std::vector<Row>{
                       {"load", "ld.param.u64", "param", 16},
                       {"load", "ld.u32", "generic", 18},
                       {"store", "st.u32", "generic", 19},
                       {"atomic", "atom.add.u32", "generic", 20},
                       {"reduction", "red.global.add.u32", "global", 22},
                       {"load", "ldu.global.u32", "global", 23},
                       {"load", "ld.shared::cta.u32", "shared", 24},
                       {"load", "ld.acquire.gpu.global.u32", "global", 25},
                       {"store", "st.release.sys.global.u32", "global", 26},
                       {"fence", "fence.acq_rel.gpu", "", 28},
                       {"fence", "fence.sc.cta", "", 29},
                       {"barrier", "barrier.sync", "", 30},
                       {"barrier", "bar.arrive", "", 31},
                       {"barrier", "bar.red.popc.u32", "", 32},
                       {"warp-sync", "match.any.sync.b32", "", 34},
                       {"warp-sync", "elect.sync", "", 35},
                       {"async-copy", "cp.async.ca.shared.global", "shared", 37},
                       // cp.async.commit_group (38) only closes a group: not a site.
                       {"fence", "cp.async.wait_group", "", 39},
                       {"fence", "cp.async.wait_all", "", 40},
                       {"barrier", "mbarrier.init.shared.b64", "shared", 41},
                       {"barrier", "mbarrier.arrive.shared.b64", "shared", 42},
                       // mbarrier.pending_count (43) reads a register: not a site.
                       {"warp-sync", "shfl.sync.bfly.b32", "", 44},
                       {"warp-sync", "vote.sync.all.pred", "", 45},
                   });
  for (std::size_t i = 0; i < t.sites.size(); ++i) {
    CHECK(t.sites[i].id == i);
    CHECK(t.sites[i].function == "kinds");
  }
  SECTION("source locations") {
    CHECK_FALSE(t.sites[0].source.has_value());  // before any .loc
    REQUIRE(t.sites[1].source.has_value());
    CHECK(*t.sites[1].source == SourceLocation{"kinds.cu", 1, 10, 3});
    CHECK_FALSE(t.sites[1].inlined_at.has_value());
    CHECK(*t.sites[4].source == SourceLocation{"kinds.cu", 1, 11, 5});
    CHECK_FALSE(t.sites[9].source.has_value());  // `.loc 1 0 0`: no source line
    // `.loc 7 3 1` names a file the module does not declare.
    REQUIRE(t.sites[14].source.has_value());
    CHECK(*t.sites[14].source == SourceLocation{"", 7, 3, 1});
  }
  SECTION("statement indices point at the instructions") {
    const Function& f = *m.FindFunction("kinds");
    for (const Site& s : t.sites) {
      const auto* inst = std::get_if<Instruction>(&f.body[s.statement]);
      REQUIRE(inst != nullptr);
      CHECK(inst->pos.line == s.ptx_line);
      CHECK(ClassifySite(*inst) == s.kind);
    }
  }
}

TEST_CASE("nvcc output: sync.cu", "[sites]") {
  Module m = LoadDataFile("sync.ptx");
  const SiteTable t = BuildSiteTable(m);
  REQUIRE(t.sites.size() == 28);
  // The .func comes first in the file, so its sites come first.
  for (int i = 0; i < 4; ++i) CHECK(t.sites[static_cast<std::size_t>(i)].function == "_Z6helperPii");
  for (std::size_t i = 4; i < t.sites.size(); ++i) CHECK(t.sites[i].function == "_Z5sitesPiPKij");
  std::vector<Row> rows = Rows(t);
  CHECK(rows[2] == Row{"atomic", "atom.global.add.u32", "global", 32});
  CHECK(rows[9] == Row{"store", "st.shared.u32", "shared", 78});
  CHECK(rows[10] == Row{"barrier", "bar.sync", "", 80});
  CHECK(rows[12] == Row{"store", "st.local.u32", "local", 88});
  CHECK(rows[8] == Row{"load", "ld.const.u32", "const", 73});
  CHECK(rows[15] == Row{"fence", "membar.gl", "", 97});
  CHECK(rows[18] == Row{"warp-sync", "shfl.sync.idx.b32", "", 109});
  CHECK(rows[20] == Row{"warp-sync", "activemask.b32", "", 120});  // from inline asm
  CHECK(rows[21] == Row{"warp-sync", "bar.warp.sync", "", 126});
  CHECK(rows[22] == Row{"warp-sync", "redux.sync.add.s32", "", 129});
  CHECK(rows[26] == Row{"atomic", "atom.shared.add.u32", "shared", 152});
  CHECK(rows[27] == Row{"store", "st.global.u32", "global", 155});

  CHECK(*t.sites[9].source == SourceLocation{"sync.cu", 1, 13, 3});
  CHECK_FALSE(t.sites[9].inlined_at.has_value());
  // atomicAdd is inlined from a CUDA header into sync.cu line 16.
  const Site& atomic = t.sites[13];
  CHECK(atomic.ptx_line == 92);
  REQUIRE(atomic.source.has_value());
  CHECK(atomic.source->file ==
        "/usr/local/cuda/bin/../targets/x86_64-linux/include/device_atomic_functions.hpp");
  CHECK(atomic.source->line == 107);
  REQUIRE(atomic.inlined_at.has_value());
  CHECK(*atomic.inlined_at == SourceLocation{"sync.cu", 1, 16, 3});
}

TEST_CASE("inlining chains: self-calling templates and interleaved inlined copies", "[sites]") {
  Module m = LoadDataFile("inline_chains.ptx");
  const SiteTable t = BuildSiteTable(m);
  REQUIRE(t.sites.size() == 7);
  auto at = [&](size_t i) { return t.sites[i].inlined_at ? t.sites[i].inlined_at->line : 0u; };
  // Every level of sum<N> is at app.cu:3; the program's line is the kernel's
  // call (9), not the template's own line, at any depth.
  for (size_t i = 0; i < 4; ++i) {
    INFO("site " << i);
    CHECK(t.sites[i].source->file == "app.cu");
    CHECK(at(i) == 9);
  }
  CHECK(t.sites[3].source->line == 4);
  // lib.cuh:60 reached through lib.cuh:184 from two calls whose code
  // interleaves: each store names its own call.
  CHECK(t.sites[4].source->file == "lib.cuh");
  CHECK(at(4) == 64);
  CHECK(at(5) == 66);
  CHECK(at(6) == 64);
}

TEST_CASE("branches are sites, `.loc 1 0 0` gives no source", "[sites]") {
  Module m = LoadDataFile("branches.ptx");
  const SiteTable t = BuildSiteTable(m);
  const Site* merged_store = nullptr;
  int branches = 0;
  for (const Site& s : t.sites) {
    if (s.ptx_line == 76) merged_store = &s;
    if (s.kind == SiteKind::kBranch) {
      ++branches;
      CHECK(s.space == StateSpace::kNone);
    }
  }
  // if_then 1, if_then_else 0, loop_break_continue 4, early_return 3,
  // forever 4 (one conditional, three bra.uni).
  CHECK(branches == 1 + 4 + 3 + 4);
  REQUIRE(merged_store != nullptr);
  CHECK(merged_store->opcode == "st.global.u32");
  CHECK_FALSE(merged_store->source.has_value());
}

TEST_CASE("site table is deterministic", "[sites]") {
  Module m = LoadDataFile("sync.ptx");
  CHECK(BuildSiteTable(m) == BuildSiteTable(LoadDataFile("sync.ptx")));
}

TEST_CASE("site table JSON round-trips", "[sites]") {
  for (const char* file : {"sync.ptx", "kinds.ptx", "control.ptx"}) {
    const SiteTable t = BuildSiteTable(LoadDataFile(file));
    const nlohmann::json j = t.ToJson();
    CHECK(j["version"] == SiteTable::kJsonVersion);
    auto back = SiteTable::FromJson(nlohmann::json::parse(j.dump()));
    INFO(file << ": " << back.status().ToString());
    REQUIRE(back.ok());
    CHECK(*back == t);
    auto streamed = SiteTable::FromJsonText(j.dump());
    INFO(file << ": " << streamed.status().ToString());
    REQUIRE(streamed.ok());
    CHECK(*streamed == t);
  }
  const SiteTable t = BuildSiteTable(LoadDataFile("sync.ptx"));
  const nlohmann::json j = t.ToJson();
  CHECK(j["sites"][13]["kind"] == "atomic");
  CHECK(j["sites"][13]["space"] == "global");
  CHECK(j["sites"][13]["inlined_at"]["line"] == 16);
  CHECK(j["sites"][10]["space"].is_null());
  CHECK(j["sites"][0]["inlined_at"].is_null());
}

TEST_CASE("malformed site table JSON is rejected with a reason", "[sites]") {
  const nlohmann::json good = BuildSiteTable(LoadDataFile("kinds.ptx")).ToJson();
  auto rejects = [](const nlohmann::json& j, const std::string& why) {
    auto t = SiteTable::FromJson(j);
    REQUIRE_FALSE(t.ok());
    CHECK_THAT(std::string(t.status().message()), Catch::Contains(why));
    // The streaming parse gives the same reason.
    auto streamed = SiteTable::FromJsonText(j.dump());
    REQUIRE_FALSE(streamed.ok());
    CHECK(streamed.status().message() == t.status().message());
  };
  rejects(nlohmann::json::array(), "version");
  nlohmann::json j = good;
  j["version"] = 99;
  rejects(j, "version 99");
  j = good;
  j["sites"] = "x";
  rejects(j, "'sites'");
  j = good;
  j["sites"][1]["id"] = 5;
  rejects(j, "dense");
  j = good;
  j["sites"][2]["kind"] = "teleport";
  rejects(j, "unknown kind 'teleport'");
  j = good;
  j["sites"][2]["space"] = "moon";
  rejects(j, "unknown space 'moon'");
  j = good;
  j["sites"][3].erase("opcode");
  rejects(j, "'opcode'");
  j = good;
  j["sites"][3]["ptx_line"] = -4;
  rejects(j, "'ptx_line'");
  j = good;
  j["sites"][1]["source"]["line"] = "ten";
  rejects(j, "'line'");
  j = good;
  j["sites"][1]["inlined_at"] = 3;
  rejects(j, "'inlined_at'");
  j = good;
  j["sites"][0] = 7;
  rejects(j, "site 0: not an object");
  j = good;
  j["sites"][1] = nlohmann::json::array({1});
  rejects(j, "site 1: not an object");
  auto broken = SiteTable::FromJsonText(good.dump().substr(0, 40));
  REQUIRE_FALSE(broken.ok());
  CHECK_THAT(std::string(broken.status().message()), Catch::Contains("not JSON"));
}

TEST_CASE("ClassifySite on single instructions", "[sites]") {
  auto kind = [](const char* text) {
    auto inst = ParseInstruction(text);
    INFO(text << ": " << inst.status().ToString());
    REQUIRE(inst.ok());
    return ClassifySite(*inst);
  };
  CHECK(kind("ld.global.nc.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1]") == SiteKind::kLoad);
  CHECK(kind("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5]") ==
        SiteKind::kLoad);
  CHECK(kind("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r5], {%r1}") == SiteKind::kStore);
  CHECK(kind("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, "
             "[%rd1], %r9") == SiteKind::kLoad);
  CHECK(kind("wmma.store.d.sync.aligned.col.m8n8k4.f64 [%rd1], {%fd1, %fd2}") == SiteKind::kStore);
  CHECK(kind("wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd1, %fd2}") ==
        std::nullopt);
  CHECK(kind("atom.global.cas.b32 %r1, [%rd1], %r2, %r3") == SiteKind::kAtomic);
  CHECK(kind("membar.sys") == SiteKind::kFence);
  CHECK(kind("fence.proxy.async") == SiteKind::kFence);
  CHECK(kind("bar.sync 0") == SiteKind::kBarrier);
  CHECK(kind("barrier.cluster.arrive") == SiteKind::kBarrier);
  CHECK(kind("bar.warp.sync -1") == SiteKind::kWarpSync);
  CHECK(kind("vote.ballot.b32 %r1, %p1") == SiteKind::kWarpSync);
  CHECK(kind("cp.async.bulk.commit_group") == std::nullopt);
  CHECK(kind("cp.async.bulk.wait_group.read 0") == SiteKind::kFence);
  CHECK(kind("cp.async.mbarrier.arrive.noinc.shared.b64 [%r1]") == SiteKind::kBarrier);
  CHECK(kind("multimem.red.relaxed.gpu.global.add.u32 [%rd1], %r1") == SiteKind::kReduction);
  CHECK(kind("@%p1 bra $L_x") == SiteKind::kBranch);
  CHECK(kind("brx.idx %r1, $L_tab") == SiteKind::kBranch);
  CHECK(kind("add.s32 %r1, %r2, %r3") == std::nullopt);
  CHECK(kind("ret") == std::nullopt);
  CHECK(kind("call.uni f, (%r1)") == std::nullopt);
  CHECK(kind("prefetch.global.L2 [%rd1]") == std::nullopt);
}

}  // namespace
}  // namespace barracuda::ptx

namespace barracuda::ptx {
namespace {

TEST_CASE("a site's shape read back from its opcode text: access bytes", "[sites]") {
  auto bytes = [](const char* opcode) {
    Site site;
    site.opcode = opcode;
    return AccessBytesOfSite(site);
  };
  CHECK(bytes("st.global.u32") == 4);
  CHECK(bytes("ld.global.nc.v4.u32") == 16);
  CHECK(bytes("ld.volatile.shared.u8") == 1);
  CHECK(bytes("atom.global.add.u64") == 8);
  CHECK(bytes("red.relaxed.gpu.global.add.f32") == 4);
  CHECK(bytes("ld.global.v2.f64") == 16);
  // No type, or not a plain access: unknown.
  CHECK(bytes("cp.async.ca.shared.global") == 0);
  CHECK(bytes("wmma.load.a.sync.aligned.row.m16n16k16.f16") == 0);
  CHECK(bytes("bar.sync") == 0);
  CHECK(bytes("") == 0);
  Site site;
  site.opcode = "ld.relaxed.cta.global.u32";
  CHECK(ShapeOfSite(site).op == Opcode::kLd);
  CHECK(ShapeOfSite(site).info.scope == Scope::kCta);
}

// nvcc emits one .loc per level of an inlining chain, outermost first; the
// site names the innermost call site in the file of the outermost one.
TEST_CASE("inlining chains: the program's own line that led into header code", "[sites]") {
  const char* text = R"(.version 8.0
.target sm_80
.address_size 64
.file 1 "/work/app.cu"
.file 2 "/cuda/include/cuda_pipeline.h"
.file 3 "/cuda/include/cuda_pipeline_helpers.h"
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  .loc 1 20 3
  ld.param.u64 %rd1, [p];
  .loc 2 103 9, function_name $L__info_string0, inlined_at 1 23 3
  .loc 3 292 5, function_name $L__info_string1, inlined_at 2 103 9
  .loc 3 219 9, function_name $L__info_string2, inlined_at 3 292 5
  .loc 3 190 23, function_name $L__info_string3, inlined_at 3 219 9
  cp.async.ca.shared.global [%r1], [%rd1], 4, 4;
  .loc 1 28 7, function_name $L__info_string4, inlined_at 1 34 3
  .loc 3 190 23, function_name $L__info_string3, inlined_at 1 28 7
  st.global.u32 [%rd1], %r2;
  ret;
}
)";
  auto m = ParseModule(text, "chain.ptx");
  REQUIRE(m.ok());
  const SiteTable t = BuildSiteTable(*m);
  REQUIRE(t.sites.size() == 3);  // ld.param, cp.async, st.global
  // Three header levels, then cuda_pipeline.h, then app.cu line 23.
  REQUIRE(t.sites[1].inlined_at.has_value());
  CHECK(t.sites[1].inlined_at->file == "/work/app.cu");
  CHECK(t.sites[1].inlined_at->line == 23);
  CHECK(t.sites[1].source->line == 190);
  // Header code called from a helper of the program's own (line 28, itself
  // inlined at line 34): the helper's line, where the call is.
  REQUIRE(t.sites[2].inlined_at.has_value());
  CHECK(t.sites[2].inlined_at->line == 28);
}

}  // namespace
}  // namespace barracuda::ptx
