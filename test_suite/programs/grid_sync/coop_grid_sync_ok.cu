/*@barracuda
{
  "what": "cooperative-groups grid.sync() between a write phase and a read phase across blocks (cudaLaunchCooperativeKernel)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
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
  a[i] = 3 * i;
  grid.sync();
  b[i] = a[(i + 64) % 128];
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
  for (int i = 0; i < 128; ++i)
    if (h[i] != 3 * ((i + 64) % 128)) { std::printf("FAIL b[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
