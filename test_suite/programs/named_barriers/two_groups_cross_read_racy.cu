/*@barracuda
{
  "what": "two warp pairs each pass their OWN named barrier, then read the other pair's data: the other pair's stores are not ordered",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [24, 27]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [24, 27]}
    ]}
  }
}
@*/
// Twin: two_groups_own_barriers_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int s[128];
  int t = threadIdx.x;
  int group = t / 64;
  s[t] = t * 5;  // @w
  if (group == 0) asm volatile("bar.sync 1, 64;" ::: "memory");
  else            asm volatile("bar.sync 2, 64;" ::: "memory");
  out[t] = s[127 - t];  // @r
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 128 * sizeof(int)));
  Kernel<<<1, 128>>>(d);
  CK(cudaGetLastError());
  int h[128];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (racy)\n", h[0]);
  return 0;
}
