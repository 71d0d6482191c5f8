// CUDA arrays (cudaMallocArray, cudaMalloc3DArray) on the emulator.
//
// An array is a device allocation from the DeviceMemory arena (so memcheck,
// the session's allocation attribution and the detector see its bytes like
// cudaMalloc's) laid out row-major with no padding: element (x, y, z) at
//   data + ((z * rows) + y) * pitch + x * element_bytes,
// pitch = width * element_bytes, rows = max(height, 1); layers of a layered
// array are its z slices. Only the emulator reads this layout (texture and
// surface objects, ops/texture_objects.h), so it is the simplest one.
// cudaArray_t points at the runtime's CudaArray record, never at the data.
#ifndef BARRACUDA_PTX_EMULATOR_RUNTIME_ARRAYS_H_
#define BARRACUDA_PTX_EMULATOR_RUNTIME_ARRAYS_H_

#include <cstddef>

#include "ptx_emulator/runtime/cuda_api.h"

namespace barracuda::cudart {

struct CudaArray {
  char* data = nullptr;
  cudaChannelFormatDesc desc{};
  cudaExtent extent{};      // as allocated (height 0: 1D, depth 0: no 3rd dimension)
  unsigned int flags = 0;   // cudaArrayLayered, cudaArraySurfaceLoadStore, ...
  size_t element_bytes = 0;
  size_t pitch = 0;         // bytes per row
  size_t rows = 0;          // rows per slice: max(height, 1)
  size_t slices = 0;        // max(depth, 1)
};

// The live array `a` names, or nullptr.
const CudaArray* FindArray(cudaArray_const_t a);

// Bytes of one element of `desc` when it is a format arrays and textures
// support (1, 2 or 4 channels of equal 8/16/32-bit width; half for 16-bit
// float); 0 otherwise.
size_t ElementBytes(const cudaChannelFormatDesc& desc);

// Rewrites the array sides of a 3D copy as pitched pointers (positions and
// extent width in bytes); cudaErrorInvalidValue for an unknown array or a
// copy that leaves it.
cudaError_t ArraysAsPitched(cudaMemcpy3DParms& p);

// memory.cpp: a cudaMalloc-like device allocation and its release.
cudaError_t AllocateDevice(void** ptr, size_t size);
cudaError_t FreeDevice(void* ptr);

}  // namespace barracuda::cudart

#endif  // BARRACUDA_PTX_EMULATOR_RUNTIME_ARRAYS_H_
