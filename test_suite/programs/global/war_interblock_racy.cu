/*@barracuda
{
  "what": "block 1 reads a global array that block 0 overwrites (in-place update across blocks)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "global", "class": "inter-block", "lines": [22, 24]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "global", "class": "inter-block", "lines": [22, 24]}
    ]}
  }
}
@*/
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *data, int *out) {
  int t = threadIdx.x;
  if (blockIdx.x == 1) {
    out[t] = data[t];  // @r
  } else {
    data[t] = -1;  // @w
  }
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = i;
  int *d_data, *d_out;
  CK(cudaMalloc(&d_data, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_data, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<2, 32>>>(d_data, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[3]=%d (racy: 3 or -1)\n", h[3]);
  return 0;
}
