/*@barracuda
{
  "what": "last-block reduction in the CUDA sample's form, where the last block also resets the ticket counter with a plain store for the next launch (retirementCount = 0): ordered after every block's atomicInc because its own atomicInc read them all (PTX causality order through observation order), with no fence after it",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// threadFenceReduction (CUDA samples) resets its counter in the last block:
//   if (tid == 0) { g_odata[0] = sum; retirementCount = 0; }
// The last block's atomicInc read the value every other block's atomicInc left
// (a chain of read-modify-writes), so each of those precedes it in observation
// order, and the plain store after it in the same thread is ordered after them
// all. Launched twice: the second launch relies on the reset. Twin:
// last_block_reduction_reset_first_block_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Sum(const int *in, volatile int *partial, unsigned *retired, int *out) {
  __shared__ int s[64];
  __shared__ bool am_last;
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  for (int stride = 32; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
  __threadfence();
  if (t == 0) {
    unsigned ticket = atomicInc(retired, gridDim.x);
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
      *retired = 0;
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
  for (int round = 0; round < 2; ++round) {
    CK(cudaMemset(d_out, 0, sizeof(int)));
    Sum<<<blocks, 64>>>(d_in, d_partial, d_retired, d_out);
    CK(cudaGetLastError());
    int r;
    CK(cudaMemcpy(&r, d_out, sizeof(int), cudaMemcpyDeviceToHost));
    if (r != 255 * 256 / 2) { std::printf("FAIL round %d total=%d\n", round, r); return 1; }
  }
  std::printf("PASS\n");
  return 0;
}
