// A minimal CUDA program for the CLI's refusal tests: built with a static
// CUDA runtime, without PTX, and the supported way (see cli.cmake).
#include <cstdio>

__global__ void touch(int* p) { p[threadIdx.x] = threadIdx.x; }

int main() {
  int* d = nullptr;
  if (cudaMalloc(&d, 32 * sizeof(int)) != cudaSuccess) return 2;
  touch<<<1, 32>>>(d);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 3;
}
