/*@barracuda
{
  "what": "sm_90 st.async into the neighbour block of a 2-block cluster (cuda::ptx::st_async, complete_tx on the neighbour's mbarrier): every block reads what its neighbour stored before its own mbarrier phase completes; cluster.sync() orders the issue, only the phase (the stores' complete_tx, a release) orders the bytes",
  "arch": 90,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "async-copy", "lines": [39, 41]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "async-copy", "lines": [39, 41]}
    ]}
  }
}
@*/
// Needs sm_90 (clusters, st.async): build with -gencode arch=compute_90,code=[sm_90,compute_90].
#include <cstdint>
#include <cstdio>
#include <cooperative_groups.h>
#include <cuda/ptx>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
namespace cg = cooperative_groups;
namespace ptx = cuda::ptx;
constexpr int kThreads = 64, kBlocks = 2;

__global__ void __cluster_dims__(2, 1, 1) Kernel(int *out) {
  __shared__ alignas(16) int buf[kThreads];
  __shared__ alignas(8) uint64_t bar;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), peer = rank ^ 1;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);  // visible to the neighbour's complete_tx
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(buf));
  }
  cluster.sync();  // both blocks' mbarriers armed before the stores
  int *peer_buf = cluster.map_shared_rank(buf, peer);
  uint64_t *peer_bar = cluster.map_shared_rank(&bar, peer);
  ptx::st_async(&peer_buf[threadIdx.x], 10 * static_cast<int>(threadIdx.x) + static_cast<int>(rank), peer_bar);
  // BUG: the neighbour's values arrive with this block's mbarrier phase, which nobody waited for yet
  out[blockIdx.x * kThreads + threadIdx.x] = buf[(threadIdx.x + 1) % kThreads];
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  cluster.sync();  // no block leaves while its neighbour may still store into it
}

int main() {
  int got[kBlocks * kThreads], *out;
  CK(cudaMalloc(&out, sizeof(got)));
  Kernel<<<kBlocks, kThreads>>>(out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
  int stale = 0;
  for (int b = 0; b < kBlocks; ++b)
    for (int i = 0; i < kThreads; ++i) stale += got[b * kThreads + i] != 10 * ((i + 1) % kThreads) + (b ^ 1);
  std::printf("%d stale reads\n", stale);
  return 0;
}
