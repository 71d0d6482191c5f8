/*@barracuda
{
  "what": "sm_90 vector atomics: blocks 1-3 add into a float4 accumulator with atomicAdd(float4*) while block 0 reads it with a plain load in the same kernel: atomic vs plain between blocks",
  "arch": 90,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [22, 24]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [22, 24]}
    ]}
  }
}
@*/
// Needs sm_90 (vector atomics): build with -gencode arch=compute_90,code=[sm_90,compute_90].
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Accumulate(const float4 *in, float4 *sum, float *peek) {
  if (blockIdx.x > 0) {
    atomicAdd(sum, in[blockIdx.x * blockDim.x + threadIdx.x]);
  } else if (threadIdx.x == 0) {
    *peek = sum->y;  // reads the accumulator while other blocks add into it
  }
}

int main() {
  const int n = 4 * 32;
  float4 h[n];
  for (int i = 0; i < n; ++i) h[i] = make_float4(1, 2, 3, 4);
  float4 *in, *sum;
  float *peek;
  CK(cudaMalloc(&in, sizeof(h)));
  CK(cudaMalloc(&sum, sizeof(float4)));
  CK(cudaMalloc(&peek, sizeof(float)));
  CK(cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice));
  CK(cudaMemset(sum, 0, sizeof(float4)));
  Accumulate<<<4, 32>>>(in, sum, peek);
  float4 got;
  CK(cudaMemcpy(&got, sum, sizeof(got), cudaMemcpyDeviceToHost));
  if (got.x != 96 || got.y != 192 || got.z != 288 || got.w != 384) {
    std::printf("wrong sum: %g %g %g %g\n", got.x, got.y, got.z, got.w);
    return 3;
  }
  std::printf("PASS\n");
  return 0;
}
