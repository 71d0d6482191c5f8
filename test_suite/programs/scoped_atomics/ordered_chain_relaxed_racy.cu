/*@barracuda
{
  "what": "the same turn-taking chain with relaxed load and relaxed fetch_add: the turns are atomic but do not order the data, so each block's read of the previous result races",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [32, 31]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [32, 31]}
    ]}
  }
}
@*/
// Twin: ordered_chain_acq_rel_ok.cu.
#include <cstdio>
#include <cuda/atomic>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

using Turn = cuda::atomic_ref<int, cuda::thread_scope_device>;

__global__ void Chain(int *turn, int *vals) {
  if (threadIdx.x != 0) return;
  int b = blockIdx.x;
  Turn t(*turn);
  while (t.load(cuda::memory_order_relaxed) != b) {
  }
  int prev = 0;
  if (b > 0)
    prev = vals[b - 1];  // @r
  vals[b] = prev + b + 1;  // @w
  t.fetch_add(1, cuda::memory_order_relaxed);
}

int main() {
  int *dt, *dv;
  CK(cudaMalloc(&dt, sizeof(int)));
  CK(cudaMalloc(&dv, 4 * sizeof(int)));
  CK(cudaMemset(dt, 0, sizeof(int)));
  Chain<<<4, 32>>>(dt, dv);
  CK(cudaGetLastError());
  int h[4];
  CK(cudaMemcpy(h, dv, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("vals[3]=%d (10 when benign)\n", h[3]);
  return 0;
}
