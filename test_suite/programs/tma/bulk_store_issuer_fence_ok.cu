/*@barracuda
{
  "what": "sm_90 bulk store (cp.async.bulk.global.shared::cta.bulk_group) of a shared buffer that the block filled with st.shared: the issuing thread's fence.proxy.async.shared::cta after __syncthreads orders every thread's generic-proxy writes (ordered before it by the barrier) before the store's async-proxy reads",
  "arch": 90,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Needs sm_90 (cp.async.bulk): build with -gencode arch=compute_90,code=[sm_90,compute_90].
#include <cstdio>
#include <cuda/ptx>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
namespace ptx = cuda::ptx;
constexpr int kThreads = 128, kBlocks = 2;

__global__ void Kernel(int *out) {
  __shared__ alignas(16) int buf[kThreads];
  buf[threadIdx.x] = blockIdx.x * 1000 + threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::fence_proxy_async(ptx::space_shared);  // after the barrier: covers the whole block's writes
    ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, out + blockIdx.x * kThreads, buf, sizeof(buf));
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
  }
}

int main() {
  int h[kBlocks * kThreads], *out;
  CK(cudaMalloc(&out, sizeof(h)));
  Kernel<<<kBlocks, kThreads>>>(out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < kBlocks * kThreads; ++i) {
    const int want = (i / kThreads) * 1000 + i % kThreads;
    if (h[i] != want) { std::printf("FAIL out[%d]=%d want %d\n", i, h[i], want); return 1; }
  }
  std::printf("PASS\n");
  return 0;
}
