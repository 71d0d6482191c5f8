/*@barracuda
{
  "what": "every thread takes one global spin lock in turn, lanes of one warp too (a tight atomicCAS loop: the holder needs independent thread scheduling to progress), fenced on both sides: the critical sections are ordered",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// A per-bucket lock as hash tables take it, with one bucket: each of 64
// threads (two warps) adds its id to a plain counter under the lock. Lanes of
// one warp compete, so the lane that got the lock must run its critical
// section while its warp's other lanes spin: forward progress that sm_70+
// independent thread scheduling guarantees (on the emulator: spinning lanes
// yield, exec/README.md). Twin: warp_lock_no_acquire_fence_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void AddUnderLock(int *lock, int *counter) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
  *counter = *counter + static_cast<int>(threadIdx.x);
  __threadfence();
  atomicExch(lock, 0);
}

int main() {
  int *lock, *counter;
  CK(cudaMalloc(&lock, sizeof(int)));
  CK(cudaMalloc(&counter, sizeof(int)));
  CK(cudaMemset(lock, 0, sizeof(int)));
  CK(cudaMemset(counter, 0, sizeof(int)));
  AddUnderLock<<<1, 64>>>(lock, counter);
  CK(cudaDeviceSynchronize());
  int got = 0;
  CK(cudaMemcpy(&got, counter, sizeof(int), cudaMemcpyDeviceToHost));
  if (got != 64 * 63 / 2) {
    std::printf("FAIL: %d\n", got);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
