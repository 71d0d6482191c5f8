/*@barracuda
{
  "what": "branch-ordering race: the then-path (lanes 0-15) writes shared slots that the else-path (lanes 16-31) of the same warp reads",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "divergence", "lines": [30, 33]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "divergence", "lines": [30, 33]}
    ]}
  }
}
@*/
// Twin: then_write_else_read_disjoint_ok.cu and then_write_syncwarp_read_after_ok.cu.
// Which path the hardware runs first is unspecified (paper §3.3.1), so this is a race
// in both warp models. The loops keep both paths real branches (no if-conversion).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[32];
  int lane = threadIdx.x;
  s[lane] = 0;
  __syncwarp();
  int acc = 0;
  if (lane < 16) {
    for (int k = 0; k <= lane; ++k) acc += in[k];
    s[lane + 16] = acc;  // @w
  } else {
    for (int k = lane; k < 32; ++k) acc += in[k];
    acc += s[lane];  // @r
  }
  out[lane] = acc;
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = 1;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 32>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[16]=%d (depends on path order)\n", h[16]);
  return 0;
}
