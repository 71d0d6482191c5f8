/*@barracuda
{
  "what": "sm_90 cuda::memcpy_async of 16-byte aligned size with a cuda::barrier: one bulk copy (cp.async.bulk ... mbarrier::complete_tx) fills the tile, the barrier's expect_tx + arrive_and_wait orders it before every thread's read",
  "arch": 90,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
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
  bar->arrive_and_wait();
  out[blockIdx.x * 256 + threadIdx.x] = tile[(threadIdx.x + 1) % 256];
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
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 256; ++t) {
      const int want = 9 * (b * 256 + (t + 1) % 256) + 4;
      if (h[b * 256 + t] != want) { std::printf("FAIL out[%d]=%d want %d\n", b * 256 + t, h[b * 256 + t], want); return 1; }
    }
  std::printf("PASS\n");
  return 0;
}
