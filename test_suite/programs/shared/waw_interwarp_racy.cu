/*@barracuda
{
  "what": "WAW on one shared word: lane 0 of each of two warps writes a different value, no barrier between",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "shared", "class": "intra-block", "lines": [24, 24]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "shared", "class": "intra-block", "lines": [24, 24]}
    ]}
  }
}
@*/
// Twin: waw_interwarp_barrier_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int owner;
  int warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0)
    owner = warp + 1;  // @w
  __syncthreads();
  if (threadIdx.x == 0) *out = owner;
}

int main() {
  int *d_out;
  CK(cudaMalloc(&d_out, sizeof(int)));
  Kernel<<<1, 64>>>(d_out);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("owner=%d (racy: 1 or 2)\n", h);
  CK(cudaFree(d_out));
  return 0;
}
