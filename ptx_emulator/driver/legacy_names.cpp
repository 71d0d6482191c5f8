// Older exported names whose signature is the one of the variant cuda.h now
// maps them to (cuCtxDestroy and cuCtxDestroy_v2 differ only in the
// context's internals; cuGetProcAddress lacks only the status): a program
// built against an older toolkit calls these, so they run the same code.
// Older names with another signature (the 32-bit CUdeviceptr functions such
// as cuMemAlloc) stay "not supported" stubs: no CUDA 13 program calls them.
#include "ptx_emulator/driver/driver_api.h"

// cuda.h #defines these names to their newer variants.
#undef cuDeviceGetUuid
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxSetFlags
#undef cuDevicePrimaryCtxReset
#undef cuCtxDestroy
#undef cuCtxPushCurrent
#undef cuCtxPopCurrent
#undef cuStreamDestroy
#undef cuEventDestroy
#undef cuEventElapsedTime
#undef cuGetProcAddress

CU_EXPORT CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) { return cuDeviceGetUuid_v2(uuid, dev); }
CU_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return cuDevicePrimaryCtxRelease_v2(dev); }
CU_EXPORT CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags) {
  return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
}
CU_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev) { return cuDevicePrimaryCtxReset_v2(dev); }
CU_EXPORT CUresult cuCtxDestroy(CUcontext ctx) { return cuCtxDestroy_v2(ctx); }
CU_EXPORT CUresult cuCtxPushCurrent(CUcontext ctx) { return cuCtxPushCurrent_v2(ctx); }
CU_EXPORT CUresult cuCtxPopCurrent(CUcontext* pctx) { return cuCtxPopCurrent_v2(pctx); }
CU_EXPORT CUresult cuStreamDestroy(CUstream hStream) { return cuStreamDestroy_v2(hStream); }
CU_EXPORT CUresult cuEventDestroy(CUevent hEvent) { return cuEventDestroy_v2(hEvent); }
CU_EXPORT CUresult cuEventElapsedTime(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
  return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
}
CU_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags) {
  return cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, nullptr);
}
