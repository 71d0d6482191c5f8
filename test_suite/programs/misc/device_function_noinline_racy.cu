/*@barracuda
{
  "what": "the racing store and load are inside a __noinline__ device function (a real call in PTX) called by both warps",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [21, 22]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [21, 22]}
    ]}
  }
}
@*/
// Twin: device_function_noinline_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__device__ __noinline__ int Exchange(int *s, int t, int v) {
  s[t] = v;  // @w
  return s[63 - t];  // @r
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
  std::printf("out[0]=%d (racy)\n", h[0]);
  return 0;
}
