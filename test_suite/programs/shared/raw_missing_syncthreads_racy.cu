/*@barracuda
{
  "what": "inter-warp RAW on shared memory: each thread reads a slot written by the other warp with no __syncthreads",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [24, 26]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [24, 26]}
    ]}
  }
}
@*/
// Twin: raw_syncthreads_ok.cu. One block of 64 threads (2 warps); thread t reads
// the slot of thread 63-t, which lives in the other warp.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = t * 3;  // @w
  // BUG: missing __syncthreads() here.
  int v = s[63 - t];  // @r
  out[t] = v;
}

int main() {
  int *d_out;
  CK(cudaMalloc(&d_out, 64 * sizeof(int)));
  Kernel<<<1, 64>>>(d_out);
  CK(cudaGetLastError());
  int h[64];
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (racy, nondeterministic)\n", h[0]);
  CK(cudaFree(d_out));
  return 0;
}
