/*@barracuda
{
  "what": "a __device__ cuda::atomic<int, thread_scope_device> counter incremented with fetch_add by every thread of two blocks",
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

__device__ cuda::atomic<int, cuda::thread_scope_device> g_counter(0);

__global__ void Count(int *last) {
  int old = g_counter.fetch_add(1, cuda::memory_order_relaxed);
  if (old == 2 * 64 - 1) *last = blockIdx.x * 64 + threadIdx.x;
}

int main() {
  int *d_last;
  CK(cudaMalloc(&d_last, sizeof(int)));
  CK(cudaMemset(d_last, 0xff, sizeof(int)));
  Count<<<2, 64>>>(d_last);
  CK(cudaGetLastError());
  int h, last;
  CK(cudaMemcpyFromSymbol(&h, g_counter, sizeof(int)));
  CK(cudaMemcpy(&last, d_last, sizeof(int), cudaMemcpyDeviceToHost));
  if (h != 128 || last < 0 || last >= 128) { std::printf("FAIL counter=%d last=%d\n", h, last); return 1; }
  std::printf("PASS\n");
  return 0;
}
