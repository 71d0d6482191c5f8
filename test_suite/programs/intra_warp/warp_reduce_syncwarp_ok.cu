/*@barracuda
{
  "what": "warp reduction through shared memory made ITS-safe: __syncwarp between each load and store and after each store",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: warp_reduce_implicit_volatile_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void WarpReduce(const int *in, int *out) {
  __shared__ int s[64];
  int lane = threadIdx.x;
  s[lane] = in[lane];
  s[lane + 32] = 0;
  __syncwarp();
  for (int off = 16; off > 0; off >>= 1) {
    int v = s[lane] + s[lane + off];
    __syncwarp();
    s[lane] = v;
    __syncwarp();
  }
  if (lane == 0) *out = s[0];
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = i + 1;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  WarpReduce<<<1, 32>>>(d_in, d_out);
  CK(cudaGetLastError());
  int sum;
  CK(cudaMemcpy(&sum, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  if (sum != 528) { std::printf("FAIL sum=%d\n", sum); return 1; }
  std::printf("PASS\n");
  return 0;
}
