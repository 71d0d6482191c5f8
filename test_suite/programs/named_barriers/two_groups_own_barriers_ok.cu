/*@barracuda
{
  "what": "two independent warp pairs synchronise on their own named barriers (bar.sync 1, 64 and bar.sync 2, 64) and exchange data only within the pair",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: two_groups_cross_read_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int s[128];
  int t = threadIdx.x;
  int group = t / 64;          // warps 0-1: group 0, warps 2-3: group 1
  int base = group * 64;
  s[t] = t * 5;
  if (group == 0) asm volatile("bar.sync 1, 64;" ::: "memory");
  else            asm volatile("bar.sync 2, 64;" ::: "memory");
  out[t] = s[base + 63 - (t - base)];
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 128 * sizeof(int)));
  Kernel<<<1, 128>>>(d);
  CK(cudaGetLastError());
  int h[128];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 128; ++t) {
    int base = (t / 64) * 64;
    if (h[t] != 5 * (base + 63 - (t - base))) { std::printf("FAIL out[%d]=%d\n", t, h[t]); return 1; }
  }
  std::printf("PASS\n");
  return 0;
}
