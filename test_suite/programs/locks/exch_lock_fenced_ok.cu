/*@barracuda
{
  "what": "test-and-set spin-lock built on atomicExch: atomicExch(m,1) loop then __threadfence (acquire); __threadfence then atomicExch(m,0) (release)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: exch_lock_no_fence_racy.cu. The acquiring exchange is followed by a fence
// (paper §3.1: an atomic followed by a fence is an acquire; the paper names atom.cas
// for locks, this checks that atom.exch is treated alike).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Increment(int *counter, int *mutex) {
  if (threadIdx.x != 0) return;
  while (atomicExch(mutex, 1) != 0) {
  }
  __threadfence();
  int v = *counter;
  *counter = v + 1;
  __threadfence();
  atomicExch(mutex, 0);
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
