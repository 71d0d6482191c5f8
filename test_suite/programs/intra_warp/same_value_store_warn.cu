/*@barracuda
{
  "what": "all lanes of a warp store the SAME value to one word in one instruction (the paper's same-value filter; by the PTX model a race, reported as a same-value warning), then __syncwarp before anyone reads",
  "arch": 75,
  "expect": {
    "its": {"verdict": "no-race", "races": [
      {"kind": "SAME_VALUE", "space": "shared", "class": "intra-warp", "lines": [22, 22]}
    ]},
    "lockstep": {"verdict": "no-race", "races": [
      {"kind": "SAME_VALUE", "space": "shared", "class": "intra-warp", "lines": [22, 22]}
    ]}
  }
}
@*/
// Twin: waw_same_instruction_racy.cu and same_value_then_read_volatile_ok.cu.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)

__global__ void Kernel(int v, int *out) {
  __shared__ int word;
  word = v;
  __syncwarp();
  out[threadIdx.x] = word;
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
