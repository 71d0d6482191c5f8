/*@barracuda
{
  "what": "a __noinline__ device function that contains the __syncthreads between the store and the load",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: device_function_noinline_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__device__ __noinline__ int Exchange(int *s, int t, int v) {
  s[t] = v;
  __syncthreads();
  return s[63 - t];
}

__global__ void Kernel(int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  out[t] = Exchange(s, t, t + 1);
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 64 * sizeof(int)));
  Kernel<<<1, 64>>>(d);
  CK(cudaGetLastError());
  int h[64];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 64; ++t)
    if (h[t] != 64 - t) { std::printf("FAIL out[%d]=%d\n", t, h[t]); return 1; }
  std::printf("PASS\n");
  return 0;
}
