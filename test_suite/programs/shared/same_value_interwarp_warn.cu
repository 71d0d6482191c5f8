/*@barracuda
{
  "what": "every thread of two warps stores the same value to one shared word: unordered writes, a race by the PTX model; all stored one value, so barracuda reports same-value warnings (within each warp instruction and between the warps), no data race",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": [
      {"kind": "SAME_VALUE", "space": "shared", "class": "intra-block", "lines": [27, 27]},
      {"kind": "SAME_VALUE", "space": "shared", "class": "intra-warp", "lines": [27, 27]}
    ]},
    "lockstep": {"verdict": "no-race", "races": [
      {"kind": "SAME_VALUE", "space": "shared", "class": "intra-block", "lines": [27, 27]},
      {"kind": "SAME_VALUE", "space": "shared", "class": "intra-warp", "lines": [27, 27]}
    ]}
  }
}
@*/
// Twin: same_value_flag_warn.cu (one warp's same-value store is not a race). Two warps
// are two different instructions (records): WAW, even though the values agree.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int *out) {
  __shared__ int flag;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  flag = 7;  // @w
  __syncthreads();
  if (threadIdx.x == 0) *out = flag;
}

int main() {
  int *d_out;
  CK(cudaMalloc(&d_out, sizeof(int)));
  Kernel<<<1, 64>>>(d_out);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("flag=%d (value is 7, but the stores race by definition)\n", h);
  CK(cudaFree(d_out));
  return 0;
}
