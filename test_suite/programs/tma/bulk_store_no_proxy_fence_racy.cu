/*@barracuda
{
  "what": "sm_90 bulk store (cp.async.bulk.global.shared::cta.bulk_group) of a shared buffer that the block filled with st.shared, issued after __syncthreads with no fence.proxy.async: the generic-proxy writes are ordered before the issue but not across proxies",
  "arch": 90,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "proxy", "lines": [25, 29]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "proxy", "lines": [25, 29]}
    ]}
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
    // BUG: no fence.proxy.async.shared::cta: the bulk store may read stale data
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
    if (h[i] != want) { std::printf("stale out[%d]=%d want %d\n", i, h[i], want); return 0; }
  }
  std::printf("got the buffer\n");
  return 0;
}
