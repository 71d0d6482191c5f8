/*@barracuda
{
  "what": "__syncthreads_count (bar.red.popc) is a full block barrier: it orders the shared stores before it with the loads after it",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  int x = in[t];
  s[t] = x;
  int positives = __syncthreads_count(x > 0);
  out[t] = s[63 - t] + 100 * positives;
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = (i % 4 == 0) ? i : -i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  int r[64];
  CK(cudaMemcpy(r, d_out, sizeof(r), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i)
    if (r[i] != h[63 - i] + 100 * 15) { std::printf("FAIL out[%d]=%d\n", i, r[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
