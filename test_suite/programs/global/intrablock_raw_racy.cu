/*@barracuda
{
  "what": "global-memory RAW between the two warps of one block without __syncthreads",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "intra-block", "lines": [22, 23]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "intra-block", "lines": [22, 23]}
    ]}
  }
}
@*/
// Twin: intrablock_syncthreads_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *scratch, int *out) {
  int t = threadIdx.x;
  scratch[t] = t * t;  // @w
  int v = scratch[63 - t];  // @r
  out[t] = v;
}

int main() {
  int *d_s, *d_out;
  CK(cudaMalloc(&d_s, 64 * sizeof(int)));
  CK(cudaMalloc(&d_out, 64 * sizeof(int)));
  Kernel<<<1, 64>>>(d_s, d_out);
  CK(cudaGetLastError());
  int h[64];
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (racy)\n", h[0]);
  return 0;
}
