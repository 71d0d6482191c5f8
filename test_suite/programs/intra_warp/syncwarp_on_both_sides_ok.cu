/*@barracuda
{
  "what": "each side of a divergent branch calls __syncwarp() (sm_70+: the members may reach bar.warp.sync at different instructions): lanes 16-31 sync, then read what lanes 0-15 stored before their own __syncwarp(); the reading side is written first",
  "arch": 75,
  "debug_twin": true,
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
  __shared__ int s[16];
  const int lane = threadIdx.x;
  if (lane >= 16) {
    __syncwarp();
    out[lane - 16] = s[lane - 16] * 2;
  } else {
    s[lane] = in[lane] + 1;
    __syncwarp();
  }
}

int main() {
  int h[16], *in, *out;
  for (int i = 0; i < 16; ++i) h[i] = 7 * i - 20;
  CK(cudaMalloc(&in, sizeof(h)));
  CK(cudaMalloc(&out, sizeof(h)));
  CK(cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 32>>>(in, out);
  int got[16];
  CK(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 16; ++i)
    if (got[i] != (h[i] + 1) * 2) {
      std::printf("FAIL out[%d] = %d, want %d\n", i, got[i], (h[i] + 1) * 2);
      return 3;
    }
  std::printf("PASS\n");
  return 0;
}
