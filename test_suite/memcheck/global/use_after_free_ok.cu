/*@barracuda
{
  "what": "the buffer freed after its last use",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "no-race",
      "races": []
    },
    "lockstep": {
      "verdict": "no-race",
      "races": []
    }
  }
}
@*/
// Twin: use_after_free_memerr.cu, freeing the scratch buffer after its last use.
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
  int host[64];
  for (int i = 0; i < 64; ++i) host[i] = i;
  if (cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice) != cudaSuccess) return 2;
  cudaMemset(out, 0, sizeof(int));
  Square<<<1, 64>>>(in, scratch);
  Sum<<<1, 64>>>(scratch, out);
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;
  cudaFree(scratch);
  int sum = 0;
  if (cudaMemcpy(&sum, out, sizeof sum, cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
  int want = 0;
  for (int i = 0; i < 64; ++i) want += i * i;
  if (sum != want) {
    std::printf("FAIL: %d != %d\n", sum, want);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
