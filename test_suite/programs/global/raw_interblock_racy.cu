/*@barracuda
{
  "what": "block 0 writes a global array that block 1 reads, with nothing ordering the blocks",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [24, 26]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [24, 26]}
    ]}
  }
}
@*/
// Twin: interblock_disjoint_ok.cu and raw_across_kernels_ok.cu (the fix: split the
// kernel in two launches on one stream).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *data, int *out) {
  int t = threadIdx.x;
  if (blockIdx.x == 0) {
    data[t] = t + 100;  // @w
  } else {
    out[t] = data[t];  // @r
  }
}

int main() {
  int *d_data, *d_out;
  CK(cudaMalloc(&d_data, 32 * sizeof(int)));
  CK(cudaMalloc(&d_out, 32 * sizeof(int)));
  CK(cudaMemset(d_data, 0, 32 * sizeof(int)));
  Kernel<<<2, 32>>>(d_data, d_out);
  CK(cudaGetLastError());
  int h[32];
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[5]=%d (racy: 0 or 105)\n", h[5]);
  return 0;
}
