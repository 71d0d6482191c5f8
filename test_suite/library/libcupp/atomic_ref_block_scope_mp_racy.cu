/*@barracuda
{
  "what": "inter-block message passing with cuda::atomic_ref<int, thread_scope_block> store(release) / load(acquire) on the flag: block-scope release and acquire in different blocks do not synchronise, so the data read races (RAW), and the .cta flag accesses of two blocks are not morally strong (NOT_MORALLY_STRONG)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [29, 38]},
      {"kind": "NOT_MORALLY_STRONG", "space": "global", "class": "inter-block", "lines": [32, 35]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [29, 38]},
      {"kind": "NOT_MORALLY_STRONG", "space": "global", "class": "inter-block", "lines": [32, 35]}
    ]}
  }
}
@*/
// 2 blocks x 64 threads: block 0 fills data[], __syncthreads, thread 0 releases the flag
// at block scope; thread 0 of block 1 spins on a block-scope acquire, __syncthreads,
// then every thread of block 1 reads data[]. The fix is thread_scope_device.
#include <cuda/atomic>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Publish(int *data, int *flag, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_block> f(*flag);  // BUG: block scope across blocks
  int t = threadIdx.x;
  if (blockIdx.x == 0) {
    data[t] = t * 11;
    __syncthreads();
    if (t == 0)
      f.store(1, cuda::memory_order_release);
  } else {
    if (t == 0)
      while (f.load(cuda::memory_order_acquire) == 0) {
      }
    __syncthreads();
    out[t] = data[63 - t];
  }
}

int main() {
  int *d_data, *d_flag, *d_out, h[64];
  CK(cudaMalloc(&d_data, sizeof(h)));
  CK(cudaMalloc(&d_flag, sizeof(int)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemset(d_flag, 0, sizeof(int)));
  Publish<<<2, 64>>>(d_data, d_flag, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0] = %d (want 693)\n", h[0]);
  return 0;
}
