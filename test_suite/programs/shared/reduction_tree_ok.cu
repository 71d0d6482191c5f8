/*@barracuda
{
  "what": "classic shared-memory tree reduction with __syncthreads after every step",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: reduction_tree_missing_barrier_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Reduce(const int *in, int *out) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 128 + t];
  __syncthreads();
  for (int stride = 64; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

int main() {
  int h_in[256];
  for (int i = 0; i < 256; ++i) h_in[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h_in)));
  CK(cudaMalloc(&d_out, 2 * sizeof(int)));
  CK(cudaMemcpy(d_in, h_in, sizeof(h_in), cudaMemcpyHostToDevice));
  Reduce<<<2, 128>>>(d_in, d_out);
  CK(cudaGetLastError());
  int h[2];
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  if (h[0] != 127 * 128 / 2 || h[1] != (128 + 255) * 128 / 2) { std::printf("FAIL %d %d\n", h[0], h[1]); return 1; }
  std::printf("PASS\n");
  return 0;
}
