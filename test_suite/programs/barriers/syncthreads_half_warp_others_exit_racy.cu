/*@barracuda
{
  "what": "barrier divergence: lanes 0-15 of each warp wait at __syncthreads inside a branch while lanes 16-31 take the other side, store and exit without arriving (bar.sync is barrier.sync.aligned: every lane of the warp must reach it)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "BARRIER_DIVERGENCE", "space": "shared", "class": "divergence", "lines": [29, 29]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "BARRIER_DIVERGENCE", "space": "shared", "class": "divergence", "lines": [29, 29]}
    ]}
  }
}
@*/
// Twin: syncthreads_block_uniform_branch_ok.cu. On sm_70+ the barrier completes once the
// other half-warps exit, and the loads after it read only words stored before it by
// lanes that arrived: no memory race, but the barrier is reached by part of a warp.
// (Lanes that exit before any lane of their warp reaches the barrier, the usual
// `if (i >= n) return;` before __syncthreads, are not reported.)
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  if ((t & 31) < 16) {
    __syncthreads();  // @b
    out[t] = s[(t + 32) % 64];
  } else {
    out[t] = -1;
  }
}

int main() {
  int h[64], r[64];
  for (int i = 0; i < 64; ++i) h[i] = 3 * i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(r)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 64>>>(d_in, d_out);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(r, d_out, sizeof(r), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 64; ++t) {
    const int want = (t & 31) < 16 ? h[(t + 32) % 64] : -1;
    if (r[t] != want) {
      std::printf("out[%d] = %d, want %d\n", t, r[t], want);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
