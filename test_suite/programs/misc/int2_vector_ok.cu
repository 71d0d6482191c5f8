/*@barracuda
{
  "what": "int2 vector loads and stores (ld/st.global.v2) where every thread owns its own 8 bytes, plus a __syncthreads-ordered exchange in shared memory",
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

__global__ void Kernel(const int2 *in, int2 *out) {
  __shared__ int2 s[64];
  int t = threadIdx.x;
  int2 v = in[t];
  s[t] = make_int2(v.y, v.x);
  __syncthreads();
  out[t] = s[63 - t];
}

int main() {
  int2 h[64];
  for (int i = 0; i < 64; ++i) h[i] = make_int2(i, 100 + i);
  int2 *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  int2 r[64];
  CK(cudaMemcpy(r, d_out, sizeof(r), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 64; ++t)
    if (r[t].x != 100 + 63 - t || r[t].y != 63 - t) { std::printf("FAIL %d\n", t); return 1; }
  std::printf("PASS\n");
  return 0;
}
