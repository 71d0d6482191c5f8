/*@barracuda
{
  "what": "spin-lock in shared memory with atomic_ref<thread_scope_block> acquire/release, taken by lane 0 of four warps of one block",
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

using Mutex = cuda::atomic_ref<int, cuda::thread_scope_block>;

__global__ void Kernel(const int *in, int *out) {
  __shared__ int mutex;
  __shared__ int total;
  int t = threadIdx.x;
  if (t == 0) { mutex = 0; total = 0; }
  __syncthreads();
  if (t % 32 == 0) {
    Mutex m(mutex);
    while (m.exchange(1, cuda::memory_order_acquire) != 0) {
    }
    int v = total;
    total = v + in[t / 32];
    m.store(0, cuda::memory_order_release);
  }
  __syncthreads();
  if (t == 0) *out = total;
}

int main() {
  int h[4] = {1, 2, 3, 4};
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 128>>>(d_in, d_out);
  CK(cudaGetLastError());
  int r;
  CK(cudaMemcpy(&r, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  if (r != 10) { std::printf("FAIL total=%d\n", r); return 1; }
  std::printf("PASS\n");
  return 0;
}
