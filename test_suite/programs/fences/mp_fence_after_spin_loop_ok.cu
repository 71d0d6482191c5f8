/*@barracuda
{
  "what": "the classic idiom while (*flag == 0); __threadfence(); -- the fence is the first instruction after the polling loop, so the polling load is an acquire",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Same as mp_threadfence_ok.cu, but the consumer's fence is after the loop rather than
// inside it: in PTX the ld.volatile is followed by setp and the loop's back branch,
// then membar.gl on the exit path. The acquire inference must look past those.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void MessagePass(int *data, volatile int *flag, int *out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[0] = 42;
    __threadfence();
    *flag = 1;
  } else {
    while (*flag == 0) {
    }
    __threadfence();
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
