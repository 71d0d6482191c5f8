/*@barracuda
{
  "what": "__syncthreads orders global-memory accesses of the threads of one block",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: intrablock_raw_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *scratch, int *out) {
  int t = threadIdx.x;
  scratch[t] = t * t;
  __syncthreads();
  int v = scratch[63 - t];
  out[t] = v;
}

int main() {
  int *d_s, *d_out;
  CK(cudaMalloc(&d_s, 64 * sizeof(int)));
  CK(cudaMalloc(&d_out, 64 * sizeof(int)));
  Kernel<<<1, 64>>>(d_s, d_out);
  CK(cudaGetLastError());
  int h[64];
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 64; ++t)
    if (h[t] != (63 - t) * (63 - t)) { std::printf("FAIL out[%d]=%d\n", t, h[t]); return 1; }
  std::printf("PASS\n");
  return 0;
}
