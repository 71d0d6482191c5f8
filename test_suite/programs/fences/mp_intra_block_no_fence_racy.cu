/*@barracuda
{
  "what": "message passing between two warps of one block through a volatile flag without fences: the data races; the volatile (strong, .relaxed.sys) flag accesses do not race with each other (PTX memory model)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "intra-block", "lines": [22, 29]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "intra-block", "lines": [22, 29]}
    ]}
  }
}
@*/
// Twin: mp_intra_block_fence_block_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void MessagePass(int *data, volatile int *flag, int *out) {
  if (threadIdx.x == 0) {
    data[0] = 42;  // @dw
    *flag = 1;  // @fw
  } else if (threadIdx.x == 32) {
    int f;
    do {
      f = *flag;  // @fr
    } while (f == 0);
    out[0] = data[0];  // @dr
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
  std::printf("out=%d (racy)\n", h);
  return 0;
}
