/*@barracuda
{
  "what": "distributed shared memory: block 0 of a 2-block cluster stores into block 1's shared memory, cluster.sync(), block 1 reads (barrier.cluster arrive.release / wait.acquire)",
  "arch": 90,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Needs sm_90 (thread block clusters): build with
// -gencode arch=compute_90,code=[sm_90,compute_90]. One cluster of two blocks: block 0
// stores into block 1's shared memory through cluster.map_shared_rank (distributed
// shared memory), then block 1 reads its own shared array.
#include <cstdio>
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) Kernel(int *out) {
  __shared__ int buf[64];
  cg::cluster_group cluster = cg::this_cluster();
  int t = threadIdx.x;
  unsigned rank = cluster.block_rank();
  if (rank == 0) {
    int *remote = cluster.map_shared_rank(buf, 1);
    remote[t] = 7 * t;
  }
  cluster.sync();
  if (rank == 1) out[t] = buf[63 - t];
  cluster.sync();  // keep block 1's shared memory alive until block 0 is done
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 64 * sizeof(int)));
  Kernel<<<2, 64>>>(d);
  CK(cudaGetLastError());
  int h[64];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i)
    if (h[i] != 7 * (63 - i)) { std::printf("FAIL out[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
