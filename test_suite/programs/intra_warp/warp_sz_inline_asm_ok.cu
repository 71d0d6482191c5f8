/*@barracuda
{
  "what": "the warp size read from the PTX predefined constant WARP_SZ in inline assembly drives a shfl.sync.down reduction in each warp; the emulator must load and evaluate WARP_SZ (issue 18)",
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

__device__ unsigned WarpSize() {
  unsigned w;
  asm("mov.u32 %0, WARP_SZ;" : "=r"(w));
  return w;
}

__global__ void WarpSums(const int *in, int *out) {
  const unsigned w = WarpSize();
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (unsigned d = w / 2; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x % w == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / w] = v;
}

int main() {
  const int n = 128;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, 4 * sizeof(int)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  WarpSums<<<2, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  int sums[4];
  CK(cudaMemcpy(sums, d_out, sizeof(sums), cudaMemcpyDeviceToHost));
  for (int k = 0; k < 4; ++k) {
    const int want = 32 * 32 * k + 31 * 32 / 2;
    if (sums[k] != want) { std::printf("FAIL warp %d: %d, want %d\n", k, sums[k], want); return 1; }
  }
  std::printf("PASS\n");
  return 0;
}
