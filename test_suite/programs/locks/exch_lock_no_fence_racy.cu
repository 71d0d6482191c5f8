/*@barracuda
{
  "what": "test-and-set spin-lock on atomicExch without fences: mutual exclusion but no ordering, the critical sections race",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [27, 26]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [27, 27]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [27, 26]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [27, 27]}
    ]}
  }
}
@*/
// Twin: exch_lock_fenced_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Increment(int *counter, int *mutex) {
  if (threadIdx.x != 0) return;
  while (atomicExch(mutex, 1) != 0) {
  }
  int v = *counter;  // @r
  *counter = v + 1;  // @w
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
  std::printf("counter=%d (want 4; racy)\n", h);
  return 0;
}
