/*@barracuda
{
  "what": "2D grid of 2D blocks with the full row-major index: every thread stores its own element",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: block_2d_index_bug_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out, int width) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * width + x] = 100 * y + x;
}

int main() {
  const int w = 32, hgt = 8;
  int *d;
  CK(cudaMalloc(&d, w * hgt * sizeof(int)));
  Kernel<<<dim3(2, 2), dim3(16, 4)>>>(d, w);
  CK(cudaGetLastError());
  int h[w * hgt];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int y = 0; y < hgt; ++y)
    for (int x = 0; x < w; ++x)
      if (h[y * w + x] != 100 * y + x) { std::printf("FAIL (%d,%d)\n", x, y); return 1; }
  std::printf("PASS\n");
  return 0;
}
