/*@barracuda
{
  "what": "warp reduction with __shfl_down_sync: no shared memory, only lane 0 writes the result",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void WarpReduce(const int *in, int *out) {
  int v = in[blockIdx.x * 32 + threadIdx.x];
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, 2 * sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  WarpReduce<<<2, 32>>>(d_in, d_out);
  CK(cudaGetLastError());
  int r[2];
  CK(cudaMemcpy(r, d_out, sizeof(r), cudaMemcpyDeviceToHost));
  if (r[0] != 496 || r[1] != 1520) { std::printf("FAIL %d %d\n", r[0], r[1]); return 1; }
  std::printf("PASS\n");
  return 0;
}
