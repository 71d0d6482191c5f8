/*@barracuda
{
  "what": "every thread takes one global spin lock in turn, lanes of one warp too (a tight atomicCAS loop: the holder needs independent thread scheduling to progress), without the fence after the lock is taken (no acquire): the critical sections race",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "divergence", "lines": [40, 40]},
      {"kind": "RAW", "space": "global", "class": "intra-block", "lines": [40, 40]},
      {"kind": "RAW", "space": "global", "class": "intra-warp", "lines": [40, 40]},
      {"kind": "WAW", "space": "global", "class": "divergence", "lines": [40, 40]},
      {"kind": "WAW", "space": "global", "class": "intra-block", "lines": [40, 40]},
      {"kind": "WAW", "space": "global", "class": "intra-warp", "lines": [40, 40]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "divergence", "lines": [40, 40]},
      {"kind": "RAW", "space": "global", "class": "intra-block", "lines": [40, 40]},
      {"kind": "RAW", "space": "global", "class": "intra-warp", "lines": [40, 40]},
      {"kind": "WAW", "space": "global", "class": "divergence", "lines": [40, 40]},
      {"kind": "WAW", "space": "global", "class": "intra-block", "lines": [40, 40]},
      {"kind": "WAW", "space": "global", "class": "intra-warp", "lines": [40, 40]}
    ]}
  }
}
@*/
// A per-bucket lock as hash tables take it, with one bucket: each of 64
// threads (two warps) adds its id to a plain counter under the lock. Lanes of
// one warp compete, so the lane that got the lock must run its critical
// section while its warp's other lanes spin: forward progress that sm_70+
// independent thread scheduling guarantees (on the emulator: spinning lanes
// yield, exec/README.md). Twin of warp_lock_fenced_ok.cu without the fence
// after the lock is taken: a holder may read the counter before the previous
// holder's write is visible to it (the report says the acquire is missing).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void AddUnderLock(int *lock, int *counter) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
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
