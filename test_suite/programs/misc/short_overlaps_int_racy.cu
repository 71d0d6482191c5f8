/*@barracuda
{
  "what": "block 1 stores the upper 16-bit half of ints that block 0 stores as whole 32-bit ints: overlapping WAW of different widths across blocks",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [23, 25]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [23, 25]}
    ]}
  }
}
@*/
// Twin: short_adjacent_global_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *words) {
  int t = threadIdx.x;
  if (blockIdx.x == 0) {
    words[t] = t;  // @w32
  } else {
    reinterpret_cast<short *>(words)[2 * t + 1] = -1;  // @w16
  }
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 32 * sizeof(int)));
  Kernel<<<2, 32>>>(d);
  CK(cudaGetLastError());
  int h[32];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("words[1]=%d (racy)\n", h[1]);
  return 0;
}
