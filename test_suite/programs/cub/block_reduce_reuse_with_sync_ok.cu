/*@barracuda
{
  "what": "cub::BlockReduce called twice on one TempStorage with the required __syncthreads between the calls",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// cub::BlockReduce<int, 64> (default algorithm BLOCK_REDUCE_WARP_REDUCTIONS): each warp
// reduces with shuffles, lane 0 of each warp stores its aggregate into TempStorage,
// __syncthreads, then thread 0 loads warp 1's aggregate. CUB requires a __syncthreads
// before TempStorage is reused. Race lines (CUDA 13.0 CCCL headers, relative to the
// CUDA include dir): the load is cccl/cub/block/specializations/
// block_reduce_warp_reductions.cuh:143 (nvcc hoists it out of the linear_tid == 0 branch,
// so every thread loads it), the store is cccl/cub/detail/uninitialized_copy.cuh:60
// (inlined from block_reduce_warp_reductions.cuh:184).
#include <cstdio>
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

using BlockReduce = cub::BlockReduce<int, 64>;

__global__ void TwoSums(const int *in, int *out) {
  __shared__ typename BlockReduce::TempStorage temp;
  int t = threadIdx.x;
  int a = BlockReduce(temp).Sum(in[t]);
  __syncthreads();  // required before reusing temp
  int b = BlockReduce(temp).Sum(in[t] * 2);
  if (t == 0) {
    out[0] = a;
    out[1] = b;
  }
}

int main() {
  int h[64], want = 0;
  for (int i = 0; i < 64; ++i) { h[i] = i % 9; want += h[i]; }
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, 2 * sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  TwoSums<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  int r[2];
  CK(cudaMemcpy(r, d_out, sizeof(r), cudaMemcpyDeviceToHost));
  if (r[0] != want || r[1] != 2 * want) { std::printf("FAIL %d %d want %d\n", r[0], r[1], want); return 1; }
  std::printf("PASS\n");
  return 0;
}
