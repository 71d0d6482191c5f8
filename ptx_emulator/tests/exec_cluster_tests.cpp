// Thread-block clusters of several CTAs: co-scheduling, special registers,
// mapa / getctarank, distributed shared memory (.shared::cluster and generic
// accesses into a neighbour's window), barrier.cluster arrive/wait, deadlock
// and refusal reports, and the exact records (device_logger/protocol.h,
// "Thread-block clusters").
#include <catch2/catch.hpp>
#include <algorithm>
#include <string>
#include <vector>

#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/tests/kernel_runner.h"

namespace barracuda::emu {
namespace {

using protocol::Op;
using testing::KernelRunner;

// A sm_90 module with one kernel; `directives` go between the parameter list
// and the body (".reqnctapercluster 2, 1, 1").
std::string ClusterKernel(const std::string& name, const std::string& params, const std::string& directives,
                          const std::string& body) {
  return ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry " + name + "(" + params + ")\n" +
         directives + "\n{\n" + body + "\n}\n";
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

// Every thread stores ctaid*1000+tid into buf[tid] of the neighbour CTA (rank ^ 1),
// adds 1 to rank 0's counter, then barrier.cluster; then reads its own buf[tid].
// out[3 * global thread + 0..2] = own buf[tid], getctarank of the mapped address,
// rank 0's counter after the barrier (every thread of the cluster added 1).
const char* kExchangeBody = R"(
  .reg .b32 %r<20>;
  .reg .b64 %rd<12>;
  .shared .align 4 .b8 buf[256];
  .shared .align 4 .u32 ctr;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  xor.b32 %r3, %r2, 1;
  mov.u32 %r4, %ctaid.x;
  mul.lo.u32 %r5, %r4, 1000;
  add.u32 %r5, %r5, %r1;
  shl.b32 %r6, %r1, 2;
  mov.u32 %r7, buf;
  add.u32 %r7, %r7, %r6;
  STORE
  mov.u32 %r12, ctr;
  mapa.shared::cluster.u32 %r13, %r12, 0;
  atom.shared::cluster.add.u32 %r14, [%r13], 1;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  ld.shared.u32 %r10, [%r7];
  ld.shared::cluster.u32 %r15, [%r13];
  mov.u32 %r16, %ntid.x;
  mad.lo.u32 %r17, %r4, %r16, %r1;
  mul.lo.u32 %r17, %r17, 3;
  cvt.u64.u32 %rd6, %r17;
  shl.b64 %rd6, %rd6, 2;
  ld.param.u64 %rd7, [k_out];
  add.s64 %rd8, %rd7, %rd6;
  st.global.u32 [%rd8], %r10;
  st.global.u32 [%rd8+4], %r9;
  st.global.u32 [%rd8+8], %r15;
  ret;
)";

const char* kStoreClusterSpace = R"(
  mapa.shared::cluster.u32 %r8, %r7, %r3;
  st.shared::cluster.u32 [%r8], %r5;
  getctarank.shared::cluster.u32 %r9, %r8;)";

const char* kStoreGeneric = R"(
  cvt.u64.u32 %rd1, %r7;
  cvta.shared.u64 %rd2, %rd1;
  mapa.u64 %rd3, %rd2, %r3;
  st.u32 [%rd3], %r5;
  getctarank.u64 %r9, %rd3;)";

std::string ExchangeKernel(const char* store) {
  return ClusterKernel("xchg", ".param .u64 k_out", ".reqnctapercluster 2, 1, 1",
                       Replace(kExchangeBody, "STORE", store));
}

void CheckExchange(const std::vector<uint32_t>& got, uint32_t blocks, uint32_t threads) {
  for (uint32_t b = 0; b < blocks; ++b) {
    for (uint32_t t = 0; t < threads; ++t) {
      INFO("block " << b << " thread " << t);
      const uint32_t* v = &got[3 * (b * threads + t)];
      CHECK(v[0] == (b ^ 1) * 1000 + t);
      CHECK(v[1] == ((b & 1) ^ 1));
      CHECK(v[2] == 2 * threads);
    }
  }
}

TEST_CASE("distributed shared memory across a cluster of two CTAs", "[exec][cluster]") {
  const bool generic = GENERATE(false, true);
  const uint32_t workers = GENERATE(1u, 2u);
  INFO((generic ? "generic" : ".shared::cluster") << " addresses, " << workers << " workers");
  KernelRunner r(ExchangeKernel(generic ? kStoreGeneric : kStoreClusterSpace));
  r.device().schedule().workers = workers;
  r.device().schedule().quantum = 3;  // interleave the CTAs finely
  constexpr uint32_t kBlocks = 8, kThreads = 64;
  auto out = r.Alloc<uint32_t>(3 * kBlocks * kThreads);
  const absl::Status s = r.Launch("xchg", {kBlocks, 1, 1}, {kThreads, 1, 1}, out.device);
  INFO(s.message());
  REQUIRE(s.ok());
  CheckExchange(r.Read(out), kBlocks, kThreads);
}

TEST_CASE("cluster special registers", "[exec][cluster]") {
  // out[16 * block + i]: the registers below, written by thread 0 of each block.
  const std::string body = R"(
  .reg .b32 %r<16>;
  .reg .b64 %rd<6>;
  .reg .pred %p1;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ctaid.y;
  mov.u32 %r4, %nctaid.x;
  mad.lo.u32 %r5, %r3, %r4, %r2;
  mul.wide.u32 %rd1, %r5, 64;
  ld.param.u64 %rd2, [k_out];
  add.s64 %rd3, %rd2, %rd1;
  mov.u32 %r6, %cluster_ctarank;
  st.global.u32 [%rd3], %r6;
  mov.u32 %r6, %cluster_nctarank;
  st.global.u32 [%rd3+4], %r6;
  mov.u32 %r6, %cluster_ctaid.x;
  st.global.u32 [%rd3+8], %r6;
  mov.u32 %r6, %cluster_ctaid.y;
  st.global.u32 [%rd3+12], %r6;
  mov.u32 %r6, %cluster_nctaid.x;
  st.global.u32 [%rd3+16], %r6;
  mov.u32 %r6, %cluster_nctaid.y;
  st.global.u32 [%rd3+20], %r6;
  mov.u32 %r6, %clusterid.x;
  st.global.u32 [%rd3+24], %r6;
  mov.u32 %r6, %clusterid.y;
  st.global.u32 [%rd3+28], %r6;
  mov.u32 %r6, %nclusterid.x;
  st.global.u32 [%rd3+32], %r6;
  mov.u32 %r6, %nclusterid.y;
  st.global.u32 [%rd3+36], %r6;
  mov.u32 %r6, %is_explicit_cluster;
  st.global.u32 [%rd3+40], %r6;
DONE:
  ret;
)";
  struct Case {
    const char* directives;
    Dim3 launch_cluster;
    Dim3 cluster;
    bool explicit_cluster;
  };
  const Case c = GENERATE(Case{".reqnctapercluster 2, 2, 1", {1, 1, 1}, {2, 2, 1}, true},
                          Case{"", {2, 2, 1}, {2, 2, 1}, true},  // cudaLaunchAttributeClusterDimension
                          Case{"", {1, 1, 1}, {1, 1, 1}, false});
  INFO("directives '" << c.directives << "'");
  KernelRunner r(ClusterKernel("sregs", ".param .u64 k_out", c.directives, body));
  constexpr uint32_t gx = 4, gy = 2;
  auto out = r.Alloc<uint32_t>(16 * gx * gy);
  const LaunchConfig config{{gx, gy, 1}, {64, 1, 1}, 0, 0, false};
  auto k = r.device().FindKernel(r.unit(), "sregs");
  REQUIRE(k.ok());
  void* args[] = {&out.device};
  REQUIRE(r.device().LaunchCluster(*k, config, c.launch_cluster, args).ok());
  const auto got = r.Read(out);
  for (uint32_t y = 0; y < gy; ++y) {
    for (uint32_t x = 0; x < gx; ++x) {
      INFO("block (" << x << "," << y << ")");
      const uint32_t* v = &got[16 * (y * gx + x)];
      const uint32_t cx = x % c.cluster.x, cy = y % c.cluster.y;
      CHECK(v[0] == cx + cy * c.cluster.x);
      CHECK(v[1] == c.cluster.x * c.cluster.y);
      CHECK(v[2] == cx);
      CHECK(v[3] == cy);
      CHECK(v[4] == c.cluster.x);
      CHECK(v[5] == c.cluster.y);
      CHECK(v[6] == x / c.cluster.x);
      CHECK(v[7] == y / c.cluster.y);
      CHECK(v[8] == gx / c.cluster.x);
      CHECK(v[9] == gy / c.cluster.y);
      CHECK(v[10] == (c.explicit_cluster ? 1u : 0u));
    }
  }
}

TEST_CASE("barrier.cluster: wait blocks until every CTA arrived, arrive does not block", "[exec][cluster]") {
  // Rank 1 spins for a while, stores into rank 0's buf, and arrives. Rank 0
  // arrives at once, then (between its arrive and its wait) spins on its own
  // flag, which rank 1 sets remotely only after rank 1's own wait returned:
  // that completes only if rank 0's arrive did not block. Rank 0 then waits
  // and must see rank 1's stores.
  const std::string body = R"(
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  .shared .align 4 .b8 buf[128];
  .shared .align 4 .u32 flag;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, buf;
  add.u32 %r4, %r4, %r3;
  mov.u32 %r11, flag;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra RANK0;
  mov.u32 %r5, 0;
SPIN:
  add.u32 %r5, %r5, 1;
  setp.lt.u32 %p2, %r5, 500;
  @%p2 bra SPIN;
  mapa.shared::cluster.u32 %r6, %r4, 0;
  add.u32 %r7, %r1, 100;
  st.shared::cluster.u32 [%r6], %r7;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  mapa.shared::cluster.u32 %r12, %r11, 0;
  st.volatile.shared::cluster.u32 [%r12], 1;
  bra.uni END;
RANK0:
  barrier.cluster.arrive;
POLL:
  ld.volatile.shared.u32 %r13, [%r11];
  setp.eq.u32 %p3, %r13, 0;
  @%p3 bra POLL;
  barrier.cluster.wait;
  ld.shared.u32 %r8, [%r4];
  ld.param.u64 %rd1, [k_out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r8;
END:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
)";
  KernelRunner r(ClusterKernel("split", ".param .u64 k_out", ".reqnctapercluster 2, 1, 1", body));
  r.device().schedule().workers = 1;
  r.device().schedule().quantum = 7;
  auto out = r.Alloc<uint32_t>(32);
  const absl::Status s = r.Launch("split", {2, 1, 1}, {32, 1, 1}, out.device);
  INFO(s.message());
  REQUIRE(s.ok());
  const auto got = r.Read(out);
  for (uint32_t t = 0; t < 32; ++t) CHECK(got[t] == t + 100);
}

TEST_CASE("barrier.cluster counts only threads that have not exited", "[exec][cluster]") {
  // Rank 1 returns at once; rank 0's barrier completes without it.
  const std::string body = R"(
  .reg .b32 %r<4>;
  .reg .pred %p1;
  mov.u32 %r1, %cluster_ctarank;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 ret;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
)";
  KernelRunner r(ClusterKernel("early", "", ".reqnctapercluster 2, 1, 1", body));
  r.device().schedule().workers = 1;
  const absl::Status s = r.Launch("early", {4, 1, 1}, {64, 1, 1});
  INFO(s.message());
  CHECK(s.ok());
}

TEST_CASE("a deadlock inside a cluster is reported", "[exec][cluster]") {
  // Rank 1's warp 0 waits at named barrier 1 for 64 threads, which never come
  // (its warp 1 waits at the cluster barrier): nothing in the cluster can move.
  const std::string body = R"(
  .reg .b32 %r<4>;
  .reg .pred %p<3>;
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, %tid.x;
  setp.eq.u32 %p1, %r1, 1;
  setp.lt.u32 %p2, %r2, 32;
  and.pred %p1, %p1, %p2;
  @%p1 bar.sync 1, 64;
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ret;
)";
  KernelRunner r(ClusterKernel("stuck", "", ".reqnctapercluster 2, 1, 1", body));
  r.device().schedule().workers = 1;
  const absl::Status s = r.Launch("stuck", {2, 1, 1}, {64, 1, 1});
  REQUIRE_FALSE(s.ok());
  const std::string m(s.message());
  INFO(m);
  CHECK(m.find("no warp of the cluster can make progress") != std::string::npos);
  CHECK(m.find("barrier.cluster.wait") != std::string::npos);
  CHECK(m.find("96 of 128 threads of the cluster arrived") != std::string::npos);
  CHECK(m.find("waits at barrier 1") != std::string::npos);
}

TEST_CASE("cluster launch errors and undefined barrier.cluster uses", "[exec][cluster]") {
  SECTION("clusters larger than 16 CTAs are refused") {
    KernelRunner r(ClusterKernel("big", "", ".reqnctapercluster 32, 1, 1", "ret;"));
    const absl::Status s = r.Launch("big", {32, 1, 1}, {32, 1, 1});
    CHECK(s.code() == absl::StatusCode::kUnimplemented);
    CHECK(std::string(s.message()).find("thread-block clusters of 32 CTAs are not supported by the emulator") !=
          std::string::npos);
  }
  SECTION("the grid must be a multiple of the cluster") {
    KernelRunner r(ClusterKernel("odd", "", ".reqnctapercluster 2, 1, 1", "ret;"));
    const absl::Status s = r.Launch("odd", {3, 1, 1}, {32, 1, 1});
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(s.message()).find("not a multiple of the cluster dimensions") != std::string::npos);
  }
  SECTION("launch cluster dimensions must agree with .reqnctapercluster") {
    KernelRunner r(ClusterKernel("req", "", ".reqnctapercluster 2, 1, 1", "ret;"));
    const LaunchConfig config{{4, 1, 1}, {32, 1, 1}, 0, 0, false};
    auto k = r.device().FindKernel(r.unit(), "req");
    REQUIRE(k.ok());
    const absl::Status s = r.device().LaunchCluster(*k, config, Dim3{4, 1, 1}, nullptr);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  }
  SECTION("mapa to a rank outside the cluster faults") {
    KernelRunner r(ClusterKernel("far", "", ".reqnctapercluster 2, 1, 1", R"(
  .reg .b32 %r<4>;
  .shared .align 4 .b8 buf[16];
  mov.u32 %r1, buf;
  mapa.shared::cluster.u32 %r2, %r1, 2;
  ret;)"));
    const absl::Status s = r.Launch("far", {2, 1, 1}, {32, 1, 1});
    CHECK(std::string(s.message()).find("mapa to CTA rank 2: the cluster has 2 CTAs") != std::string::npos);
  }
  SECTION("wait without arrive faults") {
    KernelRunner r(ClusterKernel("nowait", "", ".reqnctapercluster 2, 1, 1", "barrier.cluster.wait;\nret;"));
    const absl::Status s = r.Launch("nowait", {2, 1, 1}, {32, 1, 1});
    CHECK(std::string(s.message()).find("without a preceding barrier.cluster.arrive") != std::string::npos);
  }
  SECTION("arriving twice faults") {
    KernelRunner r(ClusterKernel("twice", "", ".reqnctapercluster 2, 1, 1",
                                 "barrier.cluster.arrive;\nbarrier.cluster.arrive;\nret;"));
    const absl::Status s = r.Launch("twice", {2, 1, 1}, {32, 1, 1});
    CHECK(std::string(s.message()).find("arrives again before its barrier.cluster.wait") != std::string::npos);
  }
}

TEST_CASE("records of distributed shared memory and barrier.cluster", "[exec][cluster][records]") {
  // One cluster of two CTAs of one warp; the store goes to the neighbour.
  KernelRunner r(ExchangeKernel(kStoreClusterSpace));
  CollectingSink sink;
  r.device().SetSink(&sink);
  r.device().schedule().workers = 1;
  r.device().schedule().quantum = 2;
  auto out = r.Alloc<uint32_t>(3 * 64);
  REQUIRE(r.Launch("xchg", {2, 1, 1}, {32, 1, 1}, out.device).ok());
  CheckExchange(r.Read(out), 2, 32);
  REQUIRE(sink.launches.size() == 1);
  const protocol::KernelPayload& k = sink.launches[0].begin.kernel;
  CHECK(k.cluster[0] == 2);
  CHECK(k.cluster[1] == 1);
  CHECK(k.cluster[2] == 1);
  const uint32_t ctr_offset = 256;  // after buf
  uint64_t release_max[2] = {0, 0};
  int stores = 0, atomics = 0, releases = 0, acquires = 0, remote_reads = 0;
  std::vector<uint64_t> acquire_stamps;
  for (const protocol::Record& rec : sink.Flatten(0)) {
    const Op op = protocol::OpOf(rec.header);
    const uint32_t block = rec.header.warp_id;  // one warp per block
    INFO("record " << protocol::OpName(op) << " of block " << block);
    const bool shared = protocol::SpaceOf(rec.header) == protocol::Space::kShared;
    if (op == Op::kWrite && shared) {
      ++stores;
      CHECK(rec.header.active_mask == 0xffffffffu);
      CHECK(rec.header.access_size == 4);
      for (uint32_t l = 0; l < 32; ++l) CHECK(rec.addr[l] == protocol::SharedAddress(block ^ 1, 4 * l));
    } else if (op == Op::kAtomic) {
      ++atomics;
      CHECK(protocol::SpaceOf(rec.header) == protocol::Space::kShared);
      for (uint32_t l = 0; l < 32; ++l) CHECK(rec.addr[l] == protocol::SharedAddress(0, ctr_offset));
    } else if (op == Op::kRead && shared && protocol::SharedBlock(rec.addr[0]) != block) {
      ++remote_reads;  // block 1 reads block 0's counter
      CHECK(block == 1);
      CHECK(rec.addr[0] == protocol::SharedAddress(0, ctr_offset));
    } else if (op == Op::kRelease) {
      ++releases;
      CHECK(protocol::ScopeOf(rec.header) == protocol::Scope::kCluster);
      CHECK(protocol::SpaceOf(rec.header) == protocol::Space::kShared);
      CHECK(rec.header.flags == (protocol::kFlagLoad | protocol::kFlagStore));
      CHECK(rec.header.active_mask == 0xffffffffu);
      for (uint32_t l = 0; l < 32; ++l) CHECK(rec.addr[l] == protocol::ClusterBarrierAddress(0, 0));
      CHECK(protocol::IsClusterBarrierAddress(rec.addr[0]));
      CHECK(rec.stamp != 0);
      release_max[block] = rec.stamp;
    } else if (op == Op::kAcquire) {
      ++acquires;
      CHECK(protocol::ScopeOf(rec.header) == protocol::Scope::kCluster);
      CHECK(rec.header.flags == protocol::kFlagLoad);
      for (uint32_t l = 0; l < 32; ++l) CHECK(rec.addr[l] == protocol::ClusterBarrierAddress(0, 0));
      acquire_stamps.push_back(rec.stamp);
    } else if (op == Op::kBarrier || op == Op::kBarrierArrive) {
      FAIL("barrier.cluster must not emit block barrier records");
    }
  }
  CHECK(stores == 2);
  CHECK(atomics == 2);
  CHECK(remote_reads == 1);
  CHECK(releases == 2);
  REQUIRE(acquires == 2);
  // Every acquire is stamped after every release of its phase.
  for (uint64_t a : acquire_stamps) {
    CHECK(a > release_max[0]);
    CHECK(a > release_max[1]);
  }
}

TEST_CASE("barrier.cluster phases alternate between two synchronisation addresses", "[exec][cluster][records]") {
  const std::string body = R"(
  barrier.cluster.arrive;
  barrier.cluster.wait;
  barrier.cluster.arrive.relaxed;
  barrier.cluster.wait;
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  ret;
)";
  KernelRunner r(ClusterKernel("phases", "", ".reqnctapercluster 2, 1, 1", body));
  CollectingSink sink;
  r.device().SetSink(&sink);
  r.device().schedule().workers = 1;
  REQUIRE(r.Launch("phases", {4, 1, 1}, {32, 1, 1}).ok());
  // Per block: release(p0) acquire(p0) [relaxed arrive: nothing] acquire(p1) release(p2) acquire(p2).
  std::vector<std::vector<std::pair<Op, uint64_t>>> per_block(4);
  for (const protocol::Record& rec : sink.Flatten(0)) {
    const Op op = protocol::OpOf(rec.header);
    if (op == Op::kRelease || op == Op::kAcquire) per_block[rec.header.warp_id].emplace_back(op, rec.addr[0]);
  }
  for (uint32_t b = 0; b < 4; ++b) {
    INFO("block " << b);
    const uint32_t rank0 = b & ~1u;
    const std::vector<std::pair<Op, uint64_t>> expected = {
        {Op::kRelease, protocol::ClusterBarrierAddress(rank0, 0)},
        {Op::kAcquire, protocol::ClusterBarrierAddress(rank0, 0)},
        {Op::kAcquire, protocol::ClusterBarrierAddress(rank0, 1)},
        {Op::kRelease, protocol::ClusterBarrierAddress(rank0, 2)},
        {Op::kAcquire, protocol::ClusterBarrierAddress(rank0, 2)}};
    CHECK(per_block[b] == expected);
  }
}

}  // namespace
}  // namespace barracuda::emu
