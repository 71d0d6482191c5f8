/*@barracuda
{
  "what": "all 32 lanes of a warp store DIFFERENT values to one shared word in one instruction: intra-warp WAW in both models",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "shared", "class": "intra-warp", "lines": [22, 22]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "shared", "class": "intra-warp", "lines": [22, 22]}
    ]}
  }
}
@*/
// Twin: same_value_store_warn.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int last;
  last = threadIdx.x;  // @w
  __syncthreads();
  if (threadIdx.x == 0) *out = last;
}

int main() {
  int *d;
  CK(cudaMalloc(&d, sizeof(int)));
  Kernel<<<1, 32>>>(d);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, d, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("last=%d (racy: which lane wins is undefined)\n", h);
  return 0;
}
