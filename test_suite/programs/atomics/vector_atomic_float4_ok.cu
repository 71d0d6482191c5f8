/*@barracuda
{
  "what": "sm_90 vector atomics: every thread of four blocks adds its float4 and float2 into one accumulator with atomicAdd(float4*) / atomicAdd(float2*) (atom.global.add.v4.f32 / .v2.f32, each element its own atomic); a second kernel reads the sums",
  "arch": 90,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Needs sm_90 (vector atomics): build with -gencode arch=compute_90,code=[sm_90,compute_90].
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
constexpr int kThreads = 64, kBlocks = 4;

__global__ void Accumulate(const float4 *in, float4 *sum4, float2 *sum2) {
  const float4 v = in[blockIdx.x * kThreads + threadIdx.x];
  atomicAdd(sum4, v);
  atomicAdd(sum2, make_float2(v.x, v.w));
}

__global__ void Scale(const float4 *sum4, const float2 *sum2, float *out) {
  out[threadIdx.x] = threadIdx.x < 4 ? (&sum4->x)[threadIdx.x] : (&sum2->x)[threadIdx.x - 4];
}

int main() {
  const int n = kBlocks * kThreads;
  float4 h[n];
  double want[6] = {0, 0, 0, 0, 0, 0};
  for (int i = 0; i < n; ++i) {
    h[i] = make_float4(i, 0.5f * i, 2.0f, -1.0f * (i % 7));  // exact in float: the sum is order-free
    want[0] += h[i].x, want[1] += h[i].y, want[2] += h[i].z, want[3] += h[i].w;
  }
  want[4] = want[0], want[5] = want[3];
  float4 *in, *sum4;
  float2 *sum2;
  float *out;
  CK(cudaMalloc(&in, sizeof(h)));
  CK(cudaMalloc(&sum4, sizeof(float4)));
  CK(cudaMalloc(&sum2, sizeof(float2)));
  CK(cudaMalloc(&out, 6 * sizeof(float)));
  CK(cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice));
  CK(cudaMemset(sum4, 0, sizeof(float4)));
  CK(cudaMemset(sum2, 0, sizeof(float2)));
  Accumulate<<<kBlocks, kThreads>>>(in, sum4, sum2);
  Scale<<<1, 6>>>(sum4, sum2, out);
  float got[6];
  CK(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
  for (int k = 0; k < 6; ++k)
    if (got[k] != static_cast<float>(want[k])) {
      std::printf("wrong sum %d: %g, want %g\n", k, got[k], want[k]);
      return 3;
    }
  std::printf("PASS\n");
  return 0;
}
