/*@barracuda
{
  "what": "float4 vector stores, __syncthreads, then scalar loads inside other threads' vectors; also float4 global loads/stores",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: float4_store_scalar_load_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const float4 *in, float *out) {
  __shared__ float4 v[64];
  int t = threadIdx.x;
  v[t] = in[t];
  __syncthreads();
  const float *f = reinterpret_cast<const float *>(v);
  out[t] = f[4 * ((t + 32) % 64) + 2];
}

int main() {
  float4 h[64];
  for (int i = 0; i < 64; ++i) h[i] = make_float4(i, i + 0.25f, i + 0.5f, i + 0.75f);
  float4 *d_in;
  float *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, 64 * sizeof(float)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  float r[64];
  CK(cudaMemcpy(r, d_out, sizeof(r), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 64; ++t)
    if (r[t] != ((t + 32) % 64) + 0.5f) { std::printf("FAIL out[%d]=%f\n", t, r[t]); return 1; }
  std::printf("PASS\n");
  return 0;
}
