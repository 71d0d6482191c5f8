/*@barracuda
{
  "what": "float4 loads through a pointer that is only 4-byte aligned",
  "arch": 75,
  "expect": {
    "its": {
      "verdict": "no-race",
      "races": [],
      "memory_errors": [
        {
          "kind": "misaligned",
          "space": "global",
          "line": 38
        }
      ]
    },
    "lockstep": {
      "verdict": "no-race",
      "races": [],
      "memory_errors": [
        {
          "kind": "misaligned",
          "space": "global",
          "line": 38
        }
      ]
    }
  }
}
@*/
// Twin: misaligned_vector_load_ok.cu. Vectorised loads through a float4 cast
// of a pointer one float into the buffer: a 16-byte access at an address that
// is only 4-byte aligned (cudaErrorMisalignedAddress on every GPU).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void Sum4(const float* in, float* out) {
  const float4 v = reinterpret_cast<const float4*>(in)[threadIdx.x];
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

int main() {
  float *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, 132 * sizeof(float)) != cudaSuccess || cudaMalloc(&out, 32 * sizeof(float)) != cudaSuccess)
    return 2;
  cudaMemset(in, 0, 132 * sizeof(float));
  Sum4<<<1, 32>>>(in + 1, out);
  std::printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
