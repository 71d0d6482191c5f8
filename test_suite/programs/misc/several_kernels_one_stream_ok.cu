/*@barracuda
{
  "what": "three kernels on the default stream each read what the previous one wrote, in place, with no synchronisation inside a kernel: launches are ordered",
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

__global__ void Init(int *a) { a[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x; }
__global__ void Shift(int *a, int *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  b[i] = a[(i + 1) % n];
}
__global__ void AddBack(int *a, const int *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] += b[(i + n - 1) % n];
}

int main() {
  const int n = 128;
  int *d_a, *d_b;
  CK(cudaMalloc(&d_a, n * sizeof(int)));
  CK(cudaMalloc(&d_b, n * sizeof(int)));
  Init<<<2, 64>>>(d_a);
  CK(cudaGetLastError());
  Shift<<<2, 64>>>(d_a, d_b, n);
  CK(cudaGetLastError());
  AddBack<<<2, 64>>>(d_a, d_b, n);
  CK(cudaGetLastError());
  int h[n];
  CK(cudaMemcpy(h, d_a, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (h[i] != 2 * (i % 64)) { std::printf("FAIL a[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
