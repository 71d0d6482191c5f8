/*@barracuda
{
  "what": "shared-memory histogram: plain zeroing, __syncthreads, atomicAdd per element, __syncthreads, plain read-out",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: shared_histogram_missing_barrier_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Histogram(const int *in, int *out) {
  __shared__ int bins[32];
  int t = threadIdx.x;
  if (t < 32) bins[t] = 0;
  __syncthreads();
  atomicAdd(&bins[in[t] % 32], 1);
  __syncthreads();
  if (t < 32) out[t] = bins[t];
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = (i * 7) % 32;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, 32 * sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Histogram<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  int r[32];
  CK(cudaMemcpy(r, d_out, sizeof(r), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i)
    if (r[i] != 2) { std::printf("FAIL bin %d = %d\n", i, r[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
