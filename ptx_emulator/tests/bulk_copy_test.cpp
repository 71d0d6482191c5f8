// Bulk copies from shared to global (cp.async.bulk.global.shared::cta
// .bulk_group), bulk async-groups and fence.proxy.async, end to end through
// the loader and the interpreter: the bytes moved, and the records the
// detector gets (async-proxy reads then writes, per 16 bytes; kAsyncWait per
// wait_group{.read}; the proxy fence as kFence | kFlagAsyncProxy).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <algorithm>
#include <bit>
#include <string>
#include <tuple>
#include <vector>

#include "device_logger/protocol.h"
#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/ops/mbarrier_state.h"
#include "ptx_emulator/tests/kernel_runner.h"

namespace barracuda::emu::testing {
namespace {

// 32 threads store tid into buf[tid] (128 bytes), fence the proxies, meet at
// a barrier; lane 0 stores the buffer to out in two bulk groups of 64 bytes,
// waits for the first group's reads (.read 1), then for both groups (0).
const char* kBulkStore = R"(
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
  .shared .align 16 .b8 buf[128];
  ld.param.u64 %rd1, [k_out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %r1;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_done;
  cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r2], 64;
  cp.async.bulk.commit_group;
  add.s64 %rd2, %rd1, 64;
  add.u32 %r5, %r2, 64;
  cp.async.bulk.global.shared::cta.bulk_group [%rd2], [%r5], 64;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 1;
  cp.async.bulk.wait_group 0;
$L_done:
  ret;
)";

TEST_CASE("bulk store: shared to global in bulk groups, records and waits", "[async][bulk]") {
  KernelRunner r(WrapKernel("k", ".param .u64 k_out", kBulkStore, "sm_90"));
  auto out = r.Alloc<uint32_t>(32, std::vector<uint32_t>(32, 0xdeadbeefu));
  CollectingSink sink;
  r.device().SetSink(&sink);
  REQUIRE(r.Launch("k", {1, 1, 1}, {32, 1, 1}, out.device).ok());
  const std::vector<uint32_t> got = r.Read(out);
  for (uint32_t i = 0; i < 32; ++i) CHECK(got[i] == i);

  std::vector<protocol::Record> fences, copies, waits;
  for (const auto& rec : sink.Flatten(0)) {
    const protocol::Op op = protocol::OpOf(rec.header);
    if (op == protocol::Op::kFence) fences.push_back(rec);
    if ((op == protocol::Op::kRead || op == protocol::Op::kWrite) && (rec.header.flags & protocol::kFlagAsync))
      copies.push_back(rec);
    if (op == protocol::Op::kAsyncWait) waits.push_back(rec);
  }
  REQUIRE(fences.size() == 1);
  CHECK(fences[0].header.flags == protocol::kFlagAsyncProxy);
  CHECK(fences[0].header.active_mask == kFullMask);
  CHECK(protocol::ScopeOf(fences[0].header) == protocol::Scope::kNone);

  // Per group: 4 reads of shared, then 4 writes of global, 16 bytes each, lane 0 only.
  REQUIRE(copies.size() == 16);
  const uint64_t shared0 = copies[0].addr[0];
  for (size_t i = 0; i < copies.size(); ++i) {
    const protocol::Record& c = copies[i];
    const size_t group = i / 8, k = i % 8;
    const bool read = k < 4;
    INFO("copy record " << i);
    CHECK(protocol::OpOf(c.header) == (read ? protocol::Op::kRead : protocol::Op::kWrite));
    CHECK(c.header.flags == (protocol::kFlagAsync | protocol::kFlagAsyncProxy));
    CHECK(c.header.active_mask == 1u);
    CHECK(c.header.access_size == 16);
    const uint64_t off = 64 * group + 16 * (k % 4);
    if (read) {
      CHECK(protocol::SpaceOf(c.header) == protocol::Space::kShared);
      CHECK(c.addr[0] == shared0 + off);
    } else {
      CHECK(protocol::SpaceOf(c.header) == protocol::Space::kGlobal);
      CHECK(c.addr[0] == reinterpret_cast<uint64_t>(out.device) + off);
    }
  }
  // .read 1: the first group's reads (records 1..4); 0: both groups whole (16).
  REQUIRE(waits.size() == 2);
  CHECK(waits[0].header.active_mask == 1u);
  CHECK(waits[0].addr[0] == 4);
  CHECK(waits[1].addr[0] == 16);
}

TEST_CASE("bulk wait_group with nothing committed, or more groups pending than committed, names nothing",
          "[async][bulk]") {
  const char* body = R"(
  .reg .b64 %rd<4>;
  .shared .align 16 .b8 buf[64];
  ld.param.u64 %rd1, [k_out];
  mov.u32 %r1, buf;
  cp.async.bulk.wait_group 0;
  cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 64;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 1;
  cp.async.bulk.wait_group.read 0;
  ret;
)";
  KernelRunner r(WrapKernel("k", ".param .u64 k_out", std::string(".reg .b32 %r<4>;\n") + body, "sm_90"));
  auto out = r.Alloc<uint32_t>(16);
  CollectingSink sink;
  r.device().SetSink(&sink);
  REQUIRE(r.Launch("k", {1, 1, 1}, {1, 1, 1}, out.device).ok());
  std::vector<protocol::Record> waits;
  for (const auto& rec : sink.Flatten(0))
    if (protocol::OpOf(rec.header) == protocol::Op::kAsyncWait) waits.push_back(rec);
  // Only the .read 0 wait names something new: the group's 4 reads.
  REQUIRE(waits.size() == 1);
  CHECK(waits[0].addr[0] == 4);
}

TEST_CASE("a bulk wait_group whose count is not a constant is refused at load", "[async][bulk]") {
  const char* body = R"(
  .reg .b32 %r<4>;
  mov.u32 %r2, 1;
  cp.async.bulk.wait_group %r2;
  ret;
)";
  CHECK_THROWS_WITH(KernelRunner(WrapKernel("k", ".param .u64 k_out", body, "sm_90")), Catch::Contains("wait_group"));
}

// One thread arms an mbarrier for EXPECT bytes and copies 64 bytes into
// shared memory with complete_tx, waits for the phase and stores the
// mbarrier object to out.
const char* kArmAndCopy = R"(
  .reg .pred %p<4>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 buf[64];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [k_src];
  ld.param.u64 %rd2, [k_out];
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], EXPECT;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 64, [bar];
$L_wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra $L_wait;
  ld.shared.b64 %rd4, [bar];
  st.global.u64 [%rd2], %rd4;
  ret;
)";

// The ops of the async records, releases and acquires, in order: "r" / "w"
// for copy reads and writes, "R" for a release of the copies, "A" acquire.
std::string AsyncShape(CollectingSink& sink) {
  std::string shape;
  for (const auto& rec : sink.Flatten(0)) {
    const protocol::Op op = protocol::OpOf(rec.header);
    const bool async = (rec.header.flags & protocol::kFlagAsync) != 0;
    if (op == protocol::Op::kRead && async) shape += 'r';
    if (op == protocol::Op::kWrite && async) shape += 'w';
    if (op == protocol::Op::kRelease && async) shape += 'R';
    if (op == protocol::Op::kAcquire) shape += 'A';
  }
  return shape;
}

TEST_CASE("a bulk copy completes its bytes at once: an expect_tx of too few leaves the phase incomplete",
          "[async][bulk][mbarrier]") {
  // One complete-tx of the whole copy, as the ISA describes it and as an H200
  // behaves (a copy of 16 bytes more than expect_tx counted hangs its waiters
  // there): the tx-count goes below zero and the phase does not complete.
  const std::string once = [] {
    std::string k = kArmAndCopy;
    k.replace(k.find("$L_wait:"), std::string("$L_wait:").size(), "");
    k.replace(k.find("mbarrier.try_wait"), std::string("mbarrier.try_wait").size(), "mbarrier.test_wait");
    k.replace(k.find("  @!%p2 bra $L_wait;\n"), std::string("  @!%p2 bra $L_wait;\n").size(), "");
    return k;
  }();
  for (const auto& [expect, shape, tx, parity] :
       {std::tuple{64, "rrrrwwwwRA", 0, 1u}, std::tuple{48, "rrrrwwwwR", -16, 0u}, std::tuple{40, "rrrrwwwwR", -24, 0u}}) {
    INFO("expect_tx " << expect);
    std::string body = once;
    body.replace(body.find("EXPECT"), 6, std::to_string(expect));
    KernelRunner r(WrapKernel("k", ".param .u64 k_src, .param .u64 k_out", body, "sm_90"));
    auto src = r.Alloc<uint32_t>(16, std::vector<uint32_t>(16, 5));
    auto out = r.Alloc<uint64_t>(1);
    CollectingSink sink;
    r.device().SetSink(&sink);
    REQUIRE(r.Launch("k", {1, 1, 1}, {1, 1, 1}, src.device, out.device).ok());
    // The copy lands whole and releases its records; the wait acquires them
    // only when the phase completed.
    CHECK(AsyncShape(sink) == shape);
    const uint64_t state = r.Read(out)[0];
    CHECK(mbar::Parity(state) == parity);
    CHECK(mbar::Tx(state) == tx);
  }
}

// Two blocks of 32 threads: buf[t] = VAL(t) in shared memory, then lane 0
// reduces the 128 bytes into out with cp.reduce.async.bulk OP.TYPE.
const char* kReduceToGlobal = R"(
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
  .shared .align 16 .b8 buf[128];
  ld.param.u64 %rd1, [k_out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  VAL
  st.shared.u32 [%r4], %r5;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_done;
  cp.reduce.async.bulk.global.shared::cta.bulk_group.OP.TYPE [%rd1], [%r2], 128;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
$L_done:
  ret;
)";

TEST_CASE("cp.reduce.async.bulk to global: atomic per element, async-proxy reads of the source",
          "[async][bulk][reduce]") {
  struct Case {
    const char* op;
    const char* type;
    const char* val;  // %r5 from %r1 (tid)
    std::vector<uint32_t> init;
    std::vector<uint32_t> (*want)();
  };
  std::vector<uint32_t> ones(32, 1), neg(32, static_cast<uint32_t>(-5));
  const Case cases[] = {
      {"add", "u32", "add.u32 %r5, %r1, 1;", ones,
       [] { std::vector<uint32_t> w(32); for (uint32_t i = 0; i < 32; ++i) w[i] = 1 + 2 * (i + 1); return w; }},
      {"max", "s32", "sub.s32 %r5, %r1, 16;", neg,
       [] { std::vector<uint32_t> w(32); for (int i = 0; i < 32; ++i) w[i] = static_cast<uint32_t>(std::max(-5, i - 16)); return w; }},
      {"add", "f32", "cvt.rn.f32.u32 %r5, %r1;", std::vector<uint32_t>(32, 0x3f000000u),  // 0.5f
       [] { std::vector<uint32_t> w(32); for (int i = 0; i < 32; ++i) { const float f = 0.5f + 2.0f * i; std::memcpy(&w[i], &f, 4); } return w; }},
  };
  for (const Case& c : cases) {
    INFO(c.op << "." << c.type);
    std::string body = kReduceToGlobal;
    body.replace(body.find("VAL"), 3, c.val);
    body.replace(body.find("OP.TYPE"), 7, std::string(c.op) + "." + c.type);
    KernelRunner r(WrapKernel("k", ".param .u64 k_out", body, "sm_90"));
    auto out = r.Alloc<uint32_t>(32, c.init);
    CollectingSink sink;
    r.device().SetSink(&sink);
    REQUIRE(r.Launch("k", {2, 1, 1}, {32, 1, 1}, out.device).ok());
    CHECK(r.Read(out) == c.want());
    uint32_t reads = 0, atomics = 0;
    for (const auto& rec : sink.Flatten(0)) {
      const protocol::Op op = protocol::OpOf(rec.header);
      if (op == protocol::Op::kRead && rec.header.flags == (protocol::kFlagAsync | protocol::kFlagAsyncProxy)) ++reads;
      if (op == protocol::Op::kAtomic) {
        ++atomics;
        CHECK(rec.header.access_size == 4);
        CHECK(protocol::ScopeOf(rec.header) == protocol::Scope::kGpu);
        CHECK(rec.header.flags == (protocol::kFlagLoad | protocol::kFlagStore));
      }
    }
    CHECK(reads == 2 * 8);     // per block, 128 bytes in 16-byte reads
    CHECK(atomics == 2 * 32);  // per block, one per element
  }
}

TEST_CASE("cp.reduce.async.bulk to shared::cluster completes its transaction on the mbarrier",
          "[async][bulk][reduce]") {
  const char* body = R"(
  .reg .pred %p<4>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 src[64];
  .shared .align 16 .b8 dst[64];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [k_out];
  mov.u32 %r1, src;
  mov.u32 %r2, dst;
  mov.u32 %r3, 0;
$L_fill:
  add.u32 %r4, %r1, %r3;
  st.shared.u32 [%r4], 7;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4], 3;
  add.u32 %r3, %r3, 4;
  setp.lt.u32 %p1, %r3, 64;
  @%p1 bra $L_fill;
  fence.proxy.async.shared::cta;
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], 64;
  cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.xor.b32 [dst], [src], 64, [bar];
$L_wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra $L_wait;
  ld.shared.u32 %r5, [dst];
  ld.shared.u32 %r6, [dst+60];
  st.global.u32 [%rd1], %r5;
  st.global.u32 [%rd1+4], %r6;
  ret;
)";
  KernelRunner r(WrapKernel("k", ".param .u64 k_out", body, "sm_90"));
  auto out = r.Alloc<uint32_t>(2);
  CollectingSink sink;
  r.device().SetSink(&sink);
  REQUIRE(r.Launch("k", {1, 1, 1}, {1, 1, 1}, out.device).ok());
  CHECK(r.Read(out) == std::vector<uint32_t>{3u ^ 7u, 3u ^ 7u});
  uint32_t atomics = 0;
  for (const auto& rec : sink.Flatten(0))
    if (protocol::OpOf(rec.header) == protocol::Op::kAtomic) {
      ++atomics;
      CHECK(protocol::ScopeOf(rec.header) == protocol::Scope::kCluster);
      CHECK(protocol::SpaceOf(rec.header) == protocol::Space::kShared);
    }
  CHECK(atomics == 16);
}

TEST_CASE("cp.reduce.async.bulk forms the emulator does not implement are refused at load", "[async][bulk][reduce]") {
  for (const char* inst : {"cp.reduce.async.bulk.global.shared::cta.bulk_group.max.f32 [%rd1], [%r1], 64;",
                           "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.im2col_no_offs.bulk_group [%rd1, "
                           "{%r1}], [%r1];"}) {
    INFO(inst);
    const std::string body = std::string(R"(
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b8 buf[64];
  ld.param.u64 %rd1, [k_out];
  mov.u32 %r1, buf;
  )") + inst + "\n  ret;\n";
    CHECK_THROWS_WITH(KernelRunner(WrapKernel("k", ".param .u64 k_out", body, "sm_90")), Catch::Contains("cp.reduce"));
  }
  // f16/bf16 min and max are implemented (atom's vector forms share them).
  const std::string min_f16 = R"(
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b8 buf[64];
  ld.param.u64 %rd1, [k_out];
  mov.u32 %r1, buf;
  cp.reduce.async.bulk.global.shared::cta.bulk_group.min.f16 [%rd1], [%r1], 64;
  ret;
)";
  CHECK_NOTHROW(KernelRunner(WrapKernel("k", ".param .u64 k_out", min_f16, "sm_90")));
}

TEST_CASE("st.async and red.async store into cluster shared memory and complete on the mbarrier",
          "[async][mbarrier][st.async]") {
  const char* body = R"(
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 buf[64];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [k_out];
  mov.u32 %r10, buf;
  st.shared.u32 [buf+32], 10;
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], 20;
  mov.u32 %r1, 11;
  mov.u32 %r2, 22;
  mov.u32 %r3, 33;
  mov.u32 %r4, 44;
  st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.u32 [%r10], {%r1, %r2, %r3, %r4}, [bar];
  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r10+32], %r1, [bar];
$L_wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra $L_wait;
  ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [buf];
  ld.shared.u32 %r9, [buf+32];
  st.global.v4.u32 [%rd1], {%r5, %r6, %r7, %r8};
  st.global.u32 [%rd1+16], %r9;
  ret;
)";
  KernelRunner r(WrapKernel("k", ".param .u64 k_out", body, "sm_90"));
  auto out = r.Alloc<uint32_t>(5);
  CollectingSink sink;
  r.device().SetSink(&sink);
  const absl::Status st = r.Launch("k", {1, 1, 1}, {1, 1, 1}, out.device);
  INFO(st.message());
  REQUIRE(st.ok());
  CHECK(r.Read(out) == std::vector<uint32_t>{11, 22, 33, 44, 21});
  std::string shape;
  for (const auto& rec : sink.Flatten(0)) {
    const protocol::Op op = protocol::OpOf(rec.header);
    const bool async = (rec.header.flags & protocol::kFlagAsync) != 0;
    if (op == protocol::Op::kWrite && async) {
      shape += 'w';
      CHECK(rec.header.access_size == 16);
      CHECK(protocol::SpaceOf(rec.header) == protocol::Space::kShared);
    }
    if (op == protocol::Op::kAtomic) {
      shape += 'a';
      CHECK(protocol::ScopeOf(rec.header) == protocol::Scope::kCluster);
    }
    if (op == protocol::Op::kRelease && async) shape += 'R';
    if (op == protocol::Op::kAcquire) shape += 'A';
  }
  // The store (an async write), its complete-tx; the reduction (a strong RMW), its complete-tx; the wait.
  CHECK(shape == "wRaRA");
}

TEST_CASE("a multicast bulk copy fills the same offset of every CTA in the mask and completes each one's mbarrier",
          "[async][bulk][cluster]") {
  // A cluster of 4 CTAs; rank 1 copies 64 bytes of `in` to buf of ranks 0, 1
  // and 3 (ctaMask 0b1011). Ranks in the mask expect 64 bytes on their own
  // mbarrier and wait for it; rank 2 expects nothing and keeps its zeros.
  // Every CTA then writes its buf to out[ctaid * 16 ...].
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_in, .param .u64 k_out)
.reqnctapercluster 4, 1, 1
{
  .reg .pred %p<4>;
  .reg .b16 %rs<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  .shared .align 16 .b8 buf[64];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [k_in];
  ld.param.u64 %rd2, [k_out];
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, 0;
  st.shared.v4.u32 [buf], {%r3, %r3, %r3, %r3};
  st.shared.v4.u32 [buf+16], {%r3, %r3, %r3, %r3};
  st.shared.v4.u32 [buf+32], {%r3, %r3, %r3, %r3};
  st.shared.v4.u32 [buf+48], {%r3, %r3, %r3, %r3};
  mbarrier.init.shared::cta.b64 [bar], 1;
  setp.eq.u32 %p3, %r1, 2;
  @%p3 bra $L_armed;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], 64;
$L_armed:
  fence.proxy.async.shared::cta;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  setp.ne.u32 %p1, %r1, 1;
  @%p1 bra $L_wait;
  mov.b16 %rs1, 11;
  mov.u32 %r4, buf;
  mov.u32 %r5, bar;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r4], [%rd1], 64, [%r5], %rs1;
$L_wait:
  @%p3 bra $L_out;
$L_spin:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra $L_spin;
$L_out:
  ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [buf];
  ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [buf+48];
  mul.wide.u32 %rd4, %r2, 64;
  add.s64 %rd5, %rd2, %rd4;
  st.global.v4.u32 [%rd5], {%r6, %r7, %r8, %r9};
  st.global.v4.u32 [%rd5+48], {%r10, %r11, %r12, %r13};
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  ret;
}
)";
  KernelRunner r(ptx);
  std::vector<uint32_t> values(16);
  for (uint32_t i = 0; i < 16; ++i) values[i] = 100 + i;
  auto in = r.Alloc<uint32_t>(16, values);
  auto out = r.Alloc<uint32_t>(4 * 16);
  CollectingSink sink;
  r.device().SetSink(&sink);
  const absl::Status st = r.Launch("k", {4, 1, 1}, {1, 1, 1}, in.device, out.device);
  INFO(st.message());
  REQUIRE(st.ok());
  const std::vector<uint32_t> got = r.Read(out);
  for (uint32_t cta = 0; cta < 4; ++cta) {
    INFO("CTA " << cta);
    for (uint32_t i : {0u, 1u, 2u, 3u, 12u, 13u, 14u, 15u}) CHECK(got[cta * 16 + i] == (cta == 2 ? 0u : 100 + i));
  }
  // The copies' shared writes are async-proxy writes into three CTAs'
  // windows, each followed by a release on that CTA's mbarrier.
  size_t shared_writes = 0, releases = 0;
  std::vector<uint32_t> blocks;
  for (const auto& rec : sink.Flatten(0)) {
    const bool async = (rec.header.flags & protocol::kFlagAsync) != 0;
    const protocol::Op op = protocol::OpOf(rec.header);
    if (op == protocol::Op::kWrite && async && protocol::SpaceOf(rec.header) == protocol::Space::kShared) {
      ++shared_writes;
      const uint32_t lane = static_cast<uint32_t>(std::countr_zero(rec.header.active_mask));
      blocks.push_back(protocol::SharedBlock(rec.addr[lane]));
    }
    if (op == protocol::Op::kRelease && async) ++releases;
  }
  CHECK(shared_writes == 3 * 4);  // 64 bytes in 16-byte records, three times
  CHECK(releases == 3);
  std::sort(blocks.begin(), blocks.end());
  blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
  CHECK(blocks == std::vector<uint32_t>{0, 1, 3});
}

TEST_CASE("a multicast bulk copy needs a cta mask operand and a shared::cluster destination", "[async][bulk][cluster]") {
  for (const char* text : {"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                           "[%r1], [%rd1], 64, [%r2];",
                           "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.multicast::cluster "
                           "[%r1], [%rd1], 64, [%r2], %rs1;"}) {
    INFO(text);
    const std::string body = std::string(R"(
  .reg .b16 %rs<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  )") + text + "\n  ret;\n";
    CHECK_THROWS_WITH(KernelRunner(WrapKernel("k", "", body, "sm_90")), Catch::Contains("multicast"));
  }
}

}  // namespace
}  // namespace barracuda::emu::testing
