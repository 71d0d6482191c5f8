/*@barracuda
{
  "what": "branch-ordering race the other way round: the then-path reads a shared word that the else-path of the same warp overwrites",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "divergence", "lines": [27, 30]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "divergence", "lines": [27, 30]}
    ]}
  }
}
@*/
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int mode;
  int lane = threadIdx.x;
  if (lane == 0) mode = 1;
  __syncwarp();
  int acc = 0;
  if (in[lane] > 0) {
    for (int k = 0; k < in[lane]; ++k) acc += k;
    acc *= mode;  // @r
  } else {
    for (int k = 0; k < -in[lane]; ++k) acc -= k;
    mode = acc;  // @w
  }
  out[lane] = acc;
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = (i % 2) ? 3 : -3;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 32>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[1]=%d (depends on path order)\n", h[1]);
  return 0;
}
