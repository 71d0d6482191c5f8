/*@barracuda
{
  "what": "atomic_ref<thread_scope_block> release/acquire between two warps of ONE block: block scope is enough",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Message passing with cuda::atomic_ref on the flag between lane 0 of warp 0 and lane 0 of
// warp 1 (one block):
// store(1, cuda::memory_order_release) / polling load(cuda::memory_order_acquire) at
// cuda::thread_scope_block. Twin: mp_release_acquire_block_scope_across_blocks_racy.cu.
#include <cstdio>
#include <cuda/atomic>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

using Flag = cuda::atomic_ref<int, cuda::thread_scope_block>;

__global__ void MessagePass(int *data, int *flag, int *out) {
  if (threadIdx.x == 0) {
    data[0] = 42;
    Flag(*flag).store(1, cuda::memory_order_release);
  } else if (threadIdx.x == 32) {
    while (Flag(*flag).load(cuda::memory_order_acquire) == 0) {
    }
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
