/*@barracuda
{
  "what": "message passing through a SHARED-memory volatile flag between two warps with __threadfence_block",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: mp_shared_flag_no_fence_racy.cu.
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
    data[lane] = in[lane] + 1;
    __syncwarp();
    if (lane == 0) {
      __threadfence_block();
      flag = 1;
    }
  } else {
    if (lane == 0) {
      int f;
      do {
        f = flag;
        __threadfence_block();
      } while (f == 0);
    }
    __syncwarp();
    out[lane] = data[31 - lane];
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
  for (int i = 0; i < 32; ++i)
    if (h[i] != 31 - i + 1) { std::printf("FAIL out[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
