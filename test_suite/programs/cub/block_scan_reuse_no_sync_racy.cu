/*@barracuda
{
  "what": "cub::BlockScan (BLOCK_SCAN_WARP_SCANS) ExclusiveSum called twice on one TempStorage without __syncthreads between",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "intra-block", "lines": [202, 60], "files": ["cccl/cub/block/specializations/block_scan_warp_scans.cuh", "cccl/cub/detail/uninitialized_copy.cuh"]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "intra-block", "lines": [202, 60], "files": ["cccl/cub/block/specializations/block_scan_warp_scans.cuh", "cccl/cub/detail/uninitialized_copy.cuh"]}
    ]}
  }
}
@*/
// Twin: block_scan_reuse_with_sync_ok.cu. With two warps, lane 31 of each warp stores its
// warp aggregate (cccl/cub/detail/uninitialized_copy.cuh:60, inlined from
// block_scan_warp_scans.cuh:195), __syncthreads, then every thread loads
// warp_aggregates[0] (cccl/cub/block/specializations/block_scan_warp_scans.cuh:202).
// Without a __syncthreads between the scans, warp 0's lane 31 stores the second
// aggregate while warp 1 may still load the first (WAR, intra-block). Warp 0's own
// loads are ordered before that store by the shfl.sync of the second scan.
#include <cstdio>
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

using BlockScan = cub::BlockScan<int, 64, cub::BLOCK_SCAN_WARP_SCANS>;

__global__ void TwoScans(const int *in, int *out) {
  __shared__ typename BlockScan::TempStorage temp;
  int t = threadIdx.x;
  int a, b;
  BlockScan(temp).ExclusiveSum(in[t], a);
  // BUG: missing __syncthreads() before reusing temp
  BlockScan(temp).ExclusiveSum(in[t] * 2, b);
  out[t] = a;
  out[64 + t] = b;
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = 1;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, 128 * sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  TwoScans<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  int r[128];
  CK(cudaMemcpy(r, d_out, sizeof(r), cudaMemcpyDeviceToHost));
  std::printf("a[63]=%d b[63]=%d (63 126 when benign)\n", r[63], r[127]);
  return 0;
}
