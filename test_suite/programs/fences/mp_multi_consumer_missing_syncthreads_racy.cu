/*@barracuda
{
  "what": "consumer blocks acquire the flag in thread 0 only and skip the __syncthreads that would pass the acquire to the other threads: under ITS threads 1..31 read unordered data; in lockstep the reconvergence after thread 0's polling loop passes its acquire to the whole (single-warp) block",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "global", "class": "inter-block", "lines": [21, 36]}
    ]},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: mp_multi_consumer_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Broadcast(int *data, volatile int *flag, int *out) {
  int t = threadIdx.x;
  if (blockIdx.x == 0) {
    data[t] = t * 11;  // @dw
    __syncthreads();
    if (t == 0) {
      __threadfence();
      *flag = 1;
    }
  } else {
    if (t == 0) {
      int f;
      do {
        f = *flag;
        __threadfence();
      } while (f == 0);
    }
    // BUG: missing __syncthreads() here.
    out[blockIdx.x * 32 + t] = data[31 - t];  // @dr
  }
}

int main() {
  int *d_data, *d_flag, *d_out;
  CK(cudaMalloc(&d_data, 32 * sizeof(int)));
  CK(cudaMalloc(&d_flag, sizeof(int)));
  CK(cudaMalloc(&d_out, 4 * 32 * sizeof(int)));
  CK(cudaMemset(d_flag, 0, sizeof(int)));
  CK(cudaMemset(d_data, 0, 32 * sizeof(int)));
  Broadcast<<<4, 32>>>(d_data, d_flag, d_out);
  CK(cudaGetLastError());
  int h[128];
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[32]=%d (racy)\n", h[32]);
  return 0;
}
