/*@barracuda
{
  "what": "one producer block publishes an array with __threadfence + volatile flag; three consumer blocks each acquire and read it",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// The producer's 32 threads write the array; __syncthreads orders them before thread 0's
// release. Each consumer's thread 0 acquires, and __syncthreads passes it on to the block.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Broadcast(int *data, volatile int *flag, int *out) {
  int t = threadIdx.x;
  if (blockIdx.x == 0) {
    data[t] = t * 11;
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
    __syncthreads();
    out[blockIdx.x * 32 + t] = data[31 - t];
  }
}

int main() {
  int *d_data, *d_flag, *d_out;
  CK(cudaMalloc(&d_data, 32 * sizeof(int)));
  CK(cudaMalloc(&d_flag, sizeof(int)));
  CK(cudaMalloc(&d_out, 4 * 32 * sizeof(int)));
  CK(cudaMemset(d_flag, 0, sizeof(int)));
  Broadcast<<<4, 32>>>(d_data, d_flag, d_out);
  CK(cudaGetLastError());
  int h[128];
  CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int b = 1; b < 4; ++b)
    for (int t = 0; t < 32; ++t)
      if (h[b * 32 + t] != 11 * (31 - t)) { std::printf("FAIL block %d t %d: %d\n", b, t, h[b * 32 + t]); return 1; }
  std::printf("PASS\n");
  return 0;
}
