/*@barracuda
{
  "what": "last-block reduction (threadFenceReduction) with libcu++: every block stores its partial sum, then takes a ticket with cuda::atomic_ref<unsigned, thread_scope_device>::fetch_add(memory_order_relaxed); the block that draws the last ticket sums the partials, but relaxed orders nothing (acq_rel would), so its loads race with the other blocks' stores",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [31, 39]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [31, 39]}
    ]}
  }
}
@*/
// 4 blocks x 64 threads; each block's sum is computed with shared atomics, thread 0
// stores it to partial[blockIdx.x] and takes the ticket; the last block's thread 0
// reads all partials.
#include <cuda/atomic>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Sum(const int *in, int *partial, unsigned *ticket, int *result) {
  __shared__ int block_sum;
  __shared__ bool last;
  if (threadIdx.x == 0) block_sum = 0;
  __syncthreads();
  atomicAdd(&block_sum, in[blockIdx.x * 64 + threadIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = block_sum;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> t(*ticket);
    last = t.fetch_add(1, cuda::memory_order_relaxed) == gridDim.x - 1;  // BUG: should be acq_rel
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    int s = 0;
    for (int b = 0; b < gridDim.x; ++b)
      s += partial[b];
    *result = s;
  }
}

int main() {
  int h[256], want = 0, got;
  for (int i = 0; i < 256; ++i) { h[i] = i % 9; want += h[i]; }
  int *d_in, *d_partial, *d_result;
  unsigned *d_ticket;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_partial, 4 * sizeof(int)));
  CK(cudaMalloc(&d_result, sizeof(int)));
  CK(cudaMalloc(&d_ticket, sizeof(unsigned)));
  CK(cudaMemset(d_ticket, 0, sizeof(unsigned)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Sum<<<4, 64>>>(d_in, d_partial, d_ticket, d_result);
  CK(cudaGetLastError());
  CK(cudaMemcpy(&got, d_result, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("sum %d (want %d)\n", got, want);
  return 0;
}
