/*@barracuda
{
  "what": "scope race: atomic_ref<thread_scope_block> release/acquire used between two BLOCKS (st.release.cta / ld.acquire.cta): they do not synchronise (the data read races), and the .cta flag accesses are not morally strong across blocks",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [31, 36]},
      {"kind": "NOT_MORALLY_STRONG", "space": "global", "class": "inter-block", "lines": [32, 34]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [31, 36]},
      {"kind": "NOT_MORALLY_STRONG", "space": "global", "class": "inter-block", "lines": [32, 34]}
    ]}
  }
}
@*/
// Message passing with cuda::atomic_ref on the flag between thread 0 of block 0 and thread
// 0 of block 1:
// store(1, cuda::memory_order_release) / polling load(cuda::memory_order_acquire) at
// cuda::thread_scope_block. Twins: mp_release_acquire_gpu_ok.cu (gpu scope fixes it),
// mp_release_acquire_block_scope_within_block_ok.cu (same code, one block).
#include <cstdio>
#include <cuda/atomic>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

using Flag = cuda::atomic_ref<int, cuda::thread_scope_block>;

__global__ void MessagePass(int *data, int *flag, int *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    data[0] = 42;  // @dw
    Flag(*flag).store(1, cuda::memory_order_release);
  } else if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (Flag(*flag).load(cuda::memory_order_acquire) == 0) {
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
