/*@barracuda
{
  "what": "the lanes of ONE warp that find a match all store 1 to a shared flag in one instruction (same value: a same-value warning, no data race), then __syncthreads",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": [
      {"kind": "SAME_VALUE", "space": "shared", "class": "intra-warp", "lines": [25, 25]}
    ]},
    "lockstep": {"verdict": "no-race", "races": [
      {"kind": "SAME_VALUE", "space": "shared", "class": "intra-warp", "lines": [25, 25]}
    ]}
  }
}
@*/
// Twin: same_value_interwarp_warn.cu. Block of 32 threads: the flag store is a single
// warp instruction whose active lanes all write 1.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(const int *in, int key, int *out) {
  __shared__ int found;
  if (threadIdx.x == 0) found = 0;
  __syncthreads();
  if (in[threadIdx.x] == key) found = 1;
  __syncthreads();
  if (threadIdx.x == 0) *out = found;
}

int main() {
  int h_in[32];
  for (int i = 0; i < 32; ++i) h_in[i] = i % 4;
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, sizeof(h_in)));
  CK(cudaMalloc(&d_out, sizeof(int)));
  CK(cudaMemcpy(d_in, h_in, sizeof(h_in), cudaMemcpyHostToDevice));
  Kernel<<<1, 32>>>(d_in, 3, d_out);
  CK(cudaGetLastError());
  int h;
  CK(cudaMemcpy(&h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
  if (h != 1) { std::printf("FAIL found=%d\n", h); return 1; }
  std::printf("PASS\n");
  return 0;
}
