/*@barracuda
{
  "what": "as syncwarp_on_both_sides_ok, but the reading side does not call __syncwarp(): lanes 16-31 read what lanes 0-15 store on the other side of the branch, unordered",
  "arch": 75,
  "debug_twin": true,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "divergence", "lines": [24, 26]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "divergence", "lines": [24, 26]}
    ]}
  }
}
@*/
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[16];
  const int lane = threadIdx.x;
  if (lane >= 16) {
    out[lane - 16] = s[lane - 16] * 2;
  } else {
    s[lane] = in[lane] + 1;
    __syncwarp();
  }
}

int main() {
  int h[16], *in, *out;
  for (int i = 0; i < 16; ++i) h[i] = 7 * i - 20;
  CK(cudaMalloc(&in, sizeof(h)));
  CK(cudaMalloc(&out, sizeof(h)));
  CK(cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 32>>>(in, out);
  int got[16];
  CK(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (depends on which side runs first)\n", got[0]);
  return 0;
}
