/*@barracuda
{
  "what": "message passing between two warps of ONE block with __threadfence_block on both sides: block scope suffices inside a block",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: mp_intra_block_no_fence_racy.cu and mp_threadfence_block_racy.cu (same fences,
// different blocks). Lane 0 of warp 0 produces, lane 0 of warp 1 consumes.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void MessagePass(int *data, volatile int *flag, int *out) {
  if (threadIdx.x == 0) {
    data[0] = 42;
    __threadfence_block();
    *flag = 1;
  } else if (threadIdx.x == 32) {
    int f;
    do {
      f = *flag;
      __threadfence_block();
    } while (f == 0);
    out[0] = data[0];
  }
}

int main() {
  int *d_data, *d_flag, *d_out;
  CK(cudaMalloc(&d_data, sizeof(int)));
  CK(cudaMalloc(&d_flag, sizeof(int)));
  CK(cudaMalloc(&d_out, sizeof(int)));
  CK(cudaMemset(d_data, 0, sizeof(int)));
  CK(cudaMemset(d_flag, 0, sizeof(int)));
  MessagePass<<<1, 64>>>(d_data, d_flag, d_out);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  if (h != 42) { std::printf("FAIL out=%d\n", h); return 1; }
  std::printf("PASS\n");
  return 0;
}
