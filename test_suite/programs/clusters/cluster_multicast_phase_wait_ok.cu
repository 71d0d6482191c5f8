/*@barracuda
{
  "what": "sm_90 bulk copy multicast to both blocks of a 2-block cluster (cp.async.bulk ... .multicast::cluster, ctaMask 0b11): every block waits for its own mbarrier phase (which the multicast completes in each block) before it reads the buffer",
  "arch": 90,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Needs sm_90 (clusters, cp.async.bulk): build with -gencode arch=compute_90,code=[sm_90,compute_90]
// (ptxas advises sm_90a for .multicast::cluster; sm_90 runs it too).
#include <cstdint>
#include <cstdio>
#include <cooperative_groups.h>
#include <cuda/ptx>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
namespace cg = cooperative_groups;
namespace ptx = cuda::ptx;
constexpr int kThreads = 64, kBlocks = 2;

__global__ void __cluster_dims__(2, 1, 1) Kernel(const int *in, int *out) {
  __shared__ alignas(16) int buf[kThreads];
  __shared__ alignas(8) uint64_t bar;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);  // visible to the other block's complete_tx
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(buf));
  }
  cluster.sync();  // both blocks' mbarriers armed before the copy
  if (cluster.block_rank() == 0 && threadIdx.x == 0) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(buf));
    const unsigned mbar = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
    const unsigned short mask = 0x3;  // both blocks of the cluster
    const unsigned bytes = sizeof(buf);
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;" :: "r"(dst), "l"(in), "r"(bytes), "r"(mbar), "h"(mask) : "memory");
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {  // the bytes arrive with this block's phase
  }
  out[blockIdx.x * kThreads + threadIdx.x] = buf[(threadIdx.x + 1) % kThreads];
  cluster.sync();  // no block leaves while the other's copy may still write into it
}

int main() {
  int h[kThreads], got[kBlocks * kThreads], *in, *out;
  for (int i = 0; i < kThreads; ++i) h[i] = 3 * i + 1;
  CK(cudaMalloc(&in, sizeof(h)));
  CK(cudaMalloc(&out, sizeof(got)));
  CK(cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<kBlocks, kThreads>>>(in, out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
  int stale = 0;
  for (int i = 0; i < kBlocks * kThreads; ++i) stale += got[i] != h[(i % kThreads + 1) % kThreads];
  std::printf(stale == 0 ? "PASS\n" : "FAIL: %d stale reads\n", stale);
  return stale == 0 ? 0 : 1;
}
