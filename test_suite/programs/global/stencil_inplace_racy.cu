/*@barracuda
{
  "what": "in-place stencil a[i] = a[i] + a[i+1]: thread i reads what thread i+1 writes; within a warp only ITS makes it a race, across the block boundary it always is",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "global", "class": "intra-warp", "lines": [26, 26]},
      {"kind": "WAR", "space": "global", "class": "inter-block", "lines": [26, 26]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "global", "class": "inter-block", "lines": [26, 26]}
    ]}
  }
}
@*/
// Two blocks of one warp each. Inside a warp, lockstep executes the load of a[i+1]
// by every lane before any lane's store (ordered: no race); under independent thread
// scheduling lane i+1 may store first. Lane 31 of block 0 reads a[32], which lane 0
// of block 1 writes: an inter-block race in both models. Twin: stencil_out_of_place_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Stencil(int *a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = a[i] + a[i + 1];  // @s
}

int main() {
  int h[65];
  for (int i = 0; i < 65; ++i) h[i] = i;
  int *d;
  CK(cudaMalloc(&d, sizeof(h)));
  CK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
  Stencil<<<2, 32>>>(d);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("a[31]=%d (racy: 63 or more)\n", h[31]);
  return 0;
}
