/*@barracuda
{
  "what": "cooperative_groups::memcpy_async into shared memory, then only __syncthreads (no cg::wait): the barrier does not wait for the asynchronous copies, so the neighbour's element may not have landed",
  "arch": 80,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "async-copy", "lines": [26, 28]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "async-copy", "lines": [26, 28]}
    ]}
  }
}
@*/
// Needs sm_80 (cp.async): build with -gencode arch=compute_80,code=[sm_80,compute_80].
#include <cstdio>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
namespace cg = cooperative_groups;

__global__ void Kernel(const int *in, int *out) {
  __shared__ int tile[256];
  cg::thread_block block = cg::this_thread_block();
  cg::memcpy_async(block, tile, in + blockIdx.x * 256, sizeof(int) * 256);
  block.sync();  // BUG: a barrier does not complete the copies; cg::wait(block) does
  out[blockIdx.x * 256 + threadIdx.x] = tile[(threadIdx.x + 1) % 256];
  cg::wait(block);
}

int main() {
  const int n = 2 * 256;
  int h[n], *in, *out;
  for (int i = 0; i < n; ++i) h[i] = 3 * i + 1;
  CK(cudaMalloc(&in, sizeof(h)));
  CK(cudaMalloc(&out, sizeof(h)));
  CK(cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<2, 256>>>(in, out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("done\n");
  return 0;
}
