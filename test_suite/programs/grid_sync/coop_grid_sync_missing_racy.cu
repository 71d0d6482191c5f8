/*@barracuda
{
  "what": "cooperative launch without the grid.sync() between the phases: the read of the other block's element races",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [26, 28]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [26, 28]}
    ]}
  }
}
@*/
// Launched with cudaLaunchCooperativeKernel: 2 blocks of 64 threads. Phase 1 writes
// a[i]; phase 2 reads the element of the other block.
#include <cooperative_groups.h>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
namespace cg = cooperative_groups;

__global__ void TwoPhase(int *a, int *b) {
  cg::grid_group grid = cg::this_grid();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = 3 * i;  // @w
  (void)grid;  // BUG: grid.sync() missing
  b[i] = a[(i + 64) % 128];  // @r
}

int main() {
  int *d_a, *d_b;
  CK(cudaMalloc(&d_a, 128 * sizeof(int)));
  CK(cudaMalloc(&d_b, 128 * sizeof(int)));
  void *args[] = {&d_a, &d_b};
  CK(cudaLaunchCooperativeKernel((void *)TwoPhase, dim3(2), dim3(64), args, 0, 0));
  CK(cudaDeviceSynchronize());
  int h[128];
  CK(cudaMemcpy(h, d_b, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("b[0]=%d (racy: 192 when benign)\n", h[0]);
  return 0;
}
