/*@barracuda
{
  "what": "a halo read 128 bytes before the start of its allocation (out of bounds; on a GPU it reads the neighbouring allocation)",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "no-race",
      "races": [],
      "memory_errors": [
        {
          "kind": "out-of-bounds",
          "space": "global",
          "line": 41
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
          "line": 41
        }
      ]
    }
  }
}
@*/
// Twin: read_before_allocation_ok.cu. A halo read with a wrong base: block b
// reads in[b * 32 + t - 32] for a left neighbour that block 0 does not have,
// 128 bytes before the start of `in`. On a GPU the read lands in whatever lies
// there (here: the allocation made first) and the program silently computes
// garbage; memcheck-style checking reports the access.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void LeftNeighbour(const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i - 32];
}

int main() {
  float *before = nullptr, *in = nullptr, *out = nullptr;
  if (cudaMalloc(&before, 4096) != cudaSuccess || cudaMalloc(&in, 128 * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&out, 128 * sizeof(float)) != cudaSuccess)
    return 2;
  LeftNeighbour<<<4, 32>>>(in, out);
  std::printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
