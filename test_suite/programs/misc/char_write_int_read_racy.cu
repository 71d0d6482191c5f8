/*@barracuda
{
  "what": "1-byte volatile stores by warp 1 into byte 1 of each int that warp 0 loads as a whole volatile 4-byte int, no barrier: both are strong, but of different sizes, so they are not morally strong (PTX memory model) and race",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "NOT_MORALLY_STRONG", "space": "shared", "class": "intra-block", "lines": [26, 28]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "NOT_MORALLY_STRONG", "space": "shared", "class": "intra-block", "lines": [26, 28]}
    ]}
  }
}
@*/
// Twin: char_adjacent_bytes_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int words[32];
  int t = threadIdx.x, lane = t % 32;
  if (t < 32) words[lane] = 0;
  __syncthreads();
  if (t >= 32) {
    reinterpret_cast<volatile char *>(words)[4 * lane + 1] = 1;  // @w
  } else {
    out[lane] = reinterpret_cast<volatile int *>(words)[lane];  // @r
  }
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 32 * sizeof(int)));
  Kernel<<<1, 64>>>(d);
  CK(cudaGetLastError());
  int h[32];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (racy: 0 or 256)\n", h[0]);
  return 0;
}
