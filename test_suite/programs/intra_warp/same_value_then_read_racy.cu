/*@barracuda
{
  "what": "same-value store by all lanes is not itself a race, but reading the word without __syncwarp reads other lanes' unordered stores under ITS",
  "arch": 75,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "intra-warp", "lines": [22, 23]}
    ]},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Twin: same_value_store_ok.cu. Per detector_semantics.md the same-value store inflates
// the write metadata to all writers, and lane j's read is unordered with lane i's store
// under ITS; in lockstep the next instruction is ordered after the store.
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
  std::printf("out[0]=%d (racy under ITS by definition; value 17)\n", h[0]);
  return 0;
}
