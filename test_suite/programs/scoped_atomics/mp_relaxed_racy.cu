/*@barracuda
{
  "what": "inter-block message passing with atomic_ref relaxed store/load on the flag: the flag accesses are atomic (no race between them) but order nothing, so the data read races",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [30, 35]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [30, 35]}
    ]}
  }
}
@*/
// Message passing with cuda::atomic_ref on the flag between thread 0 of block 0 and thread
// 0 of block 1:
// store(1, cuda::memory_order_relaxed) / polling load(cuda::memory_order_relaxed) at
// cuda::thread_scope_device. ld.relaxed.gpu / st.relaxed.gpu are strong (atomic) accesses
// in the PTX memory model: they do not race with each other, but without release/acquire
// they do not order data.
#include <cstdio>
#include <cuda/atomic>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

using Flag = cuda::atomic_ref<int, cuda::thread_scope_device>;

__global__ void MessagePass(int *data, int *flag, int *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    data[0] = 42;  // @dw
    Flag(*flag).store(1, cuda::memory_order_relaxed);
  } else if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (Flag(*flag).load(cuda::memory_order_relaxed) == 0) {
    }
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
  MessagePass<<<2, 32>>>(d_data, d_flag, d_out);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("out=%d (racy: 0 or 42)\n", h);
  return 0;
}
