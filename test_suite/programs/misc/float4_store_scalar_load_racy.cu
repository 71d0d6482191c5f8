/*@barracuda
{
  "what": "16-byte vector stores (float4, st.shared.v4) by one warp overlap 4-byte scalar loads by the other warp, no barrier",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [24, 26]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [24, 26]}
    ]}
  }
}
@*/
// Twin: float4_store_scalar_load_ok.cu. Thread t stores float4 number t (floats 4t..4t+3);
// thread t then loads float (4 * ((t + 32) % 64) + 2), inside the other warp's vectors.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const float4 *in, float *out) {
  __shared__ float4 v[64];
  int t = threadIdx.x;
  v[t] = in[t];  // @w
  const float *f = reinterpret_cast<const float *>(v);
  out[t] = f[4 * ((t + 32) % 64) + 2];  // @r
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
  std::printf("out[0]=%f (racy)\n", r[0]);
  return 0;
}
