/*@barracuda
{
  "what": "threads of two warps store to adjacent, non-overlapping bytes of the same 4-byte words (byte granularity: no race), then __syncthreads and whole-int loads",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: char_write_int_read_racy.cu. Thread t stores byte t; bytes 4k..4k+3 of word k
// come from four different threads, two of them in different warps for k = 7, 8.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int words[16];
  int t = threadIdx.x;
  reinterpret_cast<volatile unsigned char *>(words)[t] = (unsigned char)t;
  __syncthreads();
  if (t < 16) out[t] = words[t];
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 16 * sizeof(int)));
  Kernel<<<1, 64>>>(d);
  CK(cudaGetLastError());
  unsigned h[16];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (unsigned k = 0; k < 16; ++k) {
    unsigned want = (4 * k) | ((4 * k + 1) << 8) | ((4 * k + 2) << 16) | ((4 * k + 3) << 24);
    if (h[k] != want) { std::printf("FAIL word %u = %08x\n", k, h[k]); return 1; }
  }
  std::printf("PASS\n");
  return 0;
}
