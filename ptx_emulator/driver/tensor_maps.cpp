// The TMA tensor-map functions. Their maps are in the emulator's own layout,
// which only its cp.async.bulk.tensor reads (ptx_emulator/ops/tensor_map.h);
// the runtime hands out the implementation through
// cudaGetDriverEntryPoint, so the driver takes the same one from there.
#include "ptx_emulator/driver/driver_api.h"

namespace {

template <typename Fn>
Fn FromRuntime(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status;
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &status) != cudaSuccess ||
      status != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<Fn>(fn);
}

}  // namespace

CUresult cuTensorMapEncodeTiled(CUtensorMap* tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
                                void* globalAddress, const cuuint64_t* globalDim, const cuuint64_t* globalStrides,
                                const cuuint32_t* boxDim, const cuuint32_t* elementStrides,
                                CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill) {
  static const auto fn = FromRuntime<decltype(&cuTensorMapEncodeTiled)>("cuTensorMapEncodeTiled");
  if (!fn) return CUDA_ERROR_NOT_SUPPORTED;
  return fn(tensorMap, tensorDataType, tensorRank, globalAddress, globalDim, globalStrides, boxDim, elementStrides,
            interleave, swizzle, l2Promotion, oobFill);
}

CUresult cuTensorMapEncodeIm2col(CUtensorMap* tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
                                 void* globalAddress, const cuuint64_t* globalDim, const cuuint64_t* globalStrides,
                                 const int* pixelBoxLowerCorner, const int* pixelBoxUpperCorner,
                                 cuuint32_t channelsPerPixel, cuuint32_t pixelsPerColumn,
                                 const cuuint32_t* elementStrides, CUtensorMapInterleave interleave,
                                 CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
                                 CUtensorMapFloatOOBfill oobFill) {
  static const auto fn = FromRuntime<decltype(&cuTensorMapEncodeIm2col)>("cuTensorMapEncodeIm2col");
  if (!fn) return CUDA_ERROR_NOT_SUPPORTED;
  return fn(tensorMap, tensorDataType, tensorRank, globalAddress, globalDim, globalStrides, pixelBoxLowerCorner,
            pixelBoxUpperCorner, channelsPerPixel, pixelsPerColumn, elementStrides, interleave, swizzle, l2Promotion,
            oobFill);
}

CUresult cuTensorMapReplaceAddress(CUtensorMap* tensorMap, void* globalAddress) {
  static const auto fn = FromRuntime<decltype(&cuTensorMapReplaceAddress)>("cuTensorMapReplaceAddress");
  if (!fn) return CUDA_ERROR_NOT_SUPPORTED;
  return fn(tensorMap, globalAddress);
}
