/*@barracuda
{
  "what": "cub::BlockReduce returns the block total in thread 0 only; thread 0 stores it to a __shared__ word and every thread reads it WITHOUT a __syncthreads: the other warps' reads race with the store (intra-block RAW), and lanes 1-31 of warp 0 read it on the else-path of thread 0's branch (nvcc forwards sum to thread 0 and compiles the read into the else-path: a branch-ordering race, class divergence, in both models)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [35, 37]},
      {"kind": "RAW", "space": "shared", "class": "divergence", "lines": [35, 37]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [35, 37]},
      {"kind": "RAW", "space": "shared", "class": "divergence", "lines": [35, 37]}
    ]}
  }
}
@*/
// 2 blocks x 128 threads; each thread then normalises its input by the block total.
// nvcc knows total == sum in thread 0, so it compiles lines 34-37 into an if/else: thread
// 0 stores total on the then-path, every other thread loads it on the else-path. Warp 0's
// lanes 1-31 therefore race with lane 0 across the two sides of an open branch
// (divergence class, racy in lockstep too); warps 1-3 race with it as other warps.
#include <cub/cub.cuh>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

using Reduce = cub::BlockReduce<int, 128>;

__global__ void Normalise(const int *in, int *out) {
  __shared__ typename Reduce::TempStorage temp;
  __shared__ int total;
  int x = in[blockIdx.x * 128 + threadIdx.x];
  int sum = Reduce(temp).Sum(x);  // valid in thread 0 only
  if (threadIdx.x == 0)
    total = sum;
  // BUG: missing __syncthreads()
  out[blockIdx.x * 128 + threadIdx.x] = x * 1000 / total;
}

int main() {
  int h[256];
  for (int i = 0; i < 256; ++i) h[i] = 1 + i % 7;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Normalise<<<2, 128>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0] = %d\n", h[0]);
  return 0;
}
