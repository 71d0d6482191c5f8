// Modules, libraries, functions and kernels: the runtime's library API under
// the driver's names. A CUmodule and a CUlibrary are the same cudaLibrary_t
// (cuLibraryGetModule returns its argument), a CUfunction and a CUkernel the
// same cudaKernel_t (cuKernelGetFunction likewise), so launches and
// attributes take either.
#include <cstring>

#include "ptx_emulator/driver/driver_api.h"

using barracuda::cuda_driver::CheckInit;
using barracuda::cuda_driver::DevPtr;
using barracuda::cuda_driver::Kernel;
using barracuda::cuda_driver::ToResult;

namespace {

cudaLibrary_t Library(CUmodule m) { return reinterpret_cast<cudaLibrary_t>(m); }
cudaLibrary_t Library(CUlibrary l) { return reinterpret_cast<cudaLibrary_t>(l); }

// The JIT's log buffers are left empty: the emulator has no JIT to log, and
// its load errors are printed on stderr.
void EmptyJitLogs(unsigned int numOptions, const CUjit_option* options, void** optionValues) {
  if (!options || !optionValues) return;
  for (unsigned i = 0; i < numOptions; ++i) {
    if ((options[i] == CU_JIT_INFO_LOG_BUFFER || options[i] == CU_JIT_ERROR_LOG_BUFFER) && optionValues[i])
      static_cast<char*>(optionValues[i])[0] = '\0';
  }
}

CUresult LoadData(cudaLibrary_t* out, const void* image) {
  if (CUresult r = CheckInit()) return r;
  if (!out || !image) return CUDA_ERROR_INVALID_VALUE;
  return ToResult(cudaLibraryLoadData(out, image, nullptr, nullptr, 0, nullptr, nullptr, 0));
}

CUresult GetGlobal(CUdeviceptr* dptr, size_t* bytes, cudaLibrary_t library, const char* name, bool managed) {
  if (CUresult r = CheckInit()) return r;
  void* address = nullptr;
  const cudaError_t e = managed ? cudaLibraryGetManaged(&address, bytes, library, name)
                                : cudaLibraryGetGlobal(&address, bytes, library, name);
  if (e == cudaSuccess && dptr) *dptr = DevPtr(address);
  return ToResult(e);
}

}  // namespace

// ---------------------------------------------------------------- modules

CUresult cuModuleLoad(CUmodule* module, const char* fname) {
  if (CUresult r = CheckInit()) return r;
  if (!module || !fname) return CUDA_ERROR_INVALID_VALUE;
  return ToResult(cudaLibraryLoadFromFile(reinterpret_cast<cudaLibrary_t*>(module), fname, nullptr, nullptr, 0,
                                          nullptr, nullptr, 0));
}

CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  return LoadData(reinterpret_cast<cudaLibrary_t*>(module), image);
}

CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int numOptions, CUjit_option* options,
                            void** optionValues) {
  EmptyJitLogs(numOptions, options, optionValues);
  return LoadData(reinterpret_cast<cudaLibrary_t*>(module), image);
}

CUresult cuModuleLoadFatBinary(CUmodule* module, const void* fatCubin) {
  return LoadData(reinterpret_cast<cudaLibrary_t*>(module), fatCubin);
}

CUresult cuModuleUnload(CUmodule hmod) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaLibraryUnload(Library(hmod)));
}

CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaLibraryGetKernel(reinterpret_cast<cudaKernel_t*>(hfunc), Library(hmod), name));
}

CUresult cuModuleGetFunctionCount(unsigned int* count, CUmodule mod) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaLibraryGetKernelCount(count, Library(mod)));
}

CUresult cuModuleEnumerateFunctions(CUfunction* functions, unsigned int numFunctions, CUmodule mod) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaLibraryEnumerateKernels(reinterpret_cast<cudaKernel_t*>(functions), numFunctions, Library(mod)));
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr* dptr, size_t* bytes, CUmodule hmod, const char* name) {
  return GetGlobal(dptr, bytes, Library(hmod), name, /*managed=*/false);
}

CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode* mode) {
  if (!mode) return CUDA_ERROR_INVALID_VALUE;
  *mode = CU_MODULE_EAGER_LOADING;  // a module is loaded when it is created
  return CUDA_SUCCESS;
}

// ---------------------------------------------------------------- libraries

CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option* jitOptions, void** jitOptionsValues,
                           unsigned int numJitOptions, CUlibraryOption*, void**, unsigned int) {
  EmptyJitLogs(numJitOptions, jitOptions, jitOptionsValues);
  return LoadData(reinterpret_cast<cudaLibrary_t*>(library), code);
}

CUresult cuLibraryLoadFromFile(CUlibrary* library, const char* fileName, CUjit_option* jitOptions,
                               void** jitOptionsValues, unsigned int numJitOptions, CUlibraryOption*, void**,
                               unsigned int) {
  EmptyJitLogs(numJitOptions, jitOptions, jitOptionsValues);
  return cuModuleLoad(reinterpret_cast<CUmodule*>(library), fileName);
}

CUresult cuLibraryUnload(CUlibrary library) { return cuModuleUnload(reinterpret_cast<CUmodule>(library)); }

CUresult cuLibraryGetKernel(CUkernel* pKernel, CUlibrary library, const char* name) {
  return cuModuleGetFunction(reinterpret_cast<CUfunction*>(pKernel), reinterpret_cast<CUmodule>(library), name);
}

CUresult cuLibraryGetKernelCount(unsigned int* count, CUlibrary lib) {
  return cuModuleGetFunctionCount(count, reinterpret_cast<CUmodule>(lib));
}

CUresult cuLibraryEnumerateKernels(CUkernel* kernels, unsigned int numKernels, CUlibrary lib) {
  return cuModuleEnumerateFunctions(reinterpret_cast<CUfunction*>(kernels), numKernels,
                                    reinterpret_cast<CUmodule>(lib));
}

CUresult cuLibraryGetModule(CUmodule* pMod, CUlibrary library) {
  if (CUresult r = CheckInit()) return r;
  unsigned count = 0;  // validates the handle
  if (cudaError_t e = cudaLibraryGetKernelCount(&count, Library(library))) return ToResult(e);
  if (!pMod) return CUDA_ERROR_INVALID_VALUE;
  *pMod = reinterpret_cast<CUmodule>(library);
  return CUDA_SUCCESS;
}

CUresult cuLibraryGetGlobal(CUdeviceptr* dptr, size_t* bytes, CUlibrary library, const char* name) {
  return GetGlobal(dptr, bytes, Library(library), name, /*managed=*/false);
}

CUresult cuLibraryGetManaged(CUdeviceptr* dptr, size_t* bytes, CUlibrary library, const char* name) {
  return GetGlobal(dptr, bytes, Library(library), name, /*managed=*/true);
}

CUresult cuKernelGetFunction(CUfunction* pFunc, CUkernel kernel) {
  if (CUresult r = CheckInit()) return r;
  const char* name = nullptr;  // validates the handle
  if (cudaError_t e = cudaFuncGetName(&name, Kernel(kernel))) return ToResult(e);
  if (!pFunc) return CUDA_ERROR_INVALID_VALUE;
  *pFunc = reinterpret_cast<CUfunction>(kernel);
  return CUDA_SUCCESS;
}

// ---------------------------------------------------------------- attributes

namespace {

CUresult GetAttribute(int* pi, CUfunction_attribute attrib, const void* func) {
  if (CUresult r = CheckInit()) return r;
  if (!pi) return CUDA_ERROR_INVALID_VALUE;
  cudaFuncAttributes a;
  if (cudaError_t e = cudaFuncGetAttributes(&a, func)) return ToResult(e);
  switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = a.maxThreadsPerBlock; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = static_cast<int>(a.sharedSizeBytes); break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = static_cast<int>(a.constSizeBytes); break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = static_cast<int>(a.localSizeBytes); break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = a.numRegs; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *pi = a.ptxVersion; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = a.binaryVersion; break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = a.cacheModeCA; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = a.maxDynamicSharedSizeBytes; break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = a.preferredShmemCarveout; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES and ..._PREFERRED_SHARED_MEMORY_CARVEOUT
// have the values of their cudaFuncAttribute twins; the runtime refuses the others.
CUresult SetAttribute(const void* func, CUfunction_attribute attrib, int value) {
  static_assert(static_cast<int>(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) ==
                    static_cast<int>(cudaFuncAttributeMaxDynamicSharedMemorySize) &&
                static_cast<int>(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) ==
                    static_cast<int>(cudaFuncAttributePreferredSharedMemoryCarveout));
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaFuncSetAttribute(func, static_cast<cudaFuncAttribute>(attrib), value));
}

}  // namespace

CUresult cuFuncGetAttribute(int* pi, CUfunction_attribute attrib, CUfunction hfunc) {
  return GetAttribute(pi, attrib, Kernel(hfunc));
}

CUresult cuKernelGetAttribute(int* pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev) {
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  return GetAttribute(pi, attrib, Kernel(kernel));
}

CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
  return SetAttribute(Kernel(hfunc), attrib, value);
}

CUresult cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel, CUdevice dev) {
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  return SetAttribute(Kernel(kernel), attrib, val);
}

// CUfunc_cache and cudaFuncCache have the same values.
CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaFuncSetCacheConfig(Kernel(hfunc), static_cast<cudaFuncCache>(config)));
}

CUresult cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev) {
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncSetCacheConfig(reinterpret_cast<CUfunction>(kernel), config);
}

CUresult cuFuncGetName(const char** name, CUfunction hfunc) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaFuncGetName(name, Kernel(hfunc)));
}

CUresult cuKernelGetName(const char** name, CUkernel kernel) {
  return cuFuncGetName(name, reinterpret_cast<CUfunction>(kernel));
}

CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t* paramOffset, size_t* paramSize) {
  if (CUresult r = CheckInit()) return r;
  return ToResult(cudaFuncGetParamInfo(Kernel(func), paramIndex, paramOffset, paramSize));
}

CUresult cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t* paramOffset, size_t* paramSize) {
  return cuFuncGetParamInfo(reinterpret_cast<CUfunction>(kernel), paramIndex, paramOffset, paramSize);
}

// A module's functions are loaded with it.
CUresult cuFuncIsLoaded(CUfunctionLoadingState* state, CUfunction function) {
  if (CUresult r = CheckInit()) return r;
  const char* name = nullptr;
  if (cudaError_t e = cudaFuncGetName(&name, Kernel(function))) return ToResult(e);
  if (!state) return CUDA_ERROR_INVALID_VALUE;
  *state = CU_FUNCTION_LOADING_STATE_LOADED;
  return CUDA_SUCCESS;
}

CUresult cuFuncLoad(CUfunction function) {
  CUfunctionLoadingState state;
  return cuFuncIsLoaded(&state, function);
}
