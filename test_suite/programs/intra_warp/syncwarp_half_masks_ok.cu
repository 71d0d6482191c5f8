/*@barracuda
{
  "what": "__syncwarp with partial masks: each half-warp synchronises only itself and then reads only its own half",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: syncwarp_half_masks_cross_read_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[32];
  int lane = threadIdx.x;
  s[lane] = in[lane];
  if (lane < 16) {
    __syncwarp(0x0000ffffu);
  } else {
    __syncwarp(0xffff0000u);
  }
  int v = s[(lane & 16) | ((lane + 1) & 15)];
  out[lane] = v;
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = i * 2;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 32>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i)
    if (h[i] != 2 * ((i & 16) | ((i + 1) & 15))) { std::printf("FAIL out[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
