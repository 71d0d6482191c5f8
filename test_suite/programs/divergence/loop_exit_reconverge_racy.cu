/*@barracuda
{
  "what": "lanes leave a data-dependent loop at different iterations; lane 1 stores inside the loop, every lane reads after it: lockstep reconverges at the loop exit (ordered), ITS does not",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-warp", "lines": [28, 30]}
    ]},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: loop_exit_syncwarp_ok.cu. Even lanes run the loop 0 times, odd lanes twice.
// In lockstep the early lanes wait at the loop's reconvergence point (post-dominator),
// so the read is ordered after lane 1's stores; under ITS nothing orders them.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[1];
  int lane = threadIdx.x;
  if (lane == 0) s[0] = 0;
  __syncwarp();
  int n = in[lane];
  for (int it = 1; it < n; ++it) {
    if (lane == 1)
      s[0] = it;  // @w
  }
  int v = s[0];  // @r
  out[lane] = v;
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = (i % 2) ? 3 : 1;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 32>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (2 in lockstep; racy under ITS)\n", h[0]);
  return 0;
}
