// cudaGetDriverEntryPoint{,ByVersion} of the replacement runtime, through the
// built library: the query results, and the emulator's cuTensorMapEncodeTiled
// / cuTensorMapEncodeIm2col / cuTensorMapReplaceAddress reached through them.
#include <catch2/catch.hpp>

#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "ptx_emulator/runtime/cuda_api.h"

namespace {

using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                            const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                            CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
using Replace = CUresult (*)(CUtensorMap*, void*);

TEST_CASE("cudaGetDriverEntryPoint: query results, flags and versions", "[runtime][tma]") {
  void* fn = reinterpret_cast<void*>(1);
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointVersionNotSufficent;
  for (unsigned long long flags : {cudaEnableDefault, cudaEnableLegacyStream, cudaEnablePerThreadDefaultStream}) {
    INFO("flags " << flags);
    fn = nullptr;
    REQUIRE(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, flags, &q) == cudaSuccess);
    CHECK(q == cudaDriverEntryPointSuccess);
    CHECK(fn != nullptr);
    fn = nullptr;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    REQUIRE(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, flags, &q) == cudaSuccess);
#pragma GCC diagnostic pop
    CHECK(q == cudaDriverEntryPointSuccess);
    CHECK(fn != nullptr);
  }
  // Unknown symbols: success, a null pointer, SymbolNotFound.
  fn = reinterpret_cast<void*>(1);
  REQUIRE(cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &fn, 12000, cudaEnableDefault, &q) == cudaSuccess);
  CHECK(q == cudaDriverEntryPointSymbolNotFound);
  CHECK(fn == nullptr);
  // Found, but newer than the version asked for.
  fn = reinterpret_cast<void*>(1);
  REQUIRE(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 11080, cudaEnableDefault, &q) ==
          cudaSuccess);
  CHECK(q == cudaDriverEntryPointVersionNotSufficent);
  CHECK(fn == nullptr);
  // The status is optional.
  REQUIRE(cudaGetDriverEntryPointByVersion("cuTensorMapReplaceAddress", &fn, 13000, 0, nullptr) == cudaSuccess);
  CHECK(fn != nullptr);
  // Invalid arguments: null symbol or result, unknown flags, a version above the driver's.
  CHECK(cudaGetDriverEntryPointByVersion(nullptr, &fn, 12000, 0, &q) == cudaErrorInvalidValue);
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", nullptr, 12000, 0, &q) == cudaErrorInvalidValue);
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, 8, &q) == cudaErrorInvalidValue);
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 99000, 0, &q) == cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST_CASE("cuTensorMapEncodeTiled / ReplaceAddress through the entry point", "[runtime][tma]") {
  void* e = nullptr;
  void* r = nullptr;
  REQUIRE(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &e, 12000, 0, nullptr) == cudaSuccess);
  REQUIRE(cudaGetDriverEntryPointByVersion("cuTensorMapReplaceAddress", &r, 12000, 0, nullptr) == cudaSuccess);
  auto encode = reinterpret_cast<Encode>(e);
  auto replace = reinterpret_cast<Replace>(r);
  void* g = nullptr;
  REQUIRE(cudaMalloc(&g, 64 * 64 * 4) == cudaSuccess);
  const cuuint64_t dim[2] = {64, 64}, stride[1] = {256};
  const cuuint32_t box[2] = {32, 8}, es[2] = {1, 1};
  CUtensorMap map;
  CHECK(encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, g, dim, stride, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
               CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);
  const cuuint32_t bad_box[2] = {32, 257};
  CHECK(encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, g, dim, stride, bad_box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
               CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_ERROR_INVALID_VALUE);
  CHECK(encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 6, g, dim, stride, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
               CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_ERROR_INVALID_VALUE);
  CHECK(replace(&map, static_cast<char*>(g) + 256) == CUDA_SUCCESS);
  CHECK(replace(&map, static_cast<char*>(g) + 8) == CUDA_ERROR_INVALID_VALUE);
  CUtensorMap junk{};
  CHECK(replace(&junk, g) == CUDA_ERROR_INVALID_VALUE);
  cudaFree(g);
}

TEST_CASE("cuTensorMapEncodeIm2col through the entry point", "[runtime][tma][im2col]") {
  void* e = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  REQUIRE(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeIm2col", &e, 12000, 0, &q) == cudaSuccess);
  CHECK(q == cudaDriverEntryPointSuccess);
  REQUIRE(e != nullptr);
  // The driver API's own prototype (cuda.h).
  auto encode = reinterpret_cast<PFN_cuTensorMapEncodeIm2col_v12000>(e);
  void* g = nullptr;
  REQUIRE(cudaMalloc(&g, 2 * 5 * 6 * 8 * 4) == cudaSuccess);
  const cuuint64_t dim[4] = {8, 6, 5, 2}, stride[3] = {32, 32 * 6, 32 * 30};
  const cuuint32_t es[4] = {1, 1, 1, 1};
  const int lower[2] = {-1, -1}, upper[2] = {-1, -1}, far[2] = {-1, 200};
  CUtensorMap map;
  CHECK(encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, g, dim, stride, lower, upper, 8, 64, es,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);
  CHECK(encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, g, dim, stride, lower, far, 8, 64, es,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_ERROR_INVALID_VALUE);  // 4d corners are 8-bit
  CHECK(encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, g, dim, stride, lower, upper, 8, 64, es,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_ERROR_INVALID_VALUE);  // rank 3..5 only
  cudaFree(g);
}

}  // namespace

namespace {
TEST_CASE("cuGetErrorString / cuGetErrorName through the entry point", "[runtime][tma]") {
  using ResultFn = CUresult (*)(CUresult, const char**);
  void* s = nullptr;
  void* n = nullptr;
  REQUIRE(cudaGetDriverEntryPointByVersion("cuGetErrorString", &s, 12000, 0, nullptr) == cudaSuccess);
  REQUIRE(cudaGetDriverEntryPointByVersion("cuGetErrorName", &n, 12000, 0, nullptr) == cudaSuccess);
  REQUIRE(s != nullptr);
  REQUIRE(n != nullptr);
  const char* text = nullptr;
  CHECK(reinterpret_cast<ResultFn>(s)(CUDA_ERROR_INVALID_VALUE, &text) == CUDA_SUCCESS);
  CHECK(std::string(text) == "invalid argument");
  CHECK(reinterpret_cast<ResultFn>(n)(CUDA_SUCCESS, &text) == CUDA_SUCCESS);
  CHECK(std::string(text) == "CUDA_SUCCESS");
  // A value the emulator has no text for: CUDA_ERROR_INVALID_VALUE and a null
  // string, as the driver API documents for an unrecognised one.
  CHECK(reinterpret_cast<ResultFn>(s)(CUDA_ERROR_PROFILER_DISABLED, &text) == CUDA_ERROR_INVALID_VALUE);
  CHECK(text == nullptr);
  CHECK(reinterpret_cast<ResultFn>(n)(CUDA_SUCCESS, nullptr) == CUDA_ERROR_INVALID_VALUE);
}
}  // namespace
