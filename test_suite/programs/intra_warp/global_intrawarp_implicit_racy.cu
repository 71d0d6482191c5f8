/*@barracuda
{
  "what": "intra-warp exchange through GLOBAL memory without __syncwarp: racy under ITS only",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "intra-warp", "lines": [20, 21]}
    ]},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: global_intrawarp_syncwarp_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *buf, int *out) {
  int i = blockIdx.x * 32 + threadIdx.x;
  buf[i] = i * 3;  // @w
  int v = buf[blockIdx.x * 32 + (threadIdx.x + 5) % 32];  // @r
  out[i] = v;
}

int main() {
  int *d_buf, *d_out;
  CK(cudaMalloc(&d_buf, 64 * sizeof(int)));
  CK(cudaMalloc(&d_out, 64 * sizeof(int)));
  Kernel<<<2, 32>>>(d_buf, d_out);
  CK(cudaGetLastError());
  int h[64];
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (15 when benign)\n", h[0]);
  return 0;
}
