/*@barracuda
{
  "what": "the fix of raw_interblock_racy: producer and consumer are two kernels on one stream, so the launch boundary orders them",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Produce(int *data) { data[threadIdx.x] = threadIdx.x + 100; }
__global__ void Consume(const int *data, int *out) { out[threadIdx.x] = data[threadIdx.x] * 2; }

int main() {
  int *d_data, *d_out;
  CK(cudaMalloc(&d_data, 32 * sizeof(int)));
  CK(cudaMalloc(&d_out, 32 * sizeof(int)));
  Produce<<<1, 32>>>(d_data);
  CK(cudaGetLastError());
  Consume<<<1, 32>>>(d_data, d_out);
  CK(cudaGetLastError());
  int h[32];
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i)
    if (h[i] != 2 * (i + 100)) { std::printf("FAIL out[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
