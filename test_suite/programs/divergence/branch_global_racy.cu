/*@barracuda
{
  "what": "branch-ordering race on GLOBAL memory: odd lanes write the element that the even lane next to them reads on the other path",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "divergence", "lines": [24, 27]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "divergence", "lines": [24, 27]}
    ]}
  }
}
@*/
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *a, int *out) {
  int lane = threadIdx.x;
  int acc = 0;
  if (lane & 1) {
    for (int k = 0; k < lane; ++k) acc += k;
    a[lane - 1] = acc;  // @w
  } else {
    for (int k = 0; k < lane; ++k) acc -= k;
    acc += a[lane];  // @r
  }
  out[lane] = acc;
}

int main() {
  int *d_a, *d_out;
  CK(cudaMalloc(&d_a, 32 * sizeof(int)));
  CK(cudaMalloc(&d_out, 32 * sizeof(int)));
  CK(cudaMemset(d_a, 0, 32 * sizeof(int)));
  Kernel<<<1, 32>>>(d_a, d_out);
  CK(cudaGetLastError());
  int h[32];
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[2]=%d (depends on path order)\n", h[2]);
  return 0;
}
