// exec/: barriers reached by divergent paths of one warp (sm_70+ independent
// thread scheduling). PTX kernels through KernelRunner: the if/else shape and
// the split-phase shape of test_suite/programs/barriers, a named barrier with
// a thread count reached divergently, and barriers that still deadlock.
// Each checks the results (which only a completed barrier orders) and the
// exact control-record stream of warp 0.
#include <bit>
#include <catch2/catch.hpp>
#include <cstdio>
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

std::vector<std::string> Control(const CollectingSink& sink, uint32_t warp) {
  std::vector<std::string> out;
  for (const auto& r : sink.Flatten(0)) {
    if (r.header.warp_id != warp || protocol::OpOf(r.header) == Op::kBarrierArrive) continue;
    if (auto text = testing::ControlRecordText(r, /*with_count=*/true)) out.push_back(*text);
  }
  return out;
}

std::unique_ptr<Device> OneWorker(CollectingSink* sink, ScheduleOptions::Policy policy, uint64_t seed) {
  auto d = std::make_unique<Device>();
  d->schedule().workers = 1;
  d->schedule().policy = policy;
  d->schedule().seed = seed;
  d->schedule().quantum = 3;  // interleave warps often
  d->SetSink(sink);
  return d;
}

// buf[t] = t + 100 by every thread, then a barrier, then out[t] = buf[partner]:
// right only if the barrier completed with every thread arrived.
#define PROLOGUE                          \
  "  .reg .pred %p<4>;\n"                 \
  "  .reg .b32 %r<12>;\n"                 \
  "  .reg .b64 %rd<12>;\n"                \
  "  ld.param.u64 %rd1, [out];\n"         \
  "  ld.param.u64 %rd2, [buf];\n"         \
  "  mov.u32 %r1, %tid.x;\n"              \
  "  and.b32 %r2, %r1, 31;\n"             \
  "  mul.wide.u32 %rd3, %r1, 4;\n"        \
  "  add.s64 %rd4, %rd2, %rd3;\n"         \
  "  add.s32 %r3, %r1, 100;\n"            \
  "  st.global.u32 [%rd4], %r3;\n"        \
  "  sub.s32 %r4, 63, %r1;\n"             \
  "  mul.wide.u32 %rd5, %r4, 4;\n"        \
  "  add.s64 %rd6, %rd2, %rd5;\n"         \
  "  add.s64 %rd7, %rd1, %rd3;\n"

const std::vector<ScheduleOptions::Policy> kPolicies = {ScheduleOptions::Policy::kRoundRobin,
                                                        ScheduleOptions::Policy::kRandom};

TEST_CASE("if/else whose sides each reach bar.sync completes the barrier", "[exec][barrier][divergent]") {
  // The shape of syncthreads_if_else_divergent_racy.cu: lanes < 16 sync on the
  // then side, the others on the else side, at a different instruction.
  const std::string body = PROLOGUE R"(
  setp.lt.u32 %p1, %r2, 16;
  @%p1 bra THEN;
  bra.uni ELSE;
THEN:
  bar.sync 0;
  ld.global.u32 %r5, [%rd6];
  add.s32 %r6, %r5, %r5;
  bra.uni JOIN;
ELSE:
  bar.sync 0;
  ld.global.u32 %r5, [%rd6];
  add.s32 %r6, %r5, 1000;
JOIN:
  st.global.u32 [%rd7], %r6;
  ret;
)";
  for (auto policy : kPolicies) {
    for (uint64_t seed = 0; seed < 3; ++seed) {
      CollectingSink sink;
      KernelRunner r(WrapKernel("k", ".param .u64 out, .param .u64 buf", body), OneWorker(&sink, policy, seed));
      auto out = r.Alloc<uint32_t>(64);
      auto buf = r.Alloc<uint32_t>(64);
      const absl::Status s = r.Launch("k", {1, 1, 1}, {64, 1, 1}, out.device, buf.device);
      INFO(s.message());
      REQUIRE(s.ok());
      const auto v = r.Read(out);
      for (uint32_t t = 0; t < 64; ++t) {
        const uint32_t partner = 63 - t + 100;
        CHECK(v[t] == (t % 32 < 16 ? 2 * partner : partner + 1000));
      }
      testing::CheckIfElseFiNested(sink.Flatten(0));
      // The then side defers (its warp's else side can still run), so does
      // the else side; then both arrive, topmost (then) first: one arrival per
      // side with its half of the warp (what the detector reports as barrier
      // divergence).
      CHECK(Control(sink, 0) == std::vector<std::string>{"if ffffffff 0000ffff", "bar 0000ffff id0 n0",
                                                         "bar ffff0000 id0 n0", "else ffff0000", "fi ffffffff",
                                                         "exit ffffffff"});
      CHECK(Control(sink, 1) == Control(sink, 0));
    }
  }
}

TEST_CASE("split phases: half a warp syncs per phase, the barrier completes", "[exec][barrier][divergent]") {
  // The shape of syncthreads_split_warp_phases_racy.cu after unrolling: lanes
  // < 16 reach the first bar.sync, lanes >= 16 the second; lanes >= 16 must
  // run past the first if's reconvergence point while lanes < 16 wait.
  const std::string body = PROLOGUE R"(
  mov.u32 %r6, 0;
  setp.gt.u32 %p1, %r2, 15;
  @%p1 bra L2;
  bar.sync 0;
  ld.global.u32 %r6, [%rd6];
L2:
  setp.lt.u32 %p2, %r2, 16;
  @%p2 bra L4;
  bar.sync 0;
  ld.global.u32 %r6, [%rd6];
L4:
  st.global.u32 [%rd7], %r6;
  ret;
)";
  for (auto policy : kPolicies) {
    for (uint64_t seed = 0; seed < 3; ++seed) {
      CollectingSink sink;
      KernelRunner r(WrapKernel("k", ".param .u64 out, .param .u64 buf", body), OneWorker(&sink, policy, seed));
      auto out = r.Alloc<uint32_t>(64);
      auto buf = r.Alloc<uint32_t>(64);
      const absl::Status s = r.Launch("k", {1, 1, 1}, {64, 1, 1}, out.device, buf.device);
      INFO(s.message());
      REQUIRE(s.ok());
      const auto v = r.Read(out);
      for (uint32_t t = 0; t < 64; ++t) CHECK(v[t] == 63 - t + 100);
      testing::CheckIfElseFiNested(sink.Flatten(0));
      // Lanes >= 16 skip the first if (then side, pops at once), lanes < 16
      // defer at the first barrier, lanes >= 16 are forked past L2 and arrive
      // at the second; then the deferred half arrives. After the release the
      // fork runs to its exit, then the first if's else side closes.
      CHECK(Control(sink, 0) == std::vector<std::string>{"if ffffffff ffff0000", "else 0000ffff",
                                                         "bar ffff0000 id0 n0", "bar 0000ffff id0 n0",
                                                         "exit ffff0000", "fi 0000ffff", "exit 0000ffff"});
      CHECK(Control(sink, 1) == Control(sink, 0));
    }
  }
}

TEST_CASE("split phases then a uniform barrier: the fork's halves merge into one arrival",
          "[exec][barrier][divergent]") {
  const std::string body = PROLOGUE R"(
  mov.u32 %r6, 0;
  setp.gt.u32 %p1, %r2, 15;
  @%p1 bra L2;
  bar.sync 0;
  ld.global.u32 %r6, [%rd6];
L2:
  setp.lt.u32 %p2, %r2, 16;
  @%p2 bra L4;
  bar.sync 0;
  ld.global.u32 %r6, [%rd6];
L4:
  bar.sync 0;
  st.global.u32 [%rd4], %r6;
  bar.sync 0;
  ld.global.u32 %r7, [%rd6];
  st.global.u32 [%rd7], %r7;
  ret;
)";
  for (auto policy : kPolicies) {
    CollectingSink sink;
    KernelRunner r(WrapKernel("k", ".param .u64 out, .param .u64 buf", body), OneWorker(&sink, policy, 2));
    auto out = r.Alloc<uint32_t>(64);
    auto buf = r.Alloc<uint32_t>(64);
    const absl::Status s = r.Launch("k", {1, 1, 1}, {64, 1, 1}, out.device, buf.device);
    INFO(s.message());
    REQUIRE(s.ok());
    const auto v = r.Read(out);
    for (uint32_t t = 0; t < 64; ++t) CHECK(v[t] == t + 100);  // buf[63 - t] = (63 - (63 - t)) + 100
    testing::CheckIfElseFiNested(sink.Flatten(0));
    CHECK(Control(sink, 0) == std::vector<std::string>{"if ffffffff ffff0000", "else 0000ffff",
                                                       "bar ffff0000 id0 n0", "bar 0000ffff id0 n0",
                                                       "fi 0000ffff", "bar ffffffff id0 n0", "bar ffffffff id0 n0",
                                                       "exit ffffffff"});
  }
}

TEST_CASE("named barrier with a thread count reached divergently", "[exec][barrier][divergent]") {
  // Barrier 1 for 64 threads: warp 0 arrives in two halves at two
  // instructions, warp 1 at once; warp 2 never takes part and uses barrier 2
  // (count 32) alone. Warp 1 reads what warp 0 wrote before barrier 1.
  const std::string body = PROLOGUE R"(
  setp.ge.u32 %p3, %r1, 64;
  @%p3 bra W2;
  setp.ge.u32 %p3, %r1, 32;
  @%p3 bra W1;
  setp.lt.u32 %p1, %r2, 16;
  @%p1 bra LO;
  bar.sync 1, 64;
  bra.uni JOIN;
LO:
  bar.sync 1, 64;
  bra.uni JOIN;
W1:
  bar.sync 1, 64;
  sub.s32 %r7, %r1, 32;
  mul.wide.u32 %rd8, %r7, 4;
  add.s64 %rd9, %rd2, %rd8;
  ld.global.u32 %r8, [%rd9];
  st.global.u32 [%rd7], %r8;
  bra.uni JOIN;
W2:
  bar.sync 2, 32;
  st.global.u32 [%rd7], %r1;
JOIN:
  ret;
)";
  for (auto policy : kPolicies) {
    for (uint64_t seed = 0; seed < 3; ++seed) {
      CollectingSink sink;
      KernelRunner r(WrapKernel("k", ".param .u64 out, .param .u64 buf", body), OneWorker(&sink, policy, seed));
      auto out = r.Alloc<uint32_t>(96);
      auto buf = r.Alloc<uint32_t>(96);
      const absl::Status s = r.Launch("k", {1, 1, 1}, {96, 1, 1}, out.device, buf.device);
      INFO(s.message());
      REQUIRE(s.ok());
      const auto v = r.Read(out);
      for (uint32_t t = 32; t < 64; ++t) CHECK(v[t] == t - 32 + 100);
      for (uint32_t t = 64; t < 96; ++t) CHECK(v[t] == t);
      testing::CheckIfElseFiNested(sink.Flatten(0));
      CHECK(Control(sink, 0) == std::vector<std::string>{"if ffffffff 0000ffff", "bar 0000ffff id1 n64",
                                                         "bar ffff0000 id1 n64", "else ffff0000", "fi ffffffff",
                                                         "exit ffffffff"});
      CHECK(Control(sink, 1) == std::vector<std::string>{"bar ffffffff id1 n64", "exit ffffffff"});
    }
  }
}

TEST_CASE("barrier reached by half a warp whose other half exits completes", "[exec][barrier][divergent]") {
  // Lanes >= 16 leave without a barrier (they wait at the if's reconvergence
  // point, are forked past it and exit); the barrier then counts the live
  // threads only, as on sm_70+.
  const std::string body = PROLOGUE R"(
  mov.u32 %r6, 7;
  setp.gt.u32 %p1, %r2, 15;
  @%p1 bra L2;
  bar.sync 0;
  ld.global.u32 %r6, [%rd6];
  st.global.u32 [%rd7], %r6;
L2:
  ret;
)";
  CollectingSink sink;
  KernelRunner r(WrapKernel("k", ".param .u64 out, .param .u64 buf", body),
                 OneWorker(&sink, ScheduleOptions::Policy::kRoundRobin, 0));
  auto out = r.Alloc<uint32_t>(64);
  auto buf = r.Alloc<uint32_t>(64);
  const absl::Status s = r.Launch("k", {1, 1, 1}, {64, 1, 1}, out.device, buf.device);
  INFO(s.message());
  REQUIRE(s.ok());
  const auto v = r.Read(out);
  for (uint32_t t = 0; t < 64; ++t) CHECK(v[t] == (t % 32 < 16 ? 63 - t + 100 : 0u));
  testing::CheckIfElseFiNested(sink.Flatten(0));
}

TEST_CASE("divergent barriers that cannot complete are still a deadlock", "[exec][barrier][divergent]") {
  // Warp 0: lanes < 16 at barrier 0, lanes >= 16 at barrier 1 (count 64),
  // which nobody else uses; warp 1 at barrier 0. Barrier 0 waits for lanes
  // 16..31 of warp 0 forever, barrier 1 for 48 more threads.
  const std::string body = PROLOGUE R"(
  setp.ge.u32 %p3, %r1, 32;
  @%p3 bra W1;
  setp.lt.u32 %p1, %r2, 16;
  @%p1 bra LO;
  bar.sync 1, 64;
  bra.uni JOIN;
LO:
  bar.sync 0;
  bra.uni JOIN;
W1:
  bar.sync 0;
JOIN:
  ret;
)";
  for (auto policy : kPolicies) {
    CollectingSink sink;
    KernelRunner r(WrapKernel("k", ".param .u64 out, .param .u64 buf", body), OneWorker(&sink, policy, 1));
    auto out = r.Alloc<uint32_t>(64);
    auto buf = r.Alloc<uint32_t>(64);
    const absl::Status s = r.Launch("k", {1, 1, 1}, {64, 1, 1}, out.device, buf.device);
    REQUIRE(FaultKindOf(s) == FaultKind::kDeadlock);
    const std::string m(s.message());
    CHECK_THAT(m, Catch::Contains("warp 0 waits at barrier"));
    CHECK_THAT(m, Catch::Contains("warp 1 waits at barrier 0"));
    CHECK_THAT(m, Catch::Contains("48 of 64 threads arrived"));
    // Both halves of warp 0 arrived (each with its own record) before the deadlock.
    CHECK(Control(sink, 0) ==
          std::vector<std::string>{"if ffffffff 0000ffff", "bar 0000ffff id0 n0", "bar ffff0000 id1 n64"});
  }
}

// Independent thread scheduling's forward progress (exec/README.md, "Spin
// loops"): a lock that lanes of one warp take in turn with a tight
// atom.cas / @p bra loop. The holder waits at the loop's reconvergence point
// while the others spin; they yield after kSpinYield backward branches, the
// holder is forked past the reconvergence point, runs its critical section and
// releases. Each of the 64 threads adds its id under the lock, non-atomically.
TEST_CASE("a spin lock taken in turn by lanes of one warp completes", "[exec][its][spin]") {
  const std::string body = R"(
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [lock];
  ld.param.u64 %rd2, [sum];
  mov.u32 %r1, %tid.x;
SPIN:
  atom.global.cas.b32 %r2, [%rd1], 0, 1;
  setp.ne.s32 %p1, %r2, 0;
  @%p1 bra SPIN;
  membar.gl;
  ld.volatile.global.u32 %r3, [%rd2];
  add.s32 %r4, %r3, %r1;
  st.volatile.global.u32 [%rd2], %r4;
  membar.gl;
  atom.global.exch.b32 %r5, [%rd1], 0;
  ret;
)";
  for (auto policy : kPolicies) {
    CollectingSink sink;
    KernelRunner r(WrapKernel("k", ".param .u64 lock, .param .u64 sum", body), OneWorker(&sink, policy, 1));
    auto lock = r.Alloc<uint32_t>(1, {0});
    auto sum = r.Alloc<uint32_t>(1, {0});
    const absl::Status s = r.Launch("k", {1, 1, 1}, {64, 1, 1}, lock.device, sum.device);
    INFO(s.message());
    REQUIRE(s.ok());
    CHECK(r.Read(sum)[0] == 64 * 63 / 2);
    CHECK(r.Read(lock)[0] == 0);
    testing::CheckIfElseFiNested(sink.Flatten(0));
  }
}

// __syncwarp() on each side of a divergent branch (sm_70+: the members may
// reach bar.warp.sync at different instructions): the reader side runs first
// (then side) and must wait for the writer side's store before its own read.
// Also the -G shape, where __syncwarp(mask) is a called .func.
TEST_CASE("bar.warp.sync reached on both sides of a branch orders the sides", "[exec][warpsync][divergent]") {
  const std::string inline_sync = "bar.warp.sync -1;";
  const std::string called_sync = R"({
  .param .b32 p0;
  st.param.b32 [p0], -1;
  call.uni syncwarp_wrapper, (p0);
  })";
  const std::string prelude = R"(
.func syncwarp_wrapper(.param .b32 syncwarp_wrapper_param_0)
{
  .reg .b32 %r<2>;
  ld.param.u32 %r1, [syncwarp_wrapper_param_0];
  bar.warp.sync %r1;
  ret;
}
)";
  const std::string reader = R"(
  ld.global.u32 %r5, [%rd4+-64];
  st.global.u32 [%rd7], %r5;
)";
  const std::string writer = R"(
  add.s32 %r3, %r1, 100;
  st.global.u32 [%rd4], %r3;
)";
  for (int variant = 0; variant < 4; ++variant) {
    const std::string& sync = variant < 2 ? inline_sync : called_sync;
    const bool reader_falls_through = variant % 2 == 0;
    // The side that falls through runs first.
    const std::string first = reader_falls_through ? sync + reader : writer + sync;
    const std::string second = reader_falls_through ? writer + sync : sync + reader;
    const std::string body = R"(
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [buf];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  add.s64 %rd7, %rd1, %rd3;
  setp.lt.u32 %p1, %r1, 16;
  )" + std::string(reader_falls_through ? "@%p1 bra SECOND;" : "@!%p1 bra SECOND;") + first + R"(
  bra.uni JOIN;
SECOND:
  )" + second + R"(
JOIN:
  ret;
)";
    for (auto policy : kPolicies) {
      CollectingSink sink;
      KernelRunner r(WrapKernel("k", ".param .u64 out, .param .u64 buf", body, "sm_75", prelude),
                     OneWorker(&sink, policy, 1));
      auto out = r.Alloc<uint32_t>(32);
      auto buf = r.Alloc<uint32_t>(32);
      const absl::Status s = r.Launch("k", {1, 1, 1}, {32, 1, 1}, out.device, buf.device);
      INFO(sync << (reader_falls_through ? ", reader first: " : ", writer first: ") << s.message());
      REQUIRE(s.ok());
      const auto v = r.Read(out);
      for (uint32_t t = 16; t < 32; ++t) CHECK(v[t] == t - 16 + 100);
      // One warp-sync record per side, each with its own lanes, as the device
      // logger writes them: the first is logged when that side begins to
      // wait and names the whole warp as members (the detector joins when
      // the second arrives, before either side goes on).
      std::vector<protocol::Record> syncs;
      for (const auto& rec : sink.Flatten(0))
        if (protocol::OpOf(rec.header) == Op::kWarpSync) syncs.push_back(rec);
      REQUIRE(syncs.size() == 2);
      CHECK(std::popcount(syncs[0].header.active_mask) == 16);
      CHECK((syncs[0].header.active_mask | syncs[1].header.active_mask) == 0xffffffffu);
      CHECK(syncs[0].warp_sync.member_mask == 0xffffffffu);
    }
  }
}

}  // namespace
}  // namespace barracuda::emu
