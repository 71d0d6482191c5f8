/*@barracuda
{
  "what": "barrier divergence: half of each warp calls __syncthreads on the then-path, the other half on the else-path (legal on sm_70+ hardware, a barrier-divergence error in the model)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "BARRIER_DIVERGENCE", "space": "shared", "class": "divergence", "lines": [31, 31]},
      {"kind": "BARRIER_DIVERGENCE", "space": "shared", "class": "divergence", "lines": [34, 34]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "BARRIER_DIVERGENCE", "space": "shared", "class": "divergence", "lines": [31, 31]},
      {"kind": "BARRIER_DIVERGENCE", "space": "shared", "class": "divergence", "lines": [34, 34]}
    ]}
  }
}
@*/
// Twin: syncthreads_block_uniform_branch_ok.cu. Every thread of the block arrives at
// barrier 0 (16 lanes per warp at each instruction), so the barrier completes and
// orders the shared accesses around it: the only reports are the two divergent
// barriers. The different work on each path keeps nvcc from merging the two calls.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int s[64];
  int t = threadIdx.x, lane = t % 32;
  s[t] = t;
  int v;
  if (lane < 16) {
    __syncthreads();  // @bt
    v = s[63 - t] * 2;
  } else {
    __syncthreads();  // @be
    v = s[63 - t] + 1000;
  }
  out[t] = v;
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 64 * sizeof(int)));
  Kernel<<<1, 64>>>(d);
  CK(cudaGetLastError());
  int h[64];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d\n", h[0]);
  return 0;
}
