/*@barracuda
{
  "what": "shared-memory histogram without the barrier between the atomicAdds and the plain read-out: warp 0 reads bins that warp 1 is still incrementing",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "shared", "class": "intra-block", "lines": [26, 29]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "shared", "class": "intra-block", "lines": [26, 29]}
    ]}
  }
}
@*/
// Twin: shared_histogram_ok.cu. The input makes lane l of each warp hit bin l, so the
// only conflicts are between the two warps (no intra-warp pair).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Histogram(const int *in, int *out) {
  __shared__ int bins[32];
  int t = threadIdx.x;
  if (t < 32) bins[t] = 0;
  __syncthreads();
  atomicAdd(&bins[in[t] % 32], 1);  // @atom
  // BUG: missing __syncthreads() here.
  if (t < 32)
    out[t] = bins[t];  // @read
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = i % 32;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, 32 * sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Histogram<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  int r[32];
  CK(cudaMemcpy(r, d_out, sizeof(r), cudaMemcpyDeviceToHost));
  std::printf("bin0=%d (2 when benign)\n", r[0]);
  return 0;
}
