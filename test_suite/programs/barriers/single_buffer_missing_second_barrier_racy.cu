/*@barracuda
{
  "what": "single shared buffer in a loop with only one __syncthreads (after the store): the next iteration's store races with this iteration's load (WAR)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "intra-block", "lines": [27, 25]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "intra-block", "lines": [27, 25]}
    ]}
  }
}
@*/
// Twin: single_buffer_two_barriers_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  int v = in[t];
  for (int it = 0; it < 4; ++it) {
    s[t] = v;  // @w
    __syncthreads();
    v = s[63 - t] + 1;  // @r
    // BUG: missing __syncthreads() before the next iteration's store.
  }
  out[t] = v;
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (4 when benign)\n", h[0]);
  return 0;
}
