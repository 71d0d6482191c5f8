// InstrumentRegisteredFatbin: PTX choice, instrumentation + logger merge, the
// re-registered fat binary, and the refusals (no PTX, -rdc, bad PTX).
#include <catch2/catch.hpp>

#include "device_logger/logger_abi.h"
#include "device_logger/logger_ptx.h"
#include "host_detector/gpu_agent/module_instrumenter.h"
#include "ptx_rewriter/parser.h"
#include "ptx_rewriter/tests/fatbin_synthetic_test.h"

namespace barracuda::gpu_agent {
namespace {

using fatbin::Compression;
using fatbin::testing::BuildFatbin;
using fatbin::testing::ElfSpec;
using fatbin::testing::PtxSpec;

// A kernel with a global store, a shared load, a barrier and a cluster shape.
constexpr char kKernelPtx[] = R"(.version 8.0
.target sm_90
.address_size 64

.visible .entry racy(
.param .u64 racy_param_0
)
.reqnctapercluster 2, 1, 1
{
.reg .b32 %r<4>;
.reg .b64 %rd<4>;
.shared .align 4 .b8 tile[128];
ld.param.u64 %rd1, [racy_param_0];
cvta.to.global.u64 %rd2, %rd1;
mov.u32 %r1, %tid.x;
st.global.u32 [%rd2], %r1;
bar.sync 0;
ld.shared.u32 %r2, [tile];
ret;
}
)";

const ptx::Module& Logger() {
  static const ptx::Module logger = *ptx::ParseModule(device_logger::LoggerPtx(), "logger.ptx");
  return logger;
}

fatbin::RegisteredFatbin Registered(const std::vector<uint8_t>& bytes) {
  auto parsed = fatbin::ParseFatbin(bytes);
  REQUIRE(parsed.ok());
  fatbin::RegisteredFatbin r;
  r.wrapper_version = 1;
  r.fatbin = std::move(*parsed);
  return r;
}

TEST_CASE("gpu agent: a module is instrumented, the logger merged, and re-packed as PTX only", "[gpu_agent]") {
  const auto bytes = BuildFatbin({ElfSpec(90), PtxSpec(kKernelPtx, Compression::kZstd, 90)});
  const fatbin::RegisteredFatbin registered = Registered(bytes);
  ModuleInstrumentOptions options;
  options.target_sm = 90;
  options.site_base = 1000;
  auto out = InstrumentRegisteredFatbin(registered, Logger(), options);
  REQUIRE(out.ok());
  CHECK(out->sm == 90);
  // Sites of the original module: ld.param, st.global, bar.sync, ld.shared
  // (ids from 0); parameter loads are sites but not logged.
  REQUIRE(out->sites.sites.size() == 4);
  CHECK(out->sites.sites[1].opcode == "st.global.u32");
  CHECK(out->stats.accesses == 2);
  CHECK(out->stats.barriers == 1);
  CHECK(out->cluster_dims.at("racy") == std::array<uint32_t, 3>{2, 1, 1});
  // The module is complete: logger definitions and the queue pointer are in it,
  // and site ids carry the base.
  CHECK(out->ptx.find(logger_abi::kQueueSetSymbol) != std::string::npos);
  CHECK(out->ptx.find(".func __barracuda_log_access") != std::string::npos);
  CHECK(out->ptx.find(".extern .func") == std::string::npos);
  CHECK(out->ptx.find("], 1001;") != std::string::npos);  // st.global: site 1 + base
  REQUIRE(ptx::ParseModule(out->ptx, "instrumented.ptx").ok());
  // The fat binary to register: one uncompressed PTX entry with that text.
  auto back = fatbin::ParseFatbin(out->fatbin);
  REQUIRE(back.ok());
  REQUIRE(back->entries.size() == 1);
  CHECK(back->entries[0].is_ptx());
  CHECK(back->entries[0].compression == Compression::kNone);
  CHECK(back->entries[0].sm_arch() == 90);
  CHECK(back->entries[0].ptx == out->ptx);
}

TEST_CASE("gpu agent: the PTX entry is chosen for the device", "[gpu_agent]") {
  std::string ptx75 = kKernelPtx;
  ptx75.replace(ptx75.find("sm_90"), 5, "sm_75");
  ptx75.replace(ptx75.find(".reqnctapercluster 2, 1, 1\n"), 27, "");
  const auto bytes = BuildFatbin({PtxSpec(ptx75, Compression::kNone, 75), PtxSpec(kKernelPtx, Compression::kLz4, 90)});
  const fatbin::RegisteredFatbin registered = Registered(bytes);
  ModuleInstrumentOptions options;
  options.target_sm = 86;  // an sm_86 device cannot run sm_90 PTX
  auto out = InstrumentRegisteredFatbin(registered, Logger(), options);
  REQUIRE(out.ok());
  CHECK(out->sm == 75);
  CHECK(out->cluster_dims.empty());
  options.target_sm = 90;
  out = InstrumentRegisteredFatbin(registered, Logger(), options);
  REQUIRE(out.ok());
  CHECK(out->sm == 90);
}

TEST_CASE("gpu agent: modules it cannot instrument are refused with the reason", "[gpu_agent]") {
  SECTION("cubins only") {
    auto out = InstrumentRegisteredFatbin(Registered(BuildFatbin({ElfSpec(75), ElfSpec(90)})), Logger(), {});
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().code() == absl::StatusCode::kFailedPrecondition);
    CHECK(std::string(out.status().message()).find("sm_75, sm_90 and no PTX") != std::string::npos);
  }
  SECTION("-rdc link") {
    fatbin::RegisteredFatbin r = Registered(BuildFatbin({ElfSpec(75)}));
    r.wrapper_version = fatbin::kWrapperLinkVersion;
    r.prelinked.push_back(Registered(BuildFatbin({PtxSpec(kKernelPtx, Compression::kNone, 90)})).fatbin);
    auto out = InstrumentRegisteredFatbin(r, Logger(), {});
    REQUIRE_FALSE(out.ok());
    CHECK(std::string(out.status().message()).find("-rdc") != std::string::npos);
  }
  SECTION("PTX that does not parse") {
    const std::string bad = ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k(\n{\n";
    auto out = InstrumentRegisteredFatbin(Registered(BuildFatbin({PtxSpec(bad, Compression::kNone, 75)})), Logger(), {});
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(out.status().message()).find("PTX of module (sm_75 PTX)") != std::string::npos);
  }
}

}  // namespace
}  // namespace barracuda::gpu_agent

namespace barracuda::gpu_agent {
namespace {

// Two kernels: `fetches` reaches a texture fetch through a called function
// (`brx.idx`-free, direct call), `plain` reaches nothing unlogged.
constexpr char kUncheckedPtx[] = R"(.version 8.0
.target sm_90
.address_size 64

.func (.param .b32 rv) fetch(
.param .b64 fetch_param_0
)
{
.reg .b32 %r<4>;
.reg .f32 %f<6>;
.reg .b64 %rd<2>;
ld.param.u64 %rd1, [fetch_param_0];
mov.u32 %r1, 0;
tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r1}];
mov.b32 %r2, %f1;
st.param.b32 [rv], %r2;
ret;
}

.visible .entry fetches(
.param .u64 fetches_param_0,
.param .u64 fetches_param_1
)
{
.reg .b32 %r<3>;
.reg .b64 %rd<4>;
ld.param.u64 %rd1, [fetches_param_0];
ld.param.u64 %rd2, [fetches_param_1];
cvta.to.global.u64 %rd3, %rd2;
{
.param .b64 param0;
st.param.b64 [param0], %rd1;
.param .b32 retval0;
call.uni (retval0), fetch, (param0);
ld.param.b32 %r1, [retval0];
}
st.global.u32 [%rd3], %r1;
ret;
}

.visible .entry plain(
.param .u64 plain_param_0
)
{
.reg .b32 %r<2>;
.reg .b64 %rd<3>;
ld.param.u64 %rd1, [plain_param_0];
cvta.to.global.u64 %rd2, %rd1;
mov.u32 %r1, %tid.x;
st.global.u32 [%rd2], %r1;
ret;
}
)";

TEST_CASE("gpu agent: kernels that reach instructions the logger does not log are named with them",
          "[gpu_agent]") {
  ModuleInstrumentOptions options;
  options.target_sm = 90;
  options.site_base = 100;
  auto out = InstrumentPtxText(kUncheckedPtx, "unchecked.ptx", "", Logger(), options);
  REQUIRE(out.ok());
  CHECK(out->stats.not_covered == 1);
  REQUIRE(out->stats.unchecked.size() == 1);
  CHECK(out->stats.unchecked[0].function == "fetch");
  CHECK(out->stats.unchecked[0].opcode == "tex.2d.v4.f32.s32");
  CHECK(out->stats.unchecked[0].site >= 100);
  // Reached through the call: `fetches` is analysed in part, `plain` in full.
  REQUIRE(out->unchecked_by_kernel.size() == 1);
  REQUIRE(out->unchecked_by_kernel.contains("fetches"));
  CHECK(out->unchecked_by_kernel.at("fetches") == "1 instruction: tex.2d.v4.f32.s32 at PTX line 14");
  CHECK(!out->unchecked_by_kernel.contains("plain"));
}

}  // namespace
}  // namespace barracuda::gpu_agent
