/*@barracuda
{
  "what": "a stencil reads past the end of its dynamic shared tile (no halo)",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "no-race",
      "races": [],
      "memory_errors": [
        {
          "kind": "out-of-bounds",
          "space": "shared",
          "line": 42
        }
      ]
    },
    "lockstep": {
      "verdict": "no-race",
      "races": [],
      "memory_errors": [
        {
          "kind": "out-of-bounds",
          "space": "shared",
          "line": 42
        }
      ]
    }
  }
}
@*/
// Twin: tile_index_past_end_ok.cu. A stencil reads tile[t + 2] of a 64-float
// dynamic shared tile sized for the block (64 threads) without the halo: the
// last two threads read past the end of the block's shared memory.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Stencil(const float* in, float* out) {
  extern __shared__ float tile[];
  const int t = threadIdx.x;
  tile[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = tile[t] + tile[t + 2];
}

int main() {
  float *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, 128 * sizeof(float)) != cudaSuccess || cudaMalloc(&out, 128 * sizeof(float)) != cudaSuccess)
    return 2;
  cudaMemset(in, 0, 128 * sizeof(float));
  Stencil<<<2, 64, 64 * sizeof(float)>>>(in, out);
  std::printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
