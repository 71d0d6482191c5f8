/*@barracuda
{
  "what": "grid reduction with cub::BlockReduce where thread 0 of EVERY block stores its block's sum into the one result word (meant: an atomicAdd, or a second pass): inter-block WAW",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [28, 28]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [28, 28]}
    ]}
  }
}
@*/
// 4 blocks x 128 threads; each block reduces its 128 inputs correctly, then every
// block's thread 0 stores its (different) partial sum into *result with a plain store.
#include <cub/cub.cuh>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

using Reduce = cub::BlockReduce<int, 128>;

__global__ void GridSum(const int *in, int *result) {
  __shared__ typename Reduce::TempStorage temp;
  int sum = Reduce(temp).Sum(in[blockIdx.x * 128 + threadIdx.x]);
  if (threadIdx.x == 0)
    *result = sum;  // BUG: every block overwrites the result
}

int main() {
  int h[512], want = 0;
  for (int i = 0; i < 512; ++i) { h[i] = i % 13 + (i / 128); want += h[i]; }
  int *d_in, *d_res;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_res, sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  GridSum<<<4, 128>>>(d_in, d_res);
  CK(cudaGetLastError());
  int r;
  CK(cudaMemcpy(&r, d_res, sizeof(r), cudaMemcpyDeviceToHost));
  std::printf("sum %d (want %d)\n", r, want);
  return 0;
}
