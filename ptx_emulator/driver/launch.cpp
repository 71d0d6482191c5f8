// Kernel launches and occupancy: cuLaunchKernel (kernelParams, or the
// `extra` CU_LAUNCH_PARAM_BUFFER_POINTER form unpacked into kernelParams with
// the kernel's parameter layout), cuLaunchKernelEx, cuLaunchCooperativeKernel,
// cuLaunchHostFunc, each with its _ptsz variant, all run by the runtime's
// launch entry points (the same traced path as <<<>>> launches).
#include <vector>

#include "ptx_emulator/driver/driver_api.h"

using barracuda::cuda_driver::CheckInit;
using barracuda::cuda_driver::Kernel;
using barracuda::cuda_driver::PerThread;
using barracuda::cuda_driver::Stream;
using barracuda::cuda_driver::ToResult;

namespace {

// The argument pointers to pass the runtime: kernelParams as given, or one
// pointer into the `extra` buffer per parameter. Exactly one of the two may
// be given, as for the driver; none only for a kernel without parameters.
CUresult Arguments(CUfunction f, void** kernelParams, void** extra, std::vector<void*>* unpacked, void*** args) {
  size_t offset = 0, size = 0;
  const bool has_params = cudaFuncGetParamInfo(Kernel(f), 0, &offset, &size) == cudaSuccess;
  cudaGetLastError();  // the probe of a kernel without parameters is no error of the program
  if (kernelParams && extra) return CUDA_ERROR_INVALID_VALUE;
  if (kernelParams || !extra) {
    if (!kernelParams && has_params) return CUDA_ERROR_INVALID_VALUE;
    *args = kernelParams;
    return CUDA_SUCCESS;
  }
  char* buffer = nullptr;
  size_t buffer_size = 0;
  bool size_given = false;
  for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
      buffer = static_cast<char*>(extra[i + 1]);
    } else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
      if (!extra[i + 1]) return CUDA_ERROR_INVALID_VALUE;
      buffer_size = *static_cast<const size_t*>(extra[i + 1]);
      size_given = true;
    } else {
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  if (!buffer || !size_given) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; cudaFuncGetParamInfo(Kernel(f), i, &offset, &size) == cudaSuccess; ++i) {
    if (offset + size > buffer_size) {
      cudaGetLastError();
      return CUDA_ERROR_INVALID_VALUE;
    }
    unpacked->push_back(buffer + offset);
  }
  cudaGetLastError();
  *args = unpacked->data();
  return CUDA_SUCCESS;
}

CUresult Launch(CUfunction f, dim3 grid, dim3 block, unsigned shared, cudaStream_t stream, void** kernelParams,
                void** extra, bool cooperative) {
  if (CUresult r = CheckInit()) return r;
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  std::vector<void*> unpacked;
  void** args = nullptr;
  if (CUresult r = Arguments(f, kernelParams, extra, &unpacked, &args)) return r;
  return ToResult(cooperative ? cudaLaunchCooperativeKernel(Kernel(f), grid, block, args, shared, stream)
                              : cudaLaunchKernel(Kernel(f), grid, block, args, shared, stream));
}

// CUlaunchAttribute is cudaLaunchAttribute under another name: same ids, same
// value union.
static_assert(sizeof(CUlaunchAttribute) == sizeof(cudaLaunchAttribute));
static_assert(static_cast<int>(CU_LAUNCH_ATTRIBUTE_COOPERATIVE) == static_cast<int>(cudaLaunchAttributeCooperative) &&
              static_cast<int>(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) ==
                  static_cast<int>(cudaLaunchAttributeClusterDimension));

CUresult LaunchEx(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra, bool per_thread) {
  if (CUresult r = CheckInit()) return r;
  if (!config || !f) return CUDA_ERROR_INVALID_VALUE;
  std::vector<void*> unpacked;
  void** args = nullptr;
  if (CUresult r = Arguments(f, kernelParams, extra, &unpacked, &args)) return r;
  cudaLaunchConfig_t c{};
  c.gridDim = dim3(config->gridDimX, config->gridDimY, config->gridDimZ);
  c.blockDim = dim3(config->blockDimX, config->blockDimY, config->blockDimZ);
  c.dynamicSmemBytes = config->sharedMemBytes;
  c.stream = per_thread ? PerThread(config->hStream) : Stream(config->hStream);
  c.attrs = reinterpret_cast<cudaLaunchAttribute*>(config->attrs);
  c.numAttrs = config->numAttrs;
  return ToResult(cudaLaunchKernelExC(&c, Kernel(f), args));
}

}  // namespace

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                        unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                        unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra) {
  return Launch(f, dim3(gridDimX, gridDimY, gridDimZ), dim3(blockDimX, blockDimY, blockDimZ), sharedMemBytes,
                Stream(hStream), kernelParams, extra, false);
}

CU_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                       unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                       unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                       void** kernelParams, void** extra) {
  return Launch(f, dim3(gridDimX, gridDimY, gridDimZ), dim3(blockDimX, blockDimY, blockDimZ), sharedMemBytes,
                PerThread(hStream), kernelParams, extra, false);
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                   unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                   unsigned int sharedMemBytes, CUstream hStream, void** kernelParams) {
  return Launch(f, dim3(gridDimX, gridDimY, gridDimZ), dim3(blockDimX, blockDimY, blockDimZ), sharedMemBytes,
                Stream(hStream), kernelParams, nullptr, true);
}

CU_EXPORT CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                                  unsigned int gridDimZ, unsigned int blockDimX,
                                                  unsigned int blockDimY, unsigned int blockDimZ,
                                                  unsigned int sharedMemBytes, CUstream hStream,
                                                  void** kernelParams) {
  return Launch(f, dim3(gridDimX, gridDimY, gridDimZ), dim3(blockDimX, blockDimY, blockDimZ), sharedMemBytes,
                PerThread(hStream), kernelParams, nullptr, true);
}

CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra) {
  return LaunchEx(config, f, kernelParams, extra, false);
}

CU_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f, void** kernelParams,
                                         void** extra) {
  return LaunchEx(config, f, kernelParams, extra, true);
}

CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void* userData) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaLaunchHostFunc(Stream(hStream), fn, userData));
}

CU_EXPORT CUresult cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void* userData) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaLaunchHostFunc(PerThread(hStream), fn, userData));
}

// ---------------------------------------------------------------- occupancy

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, CUfunction func, int blockSize,
                                                              size_t dynamicSMemSize, unsigned int flags) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(
      cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, Kernel(func), blockSize, dynamicSMemSize, flags));
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, CUfunction func, int blockSize,
                                                     size_t dynamicSMemSize) {
  return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t* dynamicSmemSize, CUfunction func, int numBlocks,
                                                 int blockSize) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, Kernel(func), numBlocks, blockSize));
}
