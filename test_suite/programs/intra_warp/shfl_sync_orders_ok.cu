/*@barracuda
{
  "what": "a __shfl_sync over the full warp between a shared store and a load of another lane's slot is a warp synchronisation point (kWarpSync)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: neighbor_exchange_implicit_racy.cu. detector_semantics.md: *.sync warp
// primitives order their member lanes like __syncwarp.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[32];
  int lane = threadIdx.x;
  int x = in[lane];
  s[lane] = x;
  int leader = __shfl_sync(0xffffffffu, x, 0);
  int v = s[(lane + 1) % 32];
  out[lane] = v + leader;
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 32>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i)
    if (h[i] != (i + 1) % 32) { std::printf("FAIL out[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
