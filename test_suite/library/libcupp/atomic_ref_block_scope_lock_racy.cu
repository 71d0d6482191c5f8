/*@barracuda
{
  "what": "spin-lock built from cuda::atomic_ref<int, thread_scope_block> (exchange acquire / store release) taken by thread 0 of four different blocks: block-scope acquire and release in different blocks do not synchronise (scope race), so the plain read-modify-write in the critical section races, and the lock word's own .cta accesses from different blocks are not morally strong (NOT_MORALLY_STRONG)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [41, 43]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [43, 43]},
      {"kind": "NOT_MORALLY_STRONG", "space": "global", "class": "inter-block", "lines": [39, 39]},
      {"kind": "NOT_MORALLY_STRONG", "space": "global", "class": "inter-block", "lines": [39, 44]},
      {"kind": "NOT_MORALLY_STRONG", "space": "global", "class": "inter-block", "lines": [44, 44]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [41, 43]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [43, 43]},
      {"kind": "NOT_MORALLY_STRONG", "space": "global", "class": "inter-block", "lines": [39, 39]},
      {"kind": "NOT_MORALLY_STRONG", "space": "global", "class": "inter-block", "lines": [39, 44]},
      {"kind": "NOT_MORALLY_STRONG", "space": "global", "class": "inter-block", "lines": [44, 44]}
    ]}
  }
}
@*/
// 4 blocks x 32 threads; only thread 0 of each block takes the lock. The exchanges are
// atomic, so mutual exclusion holds on hardware that keeps one coherent L2, but the
// model gives block-scope synchronisation no effect between blocks: the fix is
// cuda::thread_scope_device. NOT_MORALLY_STRONG: the exchange and the release store
// are strong, but at .cta scope, which does not include a thread of another block. The
// four blocks are resident together (the emulator's deterministic rounds), so a block's
// exchange meets both another block's spinning exchange (36-36) and the previous
// holder's release store (36-41, 41-41).
#include <cuda/atomic>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void LockedIncrement(int *lock, int *total, int *log) {
  if (threadIdx.x != 0) return;
  cuda::atomic_ref<int, cuda::thread_scope_block> l(*lock);  // BUG: block scope across blocks
  while (l.exchange(1, cuda::memory_order_acquire) != 0) {
  }
  int n = *total;
  log[n] = blockIdx.x;
  *total = n + 1;
  l.store(0, cuda::memory_order_release);
}

int main() {
  int *d_lock, *d_total, *d_log, total;
  CK(cudaMalloc(&d_lock, sizeof(int)));
  CK(cudaMalloc(&d_total, sizeof(int)));
  CK(cudaMalloc(&d_log, 4 * sizeof(int)));
  CK(cudaMemset(d_lock, 0, sizeof(int)));
  CK(cudaMemset(d_total, 0, sizeof(int)));
  LockedIncrement<<<4, 32>>>(d_lock, d_total, d_log);
  CK(cudaGetLastError());
  CK(cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("total %d (4 expected)\n", total);
  return 0;
}
