/*@barracuda
{
  "what": "8-byte int2 global stores by block 0 overlap 8-byte int2 loads that straddle two of them (offset by one int) in block 1",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [24, 27]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [24, 27]}
    ]}
  }
}
@*/
// Block 0 thread t stores int2 at ints [2t, 2t+1]; block 1 thread t loads ints [2t+1, 2t+2]
// as two scalar loads (an int2 load must be 8-byte aligned), overlapping two stores.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int2 *a, int *out) {
  int t = threadIdx.x;
  if (blockIdx.x == 0) {
    a[t] = make_int2(t, -t);  // @w
  } else {
    const int *p = reinterpret_cast<const int *>(a) + 2 * t + 1;
    out[t] = p[0] + p[1];  // @r
  }
}

int main() {
  int2 *d_a;
  int *d_out;
  CK(cudaMalloc(&d_a, 33 * sizeof(int2)));
  CK(cudaMalloc(&d_out, 32 * sizeof(int)));
  CK(cudaMemset(d_a, 0, 33 * sizeof(int2)));
  Kernel<<<2, 32>>>(d_a, d_out);
  CK(cudaGetLastError());
  int h[32];
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[3]=%d (racy)\n", h[3]);
  return 0;
}
