/*@barracuda
{
  "what": "Jacobi-style ping-pong over two global buffers with grid.sync() after every step (three steps, two blocks)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
#include <cooperative_groups.h>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
namespace cg = cooperative_groups;

__global__ void Jacobi(int *x, int *y, int steps) {
  cg::grid_group grid = cg::this_grid();
  int n = gridDim.x * blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int s = 0; s < steps; ++s) {
    y[i] = x[(i + n - 1) % n] + x[(i + 1) % n];
    grid.sync();
    int *t = x; x = y; y = t;
  }
}

int main() {
  const int n = 128;
  int h[n], ref[n], tmp[n];
  for (int i = 0; i < n; ++i) h[i] = ref[i] = i % 5;
  for (int s = 0; s < 3; ++s) {
    for (int i = 0; i < n; ++i) tmp[i] = ref[(i + n - 1) % n] + ref[(i + 1) % n];
    for (int i = 0; i < n; ++i) ref[i] = tmp[i];
  }
  int *d_x, *d_y, steps = 3;
  CK(cudaMalloc(&d_x, sizeof(h)));
  CK(cudaMalloc(&d_y, sizeof(h)));
  CK(cudaMemcpy(d_x, h, sizeof(h), cudaMemcpyHostToDevice));
  void *args[] = {&d_x, &d_y, &steps};
  CK(cudaLaunchCooperativeKernel((void *)Jacobi, dim3(2), dim3(64), args, 0, 0));
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h, d_y, sizeof(h), cudaMemcpyDeviceToHost));  // odd step count: result in y
  for (int i = 0; i < n; ++i)
    if (h[i] != ref[i]) { std::printf("FAIL y[%d]=%d want %d\n", i, h[i], ref[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
