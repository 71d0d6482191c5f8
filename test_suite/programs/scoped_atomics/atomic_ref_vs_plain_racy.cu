/*@barracuda
{
  "what": "atomic_ref fetch_add (relaxed) in block 0 and a plain load of the same word in block 1: atomic vs plain",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [23, 25]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [23, 25]}
    ]}
  }
}
@*/
#include <cstdio>
#include <cuda/atomic>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *counter, int *snapshot) {
  if (blockIdx.x == 0) {
    cuda::atomic_ref<int, cuda::thread_scope_device> c(*counter);
    c.fetch_add(1, cuda::memory_order_relaxed);  // @atom
  } else if (threadIdx.x == 0) {
    *snapshot = *counter;  // @read
  }
}

int main() {
  int *dc, *ds;
  CK(cudaMalloc(&dc, sizeof(int)));
  CK(cudaMalloc(&ds, sizeof(int)));
  CK(cudaMemset(dc, 0, sizeof(int)));
  Kernel<<<2, 32>>>(dc, ds);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, ds, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("snapshot=%d (racy)\n", h);
  return 0;
}
