/*@barracuda
{
  "what": "classic volatile warp-synchronous reduction without __syncwarp (pre-Volta idiom): data-race-free in the PTX memory model (volatile accesses are strong, .relaxed.sys, and one word's strong accesses never race), so no race under either warp model; its result still relies on implicit warp synchrony under ITS, a determinacy bug that the race check does not report (twins with __syncwarp / shuffles)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: warp_reduce_syncwarp_ok.cu and warp_reduce_shfl_ok.cu. One warp, no branches:
// all 32 lanes run every step (the array is padded to 64 so that the upper lanes read
// zeros). At step k, lane l loads vs[l+off] while lane l+off stores it: unordered
// under ITS, but both accesses are volatile (strong) and of one size, so they are
// morally strong and no data race (the paper's model reported WAR k,k and RAW k-1,k).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void WarpReduce(const int *in, int *out) {
  __shared__ int s[64];
  volatile int *vs = s;
  int lane = threadIdx.x;
  vs[lane] = in[lane];
  vs[lane + 32] = 0;
  __syncwarp();
  vs[lane] += vs[lane + 16];  // @s16
  vs[lane] += vs[lane + 8];  // @s8
  vs[lane] += vs[lane + 4];  // @s4
  vs[lane] += vs[lane + 2];  // @s2
  vs[lane] += vs[lane + 1];  // @s1
  __syncwarp();
  if (lane == 0) *out = vs[0];
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
