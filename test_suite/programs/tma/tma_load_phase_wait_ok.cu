/*@barracuda
{
  "what": "sm_90 TMA tensor load (cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes) of a tile into shared memory: thread 0 arms the mbarrier with arrive.expect_tx and issues the copy, every thread waits for the phase (try_wait.parity) before reading the tile",
  "arch": 90,
  "expect": {
    "its": {"verdict": "no-race", "races": []},
    "lockstep": {"verdict": "no-race", "races": []}
  }
}
@*/
// Needs sm_90 (TMA): build with -gencode arch=compute_90,code=[sm_90,compute_90].
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cstdio>
#include <cuda/ptx>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
namespace ptx = cuda::ptx;
constexpr int kBoxW = 32, kBoxH = 4, kBlocks = 2, kThreads = kBoxW * kBoxH, kWidth = kBoxW * kBlocks;

__global__ void Kernel(const __grid_constant__ CUtensorMap in_map, float *out) {
  __shared__ alignas(128) float tile[kBoxH][kBoxW];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);  // the initialised mbarrier, visible to the async proxy
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const int32_t coords[2] = {static_cast<int32_t>(blockIdx.x) * kBoxW, 0};
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(tile));
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, &tile, &in_map, coords, &bar);
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  const int t = (threadIdx.x + 1) % kThreads;
  out[blockIdx.x * kThreads + threadIdx.x] = tile[t / kBoxW][t % kBoxW];
}

int main() {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  if (fn == nullptr) { std::printf("cuTensorMapEncodeTiled not found\n"); return 2; }
  auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  float h[kWidth * kBoxH], *in, *out;
  for (int i = 0; i < kWidth * kBoxH; ++i) h[i] = 3.0f * i + 1.0f;
  CK(cudaMalloc(&in, sizeof(h)));
  CK(cudaMalloc(&out, sizeof(h)));
  CK(cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice));
  const cuuint64_t dims[2] = {kWidth, kBoxH}, strides[1] = {kWidth * sizeof(float)};
  const cuuint32_t box[2] = {kBoxW, kBoxH}, elem[2] = {1, 1};
  CUtensorMap map;
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, in, dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::printf("cuTensorMapEncodeTiled failed\n");
    return 2;
  }
  Kernel<<<kBlocks, kThreads>>>(map, out);
  CK(cudaGetLastError());
  float got[kWidth * kBoxH];
  CK(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
  for (int b = 0; b < kBlocks; ++b)
    for (int i = 0; i < kThreads; ++i) {
      const int t = (i + 1) % kThreads, x = b * kBoxW + t % kBoxW, y = t / kBoxW;
      const float want = 3.0f * (y * kWidth + x) + 1.0f;
      if (got[b * kThreads + i] != want) { std::printf("FAIL out[%d]=%g want %g\n", b * kThreads + i, got[b * kThreads + i], want); return 1; }
    }
  std::printf("PASS\n");
  return 0;
}
