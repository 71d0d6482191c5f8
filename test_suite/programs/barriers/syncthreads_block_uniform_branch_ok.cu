/*@barracuda
{
  "what": "__syncthreads inside a branch whose condition is uniform across each block (depends on blockIdx only): no barrier divergence",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: syncthreads_if_else_divergent_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  int v = 0;
  if (blockIdx.x % 2 == 0) {
    s[t] = t;
    __syncthreads();
    v = s[63 - t];
  }
  out[blockIdx.x * 64 + t] = v;
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 2 * 64 * sizeof(int)));
  Kernel<<<2, 64>>>(d);
  CK(cudaGetLastError());
  int h[128];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 64; ++t)
    if (h[t] != 63 - t || h[64 + t] != 0) { std::printf("FAIL t=%d\n", t); return 1; }
  std::printf("PASS\n");
  return 0;
}
