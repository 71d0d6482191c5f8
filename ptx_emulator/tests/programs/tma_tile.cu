// TMA (sm_90) as CUDA 13 programs use it: cuTensorMapEncodeTiled fetched
// through cudaGetDriverEntryPoint / cudaGetDriverEntryPointByVersion, tensor
// maps passed as `const __grid_constant__ CUtensorMap` parameters, and the
// cuda::ptx wrappers of cp.async.bulk.tensor. Each block loads a 32x16 tile of
// a 100x70 float matrix into shared memory (mbarrier complete_tx), doubles it
// plus one, and stores it back with the TMA store form (fence.proxy.async
// before it, then commit_group / wait_group.read 0). The matrix is not a
// multiple of the tile: the edge tiles load zeros outside it and their stores
// write nothing there. Checked against a CPU reference; prints PASS.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <cstdio>
#include <cuda/ptx>
#include <vector>

#define CHECK(x)                                                                             \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

constexpr int kWidth = 100, kHeight = 70;   // the matrix, row-major
constexpr int kBoxW = 32, kBoxH = 16;       // the tile
constexpr int kGuard = 2 * kWidth;          // floats after the output matrix that must stay untouched
constexpr float kSentinel = -7.0f;

namespace ptx = cuda::ptx;

__global__ void scale_tiles(const __grid_constant__ CUtensorMap in_map, const __grid_constant__ CUtensorMap out_map,
                            int* zeros_seen) {
  __shared__ alignas(128) float tile[kBoxH][kBoxW];
  __shared__ alignas(8) uint64_t bar;
  const int32_t coords[2] = {static_cast<int32_t>(blockIdx.x) * kBoxW, static_cast<int32_t>(blockIdx.y) * kBoxH};
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);  // the initialised mbarrier is visible to the async proxy
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(tile));
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, &tile, &in_map, coords, &bar);
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  int zeros = 0;
  for (int i = threadIdx.x; i < kBoxW * kBoxH; i += blockDim.x) {
    float& v = tile[i / kBoxW][i % kBoxW];
    zeros += v == 0.0f;  // the input has no zeros: these are the out-of-bound fill
    v = 2.0f * v + 1.0f;
  }
  atomicAdd(zeros_seen, zeros);
  // The generic-proxy writes to the tile, then the async-proxy store reads it.
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &out_map, coords, &tile);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());  // the tile may be reused (and freed at exit)
  }
}

int main() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  if (fn == nullptr || q != cudaDriverEntryPointSuccess) {
    std::printf("FAIL: cuTensorMapEncodeTiled not found (%d)\n", static_cast<int>(q));
    return 1;
  }
  void* fn_legacy = nullptr;
  // cudaGetDriverEntryPoint is deprecated in CUDA 13, and still what many programs call.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn_legacy, cudaEnableDefault, &q));
  if (fn_legacy == nullptr || q != cudaDriverEntryPointSuccess) {
    std::printf("FAIL: cudaGetDriverEntryPoint did not find cuTensorMapEncodeTiled\n");
    return 1;
  }
  void* missing = &fn;
  CHECK(cudaGetDriverEntryPoint("cuNoSuchDriverFunction", &missing, cudaEnableDefault, &q));
  if (missing != nullptr || q != cudaDriverEntryPointSymbolNotFound) {
    std::printf("FAIL: an unknown driver symbol was not reported as not found\n");
    return 1;
  }
#pragma GCC diagnostic pop
  auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn_legacy);

  std::vector<float> in(kWidth * kHeight);
  for (int i = 0; i < kWidth * kHeight; ++i) in[i] = static_cast<float>(i % 97 + 1);
  std::vector<float> out(kWidth * kHeight + kGuard, kSentinel);
  float *d_in = nullptr, *d_out = nullptr;
  int* d_zeros = nullptr;
  CHECK(cudaMalloc(&d_in, in.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_out, out.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_zeros, sizeof(int)));
  CHECK(cudaMemcpy(d_in, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_out, out.data(), out.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_zeros, 0, sizeof(int)));

  const cuuint64_t dims[2] = {kWidth, kHeight};
  const cuuint64_t strides[1] = {kWidth * sizeof(float)};
  const cuuint32_t box[2] = {kBoxW, kBoxH};
  const cuuint32_t elem_strides[2] = {1, 1};
  CUtensorMap in_map, out_map;
  for (auto [map, base] : {std::pair{&in_map, d_in}, std::pair{&out_map, d_out}}) {
    const CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, base, dims, strides, box, elem_strides,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                              CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
      std::printf("FAIL: cuTensorMapEncodeTiled returned %d\n", static_cast<int>(r));
      return 1;
    }
  }
  // The driver validates: a box dimension above 256 is refused.
  const cuuint32_t bad_box[2] = {kBoxW, 512};
  CUtensorMap bad;
  if (encode(&bad, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, d_in, dims, strides, bad_box, elem_strides,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_ERROR_INVALID_VALUE) {
    std::printf("FAIL: an invalid box was accepted\n");
    return 1;
  }

  const dim3 grid((kWidth + kBoxW - 1) / kBoxW, (kHeight + kBoxH - 1) / kBoxH);
  scale_tiles<<<grid, 128>>>(in_map, out_map, d_zeros);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int zeros = 0;
  CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&zeros, d_zeros, sizeof(int), cudaMemcpyDeviceToHost));

  int bad_values = 0;
  for (int i = 0; i < kWidth * kHeight; ++i)
    if (out[i] != 2.0f * in[i] + 1.0f) {
      if (bad_values++ < 5) std::printf("out[%d] = %g, expected %g\n", i, out[i], 2.0f * in[i] + 1.0f);
    }
  for (int i = kWidth * kHeight; i < static_cast<int>(out.size()); ++i)
    if (out[i] != kSentinel) {
      if (bad_values++ < 5) std::printf("guard out[%d] = %g was written\n", i, out[i]);
    }
  const int expected_zeros = static_cast<int>(grid.x * grid.y) * kBoxW * kBoxH - kWidth * kHeight;
  if (zeros != expected_zeros) std::printf("zero-filled elements: %d, expected %d\n", zeros, expected_zeros);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_zeros);
  if (bad_values != 0 || zeros != expected_zeros) {
    std::printf("FAIL\n");
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
