/*@barracuda
{
  "what": "the same with a blocking stream, which waits for the legacy stream",
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
// Twin: upload_on_legacy_nonblocking_racy.cu, with a blocking stream: its
// kernel waits for the legacy stream's upload.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Square(const int* in, int* out) { out[threadIdx.x] = in[threadIdx.x] * in[threadIdx.x]; }

int main() {
  int *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, 32 * sizeof(int)) != cudaSuccess || cudaMalloc(&out, 32 * sizeof(int)) != cudaSuccess) return 2;
  static int host[32];
  for (int i = 0; i < 32; ++i) host[i] = i;
  cudaStream_t work;
  cudaStreamCreate(&work);
  cudaMemcpyAsync(in, host, sizeof host, cudaMemcpyHostToDevice, 0);
  Square<<<1, 32, 0, work>>>(in, out);
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;
  int got[32];
  cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 32; ++i)
    if (got[i] != i * i) {
      std::printf("FAIL at %d\n", i);
      return 1;
    }
  std::printf("PASS\n");
  return 0;
}
