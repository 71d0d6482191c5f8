/*@barracuda
{
  "what": "the first of two kernels on one stream is race-free, the second has an inter-block WAR; races are searched per launch, only the second reports",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "global", "class": "inter-block", "lines": [22, 23]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "global", "class": "inter-block", "lines": [22, 23]}
    ]}
  }
}
@*/
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Fill(int *a) { a[blockIdx.x * blockDim.x + threadIdx.x] = 1; }
__global__ void RotateInPlace(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = a[(i + 32) % n];  // @r
  a[i] = v + 1;  // @w
}

int main() {
  const int n = 64;
  int *d;
  CK(cudaMalloc(&d, n * sizeof(int)));
  Fill<<<2, 32>>>(d);
  CK(cudaGetLastError());
  RotateInPlace<<<2, 32>>>(d, n);
  CK(cudaGetLastError());
  int h[n];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("a[0]=%d (racy: 2 or 3)\n", h[0]);
  return 0;
}
