/*@barracuda
{
  "what": "bar.sync 3 with no thread count behaves like __syncthreads on barrier 3 (all threads of the block)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int s[96];
  int t = threadIdx.x;
  s[t] = t + 1;
  asm volatile("bar.sync 3;" ::: "memory");
  out[t] = s[95 - t];
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 96 * sizeof(int)));
  Kernel<<<1, 96>>>(d);
  CK(cudaGetLastError());
  int h[96];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 96; ++t)
    if (h[t] != 96 - t) { std::printf("FAIL out[%d]=%d\n", t, h[t]); return 1; }
  std::printf("PASS\n");
  return 0;
}
