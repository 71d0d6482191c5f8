/*@barracuda
{
  "what": "the tile with its two-float halo",
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
// Twin: tile_index_past_end_memerr.cu, with the two-float halo in the tile.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Stencil(const float* in, float* out) {
  extern __shared__ float tile[];
  const int t = threadIdx.x;
  tile[t] = in[blockIdx.x * blockDim.x + t];
  if (t < 2) tile[blockDim.x + t] = 0.0f;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = tile[t] + tile[t + 2];
}

int main() {
  float *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, 128 * sizeof(float)) != cudaSuccess || cudaMalloc(&out, 128 * sizeof(float)) != cudaSuccess)
    return 2;
  float host[128];
  for (int i = 0; i < 128; ++i) host[i] = static_cast<float>(i);
  if (cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice) != cudaSuccess) return 2;
  Stencil<<<2, 64, 66 * sizeof(float)>>>(in, out);
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;
  float got[128];
  if (cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
  for (int i = 0; i < 128; ++i) {
    const int t = i % 64;
    const float want = host[i] + (t < 62 ? host[i + 2] : 0.0f);
    if (got[i] != want) {
      std::printf("FAIL at %d\n", i);
      return 1;
    }
  }
  std::printf("PASS\n");
  return 0;
}
