/*@barracuda
{
  "what": "inter-block message passing with __threadfence_system (membar.sys) on both sides: system scope includes gpu scope",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Paper §3.1 footnote: system-level fences are treated as global fences.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void MessagePass(int *data, volatile int *flag, int *out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[0] = 42;
    __threadfence_system();
    *flag = 1;
  } else {
    int f;
    do {
      f = *flag;
      __threadfence_system();
    } while (f == 0);
    out[0] = data[0];
  }
}

int main() {
  int *d_data, *d_flag, *d_out;
  CK(cudaMalloc(&d_data, sizeof(int)));
  CK(cudaMalloc(&d_flag, sizeof(int)));
  CK(cudaMalloc(&d_out, sizeof(int)));
  CK(cudaMemset(d_data, 0, sizeof(int)));
  CK(cudaMemset(d_flag, 0, sizeof(int)));
  MessagePass<<<2, 32>>>(d_data, d_flag, d_out);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  if (h != 42) { std::printf("FAIL out=%d\n", h); return 1; }
  std::printf("PASS\n");
  return 0;
}
