/*@barracuda
{
  "what": "__syncthreads is block-local: block 0 writes global data, both blocks pass a __syncthreads, block 1 reads the data",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [22, 25]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [22, 25]}
    ]}
  }
}
@*/
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *data, int *out) {
  int t = threadIdx.x;
  if (blockIdx.x == 0)
    data[t] = t + 7;  // @w
  __syncthreads();
  if (blockIdx.x == 1)
    out[t] = data[t];  // @r
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
  std::printf("out[1]=%d (racy: 0 or 8)\n", h[1]);
  return 0;
}
