/*@barracuda
{
  "what": "message passing with cuda::atomic_thread_fence(release/acquire, thread_scope_device) around relaxed atomic_ref flag accesses: fence.acq_rel.gpu + st.relaxed is a release, ld.relaxed + fence is an acquire",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: mp_fence_cta_across_blocks_racy.cu.
#include <cstdio>
#include <cuda/atomic>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

using Flag = cuda::atomic_ref<int, cuda::thread_scope_device>;

__global__ void MessagePass(int *data, int *flag, int *out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[0] = 42;
    cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
    Flag(*flag).store(1, cuda::memory_order_relaxed);
  } else {
    int f;
    do {
      f = Flag(*flag).load(cuda::memory_order_relaxed);
      cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
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
  MessagePass<<<2, 32>>>(d_data, d_flag, d_out);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  if (h != 42) { std::printf("FAIL out=%d\n", h); return 1; }
  std::printf("PASS\n");
  return 0;
}
