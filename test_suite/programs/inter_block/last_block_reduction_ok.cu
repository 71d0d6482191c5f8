/*@barracuda
{
  "what": "last-block reduction with the ticket atomicInc between two __threadfence calls (acquire-release at gpu scope)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Last-block reduction (threadFenceReduction, CUDA samples): every block reduces its
// slice in shared memory, thread 0 stores the partial sum to global memory and takes a
// ticket with atomicInc; the block that draws the last ticket sums all partials. Twins:
// last_block_reduction_no_fence_racy.cu, last_block_reduction_sample_form_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Sum(const int *in, int *partial, unsigned *retired, int *out) {
  __shared__ int s[64];
  __shared__ bool am_last;
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  for (int stride = 32; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    unsigned ticket = atomicInc(retired, gridDim.x);
    __threadfence();
    am_last = (ticket == gridDim.x - 1);
  }
  __syncthreads();
  if (am_last) {
    int v = 0;
    if (t < gridDim.x)
      v = partial[t];
    s[t] = v;
    __syncthreads();
    if (t == 0) {
      int total = 0;
      for (int b = 0; b < gridDim.x; ++b) total += s[b];
      *out = total;
    }
  }
}

int main() {
  const int blocks = 4, n = blocks * 64;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  int *d_in, *d_partial, *d_out;
  unsigned *d_retired;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_partial, blocks * sizeof(int)));
  CK(cudaMalloc(&d_out, sizeof(int)));
  CK(cudaMalloc(&d_retired, sizeof(unsigned)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  CK(cudaMemset(d_retired, 0, sizeof(unsigned)));
  Sum<<<blocks, 64>>>(d_in, d_partial, d_retired, d_out);
  CK(cudaGetLastError());
  int r;
  CK(cudaMemcpy(&r, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  if (r != 255 * 256 / 2) { std::printf("FAIL total=%d\n", r); return 1; }
  std::printf("PASS\n");
  return 0;
}
