/*@barracuda
{
  "what": "cooperative_groups::memcpy_async of a 256-int tile into shared memory (cp.async), cg::wait(block) (cp.async.wait_group + __syncthreads), then every thread reads a neighbour's element",
  "arch": 80,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
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
  cg::wait(block);
  out[blockIdx.x * 256 + threadIdx.x] = tile[(threadIdx.x + 1) % 256];
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
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 256; ++t) {
      const int want = 3 * (b * 256 + (t + 1) % 256) + 1;
      if (h[b * 256 + t] != want) { std::printf("FAIL out[%d]=%d want %d\n", b * 256 + t, h[b * 256 + t], want); return 1; }
    }
  std::printf("PASS\n");
  return 0;
}
