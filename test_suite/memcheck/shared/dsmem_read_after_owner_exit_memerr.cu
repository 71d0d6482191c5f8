/*@barracuda
{
  "what": "distributed shared memory read after its CTA exited: block 1 of a 2-block cluster fills its shared array, cluster.sync(), then exits while block 0 still reads the array through map_shared_rank (no second cluster.sync): the emulator faults on the read its schedule runs after the exit, and the detector reports the read as not ordered before the exit (dsmem-lifetime)",
  "arch": 90,
  "expect": {
    "its": {
      "verdict": "race",
      "races": [
        {"kind": "DSMEM_LIFETIME", "space": "shared", "class": "inter-block", "lines": [55, "exit"]}
      ],
      "memory_errors": [
        {
          "kind": "use-after-free",
          "space": "shared",
          "line": 55
        }
      ]
    },
    "lockstep": {
      "verdict": "race",
      "races": [
        {"kind": "DSMEM_LIFETIME", "space": "shared", "class": "inter-block", "lines": [55, "exit"]}
      ],
      "memory_errors": [
        {
          "kind": "use-after-free",
          "space": "shared",
          "line": 55
        }
      ]
    }
  }
}
@*/
// Twin: dsmem_read_after_owner_exit_ok.cu. Needs sm_90 (thread block clusters). A CTA's
// shared memory is valid for the rest of its cluster only while the CTA runs (CUDA
// Programming Guide, "Distributed Shared Memory"): the reader here first does some work,
// so block 1 has exited by the time block 0 reads its array.
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
  // BUG: no cluster.sync() here, so block 1 may exit while block 0 still reads its buf.
}

int main() {
  int *d = nullptr;
  if (cudaMalloc(&d, 64 * sizeof(int)) != cudaSuccess) return 2;
  Kernel<<<2, 64>>>(d, 2000);
  std::printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
