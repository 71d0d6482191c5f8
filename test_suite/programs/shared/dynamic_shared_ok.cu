/*@barracuda
{
  "what": "extern __shared__ exchange between warps ordered by __syncthreads; two arrays carved from one dynamic allocation",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: dynamic_shared_raw_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(float *out) {
  extern __shared__ float buf[];
  float *a = buf;
  float *b = buf + blockDim.x;
  int t = threadIdx.x;
  a[t] = t + 0.5f;
  b[t] = 2.0f * t;
  __syncthreads();
  out[t] = a[(t + 32) % blockDim.x] + b[(t + 64) % blockDim.x];
}

int main() {
  float *d_out;
  CK(cudaMalloc(&d_out, 128 * sizeof(float)));
  Kernel<<<1, 128, 2 * 128 * sizeof(float)>>>(d_out);
  CK(cudaGetLastError());
  float h[128];
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 128; ++t) {
    float want = ((t + 32) % 128) + 0.5f + 2.0f * ((t + 64) % 128);
    if (h[t] != want) { std::printf("FAIL out[%d]=%f\n", t, h[t]); return 1; }
  }
  std::printf("PASS\n");
  return 0;
}
