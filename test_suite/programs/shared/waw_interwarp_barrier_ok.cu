/*@barracuda
{
  "what": "two warps write one shared word in turn, separated by __syncthreads",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: waw_interwarp_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int owner;
  int warp = threadIdx.x / 32;
  if (threadIdx.x == 0) owner = 1;
  __syncthreads();
  if (warp == 1 && threadIdx.x % 32 == 0) owner = 2;
  __syncthreads();
  if (threadIdx.x == 0) *out = owner;
}

int main() {
  int *d_out;
  CK(cudaMalloc(&d_out, sizeof(int)));
  Kernel<<<1, 64>>>(d_out);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  if (h != 2) { std::printf("FAIL owner=%d\n", h); return 1; }
  std::printf("PASS\n");
  CK(cudaFree(d_out));
  return 0;
}
