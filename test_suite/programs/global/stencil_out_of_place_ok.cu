/*@barracuda
{
  "what": "out-of-place stencil b[i] = a[i] + a[i+1] across two blocks: overlapping reads only",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: stencil_inplace_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Stencil(const int *a, int *b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  b[i] = a[i] + a[i + 1];
}

int main() {
  int h[65];
  for (int i = 0; i < 65; ++i) h[i] = i;
  int *d_a, *d_b;
  CK(cudaMalloc(&d_a, sizeof(h)));
  CK(cudaMalloc(&d_b, sizeof(h)));
  CK(cudaMemcpy(d_a, h, sizeof(h), cudaMemcpyHostToDevice));
  Stencil<<<2, 32>>>(d_a, d_b);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_b, 64 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i)
    if (h[i] != 2 * i + 1) { std::printf("FAIL b[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
