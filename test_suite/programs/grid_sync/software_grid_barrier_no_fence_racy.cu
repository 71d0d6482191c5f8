/*@barracuda
{
  "what": "software grid barrier without fences: the arrival atomics race with the plain polling loads, and the data of the two phases race across blocks",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [31, 35]},
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [44, 46]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [31, 35]},
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [44, 46]}
    ]}
  }
}
@*/
// One-shot software grid barrier (2 blocks of 64 threads, both resident): every thread
// passes __syncthreads, thread 0 of each block counts itself in with atomicAdd and polls
// the count until all blocks have arrived, then __syncthreads releases the block.
// A fence before and after the atomicAdd makes it an acquire-release; a fence after the
// polling load makes it an acquire (paper §3.1). Without fences the atomicAdd is a plain
// atomic and the volatile polling load a plain read of the same word.
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
