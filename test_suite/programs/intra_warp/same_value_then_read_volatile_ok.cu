/*@barracuda
{
  "what": "same-value volatile store by all lanes, then a volatile read of the word without __syncwarp: every access is strong (.relaxed.sys in the PTX memory model) and of one size, so nothing races under either warp model (with plain accesses the read would race under ITS)",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: same_value_store_warn.cu. Lane j's read is unordered with lane i's store under
// ITS, but both are volatile (strong, .relaxed.sys) accesses of one word: morally
// strong, so no data race in the PTX memory model (wave 2; the paper reported RAW).
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int v, int *out) {
  __shared__ volatile int word;
  word = v;  // @w
  int r = word;  // @r
  out[threadIdx.x] = r;
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 32 * sizeof(int)));
  Kernel<<<1, 32>>>(17, d);
  CK(cudaGetLastError());
  int h[32];
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i)
    if (h[i] != 17) { std::printf("FAIL out[%d]=%d\n", i, h[i]); return 1; }
  std::printf("PASS\n");
  return 0;
}
