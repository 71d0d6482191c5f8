// Scaling benchmark (issue 16 item 4): a spin lock taken ROUNDS times by one thread
// of each of 32 blocks (atomicCAS to take, fence, plain read-modify-write of a counter,
// fence, atomicExch to release).
//   spin_lock ROUNDS         (work grows linearly with ROUNDS)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void SpinLock(int rounds, int* lock, int* counter) {
  if (threadIdx.x != 0) return;
  for (int r = 0; r < rounds; ++r) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    *counter = *counter + 1;
    __threadfence();
    atomicExch(lock, 0);
  }
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 1;
  const int blocks = 32;
  int *lock, *counter;
  if (cudaMalloc(&lock, sizeof(int)) != cudaSuccess || cudaMalloc(&counter, sizeof(int)) != cudaSuccess) return 2;
  cudaMemset(lock, 0, sizeof(int));
  cudaMemset(counter, 0, sizeof(int));
  SpinLock<<<blocks, 32>>>(rounds, lock, counter);
  int h = 0;
  if (cudaMemcpy(&h, counter, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
  if (h != blocks * rounds) { std::printf("FAIL counter %d want %d\n", h, blocks * rounds); return 1; }
  std::printf("PASS\n");
  return 0;
}
