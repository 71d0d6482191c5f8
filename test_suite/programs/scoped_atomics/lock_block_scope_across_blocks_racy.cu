/*@barracuda
{
  "what": "scope race: spin-lock with atomic_ref<thread_scope_block> acquire/release shared by different blocks: block-scope acquire/release in different blocks do not synchronise (the critical sections race) and the .cta exchanges of the lock word are not morally strong across blocks (PTX memory model)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [42, 41]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [42, 42]},
      {"kind": "NOT_MORALLY_STRONG", "space": "global", "class": "inter-block", "lines": [43, 39]},
      {"kind": "NOT_MORALLY_STRONG", "space": "global", "class": "inter-block", "lines": [43, 43]},
      {"kind": "NOT_MORALLY_STRONG", "space": "global", "class": "inter-block", "lines": [39, 39], "schedule_dependent": true}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [42, 41]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [42, 42]},
      {"kind": "NOT_MORALLY_STRONG", "space": "global", "class": "inter-block", "lines": [43, 39]},
      {"kind": "NOT_MORALLY_STRONG", "space": "global", "class": "inter-block", "lines": [43, 43]},
      {"kind": "NOT_MORALLY_STRONG", "space": "global", "class": "inter-block", "lines": [39, 39], "schedule_dependent": true}
    ]}
  }
}
@*/
// Spin-lock on a cuda::atomic_ref<int, cuda::thread_scope_block>: exchange(1,
// cuda::memory_order_acquire) until it returns 0,
// unlock with exchange(0, cuda::memory_order_release). Thread 0 of each of four blocks
// increments a
// plain counter in the critical section. Fix: thread_scope_device
// (lock_acquire_release_gpu_ok.cu).
#include <cstdio>
#include <cuda/atomic>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

using Mutex = cuda::atomic_ref<int, cuda::thread_scope_block>;

__global__ void Increment(int *counter, int *mutex) {
  if (threadIdx.x != 0) return;
  Mutex m(*mutex);
  while (m.exchange(1, cuda::memory_order_acquire) != 0) {
  }
  int v = *counter;  // @r
  *counter = v + 1;  // @w
  m.exchange(0, cuda::memory_order_release);
}

int main() {
  int *dc, *dm;
  CK(cudaMalloc(&dc, sizeof(int)));
  CK(cudaMalloc(&dm, sizeof(int)));
  CK(cudaMemset(dc, 0, sizeof(int)));
  CK(cudaMemset(dm, 0, sizeof(int)));
  Increment<<<4, 32>>>(dc, dm);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, dc, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("counter=%d (want 4; racy)\n", h);
  return 0;
}
