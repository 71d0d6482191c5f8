/*@barracuda
{
  "what": "classic volatile warp-synchronous reduction without __syncwarp (pre-Volta idiom): racy under ITS, race-free in lockstep",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "WAR", "space": "shared", "class": "intra-warp", "lines": [37, 37]},
      {"kind": "RAW", "space": "shared", "class": "intra-warp", "lines": [37, 38]},
      {"kind": "WAR", "space": "shared", "class": "intra-warp", "lines": [38, 38]},
      {"kind": "RAW", "space": "shared", "class": "intra-warp", "lines": [38, 39]},
      {"kind": "WAR", "space": "shared", "class": "intra-warp", "lines": [39, 39]},
      {"kind": "RAW", "space": "shared", "class": "intra-warp", "lines": [39, 40]},
      {"kind": "WAR", "space": "shared", "class": "intra-warp", "lines": [40, 40]},
      {"kind": "RAW", "space": "shared", "class": "intra-warp", "lines": [40, 41]},
      {"kind": "WAR", "space": "shared", "class": "intra-warp", "lines": [41, 41]}
    ]},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: warp_reduce_syncwarp_ok.cu and warp_reduce_shfl_ok.cu. One warp, no branches:
// all 32 lanes run every step (the array is padded to 64 so that the upper lanes read
// zeros). At step k, lane l loads vs[l+off] while lane l+off stores vs[l+off] in the
// same source line (WAR k,k) and lane l+off stored it at step k-1 (RAW k-1,k).
// The __syncwarp after the initialisation makes the initial stores ordered.
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
  std::printf("sum=%d (528 in lockstep; racy under ITS)\n", sum);
  return 0;
}
