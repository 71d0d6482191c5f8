/*@barracuda
{
  "what": "a shared pointer moved below the array (s + (t - n), t < n) and indexed back into it (p[40]): nvcc folds the index into the instruction's offset, so the 32-bit address register is 0xffffff.. before the offset; hardware wraps shared addresses modulo 2^32, and the emulator must too (issue 18)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// PTX of the reads: ld.shared.u32 %r9, [%r8+160] with %r8 = s + 4 * (t - 40).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Shift(int n, int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = t;
  s[t + 32] = t + 32;
  __syncthreads();
  const int *p = s + (t - n);
  out[t] = p[40] + p[41];
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 32 * sizeof(int)));
  Shift<<<1, 32>>>(40, d);
  CK(cudaGetLastError());
  int h[32];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 32; ++t) {
    if (h[t] != 2 * t + 1) { std::printf("FAIL out[%d] = %d, want %d\n", t, h[t], 2 * t + 1); return 1; }
  }
  std::printf("PASS\n");
  return 0;
}
