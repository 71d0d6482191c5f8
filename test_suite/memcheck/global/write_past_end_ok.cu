/*@barracuda
{
  "what": "the same fill with the bound i < n",
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
// Twin: write_past_end_memerr.cu, with the bound `i < n`.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Fill(float* a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 1.0f;
}

int main() {
  const int n = 1000;
  float* a = nullptr;
  if (cudaMalloc(&a, n * sizeof(float)) != cudaSuccess) return 2;
  Fill<<<(n + 127) / 128, 128>>>(a, n);
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;
  static float host[n];
  if (cudaMemcpy(host, a, sizeof host, cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
  for (int i = 0; i < n; ++i)
    if (host[i] != 1.0f) {
      std::printf("FAIL at %d\n", i);
      return 1;
    }
  std::printf("PASS\n");
  return 0;
}
