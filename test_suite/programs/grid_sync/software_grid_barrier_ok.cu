/*@barracuda
{
  "what": "software grid barrier with __threadfence around the arrival atomicAdd and after each polling load",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// One-shot software grid barrier (2 blocks of 64 threads, both resident): every thread
// passes __syncthreads, thread 0 of each block counts itself in with atomicAdd and polls
// the count until all blocks have arrived, then __syncthreads releases the block.
// A fence before and after the atomicAdd makes it an acquire-release; a fence after the
// polling load makes it an acquire (paper §3.1). Twins:
// software_grid_barrier_no_fence_racy.cu, software_grid_barrier_block_fence_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__device__ void GridBarrier(unsigned *count, unsigned nblocks) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    unsigned before = atomicAdd(count, 1u);
    __threadfence();
    unsigned seen = before + 1;
    while (seen < nblocks) {
      seen = *(volatile unsigned *)count;
      __threadfence();
    }
  }
  __syncthreads();
}

__global__ void TwoPhase(int *a, int *b, unsigned *count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = 3 * i;
  GridBarrier(count, gridDim.x);
  b[i] = a[(i + 64) % 128];
}

int main() {
  int *d_a, *d_b;
  unsigned *d_count;
  CK(cudaMalloc(&d_a, 128 * sizeof(int)));
  CK(cudaMalloc(&d_b, 128 * sizeof(int)));
  CK(cudaMalloc(&d_count, sizeof(unsigned)));
  CK(cudaMemset(d_count, 0, sizeof(unsigned)));
  TwoPhase<<<2, 64>>>(d_a, d_b, d_count);
  CK(cudaGetLastError());
  int h[128];
  CK(cudaMemcpy(h, d_b, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 128; ++i)
    if (h[i] != 3 * ((i + 64) % 128)) { std::printf("FAIL b[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
