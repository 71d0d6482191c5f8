/*@barracuda
{
  "what": "all lanes of a warp atomicAdd into a shared word, __syncwarp, then every lane reads it",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: atomic_then_read_implicit_warp_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int sum;
  int lane = threadIdx.x;
  if (lane == 0) sum = 0;
  __syncwarp();
  atomicAdd(&sum, lane);
  __syncwarp();
  int v = sum;
  out[lane] = v;
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 32 * sizeof(int)));
  Kernel<<<1, 32>>>(d);
  CK(cudaGetLastError());
  int h[32];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i)
    if (h[i] != 496) { std::printf("FAIL out[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
