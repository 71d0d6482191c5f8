/*@barracuda
{
  "what": "read of the other warp's slot, __syncthreads, then overwrite of the own slot: no WAR",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: war_missing_syncthreads_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = t;
  __syncthreads();
  int v = s[63 - t];
  __syncthreads();
  s[t] = v * 2;
  __syncthreads();
  out[t] = s[63 - t];
}

int main() {
  int *d_out;
  CK(cudaMalloc(&d_out, 64 * sizeof(int)));
  Kernel<<<1, 64>>>(d_out);
  CK(cudaGetLastError());
  int h[64];
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 64; ++t)
    if (h[t] != 2 * t) { std::printf("FAIL out[%d]=%d\n", t, h[t]); return 1; }
  std::printf("PASS\n");
  CK(cudaFree(d_out));
  return 0;
}
