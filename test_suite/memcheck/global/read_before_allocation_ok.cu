/*@barracuda
{
  "what": "the halo read guarded for block 0",
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
// Twin: read_before_allocation_memerr.cu. Block 0 has no left neighbour and
// reads zero instead.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void LeftNeighbour(const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = i >= 32 ? in[i - 32] : 0.0f;
}

int main() {
  float *before = nullptr, *in = nullptr, *out = nullptr;
  if (cudaMalloc(&before, 4096) != cudaSuccess || cudaMalloc(&in, 128 * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&out, 128 * sizeof(float)) != cudaSuccess)
    return 2;
  float host[128];
  for (int i = 0; i < 128; ++i) host[i] = static_cast<float>(i);
  if (cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice) != cudaSuccess) return 2;
  LeftNeighbour<<<4, 32>>>(in, out);
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;
  if (cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
  for (int i = 0; i < 128; ++i)
    if (host[i] != (i >= 32 ? static_cast<float>(i - 32) : 0.0f)) {
      std::printf("FAIL at %d\n", i);
      return 1;
    }
  std::printf("PASS\n");
  return 0;
}
