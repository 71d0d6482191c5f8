/*@barracuda
{
  "what": "cub::BlockScan (BLOCK_SCAN_WARP_SCANS) ExclusiveSum called twice on one TempStorage with the required __syncthreads between",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: block_scan_reuse_no_sync_racy.cu.
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
  __syncthreads();  // required before reusing temp
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
  for (int i = 0; i < 64; ++i)
    if (r[i] != i || r[64 + i] != 2 * i) { std::printf("FAIL %d: %d %d\n", i, r[i], r[64 + i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
