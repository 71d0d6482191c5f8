/*@barracuda
{
  "what": "implicit warp-synchronous exchange: lane i reads the shared slot lane i^1 wrote, no __syncwarp (racy under ITS, fine in lockstep)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-warp", "lines": [22, 23]}
    ]},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: neighbor_exchange_syncwarp_ok.cu. One warp, no branches: the store and the load
// are executed by all 32 lanes.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[32];
  int lane = threadIdx.x;
  s[lane] = in[lane];  // @w
  int v = s[lane ^ 1];  // @r
  out[lane] = v;
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = i * 10;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 32>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (10 on lockstep hardware; racy under ITS)\n", h[0]);
  return 0;
}
