/*@barracuda
{
  "what": "single shared buffer in a loop with __syncthreads after the store and after the load",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: single_buffer_missing_second_barrier_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  int v = in[t];
  for (int it = 0; it < 4; ++it) {
    s[t] = v;
    __syncthreads();
    v = s[63 - t] + 1;
    __syncthreads();
  }
  out[t] = v;
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i) h[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i)
    if (h[i] != i + 4) { std::printf("FAIL out[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
