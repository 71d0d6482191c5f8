/*@barracuda
{
  "what": "barrier divergence at ONE __syncthreads: in phase 0 lanes 0-15 of each warp reach it, in phase 1 lanes 16-31 do; every thread arrives exactly once, so the barrier completes (sm_70+), but each arrival is by half a warp",
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
// Twin: syncthreads_block_uniform_branch_ok.cu. No lane exits before the barrier, so
// every arrival has fewer lanes than the warp's live mask. The shared store before the
// barrier and the loads after it are ordered by the completed barrier: no memory race.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[64];
  int t = threadIdx.x, lane = t % 32;
  s[t] = in[t];
  int v = 0;
  for (int phase = 0; phase < 2; ++phase) {
    if ((lane < 16) == (phase == 0)) {
      __syncthreads();  // @b
      v = s[63 - t];
    }
  }
  out[t] = v;
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (63 when the barrier works as on sm_70+)\n", h[0]);
  return 0;
}
