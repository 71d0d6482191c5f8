// exec/ end to end: PTX kernels through the decoder and KernelRunner, using
// only simple data instructions (mov, add.s32, setp, ld/st.global.u32, cvt,
// mul.wide) so that these tests check control flow, calls, barriers and
// scheduling rather than the instruction families.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/exec/fault_status.h"
#include "ptx_emulator/tests/control_record_checks.h"
#include "ptx_emulator/tests/kernel_runner.h"

namespace barracuda::emu {
namespace {

using protocol::Op;
using testing::KernelRunner;
using testing::WrapKernel;

// Control records of launch `i` as text, per the exec_simt_tests format.
std::vector<std::string> ControlRecords(const CollectingSink& sink, size_t i, uint32_t warp = ~0u) {
  std::vector<std::string> out;
  for (const auto& r : sink.Flatten(i)) {
    if (warp != ~0u && r.header.warp_id != warp) continue;
    if (auto text = testing::ControlRecordText(r, /*with_count=*/false)) out.push_back(*text);
  }
  return out;
}

std::unique_ptr<Device> OneWorker(CollectingSink* sink = nullptr) {
  auto d = std::make_unique<Device>();
  d->schedule().workers = 1;
  if (sink != nullptr) d->SetSink(sink);
  return d;
}

const char* kVecAdd = R"(
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd4, %rd1;
  cvta.to.global.u64 %rd5, %rd2;
  cvta.to.global.u64 %rd6, %rd3;
  mul.wide.s32 %rd7, %r5, 4;
  add.s64 %rd8, %rd4, %rd7;
  ld.global.u32 %r6, [%rd8];
  add.s64 %rd8, %rd5, %rd7;
  ld.global.u32 %r7, [%rd8];
  add.s32 %r6, %r6, %r7;
  add.s64 %rd8, %rd6, %rd7;
  st.global.u32 [%rd8], %r6;
DONE:
  ret;
)";

TEST_CASE("vector add runs end to end", "[exec][e2e]") {
  CollectingSink sink;
  KernelRunner r(WrapKernel("vadd", ".param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n", kVecAdd),
                 OneWorker(&sink));
  const uint32_t n = 1000;
  std::vector<uint32_t> a(n), b(n);
  for (uint32_t i = 0; i < n; ++i) a[i] = i * 3, b[i] = 7 * i + 1;
  auto da = r.Alloc<uint32_t>(n, a), db = r.Alloc<uint32_t>(n, b), dc = r.Alloc<uint32_t>(n);
  const absl::Status s = r.Launch("vadd", {4, 1, 1}, {256, 1, 1}, da.device, db.device, dc.device, n);
  REQUIRE(s.ok());
  const auto c = r.Read(dc);
  for (uint32_t i = 0; i < n; ++i) REQUIRE(c[i] == a[i] + b[i]);
  // The last block's warp 7 (threads 992..1023 of 1000) splits at the bounds check.
  const uint32_t last_warp = 3 * 8 + 7;
  CHECK(ControlRecords(sink, 0, last_warp) ==
        std::vector<std::string>{"if ffffffff ffffff00", "else 000000ff", "fi ffffffff", "exit ffffffff"});
  testing::CheckIfElseFiNested(sink.Flatten(0));
}

// out[tid] = value, with the usual address arithmetic.
#define STORE_OUT(value_reg)                   \
  "  mul.wide.u32 %rd8, %r1, 4;\n"             \
  "  add.s64 %rd9, %rd1, %rd8;\n"              \
  "  st.global.u32 [%rd9], " value_reg ";\n"

TEST_CASE("if/else in PTX: exact if/else/fi records and results", "[exec][e2e]") {
  CollectingSink sink;
  KernelRunner r(WrapKernel("k", ".param .u64 out", R"(
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 12;
  @%p1 bra THEN;
  mov.u32 %r2, 2;
  bra.uni JOIN;
THEN:
  mov.u32 %r2, 1;
  setp.lt.u32 %p2, %r1, 4;
  @%p2 bra JOIN;
  add.s32 %r2, %r2, 10;
JOIN:
)" STORE_OUT("%r2") "  ret;\n"),
                 OneWorker(&sink));
  auto out = r.Alloc<uint32_t>(32);
  REQUIRE(r.Launch("k", {1, 1, 1}, {32, 1, 1}, out.device).ok());
  const auto v = r.Read(out);
  for (uint32_t t = 0; t < 32; ++t) CHECK(v[t] == (t < 4 ? 1u : t < 12 ? 11u : 2u));
  CHECK(ControlRecords(sink, 0) == std::vector<std::string>{"if ffffffff 00000fff", "if 00000fff 0000000f",
                                                            "else 00000ff0", "fi 00000fff", "else fffff000",
                                                            "fi ffffffff", "exit ffffffff"});
}

TEST_CASE("loop with divergent trip counts and a nested if", "[exec][e2e]") {
  CollectingSink sink;
  KernelRunner r(WrapKernel("k", ".param .u64 out", R"(
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
LOOP:
  setp.lt.u32 %p2, %r3, 3;
  @%p2 bra SKIP;
  add.s32 %r2, %r2, 100;
SKIP:
  add.s32 %r2, %r2, 1;
  add.s32 %r3, %r3, 1;
  setp.le.u32 %p1, %r3, %r1;
  @%p1 bra LOOP;
)" STORE_OUT("%r2") "  ret;\n"),
                 OneWorker(&sink));
  auto out = r.Alloc<uint32_t>(64);
  REQUIRE(r.Launch("k", {1, 1, 1}, {64, 1, 1}, out.device).ok());
  const auto v = r.Read(out);
  for (uint32_t t = 0; t < 64; ++t) {
    uint32_t expect = 0;
    for (uint32_t i = 0; i <= t; ++i) expect += (i < 3 ? 0 : 100) + 1;
    CHECK(v[t] == expect);
  }
  testing::CheckIfElseFiNested(sink.Flatten(0));
  // Warp 1 (threads 32..63) never splits: every lane runs at least 33 iterations... until
  // lane by lane they leave: 31 splits, each closed.
  const auto w1 = ControlRecords(sink, 0, 1);
  CHECK(std::count_if(w1.begin(), w1.end(), [](const std::string& s) { return s.rfind("if ", 0) == 0; }) == 31);
}

TEST_CASE("exit in divergent code, exited threads leave whole-block barriers", "[exec][e2e]") {
  for (uint32_t n : {16u, 40u, 64u, 0u}) {
    CollectingSink sink;
    KernelRunner r(WrapKernel("k", ".param .u64 out, .param .u32 n", R"(
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r5, [n];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, %r5;
  @%p1 bra DONE;
  bar.sync 0;
  add.s32 %r2, %r1, 7;
)" STORE_OUT("%r2") R"(
DONE:
  ret;
)"),
                   OneWorker(&sink));
    auto out = r.Alloc<uint32_t>(64);
    const absl::Status s = r.Launch("k", {1, 1, 1}, {64, 1, 1}, out.device, n);
    INFO(s.message());
    REQUIRE(s.ok());
    const auto v = r.Read(out);
    for (uint32_t t = 0; t < 64; ++t) CHECK(v[t] == (t < n ? t + 7 : 0u));
    testing::CheckIfElseFiNested(sink.Flatten(0));
  }
}

const char* kFactorial = R"(
.func (.param .b32 fact_ret) fact(.param .b32 fact_n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  ld.param.u32 %r1, [fact_n];
  setp.lt.u32 %p1, %r1, 2;
  @%p1 bra BASE;
  add.s32 %r2, %r1, -1;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r2;
  .param .b32 retval0;
  call.uni (retval0), fact, (param0);
  ld.param.b32 %r3, [retval0];
  }
  mul.lo.s32 %r4, %r1, %r3;
  st.param.b32 [fact_ret], %r4;
  ret;
BASE:
  mov.u32 %r5, 1;
  st.param.b32 [fact_ret], %r5;
  ret;
}
)";

TEST_CASE("recursive .func factorial", "[exec][e2e][call]") {
  KernelRunner r(WrapKernel("k", ".param .u64 out", R"(
  .reg .b32 %r<4>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 retval0;
  call.uni (retval0), fact, (param0);
  ld.param.b32 %r2, [retval0];
  }
)" STORE_OUT("%r2") "  ret;\n", "sm_75", kFactorial),
                 OneWorker());
  auto out = r.Alloc<uint32_t>(40);
  const absl::Status s = r.Launch("k", {1, 1, 1}, {40, 1, 1}, out.device);
  INFO(s.message());
  REQUIRE(s.ok());
  const auto v = r.Read(out);
  for (uint32_t t = 0; t < 40; ++t) {
    uint32_t f = 1;
    for (uint32_t i = 2; i <= t; ++i) f *= i;
    CHECK(v[t] == f);
  }
}

TEST_CASE("indirect call through function pointers", "[exec][e2e][call]") {
  const char* funcs = R"(
.func (.param .b32 ra) fa(.param .b32 xa)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [xa];
  add.s32 %r2, %r1, 100;
  st.param.b32 [ra], %r2;
  ret;
}
.func (.param .b32 rb) fb(.param .b32 xb)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [xb];
  add.s32 %r2, %r1, 200;
  st.param.b32 [rb], %r2;
  ret;
}
)";
  KernelRunner r(WrapKernel("k", ".param .u64 out", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u64 %rd2, fb;
  setp.lt.u32 %p1, %r1, 10;
  @!%p1 bra SKIP;
  mov.u64 %rd2, fa;
SKIP:
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 retval0;
  prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
  call (retval0), %rd2, (param0), prototype_0;
  ld.param.b32 %r2, [retval0];
  }
)" STORE_OUT("%r2") "  ret;\n", "sm_75", funcs),
                 OneWorker());
  auto out = r.Alloc<uint32_t>(32);
  const absl::Status s = r.Launch("k", {1, 1, 1}, {32, 1, 1}, out.device);
  INFO(s.message());
  REQUIRE(s.ok());
  const auto v = r.Read(out);
  for (uint32_t t = 0; t < 32; ++t) CHECK(v[t] == t + (t < 10 ? 100u : 200u));
}

TEST_CASE("bar.arrive producer, bar.sync consumer, bar.red.popc, ids and counts", "[exec][e2e][barrier]") {
  for (uint64_t seed = 0; seed < 6; ++seed) {
    CollectingSink sink;
    auto device = OneWorker(&sink);
    device->schedule().policy = ScheduleOptions::Policy::kRandom;
    device->schedule().seed = seed;
    device->schedule().quantum = 3;
    KernelRunner r(WrapKernel("k", ".param .u64 data, .param .u64 out", R"(
  .reg .pred %p<4>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd2, [data];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 64;
  @%p1 bra DONE;
  setp.ge.u32 %p2, %r1, 32;
  @%p2 bra CONSUMER;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  add.s32 %r2, %r1, 1000;
  st.global.u32 [%rd4], %r2;
  bar.arrive 3, 64;
  bra.uni RED;
CONSUMER:
  barrier.sync 3, 64;
  add.s32 %r3, %r1, -32;
  mul.wide.u32 %rd5, %r3, 4;
  add.s64 %rd6, %rd2, %rd5;
  ld.global.u32 %r4, [%rd6];
)" STORE_OUT("%r4") R"(
RED:
  and.b32 %r5, %r1, 3;
  setp.eq.u32 %p3, %r5, 0;
  bar.red.popc.u32 %r6, 5, 64, %p3;
  add.s32 %r7, %r1, 64;
  mul.wide.u32 %rd10, %r7, 4;
  add.s64 %rd11, %rd1, %rd10;
  st.global.u32 [%rd11], %r6;
DONE:
  ret;
)"),
                   std::move(device));
    auto data = r.Alloc<uint32_t>(32);
    auto out = r.Alloc<uint32_t>(128);
    const absl::Status s = r.Launch("k", {1, 1, 1}, {96, 1, 1}, data.device, out.device);
    INFO(s.message());
    REQUIRE(s.ok());
    const auto v = r.Read(out);
    for (uint32_t t = 32; t < 64; ++t) REQUIRE(v[t] == t - 32 + 1000);
    for (uint32_t t = 64; t < 128; ++t) REQUIRE(v[t] == 16);  // tid % 4 == 0 among 64 threads
    const auto ctl = ControlRecords(sink, 0);
    CHECK(std::count(ctl.begin(), ctl.end(), "arrive ffffffff id3") == 1);
    CHECK(std::count(ctl.begin(), ctl.end(), "bar ffffffff id3") == 1);
    CHECK(std::count(ctl.begin(), ctl.end(), "bar ffffffff id5") == 2);
  }
}

TEST_CASE("barriers that never complete: deadlock with positions", "[exec][e2e][barrier]") {
  KernelRunner r(WrapKernel("k", "", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra W0;
  bar.sync 1;
  ret;
W0:
  bar.sync 0;
  ret;
)"),
                 OneWorker());
  const absl::Status s = r.Launch("k", {1, 1, 1}, {64, 1, 1});
  REQUIRE(FaultKindOf(s) == FaultKind::kDeadlock);
  const std::string m(s.message());
  CHECK_THAT(m, Catch::Contains("warp 0 waits at barrier 0 (PTX line 16"));
  CHECK_THAT(m, Catch::Contains("warp 1 waits at barrier 1 (PTX line 13"));
}

TEST_CASE("an instruction the emulator does not implement faults where it is reached, not at load",
          "[exec][e2e][unsupported]") {
  // Lanes 0-3 take the branch to the unsupported instruction (stochastic-
  // rounding cvt.rs); with n = 0 nobody reaches it and the kernel runs.
  const std::string ptx = WrapKernel("k", ".param .u32 n", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<3>;
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  mov.f32 %f1, 0f3f800000;
  mov.f32 %f2, 0f40000000;
  mov.u32 %r3, 7;
  cvt.rs.f16x2.f32 %r4, %f1, %f2, %r3;
DONE:
  ret;
)");
  Device strict;  // the decoder's default: the load fails naming it
  const auto refused = strict.LoadLinkUnit({PtxSource{ptx, "k.ptx"}});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == absl::StatusCode::kUnimplemented);
  KernelRunner r(ptx, OneWorker(), /*fault_unsupported_when_reached=*/true);  // the runtime's choice
  CHECK(r.Launch("k", {1, 1, 1}, {32, 1, 1}, uint32_t{0}).ok());
  const absl::Status s = r.Launch("k", {1, 1, 1}, {32, 1, 1}, uint32_t{4});
  CHECK(FaultKindOf(s) == FaultKind::kUnsupported);
  CHECK_THAT(std::string(s.message()), Catch::Contains("cvt.rs"));
  CHECK_THAT(std::string(s.message()), Catch::Contains("thread (0,0,0)"));
}

TEST_CASE("dynamic parallelism: device-side launches are recorded, other device-runtime calls fault",
          "[exec][e2e][builtin][cdp]") {
  // Each thread 0 of a block asks for a parameter buffer of `child` and
  // launches it with its block index: the launches are recorded in launcher
  // order, with the parameters the parent stored.
  const std::string decls = R"(
.extern .func (.param .b64 rv) __cudaCDP2GetParameterBufferV2(.param .b64 f, .param .align 4 .b8 g[12],
    .param .align 4 .b8 b[12], .param .b32 s);
.extern .func (.param .b32 rv) __cudaCDP2LaunchDeviceV2(.param .b64 p, .param .b64 st);
.extern .func (.param .b32 rv) __cuda_syscall_cnpv2EventCreate(.param .b64 p0, .param .b32 p1);
.visible .entry child(.param .u32 child_p0) { ret; }
)";
  KernelRunner r(WrapKernel("k", "", R"(
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  mov.u64 %rd1, child;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd1;
  .param .align 4 .b8 param1[12];
  st.param.b32 [param1], 2;
  st.param.b32 [param1+4], 1;
  st.param.b32 [param1+8], 1;
  .param .align 4 .b8 param2[12];
  st.param.b32 [param2], 64;
  st.param.b32 [param2+4], 1;
  st.param.b32 [param2+8], 1;
  .param .b32 param3;
  st.param.b32 [param3], 0;
  .param .b64 retval0;
  call.uni (retval0), __cudaCDP2GetParameterBufferV2, (param0, param1, param2, param3);
  ld.param.b64 %rd2, [retval0];
  }
  setp.eq.u64 %p2, %rd2, 0;
  @%p2 trap;
  mov.u32 %r2, %ctaid.x;
  st.u32 [%rd2], %r2;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd2;
  .param .b64 param1;
  st.param.b64 [param1], 0;
  .param .b32 retval0;
  call.uni (retval0), __cudaCDP2LaunchDeviceV2, (param0, param1);
  ld.param.b32 %r3, [retval0];
  }
  setp.ne.u32 %p2, %r3, 0;
  @%p2 trap;
DONE:
  ret;
)", "sm_75", decls),
                 OneWorker());
  REQUIRE(r.Launch("k", {3, 1, 1}, {32, 1, 1}).ok());
  std::vector<DeviceLaunch> launched = r.device().device_launches().Take();
  REQUIRE(launched.size() == 3);
  for (uint32_t b = 0; b < 3; ++b) {
    INFO(b);
    CHECK(launched[b].launcher_block == b);
    CHECK(launched[b].grid == std::array<uint32_t, 3>{2, 1, 1});
    CHECK(launched[b].block == std::array<uint32_t, 3>{64, 1, 1});
    REQUIRE(launched[b].params.size() == 4);
    uint32_t p0 = 0;
    std::memcpy(&p0, launched[b].params.data(), 4);
    CHECK(p0 == b);
    CHECK(r.device().function(launched[b].kernel).name == "child");
  }
  for (const DeviceLaunch& l : launched) (void)r.device().memory().Free(reinterpret_cast<void*>(l.buffer));

  KernelRunner events(WrapKernel("k", "", R"(
  .reg .b32 %r<2>;
  {
  .param .b64 p0;
  st.param.b64 [p0], 0;
  .param .b32 p1;
  st.param.b32 [p1], 0;
  .param .b32 retval0;
  call.uni (retval0), __cuda_syscall_cnpv2EventCreate, (p0, p1);
  ld.param.b32 %r1, [retval0];
  }
  ret;
)", "sm_75", decls),
                      OneWorker());
  const absl::Status s = events.Launch("k", {1, 1, 1}, {32, 1, 1});
  CHECK(FaultKindOf(s) == FaultKind::kUnsupported);
  CHECK_THAT(std::string(s.message()), Catch::Contains("`__cuda_syscall_cnpv2EventCreate` is not supported"));
}

TEST_CASE("trap, __assertfail and vprintf", "[exec][e2e][builtin]") {
  SECTION("trap") {
    KernelRunner r(WrapKernel("k", "", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 37;
  @%p1 trap;
  ret;
)"),
                   OneWorker());
    const absl::Status s = r.Launch("k", {2, 1, 1}, {64, 1, 1});
    REQUIRE(FaultKindOf(s) == FaultKind::kTrap);
    CHECK_THAT(std::string(s.message()), Catch::Contains("PTX line 12"));
    CHECK_THAT(std::string(s.message()), Catch::Contains("block (0,0,0), thread (37,0,0)"));
  }
  const std::string strings = R"(
.extern .func __assertfail(.param .b64 m, .param .b64 f, .param .b32 l, .param .b64 fn, .param .b64 cs);
.extern .func (.param .b32 r) vprintf(.param .b64 fmt, .param .b64 args);
.global .align 1 .b8 msg[6] = {120, 32, 62, 32, 51, 0};
.global .align 1 .b8 file[5] = {97, 46, 99, 117, 0};
.global .align 1 .b8 fn[3] = {102, 110, 0};
.global .align 1 .b8 fmt[14] = {116, 105, 100, 32, 37, 100, 32, 120, 32, 37, 100, 10, 0, 0};
)";
  SECTION("assert") {
    KernelRunner r(WrapKernel("k", "", R"(
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  setp.le.u32 %p1, %r1, 3;
  @%p1 bra OK;
  mov.u64 %rd1, msg;
  mov.u64 %rd2, file;
  mov.u64 %rd3, fn;
  mov.u32 %r2, 42;
  mov.u64 %rd4, 1;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd1;
  .param .b64 param1;
  st.param.b64 [param1], %rd2;
  .param .b32 param2;
  st.param.b32 [param2], %r2;
  .param .b64 param3;
  st.param.b64 [param3], %rd3;
  .param .b64 param4;
  st.param.b64 [param4], %rd4;
  call.uni __assertfail, (param0, param1, param2, param3, param4);
  }
OK:
  ret;
)", "sm_75", strings),
                   OneWorker());
    const absl::Status s = r.Launch("k", {1, 1, 1}, {8, 1, 1});
    INFO(s.message());
    REQUIRE(FaultKindOf(s) == FaultKind::kAssert);
    CHECK_THAT(std::string(s.message()), Catch::Contains("Assertion `x > 3` failed at a.cu:42 in fn"));
    CHECK_THAT(std::string(s.message()), Catch::Contains("thread (4,0,0)"));
  }
  SECTION("vprintf") {
    KernelRunner r(WrapKernel("k", "", R"(
  .local .align 8 .b8 buf[8];
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  mul.lo.s32 %r2, %r1, 3;
  mov.u64 %rd1, buf;
  cvta.local.u64 %rd2, %rd1;
  st.local.u32 [%rd1], %r1;
  st.local.u32 [%rd1+4], %r2;
  mov.u64 %rd3, fmt;
  cvta.global.u64 %rd4, %rd3;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd4;
  .param .b64 param1;
  st.param.b64 [param1], %rd2;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  }
  ret;
)", "sm_75", strings),
                   OneWorker());
    std::fflush(stdout);
    char path[] = "/tmp/exec_e2e_printf_XXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    const int saved = dup(1);
    dup2(fd, 1);
    const absl::Status s = r.Launch("k", {1, 1, 1}, {4, 1, 1});
    std::fflush(stdout);
    dup2(saved, 1);
    close(saved);
    std::string text(4096, '\0');
    const ssize_t got = pread(fd, text.data(), text.size(), 0);
    close(fd);
    std::remove(path);
    INFO(s.message());
    REQUIRE(s.ok());
    text.resize(got > 0 ? static_cast<size_t>(got) : 0);
    CHECK(text == "tid 0 x 0\ntid 1 x 3\ntid 2 x 6\ntid 3 x 9\n");
  }
}

TEST_CASE("record streams: same seed same stream, several workers same results", "[exec][e2e][schedule]") {
  auto run = [](uint64_t seed, uint32_t workers, std::vector<uint32_t>* result) {
    CollectingSink sink;
    auto device = std::make_unique<Device>();
    device->schedule().workers = workers;
    device->schedule().policy = ScheduleOptions::Policy::kRandom;
    device->schedule().seed = seed;
    device->schedule().quantum = 5;
    device->schedule().max_resident_blocks_per_worker = 4;
    device->SetSink(&sink);
    KernelRunner r(WrapKernel("vadd", ".param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n", kVecAdd),
                   std::move(device));
    const uint32_t n = 3000;
    std::vector<uint32_t> a(n), b(n);
    for (uint32_t i = 0; i < n; ++i) a[i] = i, b[i] = 2 * i;
    auto da = r.Alloc<uint32_t>(n, a), db = r.Alloc<uint32_t>(n, b), dc = r.Alloc<uint32_t>(n);
    REQUIRE(r.Launch("vadd", {24, 1, 1}, {128, 1, 1}, da.device, db.device, dc.device, n).ok());
    *result = r.Read(dc);
    std::vector<std::vector<uint64_t>> rings;
    for (const auto& ring : sink.launches[0].rings) {
      rings.emplace_back();
      for (const auto& rec : ring) {
        rings.back().push_back(uint64_t{rec.header.op} << 56 | uint64_t{rec.header.warp_id} << 32 |
                               rec.header.active_mask);
        rings.back().push_back(rec.addr[0]);
      }
    }
    return rings;
  };
  std::vector<uint32_t> r1, r2, r3;
  const auto a = run(7, 1, &r1);
  const auto b = run(7, 1, &r2);
  CHECK(a == b);
  run(9, 2, &r3);
  CHECK(r1 == r3);
  for (uint32_t i = 0; i < 3000; ++i) REQUIRE(r1[i] == 3 * i);
}

TEST_CASE("brx.idx with four targets nests binary if/else/fi", "[exec][e2e]") {
  CollectingSink sink;
  KernelRunner r(WrapKernel("k", ".param .u64 out", R"(
  .reg .b32 %r<8>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  ts: .branchtargets C0, C1, C2, C3;
  brx.idx %r2, ts;
C0:
  mov.u32 %r3, 10;
  bra.uni JOIN;
C1:
  mov.u32 %r3, 11;
  bra.uni JOIN;
C2:
  mov.u32 %r3, 12;
  bra.uni JOIN;
C3:
  mov.u32 %r3, 13;
JOIN:
)" STORE_OUT("%r3") "  ret;\n"),
                 OneWorker(&sink));
  auto out = r.Alloc<uint32_t>(32);
  const absl::Status s = r.Launch("k", {1, 1, 1}, {32, 1, 1}, out.device);
  INFO(s.message());
  REQUIRE(s.ok());
  const auto v = r.Read(out);
  for (uint32_t t = 0; t < 32; ++t) CHECK(v[t] == 10 + t % 4);
  CHECK(ControlRecords(sink, 0) ==
        std::vector<std::string>{"if ffffffff 11111111", "else eeeeeeee", "if eeeeeeee 22222222", "else cccccccc",
                                 "if cccccccc 44444444", "else 88888888", "fi cccccccc", "fi eeeeeeee",
                                 "fi ffffffff", "exit ffffffff"});
}

TEST_CASE("bar.red.and / bar.red.or on predicates", "[exec][e2e][barrier]") {
  KernelRunner r(WrapKernel("k", ".param .u64 out, .param .u32 limit", R"(
  .reg .pred %p<5>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r4, [limit];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, %r4;
  bar.red.and.pred %p2, 0, %p1;
  bar.red.or.pred %p3, 1, %p1;
  selp.u32 %r2, 1, 0, %p2;
  selp.u32 %r3, 2, 0, %p3;
  add.s32 %r2, %r2, %r3;
)" STORE_OUT("%r2") "  ret;\n"),
                 OneWorker());
  for (uint32_t limit : {0u, 10u, 100u}) {
    auto out = r.Alloc<uint32_t>(64);
    const absl::Status s = r.Launch("k", {1, 1, 1}, {64, 1, 1}, out.device, limit);
    INFO(s.message());
    REQUIRE(s.ok());
    const uint32_t expect = (limit >= 64 ? 1u : 0u) + (limit > 0 ? 2u : 0u);
    for (uint32_t v : r.Read(out)) CHECK(v == expect);
  }
}

TEST_CASE("spin-wait between resident blocks makes progress (non-cooperative)", "[exec][e2e][schedule]") {
  // Block b waits for flag == b, then sets it to b + 1 (each block one warp).
  for (uint32_t workers : {1u, 2u}) {
    auto device = std::make_unique<Device>();
    device->schedule().workers = workers;
    KernelRunner r(WrapKernel("k", ".param .u64 flag", R"(
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [flag];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %tid.x;
  setp.ne.u32 %p2, %r2, 0;
  @%p2 bra DONE;
SPIN:
  ld.volatile.global.u32 %r3, [%rd1];
  setp.ne.u32 %p1, %r3, %r1;
  @%p1 bra SPIN;
  add.s32 %r4, %r1, 1;
  st.volatile.global.u32 [%rd1], %r4;
DONE:
  ret;
)"),
                   std::move(device));
    auto flag = r.Alloc<uint32_t>(1);
    const absl::Status s = r.Launch("k", {24, 1, 1}, {32, 1, 1}, flag.device);
    INFO(s.message());
    REQUIRE(s.ok());
    CHECK(r.Read(flag)[0] == 24);
  }
}

}  // namespace
}  // namespace barracuda::emu
