/*@barracuda
{
  "what": "sm_90 bulk copy (cuda::memcpy_async with aligned_size_t: cp.async.bulk ... mbarrier::complete_tx) read after a __syncthreads but before the barrier's arrive_and_wait: only the mbarrier phase orders the copy",
  "arch": 90,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "async-copy", "lines": [31, 33]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "async-copy", "lines": [31, 33]}
    ]}
  }
}
@*/
// Needs sm_90 (cp.async.bulk): build with -gencode arch=compute_90,code=[sm_90,compute_90].
#include <cstdio>
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
namespace cg = cooperative_groups;
using Barrier = cuda::barrier<cuda::thread_scope_block>;

__global__ void Kernel(const int *in, int *out) {
  __shared__ alignas(16) int tile[256];
  __shared__ alignas(Barrier) unsigned char storage[sizeof(Barrier)];
  Barrier *bar = reinterpret_cast<Barrier *>(storage);
  cg::thread_block block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, in + blockIdx.x * 256, cuda::aligned_size_t<16>(sizeof(int) * 256), *bar);
  block.sync();  // BUG: the bulk copy completes through the mbarrier phase, not a block barrier
  out[blockIdx.x * 256 + threadIdx.x] = tile[(threadIdx.x + 1) % 256];
  bar->arrive_and_wait();
}

int main() {
  const int n = 2 * 256;
  int h[n], *in, *out;
  for (int i = 0; i < n; ++i) h[i] = 9 * i + 4;
  CK(cudaMalloc(&in, sizeof(h)));
  CK(cudaMalloc(&out, sizeof(h)));
  CK(cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<2, 256>>>(in, out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
  std::printf("done\n");
  return 0;
}
