/*@barracuda
{
  "what": "distributed shared memory with only __syncthreads between block 0's remote stores and block 1's reads: a block barrier does not order the two blocks of the cluster",
  "arch": 90,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "inter-block", "lines": [32, 35]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "inter-block", "lines": [32, 35]}
    ]}
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
    remote[t] = 7 * t;  // @w
  }
  __syncthreads();  // BUG: cluster.sync() needed
  if (rank == 1) out[t] = buf[63 - t];  // @r
  cluster.sync();  // keep block 1's shared memory alive until block 0 is done
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 64 * sizeof(int)));
  Kernel<<<2, 64>>>(d);
  CK(cudaGetLastError());
  int h[64];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (racy)\n", h[0]);
  return 0;
}
