/*@barracuda
{
  "what": "branch-ordering race inside a nested branch: inner then-path writes, inner else-path reads, all lanes 0-15 of one warp",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "divergence", "lines": [29, 32]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "divergence", "lines": [29, 32]}
    ]}
  }
}
@*/
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[32];
  int lane = threadIdx.x;
  s[lane] = 0;
  __syncwarp();
  int acc = in[lane];
  if (lane < 16) {
    for (int k = 0; k < in[lane]; ++k) acc += k;
    if (lane < 8) {
      for (int k = 0; k < lane; ++k) acc += in[k];
      s[lane + 8] = acc;  // @w
    } else {
      for (int k = 0; k < lane; ++k) acc -= in[k];
      acc += s[lane];  // @r
    }
  }
  out[lane] = acc;
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = 2;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 32>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[8]=%d (depends on path order)\n", h[8]);
  return 0;
}
