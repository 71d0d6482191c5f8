/*@barracuda
{
  "what": "an off-by-one bound writes one float past the end of a cudaMalloc buffer",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "no-race",
      "races": [],
      "memory_errors": [
        {
          "kind": "out-of-bounds",
          "space": "global",
          "line": 38
        }
      ]
    },
    "lockstep": {
      "verdict": "no-race",
      "races": [],
      "memory_errors": [
        {
          "kind": "out-of-bounds",
          "space": "global",
          "line": 38
        }
      ]
    }
  }
}
@*/
// Twin: write_past_end_ok.cu. The off-by-one bound `i <= n` writes one float
// past the end of a 1000-float buffer (thread 1000 of block 7 of 8 x 128).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Fill(float* a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) a[i] = 1.0f;
}

int main() {
  const int n = 1000;
  float* a = nullptr;
  if (cudaMalloc(&a, n * sizeof(float)) != cudaSuccess) return 2;
  Fill<<<(n + 127) / 128, 128>>>(a, n);
  std::printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
