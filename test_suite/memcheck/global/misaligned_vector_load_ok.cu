/*@barracuda
{
  "what": "float4 loads from an aligned base",
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
// Twin: misaligned_vector_load_memerr.cu, vectorising from an aligned base.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Sum4(const float* in, float* out) {
  const float4 v = reinterpret_cast<const float4*>(in)[threadIdx.x];
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

int main() {
  float *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, 128 * sizeof(float)) != cudaSuccess || cudaMalloc(&out, 32 * sizeof(float)) != cudaSuccess)
    return 2;
  float host[128];
  for (int i = 0; i < 128; ++i) host[i] = static_cast<float>(i);
  if (cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice) != cudaSuccess) return 2;
  Sum4<<<1, 32>>>(in, out);
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;
  float got[32];
  if (cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
  for (int t = 0; t < 32; ++t)
    if (got[t] != static_cast<float>(16 * t + 6)) {
      std::printf("FAIL at %d\n", t);
      return 1;
    }
  std::printf("PASS\n");
  return 0;
}
