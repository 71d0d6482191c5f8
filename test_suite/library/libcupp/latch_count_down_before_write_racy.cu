/*@barracuda
{
  "what": "cuda::latch<thread_scope_block> where each thread counts down BEFORE storing the value it publishes, then waits: the latch can open before another warp's store, so the loads after wait() race with it (RAW)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [33, 35]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [33, 35]}
    ]}
  }
}
@*/
// 1 block x 128 threads; thread t reads slot[(t + 64) % 128], written by a thread two
// warps away. The store must come before count_down() (or use arrive_and_wait()).
#include <cuda/latch>
#include <new>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

using Latch = cuda::latch<cuda::thread_scope_block>;

__global__ void Exchange(int *out) {
  __shared__ alignas(Latch) unsigned char storage[sizeof(Latch)];
  __shared__ int slot[128];
  Latch *l = reinterpret_cast<Latch *>(storage);
  int t = threadIdx.x;
  if (t == 0) new (l) Latch(128);
  __syncthreads();
  l->count_down();  // BUG: counts down before the store below
  slot[t] = t * 5;
  l->wait();
  out[t] = slot[(t + 64) % 128];
}

int main() {
  int *d_out, h[128];
  CK(cudaMalloc(&d_out, sizeof(h)));
  Exchange<<<1, 128>>>(d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0] = %d (want 320)\n", h[0]);
  return 0;
}
