/*@barracuda
{
  "what": "message passing through a shared-memory volatile flag between two warps, no fences: the data races; the volatile (strong, .relaxed.sys) flag accesses do not race with each other (PTX memory model)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [28, 41]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-block", "lines": [28, 41]}
    ]}
  }
}
@*/
// Twin: mp_shared_flag_fence_block_ok.cu. The __syncwarp calls order lanes within each
// warp, so every race is between the two warps.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void MessagePass(const int *in, int *out) {
  __shared__ int data[32];
  __shared__ volatile int flag;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  int lane = threadIdx.x % 32;
  if (threadIdx.x < 32) {
    data[lane] = in[lane] + 1;  // @dw
    __syncwarp();
    if (lane == 0) {
      flag = 1;  // @fw
    }
  } else {
    if (lane == 0) {
      int f;
      do {
        f = flag;  // @fr
      } while (f == 0);
    }
    __syncwarp();
    out[lane] = data[31 - lane];  // @dr
  }
}

int main() {
  int h[32];
  for (int i = 0; i < 32; ++i) h[i] = i;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h)));
  CK(cudaMalloc(&d_out, sizeof(h)));
  CK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
  MessagePass<<<1, 64>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%d (racy)\n", h[0]);
  return 0;
}
