/*@barracuda
{
  "what": "inter-block message passing with cuda::atomic_ref<int, thread_scope_device> store/load using memory_order_relaxed on the flag: the flag accesses are atomic (no race between them) but relaxed orders nothing, so the consumers' reads of the plain data race with the producer's stores",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [27, 33]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [27, 33]}
    ]}
  }
}
@*/
// 3 blocks x 64 threads: block 0 fills data[], __syncthreads, thread 0 sets the flag;
// the threads of blocks 1 and 2 spin on the flag, then read data[]. With release /
// acquire (libcupp atomic_ref) this is race-free.
#include <cuda/atomic>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Publish(int *data, int *flag, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  int t = threadIdx.x;
  if (blockIdx.x == 0) {
    data[t] = t + 100;
    __syncthreads();
    if (t == 0) f.store(1, cuda::memory_order_relaxed);  // BUG: should be release
  } else {
    while (f.load(cuda::memory_order_relaxed) == 0) {  // BUG: should be acquire
    }
    out[blockIdx.x * 64 + t] = data[63 - t];
  }
}

int main() {
  int *d_data, *d_flag, *d_out, h[192];
  CK(cudaMalloc(&d_data, 64 * sizeof(int)));
  CK(cudaMalloc(&d_flag, sizeof(int)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemset(d_flag, 0, sizeof(int)));
  Publish<<<3, 64>>>(d_data, d_flag, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[64] = %d (want 163)\n", h[64]);
  return 0;
}
