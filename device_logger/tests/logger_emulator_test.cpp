// Stage-2 test of the device logger: hand-written kernels, instrumented with
// the logger merged, run on the emulator; the queues must hold the records the
// emulator's own tracer emits for the original kernels (per warp, as
// multisets, stamps ignored; logger_equivalence.h).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "device_logger/tests/logger_equivalence.h"
#include "device_logger/tensor_map_table.h"
#include "ptx_emulator/ops/tensor_map.h"

namespace barracuda::logger_test {
namespace {

// `bytes` of zeroed device memory, listed among the launch's regions.
void* ZeroedRegion(emu::Device& device, uint64_t bytes, std::vector<Region>& regions) {
  auto mem = device.memory().Allocate(bytes, emu::DeviceMemory::Kind::kDevice);
  if (!mem.ok()) throw std::runtime_error(std::string(mem.status().message()));
  std::memset(*mem, 0, bytes);
  regions.push_back(Region{reinterpret_cast<uintptr_t>(*mem), bytes});
  return *mem;
}

// Arguments: one zeroed device buffer of `bytes`, then `n`.
LaunchSpec BufferLaunch(std::string kernel, emu::Dim3 grid, emu::Dim3 block, uint64_t bytes, uint32_t n) {
  LaunchSpec l;
  l.kernel = std::move(kernel);
  l.grid = grid;
  l.block = block;
  l.args = [bytes, n](emu::Device& device, std::vector<std::shared_ptr<void>>& storage,
                      std::vector<Region>& regions) {
    auto p = std::make_shared<uint64_t>(reinterpret_cast<uintptr_t>(ZeroedRegion(device, bytes, regions)));
    auto c = std::make_shared<uint32_t>(n);
    storage.push_back(p);
    storage.push_back(c);
    return std::vector<void*>{p.get(), c.get()};
  };
  return l;
}

// Records of operation `op` in all warps of a stream.
size_t CountOp(const Streams& s, proto::Op op) {
  size_t n = 0;
  for (const auto& [id, w] : s)
    for (const std::string& r : w.records) n += static_cast<uint8_t>(r[0]) == static_cast<uint8_t>(op);
  return n;
}

Outcome ExpectEquivalent(const std::string& ptx, const std::vector<LaunchSpec>& launches) {
  const Outcome o = RunBoth(ptx, launches);
  INFO(o.error);
  REQUIRE(o.error.empty());
  INFO("emulator records " << o.emulator_records << ", logger records " << o.logger_records);
  CHECK(o.emulator_records > 0);
  const std::string diff = Compare(o.emulator, o.logger);
  INFO(diff);
  CHECK(diff.empty());
  return o;
}

constexpr const char* kHeader = ".version 8.0\n.target sm_75\n.address_size 64\n";

TEST_CASE("logger: accesses in every space and shape, same-value stores", "[logger]") {
  const std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 buf, .param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .reg .f32 %f<4>;
  .shared .align 16 .b8 smem[1024];
  ld.param.u64 %rd1, [buf];
  ld.param.u32 %r1, [n];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r3, [%rd4];
  st.global.u32 [%rd4], %r2;
  st.global.u32 [%rd2], %r1;          // every lane, one address, one value: same-value
  st.global.u32 [%rd2+4], %r2;        // one address, different values
  shl.b32 %r4, %r2, 2;
  st.shared.u32 [%r4], %r2;
  ld.shared.u32 %r5, [smem+8];
  mov.u64 %rd5, smem;
  cvta.shared.u64 %rd6, %rd5;
  cvt.u64.u32 %rd7, %r4;
  add.s64 %rd8, %rd6, %rd7;
  ld.u32 %r6, [%rd8];                 // generic -> shared
  st.u32 [%rd4], %r6;                 // generic -> global
  shl.b32 %r7, %r2, 4;
  cvt.u64.u32 %rd9, %r7;
  add.s64 %rd10, %rd2, %rd9;
  ld.global.v4.u32 {%r8, %r9, %r10, %r11}, [%rd10+256];
  st.global.v2.f32 [%rd10+1024], {%f1, %f2};
  ld.global.u8 %r12, [%rd4+3];
  st.global.u16 [%rd4+2], %r2;
  atom.global.add.u32 %r13, [%rd2+8], 1;
  red.shared.add.u32 [smem+12], %r2;
  ld.global.u64 %rd11, [%rd10+2048];
  st.global.u64 [%rd10+2048], %rd11;
  ret;
}
)";
  const Outcome o = ExpectEquivalent(ptx, {BufferLaunch("k", {2, 1, 1}, {48, 1, 1}, 8192, 5)});
  // Both spaces and the same-value flag occur.
  size_t same_value = 0, shared = 0;
  for (const auto& [id, w] : o.logger)
    for (const std::string& r : w.records) {
      proto::RecordHeader h;
      std::memcpy(&h, r.data(), sizeof h);
      same_value += (h.flags & proto::kFlagSameValue) != 0;
      shared += proto::SpaceOf(h) == proto::Space::kShared;
    }
  CHECK(same_value > 0);
  CHECK(shared > 0);
}

// Vector atomics (sm_90): one atomic record per element at the element's
// address, as the emulator logs them; the stamp lock of the first element
// covers the vector (logger.cu RmwLock: 16-byte lock granules).
TEST_CASE("logger: vector atomics log every element", "[logger]") {
  const std::string ptx = R"(.version 8.1
.target sm_90
.address_size 64
.visible .entry k(.param .u64 buf, .param .u32 n)
{
  .reg .b32 %r<20>;
  .reg .b16 %rs<10>;
  .reg .f32 %f<10>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [buf];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  mov.f32 %f2, 0f3F800000;
  atom.global.add.v4.f32 {%f5, %f6, %f7, %f8}, [%rd2], {%f1, %f2, %f1, %f2};
  red.global.add.v2.f32 [%rd2+16], {%f1, %f2};
  and.b32 %r2, %r1, 3;
  shl.b32 %r3, %r2, 3;
  cvt.u64.u32 %rd3, %r3;
  add.s64 %rd4, %rd2, %rd3;
  mov.b32 %r4, 0x3c003c00;
  red.global.max.noftz.v2.f16x2 [%rd4+64], {%r4, %r4};
  cvt.u16.u32 %rs1, %r1;
  atom.global.add.noftz.v8.bf16 {%rs2, %rs3, %rs4, %rs5, %rs6, %rs7, %rs8, %rs9}, [%rd2+128], {%rs1, %rs1, %rs1, %rs1, %rs1, %rs1, %rs1, %rs1};
  atom.global.add.f32 %f9, [%rd2+4], %f1;
  ret;
}
)";
  const Outcome o = ExpectEquivalent(ptx, {BufferLaunch("k", {2, 1, 1}, {48, 1, 1}, 4096, 0)});
  // 4 + 2 + 2 + 8 + 1 element records per warp instruction.
  CHECK(CountOp(o.logger, proto::Op::kAtomic) == 17u * 4);
}

TEST_CASE("logger: synchronisation, barriers, warp primitives, predication", "[logger]") {
  const std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 buf, .param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  ld.param.u64 %rd1, [buf];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  and.b32 %r3, %r2, 1;
  setp.eq.u32 %p1, %r3, 0;
  @%p1 st.global.u32 [%rd4], %r2;     // half the lanes
  @!%p1 ld.global.u32 %r4, [%rd4];
  membar.gl;                          // fence alone
  add.u32 %r5, %r2, 1;
  fence.acq_rel.gpu;                  // inferred release
  st.global.u32 [%rd2+512], %r5;
  ld.acquire.gpu.global.u32 %r6, [%rd2+512];
  st.release.gpu.global.u32 [%rd2+516], %r6;
  atom.acq_rel.gpu.global.exch.b32 %r7, [%rd2+520], %r2;
  atom.global.cas.b32 %r8, [%rd2+524], 0, 1;
  membar.gl;                          // cas then fence: acquire
  bar.sync 0;
  bar.arrive 1, 64;
  bar.sync 1, 64;
  shfl.sync.bfly.b32 %r9, %r2, 1, 31, -1;
  vote.sync.ballot.b32 %r10, %p1, -1;
  bar.warp.sync -1;
  @%p1 bar.warp.sync 0x55555555;
  bar.warp.sync 0x0000ffff;           // lanes 16-31 outside the mask they name: strays
  ret;
}
)";
  ExpectEquivalent(ptx, {BufferLaunch("k", {2, 1, 1}, {64, 1, 1}, 4096, 0)});
}

TEST_CASE("logger: divergence, loops, early exit", "[logger]") {
  const std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 buf, .param .u32 n)
{
  .reg .pred %p<6>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  ld.param.u64 %rd1, [buf];
  ld.param.u32 %r1, [n];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  setp.lt.u32 %p1, %r2, 10;
  @%p1 bra THEN;                       // if / else with both sides
  st.global.u32 [%rd4], %r2;
  bra JOIN;
THEN:
  ld.global.u32 %r3, [%rd4];
  and.b32 %r4, %r2, 3;
  setp.eq.u32 %p2, %r4, 0;
  @!%p2 bra INNER_END;                 // nested if-then
  st.global.u32 [%rd4+256], %r4;
INNER_END:
JOIN:
  mov.u32 %r5, 0;
LOOP:                                  // divergent trip count: lane % 5
  ld.global.u32 %r6, [%rd4+512];
  add.u32 %r5, %r5, 1;
  rem.u32 %r7, %r2, 5;
  setp.le.u32 %p3, %r5, %r7;
  @%p3 bra LOOP;
  st.global.u32 [%rd4+768], %r5;
  setp.ge.u32 %p4, %r2, %r1;           // lanes >= n leave early
  @%p4 bra OUT;
  st.global.u32 [%rd4+1024], %r2;
  bar.sync 0;
  ret;
OUT:
  exit;
}
)";
  const Outcome o = ExpectEquivalent(ptx, {BufferLaunch("k", {1, 1, 1}, {32, 1, 1}, 4096, 20)});
  // Not vacuous: the outer if/else, the nested if, the loop's divergent exits
  // (nested levels, else logged at fi) and the early exit all split the warp.
  CHECK(CountOp(o.logger, proto::Op::kIf) >= 6);
  CHECK(CountOp(o.logger, proto::Op::kElse) == CountOp(o.logger, proto::Op::kIf));
  CHECK(CountOp(o.logger, proto::Op::kFi) >= 5);
  CHECK(o.logger.at(0).exited == 0xffffffffu);
}

// A 64-thread kernel for the split-warp barrier tests: every thread stores
// its tid to s[tid], then `branches` (which may end at label DONE) reach
// bar.sync from the warp's halves in some order and load the mirrored
// s[63 - tid] (%r9) into %r6, which DONE stores to buf[tid].
std::string SplitWarpBarrierKernel(std::string_view branches) {
  return std::string(kHeader) + R"(
.visible .entry k(.param .u64 buf, .param .u32 n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 s[256];
  ld.param.u64 %rd1, [buf];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, s;
  add.s32 %r5, %r4, %r3;
  st.shared.u32 [%r5], %r1;
  mov.u32 %r6, 0;
  sub.s32 %r7, 63, %r1;
  shl.b32 %r8, %r7, 2;
  add.s32 %r9, %r4, %r8;
)" + std::string(branches) + R"(
DONE:
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r6;
  ret;
}
)";
}

TEST_CASE("logger: a warp's halves reach one bar.sync in different phases", "[logger]") {
  // syncthreads_split_warp_phases_racy: lanes 0-15 take the first bar.sync
  // while lanes 16-31 skip it, then lanes 16-31 take the second one. On sm_70+
  // (and in the emulator) the first half waits at the barrier while the
  // second half runs on past the join of the first branch: that join is
  // reached in two groups, and only one kFi may close the branch.
  const std::string ptx = SplitWarpBarrierKernel(R"(
  setp.gt.s32 %p1, %r2, 15;
  @%p1 bra PHASE1;
  bar.sync 0;                          // lanes 0-15
  ld.shared.u32 %r6, [%r9];
PHASE1:
  setp.lt.s32 %p2, %r2, 16;
  @%p2 bra DONE;
  bar.sync 0;                          // lanes 16-31
  ld.shared.u32 %r6, [%r9];
)");
  const Outcome o = ExpectEquivalent(ptx, {BufferLaunch("k", {1, 1, 1}, {64, 1, 1}, 4096, 0)});
  CHECK(CountOp(o.logger, proto::Op::kFi) == CountOp(o.logger, proto::Op::kIf));
}

TEST_CASE("logger: fall-through lanes run ahead of taken lanes parked at a bar.sync", "[logger]") {
  // The mirror of the test above: the taken side (lanes 0-15) holds the first
  // bar.sync, so the fall-through lanes reach the first join first and log
  // their kElse and kFi there; the taken lanes log their own kFi when they
  // arrive (joins reached in groups: the detector closes the branch when all
  // its lanes arrived). The emulator closes it when the taken side finishes,
  // with other masks, so what is compared is the pairing as the detector sees
  // it (Streams normalise kFi) and, in the logger's stream, one kElse and two
  // kFi per kIf whose lanes make up the kIf's.
  const std::string ptx = SplitWarpBarrierKernel(R"(
  setp.lt.s32 %p1, %r2, 16;
  @%p1 bra TAKEN;
  bra JOIN1;                           // lanes 16-31: nothing
TAKEN:
  bar.sync 0;                          // lanes 0-15
  ld.shared.u32 %r6, [%r9];
JOIN1:
  @%p1 bra DONE;
  bar.sync 0;                          // lanes 16-31
  ld.shared.u32 %r6, [%r9];
)");
  const Outcome o = RunBoth(ptx, {BufferLaunch("k", {1, 1, 1}, {64, 1, 1}, 4096, 0)});
  INFO(o.error);
  REQUIRE(o.error.empty());
  INFO(Compare(o.emulator, o.logger));
  REQUIRE(o.logger.size() == 2);
  for (const auto& [id, w] : o.logger) {
    const Streams one{{id, w}};
    INFO("warp " << id);
    CHECK(CountOp(one, proto::Op::kIf) == 1);
    CHECK(CountOp(one, proto::Op::kElse) == 1);
    CHECK(CountOp(one, proto::Op::kFi) == 1);  // the closing one (Streams drop the other group's)
    CHECK(CountOp(one, proto::Op::kBarrier) == 2);
    CHECK(w.joins.depth() == 1);  // every branch closed
  }
  for (const auto& [id, w] : o.emulator) CHECK(w.joins.depth() == 1);
}

TEST_CASE("logger: device functions and calls", "[logger]") {
  const std::string ptx = std::string(kHeader) + R"(
.func (.param .b32 ret) add_one(.param .b64 p)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [p];
  ld.u32 %r1, [%rd1];
  and.b32 %r3, %r1, 1;
  setp.eq.u32 %p1, %r3, 0;
  @%p1 bra SKIP;
  add.u32 %r1, %r1, 1;
  st.u32 [%rd1], %r1;
SKIP:
  st.param.b32 [ret], %r1;
  ret;
}
.visible .entry k(.param .u64 buf, .param .u32 n)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [buf];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r2;
  {
  .param .b64 a;
  st.param.b64 [a], %rd4;
  .param .b32 r;
  call.uni (r), add_one, (a);
  ld.param.b32 %r3, [r];
  }
  st.global.u32 [%rd4+128], %r3;
  ret;
}
)";
  ExpectEquivalent(ptx, {BufferLaunch("k", {1, 1, 1}, {32, 1, 1}, 4096, 0)});
}

// cp.async (every form: whole, src-size immediate and per lane, ignore-src,
// predicated), groups and waits with their per-lane counts, the
// mbarrier arrive the copies trigger, fence.proxy.async and a bulk copy with
// complete_tx; then ldmatrix / stmatrix and wmma loads and stores in several
// shapes, types and layouts: the records and kAsyncWait counts of the emulator.
TEST_CASE("logger: asynchronous copies, matrix loads and stores", "[logger][async][tensor]") {
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 buf, .param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<40>;
  .reg .f32 %f<10>;
  .reg .f64 %fd<4>;
  .reg .b64 %rd<20>;
  .shared .align 16 .b8 smem[4096];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [buf];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  shl.b32 %r3, %r1, 4;
  mov.u32 %r4, smem;
  add.u32 %r5, %r4, %r3;
  cvt.u64.u32 %rd3, %r3;
  add.s64 %rd4, %rd2, %rd3;
  mov.u32 %r9, bar;
  setp.eq.u32 %p3, %r1, 0;
  @%p3 mbarrier.init.shared.b64 [%r9], 64;
  bar.sync 0;
  cp.async.ca.shared.global [%r5], [%rd4], 16;
  cp.async.commit_group;
  and.b32 %r6, %r1, 7;
  cp.async.ca.shared.global [%r5+1024], [%rd4+1024], 8, %r6;
  setp.lt.u32 %p1, %r2, 5;
  cp.async.ca.shared.global [%r5+2048], [%rd4+2048], 4, %p1;
  cp.async.cg.shared.global [%r5+3072], [%rd4+3072], 16, 8;
  cp.async.commit_group;
  cp.async.wait_group 1;
  cp.async.ca.shared.global [%r5], [%rd4+4096], 16;
  cp.async.commit_group;
  cp.async.wait_group 1;
  cp.async.wait_group 0;
  @%p1 cp.async.ca.shared.global [%r5], [%rd4], 4;
  cp.async.mbarrier.arrive.noinc.shared.b64 [%r9];
  cp.async.wait_all;
  fence.proxy.async.shared::cta;
  setp.eq.u32 %p2, %r2, 0;
  @%p2 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r9], 32;
  @%p2 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r5+2048], [%rd4], 32, [%r9];
  bar.sync 0;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12, %r13}, [%r5];
  ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r14, %r15}, [%r5+1024];
  stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r5+2048], {%r10};
  bar.sync 0;
  mov.u32 %r7, 16;
  wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, [%r4], %r7;
  wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27}, [%rd2], 16;
  wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd2];
  wmma.load.c.sync.aligned.col.m32n8k16.global.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd2+4096], %r7;
  wmma.load.b.sync.aligned.row.m32n8k16.global.f16 {%r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27}, [%rd2+8192], 8;
  wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {%r30, %r31, %r32, %r33}, [%rd2], 8;
  wmma.load.a.sync.aligned.row.m16n16k16.global.u8 {%r30, %r31}, [%rd2], 16;
  wmma.load.a.sync.aligned.row.m8n8k4.f64 {%fd1}, [%rd2], 4;
  wmma.store.d.sync.aligned.col.m16n16k16.global.f32 [%rd2+8192], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, %r7;
  wmma.store.d.sync.aligned.row.m16n16k16.global.f16 [%rd2+12288], {%r20, %r21, %r22, %r23}, 16;
  ret;
}
)";
  const Outcome o = ExpectEquivalent(ptx, {BufferLaunch("k", {2, 1, 1}, {64, 1, 1}, 16384, 0)});
  CHECK(CountOp(o.logger, proto::Op::kAsyncWait) > 0);
}

// Bulk async-groups (ptx_rewriter/instrument/bulk_groups.cpp): shared ->
// global bulk copies and bulk reductions in groups (an empty one among them),
// .read and full waits, a cp.async wait between them (the lanes' one count of
// observed records), a predicated copy, and a reduction into shared memory
// with its complete_tx.
TEST_CASE("logger: bulk async-groups and bulk reductions", "[logger][async]") {
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 buf, .param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 16 .b8 smem[4096];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [buf];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  shl.b32 %r3, %r1, 5;
  mov.u32 %r4, smem;
  add.u32 %r5, %r4, %r3;
  cvt.u64.u32 %rd3, %r3;
  add.s64 %rd4, %rd2, %rd3;
  mov.u32 %r9, bar;
  setp.eq.u32 %p3, %r1, 0;
  @%p3 mbarrier.init.shared.b64 [%r9], 1;
  st.shared.v4.u32 [%r5], {%r1, %r2, %r3, %r4};
  st.shared.v4.u32 [%r5+16], {%r4, %r3, %r2, %r1};
  fence.proxy.async.shared::cta;
  bar.sync 0;
  cp.async.bulk.global.shared::cta.bulk_group [%rd4], [%r5], 32;
  cp.async.bulk.commit_group;
  cp.async.bulk.commit_group;
  setp.lt.u32 %p1, %r2, 7;
  @%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd4+2048], [%r5+16], 16;
  cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd4+4096], [%r5], 32;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 2;
  cp.async.bulk.wait_group.read 1;
  cp.async.ca.shared.global [%r5+2048], [%rd4+8192], 16;
  cp.async.commit_group;
  cp.async.wait_group 0;
  cp.reduce.async.bulk.global.shared::cta.bulk_group.min.u64 [%rd4+6144], [%r5], 32;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
  cp.async.bulk.wait_group 1;
  cp.async.bulk.wait_group 0;
  cp.async.bulk.wait_group 0;
  setp.eq.u32 %p2, %r2, 0;
  @%p2 cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%r5+2048], [%r5], 32, [%r9];
  ret;
}
)";
  const Outcome o = ExpectEquivalent(ptx, {BufferLaunch("k", {2, 1, 1}, {64, 1, 1}, 16384, 0)});
  CHECK(CountOp(o.logger, proto::Op::kAsyncWait) > 0);
  CHECK(CountOp(o.logger, proto::Op::kAtomic) > 0);
}

// A launch of `kernel`(plain map, swizzled map, tensor address) over a 48 x 6
// float tensor: the plain map's box 32 x 4 taking every other row, the other
// one 128B-swizzled. The maps are the emulator's encoding; in the
// instrumented run their geometry goes into the logger's table, as the agent
// puts it there (gpu_agent/tensor_maps.h).
//
// With `im2col`, a fourth parameter: an im2col map over a 4 x 7 x 3 float NWC
// tensor (channelsPerPixel 4, pixelsPerColumn 8, W traversal stride 2,
// bounding box corners -1 / -1: a 3-wide filter with padding 1, stride 2).
// A CUtensorMap's 128 bytes, 64-byte aligned as CUDA requires.
std::shared_ptr<uint8_t> NewTensorMap() {
  return std::shared_ptr<uint8_t>(new (std::align_val_t{64}) uint8_t[emu::tmap::kBytes],
                                  [](uint8_t* p) { operator delete[](p, std::align_val_t{64}); });
}

// In the instrumented run, the map's geometry `e` goes into the logger's
// table under the hash of the map's bytes, as the agent's encoder hooks do.
void RegisterTensorMap(const uint8_t* map, gpu_queue::TensorMapEntry e) {
  gpu_queue::QueueSet* set = CurrentQueueSet();
  if (set == nullptr) return;  // the emulator's own run
  REQUIRE(e.usable == 1);
  e.key = gpu_queue::TensorMapKeyOf(map);
  REQUIRE(gpu_queue::AddTensorMap(set, e));
}

LaunchSpec TensorMapLaunch(std::string kernel, emu::Dim3 grid, emu::Dim3 block, bool im2col = false) {
  LaunchSpec l;
  l.kernel = std::move(kernel);
  l.grid = grid;
  l.block = block;
  l.args = [im2col](emu::Device& device, std::vector<std::shared_ptr<void>>& storage, std::vector<Region>& regions) {
    void* const mem = ZeroedRegion(device, 48 * 6 * 4, regions);  // 48 x 6 floats
    const uint64_t dim[2] = {48, 6}, stride[1] = {48 * 4};
    const uint32_t box[2] = {32, 4}, every[2] = {1, 1}, every_other_row[2] = {1, 2};
    std::vector<void*> args;
    auto tensor = std::make_shared<uint64_t>(reinterpret_cast<uintptr_t>(mem));
    for (const uint32_t swizzle : {0u, 3u}) {  // none; 128B
      auto map = NewTensorMap();
      emu::tmap::TiledArgs t;
      t.data_type = emu::tmap::kFloat32;
      t.rank = 2;
      t.global_address = mem;
      t.global_dim = dim;
      t.global_strides = stride;
      t.box_dim = box;
      t.element_strides = swizzle == 0 ? every_other_row : every;
      t.swizzle = swizzle;
      if (absl::Status st = emu::tmap::EncodeTiled(map.get(), t); !st.ok())
        throw std::runtime_error(std::string(st.message()));
      gpu_queue::TiledMapArgs a;
      a.data_type = t.data_type;
      a.rank = t.rank;
      a.global_address = reinterpret_cast<uintptr_t>(mem);
      a.global_dim = dim;
      a.global_strides = stride;
      a.box_dim = box;
      a.element_strides = t.element_strides;
      a.swizzle = swizzle;
      RegisterTensorMap(map.get(), gpu_queue::TiledMapEntry(a));
      storage.push_back(map);
      args.push_back(map.get());
    }
    storage.push_back(tensor);
    args.push_back(tensor.get());
    if (im2col) {
      void* const nwc = ZeroedRegion(device, 4 * 7 * 3 * 4, regions);
      const uint64_t nwc_dim[3] = {4, 7, 3}, nwc_stride[2] = {4 * 4, 4 * 7 * 4};
      const uint32_t nwc_every[3] = {1, 2, 1};
      const int lower[1] = {-1}, upper[1] = {-1};
      auto map = NewTensorMap();
      emu::tmap::Im2colArgs t;
      t.data_type = emu::tmap::kFloat32;
      t.rank = 3;
      t.global_address = nwc;
      t.global_dim = nwc_dim;
      t.global_strides = nwc_stride;
      t.element_strides = nwc_every;
      t.pixel_box_lower_corner = lower;
      t.pixel_box_upper_corner = upper;
      t.channels_per_pixel = 4;
      t.pixels_per_column = 8;
      if (absl::Status st = emu::tmap::EncodeIm2col(map.get(), t); !st.ok())
        throw std::runtime_error(std::string(st.message()));
      gpu_queue::Im2colMapArgs a;
      a.data_type = t.data_type;
      a.rank = 3;
      a.global_address = reinterpret_cast<uintptr_t>(nwc);
      a.global_dim = nwc_dim;
      a.global_strides = nwc_stride;
      a.element_strides = nwc_every;
      a.lower_corner = lower;
      a.upper_corner = upper;
      a.channels_per_pixel = 4;
      a.pixels_per_column = 8;
      RegisterTensorMap(map.get(), gpu_queue::Im2colMapEntry(a));
      storage.push_back(map);
      args.push_back(map.get());
    }
    return args;
  };
  return l;
}

// TMA tensor copies (ptx_rewriter/instrument/tensor_copy_logging.cpp): two
// lanes load boxes of two maps (one with a traversal stride and its box
// partly left of and below the tensor, one 128B-swizzled and partly right of
// it), wait for the phase, store them back partly outside the tensor, and
// reduce one into it. Records: the emulator's, piece by piece.
TEST_CASE("logger: TMA tensor loads, stores and reductions", "[logger][async][tma]") {
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .align 64 .b8 plain[128], .param .align 64 .b8 swz[128], .param .u64 buf)
{
  .reg .pred %p<6>;
  .reg .b32 %r<30>;
  .reg .b64 %rd<10>;
  .shared .align 1024 .b8 tile[1024];
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  mov.u32 %r9, bar;
  mov.u32 %r4, tile;
  mov.b64 %rd1, plain;
  cvta.param.u64 %rd2, %rd1;
  mov.b64 %rd3, swz;
  cvta.param.u64 %rd4, %rd3;
  setp.eq.u32 %p1, %r1, 0;
  setp.lt.u32 %p2, %r1, 2;
  @%p1 mbarrier.init.shared.b64 [%r9], 2;
  bar.sync 0;
  shl.b32 %r2, %r1, 9;
  add.u32 %r5, %r4, %r2;
  selp.b64 %rd5, %rd2, %rd4, %p1;
  selp.b32 %r10, -8, 24, %p1;
  selp.b32 %r11, 4, 0, %p1;
  selp.b32 %r12, 256, 512, %p1;
  @%p2 mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd6, [%r9], %r12;
  @%p2 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r5], [%rd5, {%r10, %r11}], [%r9];
  mov.u32 %r13, 0;
$Lwait:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r9], %r13;
  @!%p3 bra $Lwait;
  selp.b32 %r14, 20, -4, %p1;
  selp.b32 %r15, 3, 2, %p1;
  @%p2 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd5, {%r14, %r15}], [%r5];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
  @%p1 cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd2, {%r13, %r13}], [%r4];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;
}
)";
  const Outcome o = ExpectEquivalent(ptx, {TensorMapLaunch("k", {1, 1, 1}, {32, 1, 1})});
  CHECK(CountOp(o.logger, proto::Op::kAtomic) > 0);  // the reduction's elements
  CHECK(CountOp(o.logger, proto::Op::kAsyncWait) > 0);
}

// A TMA .im2col load (log_tensor, kTensorIm2col): the pixels of a
// convolution's column over two images, every other W position moved by the
// im2col offset (through the bounding box's corners), as the emulator
// records them.
TEST_CASE("logger: TMA im2col load", "[logger][async][tma]") {
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .align 64 .b8 plain[128], .param .align 64 .b8 swz[128], .param .u64 buf,
                  .param .align 64 .b8 nwc[128])
{
  .reg .pred %p<6>;
  .reg .b16 %h<3>;
  .reg .b32 %r<30>;
  .reg .b64 %rd<10>;
  .shared .align 1024 .b8 tile[1024];
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  mov.u32 %r9, bar;
  mov.u32 %r4, tile;
  mov.b64 %rd1, nwc;
  cvta.param.u64 %rd2, %rd1;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [%r9], 1;
  bar.sync 0;
  mov.u32 %r10, 0;
  mov.u32 %r11, -1;
  mov.u32 %r12, 0;
  mov.u16 %h0, 1;
  @%p1 mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd6, [%r9], 128;
  @%p1 cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r4], [%rd2, {%r10, %r11, %r12}], [%r9], {%h0};
  mov.u32 %r13, 0;
$Lwait:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r9], %r13;
  @!%p3 bra $Lwait;
  ld.shared.u32 %r14, [%r4];
  ret;
}
)";
  const Outcome o = ExpectEquivalent(ptx, {TensorMapLaunch("k", {1, 1, 1}, {32, 1, 1}, /*im2col=*/true)});
  CHECK(CountOp(o.logger, proto::Op::kWrite) >= 8);  // 8 pixels of 16 bytes (and the mbarrier.init)
}

// Multicast copies into a cluster of two (log_multicast; log_tensor with
// kTensorLoadMulticast): rank 0 multicasts a bulk copy to both CTAs (ctaMask
// in a register), rank 1 a swizzled tensor box (a constant mask with a rank
// past the cluster's size, ignored); each CTA's delivery is followed by its
// complete-tx on that CTA's mbarrier, in rank order, as the emulator's.
TEST_CASE("logger: multicast bulk and tensor copies into a cluster", "[logger][cluster][tma]") {
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .align 64 .b8 plain[128], .param .align 64 .b8 swz[128], .param .u64 buf)
.explicitcluster
.reqnctapercluster 2, 1, 1
{
  .reg .pred %p<6>;
  .reg .b16 %rs<4>;
  .reg .b32 %r<30>;
  .reg .b64 %rd<10>;
  .shared .align 1024 .b8 tile[1024];
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r9, bar;
  mov.u32 %r4, tile;
  mov.b64 %rd3, swz;
  cvta.param.u64 %rd4, %rd3;
  ld.param.u64 %rd7, [buf];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [%r9], 1;
  @%p1 mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd6, [%r9], 768;
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  setp.eq.u32 %p2, %r2, 0;
  and.pred %p3, %p1, %p2;
  mov.u16 %rs1, 3;
  @%p3 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r4+512], [%rd7], 256, [%r9], %rs1;
  setp.ne.u32 %p4, %r2, 0;
  and.pred %p5, %p1, %p4;
  mov.u32 %r10, 8;
  mov.u32 %r11, 1;
  @%p5 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r4], [%rd4, {%r10, %r11}], [%r9], 7;
  mov.u32 %r13, 0;
$Lwait:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r9], %r13;
  @!%p3 bra $Lwait;
  ld.shared.u32 %r14, [%r4+516];
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  ret;
}
)";
  const Outcome o = ExpectEquivalent(ptx, {TensorMapLaunch("k", {2, 1, 1}, {32, 1, 1})});
  CHECK(CountOp(o.logger, proto::Op::kRelease) >= 4);  // a complete-tx per CTA and copy
}

// Distributed shared memory: each CTA of a cluster of two writes its
// neighbour's window through a generic address from mapa and through a
// .shared::cluster one, and reads its own both ways; the records name the
// owning CTA's window (the merged module's __barracuda_cluster_shared,
// ptx_rewriter/instrument/cluster_hook.cpp), as the emulator's do; the
// cluster barriers are cluster-scope release / acquire records on the
// phase's synthetic location (cluster_logging.cpp), .relaxed arrivals none.
TEST_CASE("logger: distributed shared memory and cluster barriers", "[logger][cluster]") {
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 buf, .param .u32 n)
.explicitcluster
.reqnctapercluster 2, 1, 1
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 sbuf[512];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  xor.b32 %r3, %r2, 1;
  mov.u32 %r4, sbuf;
  shl.b32 %r5, %r1, 2;
  add.u32 %r6, %r4, %r5;
  cvt.u64.u32 %rd1, %r6;
  cvta.shared.u64 %rd2, %rd1;
  mapa.u64 %rd3, %rd2, %r3;
  st.u32 [%rd3], %r1;
  ld.u32 %r7, [%rd2];
  mapa.shared::cluster.u32 %r8, %r6, %r3;
  st.shared::cluster.u32 [%r8+256], %r1;
  ld.shared::cluster.u32 %r9, [%r6+256];
  atom.shared::cluster.add.u32 %r10, [%r8], 1;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ld.shared.u32 %r11, [%r6];
  barrier.cluster.arrive.relaxed;
  barrier.cluster.wait;
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  ret;
}
)";
  const Outcome o = ExpectEquivalent(ptx, {BufferLaunch("k", {4, 1, 1}, {64, 1, 1}, 4096, 0)});
  // Some write names another block's window (two warps per block).
  bool remote = false;
  for (const auto& [id, w] : o.logger)
    for (const std::string& r : w.records) {
      proto::Record rec{};
      std::memcpy(&rec, r.data(), std::min(r.size(), sizeof rec));
      const uint32_t own_block = rec.header.warp_id / 2;
      if (proto::OpOf(rec.header) == proto::Op::kWrite && proto::SpaceOf(rec.header) == proto::Space::kShared)
        for (uint32_t l = 0; l < 32; ++l)
          if (((rec.header.active_mask >> l) & 1u) != 0 && (rec.addr[l] >> 32) != own_block) remote = true;
    }
  CHECK(remote);
}

// st.async / red.async (async_logging.cpp AsyncStore): each CTA of a cluster
// of two stores into its neighbour's window with complete_tx on the
// neighbour's mbarrier (scalar, .v2 and .v4), reduces into it, waits for its
// own phase and reads what arrived: the writes are async records of the
// storing lane, the reductions stamped cluster-scope atomics, each followed
// by its complete-tx, named in the owning CTA's window, as the emulator's.
TEST_CASE("logger: st.async and red.async into a cluster neighbour", "[logger][cluster][async]") {
  const std::string ptx = R"(.version 8.1
.target sm_90
.address_size 64
.visible .entry k(.param .u64 buf, .param .u32 n)
.explicitcluster
.reqnctapercluster 2, 1, 1
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 sbuf[4096];
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  xor.b32 %r3, %r2, 1;
  mov.u32 %r4, sbuf;
  mov.u32 %r9, bar;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [%r9], 1;
  @%p1 mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd4, [%r9], 2048;
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  shl.b32 %r5, %r1, 2;
  add.u32 %r6, %r4, %r5;
  mapa.shared::cluster.u32 %r7, %r6, %r3;
  mapa.shared::cluster.u32 %r8, %r9, %r3;
  st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r7], %r1, [%r8];
  shl.b32 %r10, %r1, 4;
  add.u32 %r11, %r4, %r10;
  mapa.shared::cluster.u32 %r12, %r11, %r3;
  st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%r12+256], {%r1, %r2, %r3, %r5}, [%r8];
  st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%r12+1280], {%r1, %r2}, [%r8];
  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r7+2560], %r1, [%r8];
  mov.u32 %r13, 0;
$Lwait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r9], %r13;
  @!%p2 bra $Lwait;
  ld.shared.u32 %r14, [%r6];
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  ret;
}
)";
  const Outcome o = ExpectEquivalent(ptx, {BufferLaunch("k", {2, 1, 1}, {64, 1, 1}, 4096, 0)});
  CHECK(CountOp(o.logger, proto::Op::kAtomic) > 0);
  CHECK(CountOp(o.logger, proto::Op::kRelease) > 0);
}

TEST_CASE("logger: queue wrap-around keeps every record", "[logger]") {
  // One queue of exactly as many slots as records: indices fill it to the
  // last slot without waiting (the host drains only after the launch).
  const std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 buf, .param .u32 n)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [buf];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], 1;
  st.global.u32 [%rd2+4], 2;
  ret;
}
)";
  const Outcome o = RunBoth(ptx, {BufferLaunch("k", {4, 1, 1}, {32, 1, 1}, 64, 0)}, 1, 16);
  REQUIRE(o.error.empty());
  CHECK(o.logger_records == 4 * 3);  // two stores and one exit per warp
  CHECK(Compare(o.emulator, o.logger).empty());
}

}  // namespace
}  // namespace barracuda::logger_test
