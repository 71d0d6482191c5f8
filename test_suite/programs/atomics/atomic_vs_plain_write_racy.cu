/*@barracuda
{
  "what": "thread 0 of block 0 resets a counter with a plain store while block 1's threads atomicAdd to it and use the result: atomic vs plain",
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
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *counter, int *tickets) {
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0)
      *counter = 100;  // @reset
  } else {
    tickets[threadIdx.x] = atomicAdd(counter, 1);  // @atom
  }
}

int main() {
  int *dc, *dt;
  CK(cudaMalloc(&dc, sizeof(int)));
  CK(cudaMalloc(&dt, 32 * sizeof(int)));
  CK(cudaMemset(dc, 0, sizeof(int)));
  Kernel<<<2, 32>>>(dc, dt);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, dc, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("counter=%d (racy: 32, 100 or 132 or between)\n", h);
  return 0;
}
