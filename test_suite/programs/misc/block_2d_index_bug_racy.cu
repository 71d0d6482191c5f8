/*@barracuda
{
  "what": "2D block (16x4) that indexes a global array with threadIdx.x only: threads with different threadIdx.y store different values to the same element, within a warp and across warps",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "global", "class": "intra-warp", "lines": [25, 25]},
      {"kind": "WAW", "space": "global", "class": "intra-block", "lines": [25, 25]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAW", "space": "global", "class": "intra-warp", "lines": [25, 25]},
      {"kind": "WAW", "space": "global", "class": "intra-block", "lines": [25, 25]}
    ]}
  }
}
@*/
// Twin: block_2d_index_ok.cu. Linear thread id = x + 16 y: warp 0 holds y = 0, 1 and
// warp 1 holds y = 2, 3. Lanes x and x+16 of one warp store y and y+1 to out[x] in one
// instruction (intra-warp WAW, different values); the other warp stores it too.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  out[threadIdx.x] = threadIdx.y;  // @w
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 16 * sizeof(int)));
  Kernel<<<1, dim3(16, 4)>>>(d);
  CK(cudaGetLastError());
  int h[16];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (racy: 0..3)\n", h[0]);
  return 0;
}
