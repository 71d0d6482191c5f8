/*@barracuda
{
  "what": "a kernel reads a buffer freed before it was launched (use after free)",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "no-race",
      "races": [],
      "memory_errors": [
        {
          "kind": "use-after-free",
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
          "kind": "use-after-free",
          "space": "global",
          "line": 41
        }
      ]
    }
  }
}
@*/
// Twin: use_after_free_ok.cu. The scratch buffer is freed before the second
// kernel that reads it was launched (the free belonged after the sync).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Square(const int* in, int* scratch) {
  scratch[threadIdx.x] = in[threadIdx.x] * in[threadIdx.x];
}

__global__ void Sum(const int* scratch, int* out) {
  atomicAdd(out, scratch[threadIdx.x]);
}

int main() {
  int *in = nullptr, *scratch = nullptr, *out = nullptr;
  if (cudaMalloc(&in, 64 * sizeof(int)) != cudaSuccess || cudaMalloc(&scratch, 64 * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&out, sizeof(int)) != cudaSuccess)
    return 2;
  cudaMemset(in, 0, 64 * sizeof(int));
  cudaMemset(out, 0, sizeof(int));
  Square<<<1, 64>>>(in, scratch);
  cudaFree(scratch);
  Sum<<<1, 64>>>(scratch, out);
  std::printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
