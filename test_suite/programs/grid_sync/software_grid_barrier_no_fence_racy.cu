/*@barracuda
{
  "what": "software grid barrier without fences: the data of the two phases race across blocks; the arrival atomics and the volatile polling loads are strong and morally strong (PTX memory model), so the counter itself does not race, it only orders nothing",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [42, 44]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [42, 44]}
    ]}
  }
}
@*/
// One-shot software grid barrier (2 blocks of 64 threads, both resident): every thread
// passes __syncthreads, thread 0 of each block counts itself in with atomicAdd and polls
// the count until all blocks have arrived, then __syncthreads releases the block.
// A fence before and after the atomicAdd makes it an acquire-release; a fence after the
// polling load makes it an acquire (paper §3.1). Without fences the atomicAdd and the
// volatile (strong) polling loads are morally strong but order nothing.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__device__ void GridBarrier(unsigned *count, unsigned nblocks) {
  __syncthreads();
  if (threadIdx.x == 0) {
    // (no fence)
    unsigned before = atomicAdd(count, 1u);  // @atom
    // (no fence)
    unsigned seen = before + 1;
    while (seen < nblocks) {
      seen = *(volatile unsigned *)count;  // @poll
      // (no fence)
    }
  }
  __syncthreads();
}

__global__ void TwoPhase(int *a, int *b, unsigned *count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = 3 * i;  // @w
  GridBarrier(count, gridDim.x);
  b[i] = a[(i + 64) % 128];  // @r
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
  std::printf("b[0]=%d (racy: 192 when benign)\n", h[0]);
  return 0;
}
