/*@barracuda
{
  "what": "the flag reset is done by another thread of the consumer block, with no barrier after the poll: that thread observed nothing, so its plain store races with the producer's flag store (and with the polling loads)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [28, 35]},
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "intra-block", "lines": [30, 35]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [28, 35]},
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "intra-block", "lines": [30, 35]}
    ]}
  }
}
@*/
// Twin of mp_poll_then_plain_reset_ok.cu: thread 32 of the consumer block (a
// different warp) clears the flag; only thread 0 polled it.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void MessagePass(int *data, volatile int *flag, int *plain_flag, int *out) {
  if (blockIdx.x == 0) {
    if (threadIdx.x != 0) return;
    data[0] = 42;
    __threadfence();
    *flag = 1;
  } else if (threadIdx.x == 0) {
    while (*flag == 0) {
    }
    __threadfence();
    out[0] = data[0];
  } else if (threadIdx.x == 32) {
    *plain_flag = 0;
  }
}

int main() {
  int *d_data, *d_flag, *d_out;
  CK(cudaMalloc(&d_data, sizeof(int)));
  CK(cudaMalloc(&d_flag, sizeof(int)));
  CK(cudaMalloc(&d_out, sizeof(int)));
  CK(cudaMemset(d_data, 0, sizeof(int)));
  CK(cudaMemset(d_flag, 0, sizeof(int)));
  MessagePass<<<2, 64>>>(d_data, d_flag, d_flag, d_out);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("out=%d\n", h);
  return 0;
}
