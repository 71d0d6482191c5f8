/*@barracuda
{
  "what": "intra-warp exchange through global memory ordered by __syncwarp",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: global_intrawarp_implicit_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *buf, int *out) {
  int i = blockIdx.x * 32 + threadIdx.x;
  buf[i] = i * 3;
  __syncwarp();
  int v = buf[blockIdx.x * 32 + (threadIdx.x + 5) % 32];
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
  for (int i = 0; i < 64; ++i)
    if (h[i] != 3 * ((i / 32) * 32 + (i % 32 + 5) % 32)) { std::printf("FAIL out[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
