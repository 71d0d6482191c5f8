/*@barracuda
{
  "what": "scope race with fences: cuda::atomic_thread_fence(..., thread_scope_block) (fence.acq_rel.cta) around the flag, used between two blocks",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [27, 36]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [27, 36]}
    ]}
  }
}
@*/
// Twin: mp_fence_release_acquire_gpu_ok.cu. The flag accesses become block-scope
// release/acquire (synchronisation accesses) that do not synchronise across blocks.
#include <cstdio>
#include <cuda/atomic>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

using Flag = cuda::atomic_ref<int, cuda::thread_scope_device>;

__global__ void MessagePass(int *data, int *flag, int *out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[0] = 42;  // @dw
    cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_block);
    Flag(*flag).store(1, cuda::memory_order_relaxed);
  } else {
    int f;
    do {
      f = Flag(*flag).load(cuda::memory_order_relaxed);
      cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_block);
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
  MessagePass<<<2, 32>>>(d_data, d_flag, d_out);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("out=%d (racy)\n", h);
  return 0;
}
