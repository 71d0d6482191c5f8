/*@barracuda
{
  "what": "named barrier with the wrong thread count (32 instead of 64): producer's bar.arrive and consumer's bar.sync each complete a generation alone, so nothing orders store and load",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [24, 28]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [24, 28]}
    ]}
  }
}
@*/
// Twin: producer_consumer_arrive_sync_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int *out) {
  __shared__ int s[32];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == 0) {
    s[lane] = in[lane] * 3;  // @w
    asm volatile("bar.arrive 1, 32;" ::: "memory");
  } else {
    asm volatile("bar.sync 1, 32;" ::: "memory");
    out[lane] = s[31 - lane];  // @r
  }
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (racy)\n", h[0]);
  return 0;
}
