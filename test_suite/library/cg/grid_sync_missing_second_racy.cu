/*@barracuda
{
  "what": "in-place iteration with cooperative-groups grid.sync() only between the read and the write of each phase, not after the write: phase p's store races with phase p+1's load by a thread of the next block (inter-block RAW)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [31, 29]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [31, 29]}
    ]}
  }
}
@*/
// Cooperative launch, 4 blocks x 128 threads, 3 phases. Thread i reads a[(i + 128) % n]
// (always an element of the next block), grid.sync(), writes a[i]. The second
// grid.sync() of each phase is missing, so the next phase's read of a[i + 128] is not
// ordered after block b+1's write of it.
#include <cooperative_groups.h>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
namespace cg = cooperative_groups;

__global__ void InPlace(int *a, int phases) {
  cg::grid_group grid = cg::this_grid();
  int i = grid.thread_rank(), n = grid.size();
  for (int p = 0; p < phases; ++p) {
    int v = a[(i + 128) % n] + 1;
    grid.sync();
    a[i] = v;
    // BUG: missing grid.sync()
  }
}

int main() {
  int h[512];
  for (int i = 0; i < 512; ++i) h[i] = i;
  int *d_a, phases = 3;
  CK(cudaMalloc(&d_a, sizeof(h)));
  CK(cudaMemcpy(d_a, h, sizeof(h), cudaMemcpyHostToDevice));
  void *args[] = {&d_a, &phases};
  CK(cudaLaunchCooperativeKernel((void *)InPlace, dim3(4), dim3(128), args, 0, 0));
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h, d_a, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("a[0] = %d (want %d)\n", h[0], 384 + 3);
  return 0;
}
