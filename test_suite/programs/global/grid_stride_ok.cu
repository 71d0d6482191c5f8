/*@barracuda
{
  "what": "grid-stride loop over more elements than threads: each element touched by exactly one thread",
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

__global__ void Saxpy(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 300;
  float hx[n], hy[n];
  for (int i = 0; i < n; ++i) { hx[i] = i; hy[i] = 1.0f; }
  float *dx, *dy;
  CK(cudaMalloc(&dx, sizeof(hx)));
  CK(cudaMalloc(&dy, sizeof(hy)));
  CK(cudaMemcpy(dx, hx, sizeof(hx), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dy, hy, sizeof(hy), cudaMemcpyHostToDevice));
  Saxpy<<<2, 64>>>(n, 2.0f, dx, dy);
  CK(cudaGetLastError());
  CK(cudaMemcpy(hy, dy, sizeof(hy), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (hy[i] != 2.0f * i + 1.0f) { std::printf("FAIL y[%d]=%f\n", i, hy[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
