/*@barracuda
{
  "what": "block 0 increments a counter with atomicAdd (result unused) while thread 0 of block 1 reads it with a plain load: atomic vs plain",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [22, 24]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [22, 24]}
    ]}
  }
}
@*/
// Twin: atomic_counter_ok.cu, atomics_then_plain_next_kernel_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *counter, int *snapshot) {
  if (blockIdx.x == 0) {
    atomicAdd(counter, 1);  // @atom
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
  std::printf("snapshot=%d (racy: 0..32)\n", h);
  return 0;
}
