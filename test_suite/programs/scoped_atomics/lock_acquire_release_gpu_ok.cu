/*@barracuda
{
  "what": "spin-lock with atomic_ref<thread_scope_device>: exchange(acquire) to lock (atom.exch.acquire.gpu), exchange(release) to unlock (atom.exch.release.gpu)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Spin-lock on a cuda::atomic_ref<int, cuda::thread_scope_device>: exchange(1,
// cuda::memory_order_acquire) until it returns 0,
// unlock with exchange(0, cuda::memory_order_release). Thread 0 of each of four blocks
// increments a
// plain counter in the critical section. Twins: lock_relaxed_racy.cu,
// lock_block_scope_across_blocks_racy.cu.
#include <cstdio>
#include <cuda/atomic>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

using Mutex = cuda::atomic_ref<int, cuda::thread_scope_device>;

__global__ void Increment(int *counter, int *mutex) {
  if (threadIdx.x != 0) return;
  Mutex m(*mutex);
  while (m.exchange(1, cuda::memory_order_acquire) != 0) {
  }
  int v = *counter;
  *counter = v + 1;
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
  if (h != 4) { std::printf("FAIL counter=%d\n", h); return 1; }
  std::printf("PASS\n");
  return 0;
}
