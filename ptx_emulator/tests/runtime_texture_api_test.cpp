// CUDA arrays and texture / surface objects through the built library
// (runtime/arrays.cpp, runtime/texture_api.cpp): argument checks, refusals and
// descriptor queries. Fetch semantics are tested by emu_texture_tests and the
// runtime/texture_* programs.
#include <catch2/catch.hpp>

#include "ptx_emulator/runtime/cuda_api.h"

namespace {

// The call's error, and the last error cleared for the next check.
cudaError_t Err(cudaError_t e) {
  cudaGetLastError();
  return e;
}

TEST_CASE("runtime: CUDA array allocation, queries and refusals", "[runtime][texture]") {
  cudaArray_t a = nullptr;
  cudaChannelFormatDesc three = cudaCreateChannelDesc(8, 8, 8, 0, cudaChannelFormatKindUnsigned);
  CHECK(Err(cudaMallocArray(&a, &three, 4, 4)) == cudaErrorInvalidChannelDescriptor);
  cudaChannelFormatDesc mixed = cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindUnsigned);
  CHECK(Err(cudaMallocArray(&a, &mixed, 4, 4)) == cudaErrorInvalidChannelDescriptor);
  cudaChannelFormatDesc f8 = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindFloat);
  CHECK(Err(cudaMallocArray(&a, &f8, 4, 4)) == cudaErrorInvalidChannelDescriptor);
  cudaChannelFormatDesc half2 = cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindFloat);
  CHECK(Err(cudaMalloc3DArray(&a, &half2, make_cudaExtent(4, 4, 0), cudaArrayLayered)) == cudaErrorInvalidValue);
  CHECK(Err(cudaMalloc3DArray(&a, &half2, make_cudaExtent(4, 4, 6), cudaArrayCubemap)) == cudaErrorNotSupported);
  REQUIRE(cudaMalloc3DArray(&a, &half2, make_cudaExtent(5, 3, 2), cudaArrayLayered) == cudaSuccess);
  cudaChannelFormatDesc d{};
  cudaExtent e{};
  unsigned flags = 0;
  REQUIRE(cudaArrayGetInfo(&d, &e, &flags, a) == cudaSuccess);
  CHECK((e.width == 5 && e.height == 3 && e.depth == 2));
  CHECK(flags == cudaArrayLayered);
  CHECK((d.x == 16 && d.y == 16 && d.z == 0 && d.f == cudaChannelFormatKindFloat));
  cudaChannelFormatDesc g{};
  REQUIRE(cudaGetChannelDesc(&g, a) == cudaSuccess);
  CHECK(g.y == 16);
  CHECK(cudaFreeArray(a) == cudaSuccess);
  CHECK(Err(cudaFreeArray(a)) == cudaErrorInvalidValue);
  CHECK(Err(cudaArrayGetInfo(&d, &e, &flags, a)) == cudaErrorInvalidValue);
  CHECK(cudaFreeArray(nullptr) == cudaSuccess);
}

TEST_CASE("runtime: texture and surface object checks and descriptor queries", "[runtime][texture]") {
  cudaChannelFormatDesc i32 = cudaCreateChannelDesc<int>();
  cudaChannelFormatDesc u8 = cudaCreateChannelDesc<unsigned char>();
  cudaArray_t ints = nullptr, bytes = nullptr;
  REQUIRE(cudaMallocArray(&ints, &i32, 8, 8, cudaArraySurfaceLoadStore) == cudaSuccess);
  REQUIRE(cudaMallocArray(&bytes, &u8, 8, 8) == cudaSuccess);
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = ints;
  cudaTextureDesc td{};
  td.addressMode[0] = cudaAddressModeBorder;
  td.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t t = 0;
  // 32-bit integers cannot be read as normalized floats, 8-bit ones can.
  CHECK(Err(cudaCreateTextureObject(&t, &res, &td, nullptr)) == cudaErrorInvalidNormSetting);
  td.readMode = cudaReadModeElementType;
  td.filterMode = cudaFilterModeLinear;
  CHECK(Err(cudaCreateTextureObject(&t, &res, &td, nullptr)) == cudaErrorInvalidFilterSetting);
  res.res.array.array = bytes;
  td.readMode = cudaReadModeNormalizedFloat;
  REQUIRE(cudaCreateTextureObject(&t, &res, &td, nullptr) == cudaSuccess);
  CHECK(t != 0);
  cudaTextureDesc back{};
  REQUIRE(cudaGetTextureObjectTextureDesc(&back, t) == cudaSuccess);
  CHECK((back.addressMode[0] == cudaAddressModeBorder && back.filterMode == cudaFilterModeLinear));
  cudaResourceDesc rback{};
  REQUIRE(cudaGetTextureObjectResourceDesc(&rback, t) == cudaSuccess);
  CHECK(rback.res.array.array == bytes);
  // A texture handle is not a surface handle.
  CHECK(Err(cudaDestroySurfaceObject(t)) == cudaErrorInvalidValue);
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
  CHECK(Err(cudaDestroyTextureObject(t)) == cudaErrorInvalidValue);
  CHECK(Err(cudaGetTextureObjectTextureDesc(&back, t)) == cudaErrorInvalidValue);

  // Refused: resource views, mipmapped arrays, a freed array, a bad pitch.
  cudaResourceViewDesc view{};
  CHECK(Err(cudaCreateTextureObject(&t, &res, &td, &view)) == cudaErrorNotSupported);
  cudaResourceDesc mip{};
  mip.resType = cudaResourceTypeMipmappedArray;
  CHECK(Err(cudaCreateTextureObject(&t, &mip, &td, nullptr)) == cudaErrorNotSupported);
  void* p = nullptr;
  REQUIRE(cudaMalloc(&p, 1024) == cudaSuccess);
  cudaResourceDesc pitched{};
  pitched.resType = cudaResourceTypePitch2D;
  pitched.res.pitch2D.devPtr = p;
  pitched.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  pitched.res.pitch2D.width = 16;
  pitched.res.pitch2D.height = 4;
  pitched.res.pitch2D.pitchInBytes = 32;  // < 16 floats
  td = cudaTextureDesc{};
  CHECK(Err(cudaCreateTextureObject(&t, &pitched, &td, nullptr)) == cudaErrorInvalidValue);
  pitched.res.pitch2D.pitchInBytes = 64;
  REQUIRE(cudaCreateTextureObject(&t, &pitched, &td, nullptr) == cudaSuccess);
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);

  // Surfaces: arrays made for load/store only.
  cudaSurfaceObject_t s = 0;
  CHECK(Err(cudaCreateSurfaceObject(&s, &res)) == cudaErrorInvalidValue);  // bytes: no flag
  res.res.array.array = ints;
  REQUIRE(cudaCreateSurfaceObject(&s, &res) == cudaSuccess);
  REQUIRE(cudaGetSurfaceObjectResourceDesc(&rback, s) == cudaSuccess);
  CHECK(rback.res.array.array == ints);
  CHECK(Err(cudaDestroyTextureObject(s)) == cudaErrorInvalidValue);
  CHECK(cudaDestroySurfaceObject(s) == cudaSuccess);
  CHECK(cudaFreeArray(ints) == cudaSuccess);
  res.res.array.array = ints;
  CHECK(Err(cudaCreateSurfaceObject(&s, &res)) == cudaErrorInvalidResourceHandle);
  // A 3D copy naming a freed array.
  cudaMemcpy3DParms copy{};
  copy.srcArray = ints;
  copy.dstPtr = make_cudaPitchedPtr(p, 64, 16, 4);
  copy.extent = make_cudaExtent(8, 1, 1);
  copy.kind = cudaMemcpyDeviceToDevice;
  CHECK(Err(cudaMemcpy3D(&copy)) == cudaErrorInvalidValue);
  CHECK(cudaFreeArray(bytes) == cudaSuccess);
  CHECK(cudaFree(p) == cudaSuccess);
}

}  // namespace
