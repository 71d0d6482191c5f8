/*@barracuda
{
  "what": "loop of lane exchanges with __syncwarp only between store and load: the next iteration's store races with the previous load (WAR) under ITS",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "intra-warp", "lines": [25, 23]}
    ]},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: exchange_loop_two_syncwarps_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Rotate(const int *in, int *out) {
  __shared__ int s[32];
  int lane = threadIdx.x;
  int v = in[lane];
  for (int it = 0; it < 3; ++it) {
    s[lane] = v;  // @w
    __syncwarp();
    v += s[(lane + 1) % 32];  // @r
    // BUG: missing __syncwarp() before the next iteration's store.
  }
  out[lane] = v;
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = 1;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Rotate<<<1, 32>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (8 when benign)\n", h[0]);
  return 0;
}
