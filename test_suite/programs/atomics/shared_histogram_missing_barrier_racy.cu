/*@barracuda
{
  "what": "shared-memory histogram without the barrier between the atomicAdds and the plain read-out: each warp reads bins that the other warp is still incrementing",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "shared", "class": "intra-block", "lines": [29, 32]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "shared", "class": "intra-block", "lines": [29, 32]}
    ]}
  }
}
@*/
// Twin: shared_histogram_ok.cu. Thread t increments bin t and reads out the bin of
// the thread a warp away, so the only conflicts are between the two warps, and the
// race shows whichever warp runs first: a thread never read the bin it reads out
// with an atomic of its own (had it, and had the other warp's increment come
// first, its read would be ordered after that increment: PTX observation order).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Histogram(const int *in, int *out) {
  __shared__ int bins[64];
  int t = threadIdx.x;
  bins[t] = 0;
  __syncthreads();
  atomicAdd(&bins[in[t] % 64], 1);  // @atom
  // BUG: missing __syncthreads() here.
  if (t < 64)
    out[t] = bins[(t + 32) % 64];  // @read
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, 64 * sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Histogram<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  int r[64];
  CK(cudaMemcpy(r, d_out, sizeof(r), cudaMemcpyDeviceToHost));
  std::printf("out0=%d (1 when benign)\n", r[0]);
  return 0;
}
