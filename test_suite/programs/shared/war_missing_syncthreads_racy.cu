/*@barracuda
{
  "what": "inter-warp WAR on shared memory: a thread overwrites its slot while the other warp may still read it",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "intra-block", "lines": [26, 28]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "intra-block", "lines": [26, 28]}
    ]}
  }
}
@*/
// Twin: war_syncthreads_ok.cu. The first barrier orders the initial writes; the
// second one (between the read and the overwrite) is missing.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = t;
  __syncthreads();
  int v = s[63 - t];  // @r
  // BUG: missing __syncthreads() before the overwrite.
  s[t] = v * 2;  // @w
  out[t] = v;
}

int main() {
  int *d_out;
  CK(cudaMalloc(&d_out, 64 * sizeof(int)));
  Kernel<<<1, 64>>>(d_out);
  CK(cudaGetLastError());
  int h[64];
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (racy)\n", h[0]);
  CK(cudaFree(d_out));
  return 0;
}
