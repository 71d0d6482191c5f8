/*@barracuda
{
  "what": "atomics in one kernel, plain reads and writes of the same word in the next kernel on the same stream: launches are ordered",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Accumulate(int *counter) { atomicAdd(counter, threadIdx.x); }
__global__ void Finish(int *counter, int *out) {
  if (threadIdx.x == 0) {
    *out = *counter;
    *counter = 0;
  }
}

int main() {
  int *dc, *dout;
  CK(cudaMalloc(&dc, sizeof(int)));
  CK(cudaMalloc(&dout, sizeof(int)));
  CK(cudaMemset(dc, 0, sizeof(int)));
  Accumulate<<<2, 64>>>(dc);
  CK(cudaGetLastError());
  Finish<<<1, 32>>>(dc, dout);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, dout, sizeof(int), cudaMemcpyDeviceToHost));
  if (h != 2 * 2016) { std::printf("FAIL sum=%d\n", h); return 1; }
  std::printf("PASS\n");
  return 0;
}
