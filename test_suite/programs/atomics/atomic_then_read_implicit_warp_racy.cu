/*@barracuda
{
  "what": "all lanes of a warp atomicAdd into a shared word, then read it with a plain load without __syncwarp: atomic vs plain under ITS, ordered in lockstep",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "shared", "class": "intra-warp", "lines": [23, 24]}
    ]},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: atomic_then_read_syncwarp_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int sum;
  int lane = threadIdx.x;
  if (lane == 0) sum = 0;
  __syncwarp();
  atomicAdd(&sum, lane);  // @atom
  int v = sum;  // @read
  out[lane] = v;
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 32 * sizeof(int)));
  Kernel<<<1, 32>>>(d);
  CK(cudaGetLastError());
  int h[32];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (496 in lockstep)\n", h[0]);
  return 0;
}
