/*@barracuda
{
  "what": "distributed shared memory lifetime, fixed: block 1 fills its shared array, cluster.sync(), block 0 reads it through map_shared_rank, and a second cluster.sync() keeps block 1 (and its shared memory) until block 0's reads are done (twin of cluster_dsmem_read_before_owner_exit_racy)",
  "arch": 90,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Needs sm_90 (thread block clusters). One cluster of two blocks. The CUDA
// Programming Guide: a block's shared memory must not be accessed by the
// cluster after the block exits; cluster.sync() before exit makes sure. Here
// the second cluster.sync() orders block 0's reads before block 1's exit.
#include <cstdio>
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) Kernel(int *out, int *work, int rounds) {
  __shared__ int buf[64];
  cg::cluster_group cluster = cg::this_cluster();
  int t = threadIdx.x;
  unsigned rank = cluster.block_rank();
  if (rank == 1) buf[t] = 7 * t;
  cluster.sync();
  if (rank == 0) {
    out[t] = cluster.map_shared_rank(buf, 1)[63 - t];
  } else {
    int acc = t;
    for (int i = 0; i < rounds; ++i) acc = acc * 3 + i;
    work[t] = acc;
  }
  cluster.sync();  // block 1's shared memory stays until block 0 is done with it
}

int main() {
  int *d, *w;
  CK(cudaMalloc(&d, 64 * sizeof(int)));
  CK(cudaMalloc(&w, 64 * sizeof(int)));
  Kernel<<<2, 64>>>(d, w, 200);
  CK(cudaGetLastError());
  int h[64];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i)
    if (h[i] != 7 * (63 - i)) { std::printf("FAIL out[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
