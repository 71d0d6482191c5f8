/*@barracuda
{
  "what": "sm_90 bulk copy into shared memory (cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes) whose mbarrier thread 0 arms with arrive.expect_tx for exactly the copy's bytes: the phase completes when the whole tile has landed, and every thread reads it after its try_wait.parity",
  "arch": 90,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Needs sm_90 (cp.async.bulk): build with -gencode arch=compute_90,code=[sm_90,compute_90].
#include <cstdint>
#include <cstdio>
#include <cuda/ptx>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
namespace ptx = cuda::ptx;
constexpr int kThreads = 128, kBlocks = 2;

__global__ void Kernel(const int *in, int *out) {
  __shared__ alignas(16) int tile[kThreads];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) ptx::mbarrier_init(&bar, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(tile));
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, tile, in + blockIdx.x * kThreads, sizeof(tile), &bar);
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  out[blockIdx.x * kThreads + threadIdx.x] = tile[(threadIdx.x + 1) % kThreads];
}

int main() {
  const int n = kBlocks * kThreads;
  int h[n], *in, *out;
  for (int i = 0; i < n; ++i) h[i] = 5 * i + 2;
  CK(cudaMalloc(&in, sizeof(h)));
  CK(cudaMalloc(&out, sizeof(h)));
  CK(cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice));
  Kernel<<<kBlocks, kThreads>>>(in, out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int b = 0; b < kBlocks; ++b)
    for (int t = 0; t < kThreads; ++t) {
      const int want = 5 * (b * kThreads + (t + 1) % kThreads) + 2;
      if (h[b * kThreads + t] != want) { std::printf("FAIL out[%d]=%d want %d\n", b * kThreads + t, h[b * kThreads + t], want); return 1; }
    }
  std::printf("PASS\n");
  return 0;
}
