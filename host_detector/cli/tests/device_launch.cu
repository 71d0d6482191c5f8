// Dynamic parallelism: a kernel launching a kernel (-rdc=true -lcudadevrt).
// The emulator does not implement the CUDA device runtime, so the parent's
// launch must fail with cudaErrorNotSupported and barracuda must call the run
// incomplete (exit 118), never "0 races".
// barracuda-corpus: flags -rdc=true
#include <cstdio>

__global__ void child(int* a) { a[threadIdx.x] += 1; }

__global__ void parent(int* a) {
  if (threadIdx.x == 0) child<<<1, 32>>>(a);
  a[threadIdx.x] = 5;
}

int main() {
  int* a = nullptr;
  cudaMalloc(&a, 32 * sizeof(int));
  parent<<<1, 32>>>(a);
  printf("parent launch: %s\n", cudaGetErrorName(cudaGetLastError()));
  cudaDeviceSynchronize();
  cudaFree(a);
  return 0;
}
