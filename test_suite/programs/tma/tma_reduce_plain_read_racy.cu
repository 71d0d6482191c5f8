/*@barracuda
{
  "what": "sm_90 TMA tensor reduction into a global box while another block reads the box with plain loads and nothing orders them: the reduction's element updates are atomics (relaxed, gpu scope), the reads are not, an atomic/plain race between blocks",
  "arch": 90,
  "expect": {
    "its": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [36, 27]}
    ]},
    "lockstep": {"verdict": "race", "races": [
      {"kind": "ATOMIC_PLAIN", "space": "global", "class": "inter-block", "lines": [36, 27]}
    ]}
  }
}
@*/
// Needs sm_90 (TMA): build with -gencode arch=compute_90,code=[sm_90,compute_90].
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); return 2; } } while (0)
constexpr int kW = 32, kH = 16, kBlocks = 2;

__global__ void Kernel(const __grid_constant__ CUtensorMap map, const float* out, float* seen) {
  if (blockIdx.x == 1) {
    // BUG: reads the reduction's destination with nothing ordering it after block 0's reduction
    for (int i = threadIdx.x; i < kW * kH; i += blockDim.x) seen[i] = out[i];
    return;
  }
  __shared__ alignas(128) float tile[kH][kW];
  for (int i = threadIdx.x; i < kW * kH; i += blockDim.x) tile[i / kW][i % kW] = blockIdx.x + 1.0f;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    const uint32_t src = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&map), "r"(0), "r"(0), "r"(src) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

int main() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  if (fn == nullptr) { std::printf("cuTensorMapEncodeTiled not found\n"); return 2; }
  auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  float* out;
  CK(cudaMalloc(&out, sizeof(float) * kW * kH));
  CK(cudaMemset(out, 0, sizeof(float) * kW * kH));
  const cuuint64_t dims[2] = {kW, kH}, strides[1] = {kW * sizeof(float)};
  const cuuint32_t box[2] = {kW, kH}, elem[2] = {1, 1};
  alignas(64) CUtensorMap map;
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, out, dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::printf("cuTensorMapEncodeTiled failed\n");
    return 2;
  }
  float* seen;
  CK(cudaMalloc(&seen, sizeof(float) * kW * kH));
  Kernel<<<kBlocks, 128>>>(map, out, seen);
  CK(cudaGetLastError());
  float h[kW * kH];
  CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < kW * kH; ++i)
    if (h[i] != 1.0f) { std::printf("out[%d] = %g, want 1\n", i, h[i]); return 1; }
  std::printf("reduced\n");
  return 0;
}
