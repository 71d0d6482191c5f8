/*@barracuda
{
  "what": "branch-ordering WAW: both paths of one divergent warp write the same shared word, with different values",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "shared", "class": "divergence", "lines": [30, 34]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "shared", "class": "divergence", "lines": [30, 34]}
    ]}
  }
}
@*/
// Only lane 0 (then) and lane 1 (else) write, so neither path has an intra-warp
// same-instruction conflict of its own.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int result;
  int lane = threadIdx.x;
  if (lane == 0) result = -1;
  __syncwarp();
  int acc = 0;
  if (lane % 2 == 0) {
    for (int k = 0; k < in[lane]; ++k) acc += k;
    if (lane == 0)
      result = acc;  // @wt
  } else {
    for (int k = 0; k < in[lane]; ++k) acc -= k;
    if (lane == 1)
      result = acc;  // @we
  }
  __syncwarp();
  if (lane == 0) *out = result;
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = 4;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 32>>>(d_in, d_out);
  CK(cudaGetLastError());
  int r;
  CK(cudaMemcpy(&r, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("result=%d (6 or -6 depending on path order)\n", r);
  return 0;
}
