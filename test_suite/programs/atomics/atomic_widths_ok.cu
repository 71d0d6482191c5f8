/*@barracuda
{
  "what": "atomics of several widths and types (unsigned long long add, float add, double add, int min/max, 64-bit CAS) from two blocks: atomics only",
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

__global__ void Kernel(unsigned long long *u64, float *f32, double *f64, int *mn, int *mx) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(u64, 1ull << 20);
  atomicAdd(f32, 0.5f);
  atomicAdd(f64, 0.25);
  atomicMin(mn, 1000 - i);
  atomicMax(mx, i);
  unsigned long long old = atomicCAS(u64 + 1, 0ull, (unsigned long long)i + 1);
  (void)old;
}

int main() {
  unsigned long long *u; float *f; double *d; int *mn, *mx;
  CK(cudaMalloc(&u, 2 * sizeof(unsigned long long)));
  CK(cudaMalloc(&f, sizeof(float)));
  CK(cudaMalloc(&d, sizeof(double)));
  CK(cudaMalloc(&mn, sizeof(int)));
  CK(cudaMalloc(&mx, sizeof(int)));
  CK(cudaMemset(u, 0, 2 * sizeof(unsigned long long)));
  CK(cudaMemset(f, 0, sizeof(float)));
  CK(cudaMemset(d, 0, sizeof(double)));
  int big = 1 << 30, small = -1;
  CK(cudaMemcpy(mn, &big, sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(mx, &small, sizeof(int), cudaMemcpyHostToDevice));
  Kernel<<<2, 64>>>(u, f, d, mn, mx);
  CK(cudaGetLastError());
  unsigned long long hu[2]; float hf; double hd; int hmn, hmx;
  CK(cudaMemcpy(hu, u, sizeof(hu), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&hf, f, sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&hd, d, sizeof(double), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&hmn, mn, sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&hmx, mx, sizeof(int), cudaMemcpyDeviceToHost));
  if (hu[0] != 128ull << 20 || hf != 64.0f || hd != 32.0 || hmn != 1000 - 127 || hmx != 127 || hu[1] == 0 || hu[1] > 128) {
    std::printf("FAIL\n");
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
