/*@barracuda
{
  "what": "blocks take turns in block order: block b waits (load acquire) until turn == b, reads block b-1's result, writes its own, then fetch_add(1, acq_rel) passes the turn",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
#include <cstdio>
#include <cuda/atomic>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

using Turn = cuda::atomic_ref<int, cuda::thread_scope_device>;

__global__ void Chain(int *turn, int *vals) {
  if (threadIdx.x != 0) return;
  int b = blockIdx.x;
  Turn t(*turn);
  while (t.load(cuda::memory_order_acquire) != b) {
  }
  int prev = b > 0 ? vals[b - 1] : 0;
  vals[b] = prev + b + 1;
  t.fetch_add(1, cuda::memory_order_acq_rel);
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
  if (h[0] != 1 || h[1] != 3 || h[2] != 6 || h[3] != 10) { std::printf("FAIL %d %d %d %d\n", h[0], h[1], h[2], h[3]); return 1; }
  std::printf("PASS\n");
  return 0;
}
