/*@barracuda
{
  "what": "cuda::binary_semaphore<thread_scope_device> used as a lock by thread 0 of four blocks, released one statement too early: the store of the new total lies outside the critical section and races with the other blocks' loads and stores",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [32, 34]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [34, 34]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [32, 34]},
      {"kind": "WAW", "space": "global", "class": "inter-block", "lines": [34, 34]}
    ]}
  }
}
@*/
// 4 blocks x 32 threads; thread 0 of each block: acquire, load total, release, store
// total + 1. The load is protected, the store is not.
#include <cuda/semaphore>
#include <new>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

using Binary = cuda::binary_semaphore<cuda::thread_scope_device>;

__global__ void Init(Binary *s) { new (s) Binary(1); }

__global__ void Increment(Binary *s, int *total) {
  if (threadIdx.x != 0) return;
  s->acquire();
  int n = *total;
  s->release();  // BUG: released before the store
  *total = n + 1;
}

int main() {
  Binary *d_s;
  int *d_total, total;
  CK(cudaMalloc(&d_s, sizeof(Binary)));
  CK(cudaMalloc(&d_total, sizeof(int)));
  CK(cudaMemset(d_total, 0, sizeof(int)));
  Init<<<1, 1>>>(d_s);
  Increment<<<4, 32>>>(d_s, d_total);
  CK(cudaGetLastError());
  CK(cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("total %d (4 expected)\n", total);
  return 0;
}
