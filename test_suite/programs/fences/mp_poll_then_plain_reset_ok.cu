/*@barracuda
{
  "what": "inter-block message passing where the consumer, after polling the volatile flag and reading the data, resets the flag with a plain store: ordered after the producer's flag store because the consumer's strong load read it (PTX causality order through observation order)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// A reusable flag: the consumer clears it for the next round with an ordinary
// store. The release/acquire fences order the data; the flag store itself is
// after the producer's release fence, so no synchronizes-with edge covers it,
// but the polling load observed it, and the consumer's later store is ordered
// after it through that observation. Twin: mp_reset_by_other_thread_racy.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void MessagePass(int *data, volatile int *flag, int *plain_flag, int *out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[0] = 42;
    __threadfence();
    *flag = 1;
  } else {
    int f;
    do {
      f = *flag;
    } while (f == 0);
    __threadfence();
    out[0] = data[0];
    *plain_flag = 0;
  }
}

int main() {
  int *d_data, *d_flag, *d_out;
  CK(cudaMalloc(&d_data, sizeof(int)));
  CK(cudaMalloc(&d_flag, sizeof(int)));
  CK(cudaMalloc(&d_out, sizeof(int)));
  CK(cudaMemset(d_data, 0, sizeof(int)));
  CK(cudaMemset(d_flag, 0, sizeof(int)));
  MessagePass<<<2, 32>>>(d_data, d_flag, d_flag, d_out);
  CK(cudaGetLastError());
  int h, f;
  CK(cudaMemcpy(&h, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&f, d_flag, sizeof(int), cudaMemcpyDeviceToHost));
  if (h != 42 || f != 0) { std::printf("FAIL out=%d flag=%d\n", h, f); return 1; }
  std::printf("PASS\n");
  return 0;
}
