// Runtime program (d1): device-side printf. The test checks the printed lines.
#include <cstdio>

__global__ void hello(int base) {
  if (threadIdx.x < 3) printf("hello from thread %d of block %d: %d %.2f\n", threadIdx.x, blockIdx.x,
                              base + threadIdx.x, 0.5f * threadIdx.x);
}

int main() {
  hello<<<2, 32>>>(40);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("FAIL: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
