// Asynchronous copies (cp.async) and mbarriers end to end: hand-written PTX
// kernels through the loader and the interpreter (KernelRunner), their
// results, and the records of traced launches (CollectingSink).
//
// What the emulator promises beyond the PTX ISA (core/async_copies.h): a
// copy's destination is written only when the lane waits for it (wait_group,
// wait_all, cp.async.mbarrier.arrive) or exits, so a read before the wait sees
// the old shared bytes. Tests that depend on that are marked "emulator".
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "device_logger/protocol.h"
#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/tests/kernel_runner.h"

namespace barracuda::emu::testing {
namespace {

constexpr uint32_t kOld = 0xdeadbeefu;

std::vector<uint32_t> Pattern(size_t n, uint32_t seed = 1) {
  std::vector<uint32_t> v(n);
  uint32_t x = seed;
  for (auto& e : v) e = (x = x * 1103515245u + 12345u) | 1u;  // never 0, never kOld in practice
  return v;
}

std::string Sub(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

std::vector<protocol::Record> OpsOf(CollectingSink& sink, protocol::Op op) {
  std::vector<protocol::Record> out;
  for (const auto& r : sink.Flatten(0))
    if (protocol::OpOf(r.header) == op) out.push_back(r);
  return out;
}

// ---------------------------------------------------------------------------
// cp.async: copies, groups, waits

// Each lane copies 16 bytes to buf + 16*tid. out (8 words per thread): the
// first word read before commit, the last word read after commit (before the
// wait), the four words after wait_group 0.
const char* kCopyWait = R"(
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 16 .b8 buf[512];
  ld.param.u64 %rd1, [k_src];
  ld.param.u64 %rd2, [k_out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 4;
  add.u32 %r4, %r2, %r3;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r5, 0xdeadbeef;
  st.shared.v4.u32 [%r4], {%r5, %r5, %r5, %r5};
  cp.async.KIND.shared.global [%r4], [%rd4], 16;
  ld.shared.u32 %r6, [%r4];
  cp.async.commit_group;
  ld.shared.u32 %r7, [%r4+12];
  cp.async.wait_group 0;
  ld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [%r4];
  mul.wide.u32 %rd5, %r1, 32;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v4.u32 [%rd6], {%r6, %r7, 0, 0};
  st.global.v4.u32 [%rd6+16], {%r8, %r9, %r10, %r11};
  ret;
)";

TEST_CASE("cp.async.{ca,cg} 16 bytes land at wait_group, not before (emulator)", "[async][cp.async]") {
  for (const char* kind : {"ca", "cg"}) {
    INFO("cp.async." << kind);
    KernelRunner r(WrapKernel("k", ".param .u64 k_src, .param .u64 k_out", Sub(kCopyWait, "KIND", kind), "sm_80"));
    const auto data = Pattern(128);
    auto src = r.Alloc<uint32_t>(128, data);
    auto out = r.Alloc<uint32_t>(32 * 8);
    const absl::Status s = r.Launch("k", {1, 1, 1}, {32, 1, 1}, src.device, out.device);
    INFO(s.message());
    REQUIRE(s.ok());
    const auto got = r.Read(out);
    for (uint32_t t = 0; t < 32; ++t) {
      INFO("thread " << t);
      CHECK(got[8 * t + 0] == kOld);
      CHECK(got[8 * t + 1] == kOld);
      for (uint32_t i = 0; i < 4; ++i) CHECK(got[8 * t + 4 + i] == data[4 * t + i]);
    }
  }
}

// Four committed groups of one 4-byte copy each, then an uncommitted fifth.
// out (16 words per thread): slots 0..3 after wait_group 2, after
// wait_group 1, after wait_group 0 (+ slot 4), slot 4 after wait_all.
const char* kGroups = R"(
  .reg .b32 %r<30>;
  .reg .b64 %rd<10>;
  .shared .align 16 .b8 buf[1024];
  ld.param.u64 %rd1, [k_src];
  ld.param.u64 %rd2, [k_out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 5;
  add.u32 %r4, %r2, %r3;
  mul.wide.u32 %rd3, %r1, 32;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r5, 0xdeadbeef;
  st.shared.v4.u32 [%r4], {%r5, %r5, %r5, %r5};
  st.shared.v4.u32 [%r4+16], {%r5, %r5, %r5, %r5};
  cp.async.ca.shared.global [%r4], [%rd4], 4;
  cp.async.commit_group;
  cp.async.ca.shared.global [%r4+4], [%rd4+4], 4;
  cp.async.commit_group;
  cp.async.ca.shared.global [%r4+8], [%rd4+8], 4;
  cp.async.commit_group;
  cp.async.ca.shared.global [%r4+12], [%rd4+12], 4;
  cp.async.commit_group;
  cp.async.wait_group 2;
  ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r4];
  cp.async.wait_group 1;
  ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r4];
  cp.async.ca.shared.global [%r4+16], [%rd4+16], 4;
  cp.async.wait_group 0;
  ld.shared.v4.u32 {%r14, %r15, %r16, %r17}, [%r4];
  ld.shared.u32 %r18, [%r4+16];
  cp.async.wait_all;
  ld.shared.u32 %r19, [%r4+16];
  mul.wide.u32 %rd5, %r1, 64;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v4.u32 [%rd6], {%r6, %r7, %r8, %r9};
  st.global.v4.u32 [%rd6+16], {%r10, %r11, %r12, %r13};
  st.global.v4.u32 [%rd6+32], {%r14, %r15, %r16, %r17};
  st.global.v4.u32 [%rd6+48], {%r18, %r19, 0, 0};
  ret;
)";

TEST_CASE("wait_group N leaves the N newest groups pending, wait_all also completes uncommitted copies",
          "[async][cp.async]") {
  KernelRunner r(WrapKernel("k", ".param .u64 k_src, .param .u64 k_out", kGroups, "sm_80"));
  const auto data = Pattern(32 * 8, 7);
  auto src = r.Alloc<uint32_t>(32 * 8, data);
  auto out = r.Alloc<uint32_t>(32 * 16);
  const absl::Status s = r.Launch("k", {1, 1, 1}, {32, 1, 1}, src.device, out.device);
  INFO(s.message());
  REQUIRE(s.ok());
  const auto got = r.Read(out);
  for (uint32_t t = 0; t < 32; ++t) {
    INFO("thread " << t);
    const uint32_t* g = &got[16 * t];
    const uint32_t* d = &data[8 * t];
    // wait_group 2: groups 0 and 1 complete, 2 and 3 still pending (emulator: not landed).
    CHECK(g[0] == d[0]);
    CHECK(g[1] == d[1]);
    CHECK(g[2] == kOld);
    CHECK(g[3] == kOld);
    // wait_group 1: only group 3 pending.
    CHECK(g[4] == d[0]);
    CHECK(g[5] == d[1]);
    CHECK(g[6] == d[2]);
    CHECK(g[7] == kOld);
    // wait_group 0: every committed group; the uncommitted copy is in no group.
    for (int i = 0; i < 4; ++i) CHECK(g[8 + i] == d[i]);
    CHECK(g[12] == kOld);
    // wait_all: commits it and waits.
    CHECK(g[13] == d[4]);
  }
}

// src-size: lane t reads t % 17 bytes of a 16-byte copy (register operand),
// and an 8-byte copy with an immediate src-size of 3; 0xff-filled
// destinations must be zero past src-size.
const char* kSrcSize = R"(
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 16 .b8 buf[1024];
  ld.param.u64 %rd1, [k_src];
  ld.param.u64 %rd2, [k_out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 5;
  add.u32 %r4, %r2, %r3;
  mul.wide.u32 %rd3, %r1, 32;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r5, -1;
  st.shared.v4.u32 [%r4], {%r5, %r5, %r5, %r5};
  st.shared.v4.u32 [%r4+16], {%r5, %r5, %r5, %r5};
  rem.u32 %r6, %r1, 17;
  cp.async.cg.shared.global [%r4], [%rd4], 16, %r6;
  cp.async.ca.shared.global [%r4+16], [%rd4+16], 8, 3;
  cp.async.ca.shared.global [%r4+24], [%rd4+24], 4, 0;
  cp.async.wait_all;
  ld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [%r4];
  ld.shared.v4.u32 {%r12, %r13, %r14, %r15}, [%r4+16];
  add.s64 %rd5, %rd2, %rd3;
  st.global.v4.u32 [%rd5], {%r8, %r9, %r10, %r11};
  st.global.v4.u32 [%rd5+16], {%r12, %r13, %r14, %r15};
  ret;
)";

TEST_CASE("src-size below cp-size zero-fills the rest", "[async][cp.async]") {
  KernelRunner r(WrapKernel("k", ".param .u64 k_src, .param .u64 k_out", kSrcSize, "sm_80"));
  std::vector<uint8_t> data(32 * 32);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7 + 1) | 1;
  auto src = r.Alloc<uint8_t>(data.size(), data);
  auto out = r.Alloc<uint8_t>(32 * 32);
  const absl::Status s = r.Launch("k", {1, 1, 1}, {32, 1, 1}, src.device, out.device);
  INFO(s.message());
  REQUIRE(s.ok());
  const auto got = r.Read(out);
  for (uint32_t t = 0; t < 32; ++t) {
    INFO("thread " << t);
    const uint32_t n = t % 17;
    for (uint32_t i = 0; i < 16; ++i) CHECK(got[32 * t + i] == (i < n ? data[32 * t + i] : 0));
    for (uint32_t i = 0; i < 8; ++i) CHECK(got[32 * t + 16 + i] == (i < 3 ? data[32 * t + 16 + i] : 0));
    for (uint32_t i = 0; i < 4; ++i) CHECK(got[32 * t + 24 + i] == 0);
    for (uint32_t i = 0; i < 4; ++i) CHECK(got[32 * t + 28 + i] == 0xff);  // untouched
  }
}

// ignore-src (a predicate), cache-policy operands and prefetch sizes.
const char* kIgnoreSrc = R"(
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .reg .pred %p<3>;
  .shared .align 16 .b8 buf[2048];
  ld.param.u64 %rd1, [k_src];
  ld.param.u64 %rd2, [k_out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 6;
  add.u32 %r4, %r2, %r3;
  mul.wide.u32 %rd3, %r1, 64;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r5, -1;
  st.shared.v4.u32 [%r4], {%r5, %r5, %r5, %r5};
  st.shared.v4.u32 [%r4+16], {%r5, %r5, %r5, %r5};
  st.shared.v4.u32 [%r4+32], {%r5, %r5, %r5, %r5};
  st.shared.v4.u32 [%r4+48], {%r5, %r5, %r5, %r5};
  and.b32 %r6, %r1, 1;
  setp.ne.u32 %p1, %r6, 0;
  createpolicy.fractional.L2::evict_last.b64 %rd7, 1.0;
  cp.async.ca.shared.global [%r4], [%rd4], 4, %p1;
  cp.async.cg.shared.global.L2::cache_hint [%r4+16], [%rd4+16], 16, %p1, %rd7;
  cp.async.ca.shared.global.L2::cache_hint.L2::128B [%r4+32], [%rd4+32], 8, 5, %rd7;
  cp.async.cg.shared.global.L2::256B [%r4+48], [%rd4+48], 16;
  cp.async.commit_group;
  cp.async.wait_group 0;
  ld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [%r4];
  ld.shared.v4.u32 {%r12, %r13, %r14, %r15}, [%r4+16];
  add.s64 %rd5, %rd2, %rd3;
  st.global.v4.u32 [%rd5], {%r8, %r9, %r10, %r11};
  st.global.v4.u32 [%rd5+16], {%r12, %r13, %r14, %r15};
  ld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [%r4+32];
  ld.shared.v4.u32 {%r12, %r13, %r14, %r15}, [%r4+48];
  st.global.v4.u32 [%rd5+32], {%r8, %r9, %r10, %r11};
  st.global.v4.u32 [%rd5+48], {%r12, %r13, %r14, %r15};
  ret;
)";

TEST_CASE("ignore-src true gives zeros, cache hints and prefetch sizes change nothing", "[async][cp.async]") {
  KernelRunner r(WrapKernel("k", ".param .u64 k_src, .param .u64 k_out", kIgnoreSrc, "sm_80"));
  std::vector<uint8_t> data(32 * 64);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 13 + 3) | 1;
  auto src = r.Alloc<uint8_t>(data.size(), data);
  auto out = r.Alloc<uint8_t>(32 * 64);
  const absl::Status s = r.Launch("k", {1, 1, 1}, {32, 1, 1}, src.device, out.device);
  INFO(s.message());
  REQUIRE(s.ok());
  const auto got = r.Read(out);
  for (uint32_t t = 0; t < 32; ++t) {
    INFO("thread " << t);
    const bool ignore = (t & 1) != 0;
    const uint8_t* g = &got[64 * t];
    const uint8_t* d = &data[64 * t];
    for (uint32_t i = 0; i < 4; ++i) CHECK(g[i] == (ignore ? 0 : d[i]));
    for (uint32_t i = 4; i < 16; ++i) CHECK(g[i] == 0xff);
    for (uint32_t i = 16; i < 32; ++i) CHECK(g[i] == (ignore ? 0 : d[i]));
    for (uint32_t i = 32; i < 40; ++i) CHECK(g[i] == (i < 37 ? d[i] : 0));
    for (uint32_t i = 40; i < 48; ++i) CHECK(g[i] == 0xff);
    for (uint32_t i = 48; i < 64; ++i) CHECK(g[i] == d[i]);
  }
}

// k_mode selects the faulting copy of lane 5 (the others are well formed):
// 1 dst misaligned, 2 src misaligned, 3 dst past the shared window,
// 4 src outside device memory, 0 none.
const char* kFaults = R"(
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .reg .pred %p<8>;
  .shared .align 16 .b8 buf[512];
  ld.param.u64 %rd1, [k_src];
  ld.param.u32 %r9, [k_mode];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 4;
  add.u32 %r4, %r2, %r3;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  setp.eq.u32 %p1, %r1, 5;
  setp.eq.u32 %p2, %r9, 1;
  and.pred %p3, %p1, %p2;
  @%p3 add.u32 %r4, %r4, 4;
  setp.eq.u32 %p2, %r9, 2;
  and.pred %p3, %p1, %p2;
  @%p3 add.s64 %rd4, %rd4, 8;
  setp.eq.u32 %p2, %r9, 3;
  and.pred %p3, %p1, %p2;
  @%p3 add.u32 %r4, %r4, 65536;
  setp.eq.u32 %p2, %r9, 4;
  and.pred %p3, %p1, %p2;
  @%p3 mov.u64 %rd4, 64;
  cp.async.cg.shared.global [%r4], [%rd4], 16;
  cp.async.wait_all;
  ret;
)";

TEST_CASE("misaligned and out-of-window cp.async addresses fault", "[async][cp.async]") {
  KernelRunner r(WrapKernel("k", ".param .u64 k_src, .param .u32 k_mode", kFaults, "sm_80"));
  auto src = r.Alloc<uint32_t>(128 + 4);
  REQUIRE(r.Launch("k", {1, 1, 1}, {32, 1, 1}, src.device, 0u).ok());
  for (uint32_t mode : {1u, 2u, 3u, 4u}) {
    INFO("mode " << mode);
    const absl::Status s = r.Launch("k", {1, 1, 1}, {32, 1, 1}, src.device, mode);
    INFO(s.message());
    CHECK_FALSE(s.ok());
    if (mode <= 2) CHECK(std::string(s.message()).find("misaligned") != std::string::npos);
  }
}

// Warp 1 issues copies and exits without waiting; warp 0 passes bar.sync
// (exited threads no longer count) and reads what they copied: the copies
// landed when their lanes exited (emulator).
const char* kExitPending = R"(
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .reg .pred %p<3>;
  .shared .align 16 .b8 buf[512];
  ld.param.u64 %rd1, [k_src];
  ld.param.u64 %rd2, [k_out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  and.b32 %r7, %r1, 31;
  shl.b32 %r3, %r7, 4;
  add.u32 %r4, %r2, %r3;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra $L_reader;
  mul.wide.u32 %rd3, %r7, 16;
  add.s64 %rd4, %rd1, %rd3;
  cp.async.cg.shared.global [%r4], [%rd4], 16;
  cp.async.commit_group;
  ret;
$L_reader:
  bar.sync 0;
  ld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [%r4];
  mul.wide.u32 %rd5, %r1, 16;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v4.u32 [%rd6], {%r8, %r9, %r10, %r11};
  ret;
)";

TEST_CASE("copies pending when their lanes exit land (emulator)", "[async][cp.async]") {
  KernelRunner r(WrapKernel("k", ".param .u64 k_src, .param .u64 k_out", kExitPending, "sm_80"));
  const auto data = Pattern(128, 3);
  auto src = r.Alloc<uint32_t>(128, data);
  auto out = r.Alloc<uint32_t>(128);
  const absl::Status s = r.Launch("k", {2, 1, 1}, {64, 1, 1}, src.device, out.device);
  INFO(s.message());
  REQUIRE(s.ok());
  CHECK(r.Read(out) == data);
}

// One block after another in one resident slot (the block objects are
// reused): each block first reads its shared memory (zero at block start),
// then its lanes issue copies into it and exit without waiting. A copy still
// pending in a reused block would show up in a later block.
const char* kReuse = R"(
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 16 .b8 buf[512];
  ld.param.u64 %rd1, [k_src];
  ld.param.u64 %rd2, [k_out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r12, %ctaid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 4;
  add.u32 %r4, %r2, %r3;
  ld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [%r4];
  or.b32 %r8, %r8, %r9;
  or.b32 %r8, %r8, %r10;
  or.b32 %r8, %r8, %r11;
  mad.lo.u32 %r13, %r12, 32, %r1;
  mul.wide.u32 %rd5, %r13, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r8;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  cp.async.cg.shared.global [%r4], [%rd4], 16;
  cp.async.commit_group;
  cp.async.cg.shared.global [%r4], [%rd4], 16;
  ret;
)";

TEST_CASE("a block whose lanes exit with pending copies leaves no trace in later blocks", "[async][cp.async]") {
  KernelRunner r(WrapKernel("k", ".param .u64 k_src, .param .u64 k_out", kReuse, "sm_80"));
  r.device().schedule().resident_slots = 1;
  const auto data = Pattern(128, 5);
  auto src = r.Alloc<uint32_t>(128, data);
  auto out = r.Alloc<uint32_t>(8 * 32);
  for (int traced = 0; traced < 2; ++traced) {
    CollectingSink sink;
    if (traced) r.device().SetSink(&sink);
    const absl::Status s = r.Launch("k", {8, 1, 1}, {32, 1, 1}, src.device, out.device);
    INFO(s.message());
    REQUIRE(s.ok());
    CHECK(r.Read(out) == std::vector<uint32_t>(8 * 32, 0));
    r.device().SetSink(nullptr);
  }
}

// Every block of a launch that reuses block objects: two committed groups,
// wait_group 1. The kAsyncWait of every block names the records of the first
// group only (2: its read and its write), counted from the block's start.
const char* kReuseRecords = R"(
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 16 .b8 buf[1024];
  ld.param.u64 %rd1, [k_src];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 4;
  add.u32 %r4, %r2, %r3;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  cp.async.cg.shared.global [%r4], [%rd4], 16;
  cp.async.commit_group;
  cp.async.cg.shared.global [%r4+512], [%rd4], 16;
  cp.async.commit_group;
  cp.async.wait_group 1;
  ret;
)";

TEST_CASE("async record numbering starts again in every block, also in reused block objects",
          "[async][cp.async][records]") {
  for (bool deterministic : {true, false}) {
    INFO("deterministic " << deterministic);
    KernelRunner r(WrapKernel("k", ".param .u64 k_src", kReuseRecords, "sm_80"));
    // One block at a time, in one reused block object.
    r.device().schedule().deterministic = deterministic;
    r.device().schedule().resident_slots = 1;
    r.device().schedule().workers = 1;
    r.device().schedule().max_resident_blocks_per_worker = 1;
    auto src = r.Alloc<uint32_t>(128);
    CollectingSink sink;
    r.device().SetSink(&sink);
    const uint32_t blocks = 4;
    REQUIRE(r.Launch("k", {blocks, 1, 1}, {32, 1, 1}, src.device).ok());
    const auto waits = OpsOf(sink, protocol::Op::kAsyncWait);
    REQUIRE(waits.size() == blocks);
    for (const auto& w : waits) {
      INFO("warp " << w.header.warp_id);
      CHECK(w.header.active_mask == kFullMask);
      for (uint32_t l = 0; l < 32; ++l) CHECK(w.addr[l] == 2);
    }
  }
}

// Records of cp.async: lane l copies 8 bytes reading 8 (l%3==0), 4 (l%3==1)
// or 0 (l%3==2) bytes. A plain st.shared of the same destination first gives
// the shared record addresses to compare with.
const char* kCopyRecords = R"(
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 16 .b8 buf[512];
  ld.param.u64 %rd1, [k_src];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 3;
  add.u32 %r4, %r2, %r3;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd1, %rd3;
  st.shared.u32 [%r4], %r1;
  rem.u32 %r5, %r1, 3;
  mov.u32 %r6, 8;
  setp.eq.u32 %p1, %r5, 1;
  @%p1 mov.u32 %r6, 4;
  setp.eq.u32 %p1, %r5, 2;
  @%p1 mov.u32 %r6, 0;
  cp.async.ca.shared.global [%r4], [%rd4], 8, %r6;
  cp.async.commit_group;
  cp.async.wait_group 0;
  cp.async.wait_all;
  cp.async.ca.shared.global [%r4], [%rd4], 8;
  cp.async.ca.shared.global [%r4], [%rd4], 8;
  cp.async.commit_group;
  cp.async.ca.shared.global [%r4], [%rd4], 8;
  cp.async.wait_group 0;
  cp.async.wait_all;
  ret;
)";

TEST_CASE("cp.async records: async read and write per issue, kAsyncWait counts", "[async][cp.async][records]") {
  KernelRunner r(WrapKernel("k", ".param .u64 k_src", std::string(".reg .pred %p<2>;\n") + kCopyRecords, "sm_80"));
  auto src = r.Alloc<uint64_t>(32);
  CollectingSink sink;
  r.device().SetSink(&sink);
  REQUIRE(r.Launch("k", {1, 1, 1}, {32, 1, 1}, src.device).ok());
  std::vector<protocol::Record> recs;
  for (const auto& rec : sink.Flatten(0)) {
    const protocol::Op op = protocol::OpOf(rec.header);
    if (op == protocol::Op::kRead || op == protocol::Op::kWrite || op == protocol::Op::kAsyncWait) recs.push_back(rec);
  }
  uint32_t m8 = 0, m4 = 0, m0 = 0;
  for (uint32_t l = 0; l < 32; ++l) (l % 3 == 0 ? m8 : l % 3 == 1 ? m4 : m0) |= 1u << l;
  // st.shared; issue 1: read 8, read 4, write 8; wait; wait_all: nothing new;
  // issue 2, 3 (read, write each); issue 4; wait_group 0 (issues 2, 3); wait_all (issue 4).
  REQUIRE(recs.size() == 1 + 3 + 1 + 2 + 2 + 2 + 1 + 1);
  const protocol::Record& plain = recs[0];
  CHECK(protocol::OpOf(plain.header) == protocol::Op::kWrite);
  CHECK((plain.header.flags & protocol::kFlagAsync) == 0);
  auto check_async = [&](const protocol::Record& rec, protocol::Op op, uint32_t mask, uint32_t size) {
    CHECK(protocol::OpOf(rec.header) == op);
    CHECK(rec.header.flags == protocol::kFlagAsync);
    CHECK(rec.header.active_mask == mask);
    CHECK(rec.header.access_size == size);
    CHECK(protocol::SpaceOf(rec.header) == (op == protocol::Op::kRead ? protocol::Space::kGlobal
                                                                         : protocol::Space::kShared));
    CHECK(rec.header.warp_id == 0);
    for (uint32_t m = mask; m; m &= m - 1) {
      const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
      if (op == protocol::Op::kRead) {
        CHECK(rec.addr[l] == reinterpret_cast<uint64_t>(src.device + l));
      } else {
        CHECK(rec.addr[l] == plain.addr[l]);
      }
    }
  };
  check_async(recs[1], protocol::Op::kRead, m8, 8);
  check_async(recs[2], protocol::Op::kRead, m4, 4);
  check_async(recs[3], protocol::Op::kWrite, kFullMask, 8);
  CHECK(recs[1].header.site_id == recs[3].header.site_id);
  const protocol::Record& w1 = recs[4];
  CHECK(protocol::OpOf(w1.header) == protocol::Op::kAsyncWait);
  CHECK(w1.header.active_mask == kFullMask);
  for (uint32_t l = 0; l < 32; ++l) CHECK(w1.addr[l] == (l % 3 == 2 ? 1u : 2u));
  for (int i : {5, 7, 9}) {
    check_async(recs[i], protocol::Op::kRead, kFullMask, 8);
    check_async(recs[i + 1], protocol::Op::kWrite, kFullMask, 8);
  }
  const protocol::Record& w2 = recs[11];
  CHECK(protocol::OpOf(w2.header) == protocol::Op::kAsyncWait);
  for (uint32_t l = 0; l < 32; ++l) CHECK(w2.addr[l] == (l % 3 == 2 ? 1u : 2u) + 4);
  const protocol::Record& w3 = recs[12];
  CHECK(protocol::OpOf(w3.header) == protocol::Op::kAsyncWait);
  for (uint32_t l = 0; l < 32; ++l) CHECK(w3.addr[l] == (l % 3 == 2 ? 1u : 2u) + 6);
  CHECK(w2.header.site_id != w3.header.site_id);
}

TEST_CASE("malformed cp.async forms are refused at load", "[async][cp.async]") {
  for (const char* bad : {"cp.async.cg.shared.global [%r1], [%rd1], 8;", "cp.async.ca.shared.global [%r1], [%rd1], 2;"}) {
    INFO(bad);
    const std::string body = std::string(".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n") + bad + "\nret;\n";
    CHECK_THROWS(KernelRunner(WrapKernel("k", "", body, "sm_80")));
  }
}

// ---------------------------------------------------------------------------
// mbarrier

// One thread walks an object through three phases (init 3; arrive with a
// count; arrive_drop); out: pending counts and test_wait answers.
const char* kPhases = R"(
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .reg .pred %p<10>;
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [k_out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_end;
  mbarrier.init.shared.b64 [bar], 3;
  mbarrier.arrive.shared.b64 %rd2, [bar];
  mbarrier.pending_count.b64 %r2, %rd2;
  mbarrier.test_wait.shared.b64 %p2, [bar], %rd2;
  selp.u32 %r3, 1, 0, %p2;
  mbarrier.arrive.shared.b64 %rd3, [bar], 2;
  mbarrier.pending_count.b64 %r4, %rd3;
  mbarrier.test_wait.shared.b64 %p3, [bar], %rd2;
  selp.u32 %r5, 1, 0, %p3;
  mbarrier.test_wait.parity.shared.b64 %p4, [bar], 0;
  selp.u32 %r6, 1, 0, %p4;
  mbarrier.test_wait.parity.shared.b64 %p5, [bar], 1;
  selp.u32 %r7, 1, 0, %p5;
  mbarrier.arrive_drop.shared.b64 %rd4, [bar];
  mbarrier.pending_count.b64 %r8, %rd4;
  mbarrier.arrive.shared.b64 %rd5, [bar];
  mbarrier.pending_count.b64 %r9, %rd5;
  mbarrier.test_wait.shared.b64 %p6, [bar], %rd5;
  selp.u32 %r10, 1, 0, %p6;
  mbarrier.arrive.shared.b64 %rd6, [bar];
  mbarrier.test_wait.parity.shared.b64 %p7, [bar], 1;
  selp.u32 %r11, 1, 0, %p7;
  mbarrier.test_wait.shared.b64 %p8, [bar], %rd5;
  selp.u32 %r12, 1, 0, %p8;
  mbarrier.arrive.shared.b64 %rd7, [bar];
  mbarrier.pending_count.b64 %r13, %rd7;
  mbarrier.test_wait.parity.shared.b64 %p9, [bar], 0;
  selp.u32 %r14, 1, 0, %p9;
  mbarrier.arrive.shared.b64 %rd8, [bar];
  mbarrier.test_wait.parity.shared.b64 %p9, [bar], 0;
  selp.u32 %r15, 1, 0, %p9;
  mbarrier.try_wait.shared.b64 %p9, [bar], %rd7;
  selp.u32 %r16, 1, 0, %p9;
  mbarrier.pending_count.b64 %r17, %rd8;
  st.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r5};
  st.global.v4.u32 [%rd1+16], {%r6, %r7, %r8, %r9};
  st.global.v4.u32 [%rd1+32], {%r10, %r11, %r12, %r13};
  st.global.v4.u32 [%rd1+48], {%r14, %r15, %r16, %r17};
$L_end:
  ret;
)";

TEST_CASE("mbarrier phases: init count, arrive with a count, arrive_drop, test_wait on token and parity",
          "[async][mbarrier]") {
  KernelRunner r(WrapKernel("k", ".param .u64 k_out", kPhases, "sm_90"));
  auto out = r.Alloc<uint32_t>(16);
  const absl::Status s = r.Launch("k", {1, 1, 1}, {32, 1, 1}, out.device);
  INFO(s.message());
  REQUIRE(s.ok());
  // phase 0 (3 expected): arrive -> 2 pending, not done; arrive 2 -> 0, done
  // (token and parity 0; parity 1 not). phase 1: arrive_drop -> 2 pending,
  // 2 expected from now on; arrive -> 1, not done; arrive -> done. phase 2
  // (2 expected): arrive -> 1, parity 0 not done; arrive -> done; pending 0.
  const std::vector<uint32_t> expect = {2, 0, 0, 1, 1, 0, 2, 1, 0, 1, 1, 1, 0, 1, 1, 0};
  CHECK(r.Read(out) == expect);
}

// tx-count: expect_tx / complete_tx / arrive.expect_tx hold a phase open.
const char* kTx = R"(
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .reg .pred %p<10>;
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [k_out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_end;
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 64;
  mbarrier.arrive.shared.b64 %rd2, [bar];
  mbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;
  selp.u32 %r2, 1, 0, %p2;
  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 32;
  mbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;
  selp.u32 %r3, 1, 0, %p2;
  mbarrier.complete_tx.shared.b64 [bar], 32;
  mbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;
  selp.u32 %r4, 1, 0, %p2;
  mbarrier.test_wait.shared.b64 %p2, [bar], %rd2;
  selp.u32 %r5, 1, 0, %p2;
  mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd3, [bar], 16;
  mbarrier.pending_count.b64 %r6, %rd3;
  mbarrier.test_wait.parity.shared.b64 %p2, [bar], 1;
  selp.u32 %r7, 1, 0, %p2;
  mbarrier.complete_tx.shared.b64 [bar], 16;
  mbarrier.test_wait.parity.shared.b64 %p2, [bar], 1;
  selp.u32 %r8, 1, 0, %p2;
  mbarrier.complete_tx.shared.b64 [bar], 8;
  mbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;
  selp.u32 %r9, 1, 0, %p2;
  mbarrier.arrive.expect_tx.shared.b64 %rd4, [bar], 8;
  mbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;
  selp.u32 %r10, 1, 0, %p2;
  mbarrier.expect_tx.shared.b64 [bar], 4;
  mbarrier.arrive.shared.b64 %rd5, [bar];
  mbarrier.complete_tx.shared.b64 [bar], 2;
  mbarrier.try_wait.parity.shared.b64 %p2, [bar], 1;
  selp.u32 %r11, 1, 0, %p2;
  mbarrier.complete_tx.shared.b64 [bar], 2;
  mbarrier.try_wait.parity.shared.b64 %p2, [bar], 1;
  selp.u32 %r12, 1, 0, %p2;
  st.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r5};
  st.global.v4.u32 [%rd1+16], {%r6, %r7, %r8, %r9};
  st.global.v4.u32 [%rd1+32], {%r10, %r11, %r12, 0};
$L_end:
  ret;
)";

TEST_CASE("mbarrier tx-count: expect_tx, complete_tx and arrive.expect_tx hold the phase until it is 0",
          "[async][mbarrier]") {
  KernelRunner r(WrapKernel("k", ".param .u64 k_out", kTx, "sm_90"));
  auto out = r.Alloc<uint32_t>(12);
  const absl::Status s = r.Launch("k", {1, 1, 1}, {32, 1, 1}, out.device);
  INFO(s.message());
  REQUIRE(s.ok());
  // phase 0: tx 64, arrived: open; -32: open; -32: done (parity, token).
  // phase 1: arrive.expect_tx 16: pending 0, open; complete 16: done.
  // phase 2: complete_tx first (tx -8): open; arrive.expect_tx 8: done.
  // phase 3: expect 4, arrive, complete 2: open; complete 2: done.
  const std::vector<uint32_t> expect = {0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 0};
  CHECK(r.Read(out) == expect);
}

// Warp 1 (producer) works a while, stores data[0..31] and arrives (32
// arrivals); warp 0 (consumer) spins on try_wait.parity and then reads the
// data. out: the data read, then the consumer's try_wait count.
const char* kProducerConsumer = R"(
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .reg .pred %p<6>;
  .shared .align 8 .b64 bar;
  .shared .align 4 .b8 data[128];
  ld.param.u64 %rd1, [k_out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_sync;
  mbarrier.init.shared::cta.b64 [bar], 32;
$L_sync:
  bar.sync 0;
  mov.u32 %r2, data;
  setp.lt.u32 %p2, %r1, 32;
  @%p2 bra $L_consumer;
  mov.u32 %r5, 0;
$L_delay:
  add.u32 %r5, %r5, 1;
  setp.lt.u32 %p3, %r5, 3000;
  @%p3 bra $L_delay;
  sub.u32 %r6, %r1, 32;
  shl.b32 %r7, %r6, 2;
  add.u32 %r8, %r2, %r7;
  mad.lo.u32 %r9, %r6, 3, 7;
  st.shared.u32 [%r8], %r9;
  mov.u64 %rd6, bar;
  cvta.shared.u64 %rd7, %rd6;
  mbarrier.arrive.release.cta.b64 %rd8, [%rd7];
  ret;
$L_consumer:
  mov.u32 %r11, 0;
$L_wait:
  add.u32 %r11, %r11, 1;
  mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p4, [bar], 0, 1000;
  @!%p4 bra $L_wait;
  shl.b32 %r12, %r1, 2;
  add.u32 %r13, %r2, %r12;
  ld.shared.u32 %r14, [%r13];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r14;
  st.global.u32 [%rd3+128], %r11;
  ret;
)";

TEST_CASE("try_wait loop: a consumer warp spins until a producer warp's arrivals complete the phase",
          "[async][mbarrier]") {
  KernelRunner r(WrapKernel("k", ".param .u64 k_out", kProducerConsumer, "sm_90"));
  auto out = r.Alloc<uint32_t>(64);
  for (int traced = 0; traced < 3; ++traced) {
    INFO("traced " << traced);
    // Run 2: traced, free-running workers.
    r.device().schedule().deterministic = traced < 2;
    CollectingSink sink;
    if (traced) r.device().SetSink(&sink);
    const absl::Status s = r.Launch("k", {3, 1, 1}, {64, 1, 1}, out.device);
    INFO(s.message());
    REQUIRE(s.ok());
    const auto got = r.Read(out);
    for (uint32_t t = 0; t < 32; ++t) {
      INFO("thread " << t);
      CHECK(got[t] == 3 * t + 7);
      if (traced < 2) CHECK(got[32 + t] > 1);  // the consumer found the phase open at least once
    }
    if (traced) {
      // Only successful waits are records: one acquire per consumer lane.
      const auto acquires = OpsOf(sink, protocol::Op::kAcquire);
      uint32_t lanes = 0;
      for (const auto& a : acquires) lanes += static_cast<uint32_t>(__builtin_popcount(a.header.active_mask));
      CHECK(lanes == 3 * 32);
      CHECK(OpsOf(sink, protocol::Op::kRelease).size() == 3);
    }
    r.device().SetSink(nullptr);
  }
}

// A phase that can never complete: the expected count is one more than the
// producer warp's 32 arrivals. The consumer spins until the watch sees every
// warp of the block exited or spinning (exec/spin_watch.h): a deadlock naming
// the mbarrier and what its phase misses. A producer that works much longer
// than the watch's threshold before arriving is not a deadlock.
TEST_CASE("try_wait loop: a phase that cannot complete is a deadlock, a slow producer is not",
          "[async][mbarrier]") {
  std::string off_by_one = kProducerConsumer;
  off_by_one.replace(off_by_one.find("[bar], 32;"), 10, "[bar], 33;");
  KernelRunner r(WrapKernel("k", ".param .u64 k_out", off_by_one, "sm_90"));
  r.device().schedule().kernel_timeout_s = 60;  // a regression fails instead of hanging
  auto out = r.Alloc<uint32_t>(64);
  const absl::Status s = r.Launch("k", {1, 1, 1}, {64, 1, 1}, out.device);
  REQUIRE_FALSE(s.ok());
  const std::string m(s.message());
  INFO(m);
  CHECK(m.find("no warp of the block can make progress") != std::string::npos);
  CHECK(m.find("warp 0 spins on mbarrier test_wait/try_wait (PTX line") != std::string::npos);
  CHECK(m.find("the mbarrier at shared offset 0, whose current phase still misses 1 of 33 arrivals and 0 "
               "transaction bytes") != std::string::npos);
  CHECK(m.find("warp 1 exited") != std::string::npos);

  // With a nanosleep in the wait loop (libcu++'s cuda::barrier backs off so),
  // which ends the warp's turn between two waits: still a deadlock.
  std::string sleepy = off_by_one;
  const std::string wait = "  @!%p4 bra $L_wait;";
  sleepy.replace(sleepy.find(wait), wait.size(), "  nanosleep.u32 100;\n" + wait);
  KernelRunner sleepy_run(WrapKernel("k", ".param .u64 k_out", sleepy, "sm_90"));
  sleepy_run.device().schedule().kernel_timeout_s = 60;
  auto sleepy_out = sleepy_run.Alloc<uint32_t>(64);
  const absl::Status s2 = sleepy_run.Launch("k", {1, 1, 1}, {64, 1, 1}, sleepy_out.device);
  REQUIRE_FALSE(s2.ok());
  INFO(s2.message());
  CHECK(std::string(s2.message()).find("no warp of the block can make progress") != std::string::npos);

  std::string slow = kProducerConsumer;
  slow.replace(slow.find("%r5, 3000;"), 10, "%r5, 400000;");
  KernelRunner slow_run(WrapKernel("k", ".param .u64 k_out", slow, "sm_90"));
  slow_run.device().schedule().kernel_timeout_s = 60;
  auto slow_out = slow_run.Alloc<uint32_t>(64);
  const absl::Status ok = slow_run.Launch("k", {1, 1, 1}, {64, 1, 1}, slow_out.device);
  INFO(ok.message());
  REQUIRE(ok.ok());
  const auto got = slow_run.Read(slow_out);
  CHECK(got[0] == 7);
  CHECK(got[32] > 1000);  // the consumer spun far past the watch's threshold meanwhile
}

// cp.async.mbarrier.arrive: with .noinc the arrive-on is one of the 32
// expected arrivals; without it the count is unchanged and the lanes arrive
// themselves. Either way the copies are complete when the phase is.
// out: neighbour's copied word, and test_wait right after
// cp.async.mbarrier.arrive (1 = done).
const char* kCpAsyncArrive = R"(
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .reg .pred %p<6>;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b8 buf[512];
  ld.param.u64 %rd1, [k_src];
  ld.param.u64 %rd2, [k_out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_sync;
  mbarrier.init.shared.b64 [bar], 32;
$L_sync:
  bar.sync 0;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 4;
  add.u32 %r4, %r2, %r3;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  cp.async.ca.shared.global [%r4], [%rd4], 16;
  cp.async.mbarrier.arrive.NOINC.shared.b64 [bar];
  mbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;
  selp.u32 %r5, 1, 0, %p2;
  ARRIVE
$L_wait:
  mbarrier.test_wait.parity.shared.b64 %p3, [bar], 0;
  @!%p3 bra $L_wait;
  add.u32 %r6, %r1, 1;
  and.b32 %r6, %r6, 31;
  shl.b32 %r7, %r6, 4;
  add.u32 %r8, %r2, %r7;
  ld.shared.u32 %r9, [%r8+4];
  mul.wide.u32 %rd5, %r1, 8;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v2.u32 [%rd6], {%r9, %r5};
  ret;
)";

TEST_CASE("cp.async.mbarrier.arrive[.noinc] completes the copies and arrives as specified",
          "[async][mbarrier][cp.async]") {
  for (bool noinc : {true, false}) {
    INFO((noinc ? "noinc" : "inc"));
    std::string body = Sub(kCpAsyncArrive, ".NOINC", noinc ? ".noinc" : "");
    body = Sub(body, "ARRIVE", noinc ? "" : "mbarrier.arrive.shared.b64 %rd9, [bar];");
    KernelRunner r(WrapKernel("k", ".param .u64 k_src, .param .u64 k_out", body, "sm_80"));
    const auto data = Pattern(128, 11);
    auto src = r.Alloc<uint32_t>(128, data);
    auto out = r.Alloc<uint32_t>(64);
    CollectingSink sink;
    r.device().SetSink(&sink);
    const absl::Status s = r.Launch("k", {1, 1, 1}, {32, 1, 1}, src.device, out.device);
    INFO(s.message());
    REQUIRE(s.ok());
    const auto got = r.Read(out);
    for (uint32_t t = 0; t < 32; ++t) {
      INFO("thread " << t);
      CHECK(got[2 * t] == data[4 * ((t + 1) % 32) + 1]);
      CHECK(got[2 * t + 1] == (noinc ? 1u : 0u));  // 32 noinc arrive-ons complete the phase
    }
    const auto releases = OpsOf(sink, protocol::Op::kRelease);
    REQUIRE(releases.size() == (noinc ? 1u : 2u));
    const protocol::Record& a = releases[0];
    CHECK(a.header.flags == (protocol::kFlagLoad | protocol::kFlagStore | protocol::kFlagAsync));
    CHECK(a.header.access_size == 8);
    CHECK(a.header.active_mask == kFullMask);
    CHECK(protocol::SpaceOf(a.header) == protocol::Space::kShared);
    CHECK(a.stamp != 0);
    if (!noinc) CHECK(releases[1].header.flags == (protocol::kFlagLoad | protocol::kFlagStore));
    // The copies completed by the arrive are not observed by the lanes: no kAsyncWait.
    CHECK(OpsOf(sink, protocol::Op::kAsyncWait).empty());
  }
}

// Records of mbarrier instructions (thread 0 only).
const char* kMbarRecords = R"(
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .reg .pred %p<6>;
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_end;
  mbarrier.init.shared.b64 [bar], 2;
  mbarrier.arrive.shared.b64 %rd1, [bar];
  mbarrier.test_wait.shared.b64 %p2, [bar], %rd1;
  mbarrier.expect_tx.shared.b64 [bar], 4;
  mbarrier.arrive.release.cluster.shared.b64 %rd2, [bar];
  mbarrier.complete_tx.shared.b64 [bar], 4;
  mbarrier.test_wait.shared.b64 %p2, [bar], %rd1;
  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p3, [bar], 0;
  mbarrier.inval.shared.b64 [bar];
$L_end:
  ret;
)";

TEST_CASE("mbarrier records: init write, arrive release, failed wait silent, successful wait acquire",
          "[async][mbarrier][records]") {
  KernelRunner r(WrapKernel("k", "", kMbarRecords, "sm_90"));
  CollectingSink sink;
  r.device().SetSink(&sink);
  const absl::Status s = r.Launch("k", {1, 1, 1}, {32, 1, 1});
  INFO(s.message());
  REQUIRE(s.ok());
  std::vector<protocol::Record> recs;
  for (const auto& rec : sink.Flatten(0))
    if (protocol::IsMemoryOp(protocol::OpOf(rec.header)) || protocol::OpOf(rec.header) == protocol::Op::kAcquire ||
        protocol::OpOf(rec.header) == protocol::Op::kRelease)
      recs.push_back(rec);
  // init, arrive, (failed test_wait), expect_tx, arrive, complete_tx,
  // test_wait, try_wait.parity, inval.
  REQUIRE(recs.size() == 8);
  for (const auto& rec : recs) {
    CHECK(rec.header.access_size == 8);
    CHECK(rec.header.active_mask == 1u);
    CHECK(protocol::SpaceOf(rec.header) == protocol::Space::kShared);
    CHECK(rec.addr[0] == recs[0].addr[0]);
  }
  using protocol::Op;
  const uint8_t rmw = protocol::kFlagLoad | protocol::kFlagStore;
  CHECK(protocol::OpOf(recs[0].header) == Op::kWrite);
  CHECK(recs[0].header.flags == 0);
  CHECK(protocol::SequenceStamp(recs[0]) == 0);
  CHECK(protocol::OpOf(recs[1].header) == Op::kRelease);
  CHECK(recs[1].header.flags == rmw);
  CHECK(protocol::ScopeOf(recs[1].header) == protocol::Scope::kCta);
  CHECK(recs[1].stamp != 0);
  CHECK(protocol::OpOf(recs[2].header) == Op::kAtomic);  // expect_tx: relaxed rmw
  CHECK(recs[2].header.flags == rmw);
  CHECK(protocol::OpOf(recs[3].header) == Op::kRelease);
  CHECK(protocol::ScopeOf(recs[3].header) == protocol::Scope::kCluster);
  CHECK(protocol::OpOf(recs[4].header) == Op::kAtomic);  // complete_tx
  CHECK(protocol::OpOf(recs[5].header) == Op::kAcquire);
  CHECK(recs[5].header.flags == protocol::kFlagLoad);
  CHECK(recs[5].stamp > recs[3].stamp);
  CHECK(protocol::OpOf(recs[6].header) == Op::kAcquire);
  CHECK(protocol::ScopeOf(recs[6].header) == protocol::Scope::kCluster);
  CHECK(protocol::OpOf(recs[7].header) == Op::kWrite);  // inval
  CHECK(recs[7].header.flags == 0);
}

TEST_CASE("mbarrier objects outside shared memory or misaligned fault", "[async][mbarrier]") {
  const std::string body = R"(
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 8 .b8 bars[16];
  ld.param.u64 %rd1, [k_p];
  ld.param.u32 %r1, [k_mode];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.b64 [%rd1], 1;
  mov.u32 %r2, bars;
  add.u32 %r2, %r2, 4;
  setp.eq.u32 %p1, %r1, 1;
  @%p1 mbarrier.init.shared.b64 [%r2], 1;
  ret;
)";
  KernelRunner r(WrapKernel("k", ".param .u64 k_p, .param .u32 k_mode", ".reg .pred %p<2>;\n" + body, "sm_80"));
  auto g = r.Alloc<uint64_t>(1);
  for (uint32_t mode : {0u, 1u}) {
    INFO("mode " << mode);
    const absl::Status s = r.Launch("k", {1, 1, 1}, {1, 1, 1}, g.device, mode);
    INFO(s.message());
    CHECK_FALSE(s.ok());
  }
  CHECK(r.Launch("k", {1, 1, 1}, {1, 1, 1}, g.device, 2u).ok());
}

}  // namespace
}  // namespace barracuda::emu::testing
