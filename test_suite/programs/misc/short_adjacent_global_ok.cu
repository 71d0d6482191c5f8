/*@barracuda
{
  "what": "16-bit stores to adjacent halves of 32-bit words from different blocks (no overlapping bytes: no race)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: short_overlaps_int_racy.cu. Block b stores half b of every word.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(unsigned short *halves) {
  int t = threadIdx.x;
  halves[2 * t + blockIdx.x] = (unsigned short)(1000 * blockIdx.x + t);
}

int main() {
  unsigned short *d;
  CK(cudaMalloc(&d, 64 * sizeof(unsigned short)));
  Kernel<<<2, 32>>>(d);
  CK(cudaGetLastError());
  unsigned short h[64];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 32; ++t)
    if (h[2 * t] != t || h[2 * t + 1] != 1000 + t) { std::printf("FAIL %d\n", t); return 1; }
  std::printf("PASS\n");
  return 0;
}
