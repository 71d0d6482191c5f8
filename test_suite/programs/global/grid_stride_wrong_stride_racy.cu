/*@barracuda
{
  "what": "grid-stride loop that strides by blockDim.x instead of gridDim.x*blockDim.x: block 1 redoes block 0's later elements (read-modify-write overlap across blocks); whether the overlapping writes stored the same value depends on the schedule (block 1 read 1 or 2), so that pair is a WAW or a same-value warning",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [28, 27]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [28, 28], "schedule_dependent": true},
      {"kind": "SAME_VALUE", "space": "global", "class": "inter-block", "lines": [28, 28], "schedule_dependent": true}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [28, 27]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [28, 28], "schedule_dependent": true},
      {"kind": "SAME_VALUE", "space": "global", "class": "inter-block", "lines": [28, 28], "schedule_dependent": true}
    ]}
  }
}
@*/
// n = 128, 2 blocks of 64: block 0 covers 0..127, block 1 covers 64..127, so elements
// 64..127 are read and written by one thread of each block.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Scale(int n, int *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x) {
    int v = y[i];  // @r
    y[i] = v * 2;  // @w
  }
}

int main() {
  const int n = 128;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = 1;
  int *d;
  CK(cudaMalloc(&d, sizeof(h)));
  CK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
  Scale<<<2, 64>>>(n, d);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("y[100]=%d (racy: 2 or 4)\n", h[100]);
  return 0;
}
