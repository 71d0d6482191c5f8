// Dynamic parallelism: a kernel launching kernels (-rdc=true -lcudadevrt).
// The children run after the parent (core/device_launches.h); the report
// says which races it does not check (parent against child), and a race
// inside a child grid is reported.
// barracuda-corpus: flags -rdc=true
#include <cstdio>

__global__ void child(int* a) {
  if (threadIdx.x == 0) a[32] = 1;  // every thread of the child reads it: a race inside the child
  a[threadIdx.x] += a[32];
}

__global__ void parent(int* a) {
  a[threadIdx.x] = 5;
  __syncthreads();
  if (threadIdx.x == 0) child<<<1, 32>>>(a);
}

int main() {
  int* a = nullptr;
  cudaMalloc(&a, 33 * sizeof(int));
  parent<<<1, 32>>>(a);
  printf("parent launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  cudaDeviceSynchronize();
  int h[2] = {0, 0};
  cudaMemcpy(h, a + 1, sizeof h, cudaMemcpyDeviceToHost);
  printf("after the child: %d %d\n", h[0], h[1]);
  cudaFree(a);
  return 0;
}
