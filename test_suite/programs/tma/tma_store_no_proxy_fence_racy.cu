/*@barracuda
{
  "what": "sm_90 TMA tensor store of a shared tile that every thread filled with st.shared, after only __syncthreads: the barrier orders the generic-proxy writes before the store's issue, but the store reads the tile through the async proxy and no fence.proxy.async lies between them (PTX ISA, Async proxy)",
  "arch": 90,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "proxy", "lines": [27, 32]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "RAW", "space": "shared", "class": "proxy", "lines": [27, 32]}
    ]}
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
constexpr int kBoxW = 32, kBoxH = 16, kBlocks = 2, kWidth = kBoxW * kBlocks;

__global__ void Kernel(const __grid_constant__ CUtensorMap out_map) {
  __shared__ alignas(128) float tile[kBoxH][kBoxW];
  for (int i = threadIdx.x; i < kBoxW * kBoxH; i += blockDim.x) tile[i / kBoxW][i % kBoxW] = blockIdx.x * 1000.0f + i;
  // BUG: fence.proxy.async missing here: the TMA store may read stale data
  __syncthreads();
  if (threadIdx.x == 0) {
    const int32_t coords[2] = {static_cast<int32_t>(blockIdx.x) * kBoxW, 0};
    ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &out_map, coords, &tile);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
  }
}

int main() {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  if (fn == nullptr) { std::printf("cuTensorMapEncodeTiled not found\n"); return 2; }
  auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  float *out;
  CK(cudaMalloc(&out, sizeof(float) * kWidth * kBoxH));
  const cuuint64_t dims[2] = {kWidth, kBoxH}, strides[1] = {kWidth * sizeof(float)};
  const cuuint32_t box[2] = {kBoxW, kBoxH}, elem[2] = {1, 1};
  CUtensorMap map;
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, out, dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::printf("cuTensorMapEncodeTiled failed\n");
    return 2;
  }
  Kernel<<<kBlocks, 128>>>(map);
  CK(cudaGetLastError());
  float h[kWidth * kBoxH];
  CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int y = 0; y < kBoxH; ++y)
    for (int x = 0; x < kWidth; ++x) {
      const float want = (x / kBoxW) * 1000.0f + y * kBoxW + x % kBoxW;
      if (h[y * kWidth + x] != want) { std::printf("stale out[%d][%d]=%g want %g\n", y, x, h[y * kWidth + x], want); return 0; }
    }
  std::printf("got the tile\n");
  return 0;
}
