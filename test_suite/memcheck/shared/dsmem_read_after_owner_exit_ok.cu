/*@barracuda
{
  "what": "distributed shared memory kept alive: block 1 of a 2-block cluster fills its shared array, cluster.sync(), block 0 reads it through map_shared_rank, and a second cluster.sync() keeps block 1 from exiting before the read",
  "arch": 90,
  "expect": {
    "its": {
      "verdict": "no-race",
      "races": []
    },
    "lockstep": {
      "verdict": "no-race",
      "races": []
    }
  }
}
@*/
// Twin of dsmem_read_after_owner_exit_memerr.cu, with the second cluster.sync(). Needs
// sm_90 (thread block clusters).
#include <cstdio>
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) Kernel(int *out, int work) {
  __shared__ int buf[64];
  cg::cluster_group cluster = cg::this_cluster();
  const int t = threadIdx.x;
  const unsigned rank = cluster.block_rank();
  buf[t] = 7 * t;
  cluster.sync();
  if (rank == 0) {
    int acc = 0;
    for (int i = 0; i < work; ++i) acc = acc * 3 + i;
    const int *remote = cluster.map_shared_rank(buf, 1);
    out[t] = remote[63 - t] + (acc & 0);
  }
  cluster.sync();  // block 1's shared memory stays valid until block 0 is done with it
}

int main() {
  int *d = nullptr;
  if (cudaMalloc(&d, 64 * sizeof(int)) != cudaSuccess) return 2;
  Kernel<<<2, 64>>>(d, 2000);
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;
  int h[64];
  if (cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
  for (int i = 0; i < 64; ++i)
    if (h[i] != 7 * (63 - i)) { std::printf("FAIL out[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
