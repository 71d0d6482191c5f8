/*@barracuda
{
  "what": "thread 0 of every block writes its block id to one global word (last writer wins)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [21, 21]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [21, 21]}
    ]}
  }
}
@*/
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *winner) {
  if (threadIdx.x == 0)
    *winner = blockIdx.x;  // @w
}

int main() {
  int *d;
  CK(cudaMalloc(&d, sizeof(int)));
  Kernel<<<3, 32>>>(d);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, d, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("winner=%d (racy)\n", h);
  return 0;
}
