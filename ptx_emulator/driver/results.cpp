// CUresult: the runtime's errors as the driver reports them, cuGetErrorName /
// cuGetErrorString, and the "not supported" report of the generated stubs.
#include <cstdio>

#include "ptx_emulator/driver/driver_api.h"
#include "ptx_emulator/driver/not_supported.h"

namespace barracuda::cuda_driver {
namespace {

struct ResultRow {
  int value;
  const char* name;
  const char* doc;  // first sentence of cuda.h's comment
};
constexpr ResultRow kResults[] = {
#include "result_table.inc"
};

const ResultRow* Find(int value) {
  for (const ResultRow& r : kResults)
    if (r.value == value) return &r;
  return nullptr;
}

}  // namespace

CUresult ToResult(cudaError_t e) {
  switch (e) {
    case cudaErrorInvalidConfiguration:
    case cudaErrorInvalidPitchValue:
    case cudaErrorInvalidHostPointer:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidMemcpyDirection:
    case cudaErrorInvalidChannelDescriptor:
    case cudaErrorInvalidTexture:
    case cudaErrorMissingConfiguration: return CUDA_ERROR_INVALID_VALUE;
    case cudaErrorInvalidSymbol: return CUDA_ERROR_NOT_FOUND;
    case cudaErrorInvalidDeviceFunction: return CUDA_ERROR_INVALID_HANDLE;
    case cudaErrorPriorLaunchFailure: return CUDA_ERROR_LAUNCH_FAILED;
    default: break;
  }
  return Find(static_cast<int>(e)) ? static_cast<CUresult>(e) : CUDA_ERROR_UNKNOWN;
}

int NotSupportedOnce::Report(const char* name) {
  if (!reported_.exchange(true)) {
    std::fprintf(stderr, "barracuda emulator: %s is not supported\n", name);
    std::fflush(stderr);
  }
  return CUDA_ERROR_NOT_SUPPORTED;
}

}  // namespace barracuda::cuda_driver

using barracuda::cuda_driver::Find;

CUresult cuGetErrorName(CUresult error, const char** pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  const auto* r = Find(static_cast<int>(error));
  *pStr = r ? r->name : nullptr;
  return r ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// The runtime's text where it knows the value (the same words the driver
// uses: "invalid argument", "an illegal memory access was encountered"...),
// else the first sentence of cuda.h's documentation of the value.
CUresult cuGetErrorString(CUresult error, const char** pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  const auto* r = Find(static_cast<int>(error));
  if (!r) {
    *pStr = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
  const char* runtime = cudaGetErrorName(static_cast<cudaError_t>(error));
  const bool known = runtime && runtime[0] == 'c';  // "cudaError..." / "cudaSuccess", not "unrecognized..."
  *pStr = known ? cudaGetErrorString(static_cast<cudaError_t>(error)) : r->doc;
  return CUDA_SUCCESS;
}
