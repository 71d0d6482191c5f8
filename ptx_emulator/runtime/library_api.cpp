// The runtime's library management (CUDA 12+): cudaLibraryLoadData /
// LoadFromFile / Unload, kernels and globals of a library, and
// cudaKernelSetAttributeForDevice. The replacement libcuda.so.1 runs the
// driver's cuModuleLoad* / cuLibraryLoad* through these, so a module loaded
// either way is a FatbinModule like a registered one: loaded by
// Runtime::EnsureLoaded, launched through the same Launch (traced, with the
// PTX's .loc lines), its kernels' cudaKernel_t handles accepted by every launch
// and attribute entry point.
//
// A library is loaded when it is created (the driver's JIT compiles at load
// time too), so a module the emulator cannot run fails here, with its message
// on stderr, rather than at its first launch. JIT and library options are
// accepted and ignored: the emulator has no JIT to tune, and a library's code
// is loaded into the single context at once.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/runtime/runtime_state.h"

using barracuda::cudart::FatbinModule;
using barracuda::cudart::RegisteredKernel;
using barracuda::cudart::Runtime;

namespace {

cudaError_t Load(cudaLibrary_t* library, const void* code) {
  Runtime& rt = Runtime::Get();
  if (!library || !code) return rt.Fail(cudaErrorInvalidValue);
  if (cudaError_t s = rt.sticky()) return rt.Fail(s);
  FatbinModule* m = rt.AddLibrary(code);
  if (cudaError_t e = rt.LoadLibrary(m); e != cudaSuccess) {
    rt.UnloadLibrary(m);
    return rt.Fail(e);
  }
  *library = reinterpret_cast<cudaLibrary_t>(m);
  return cudaSuccess;
}

// A library's global or managed variable by PTX name; told to the barracuda
// session as a module global the first time (reports name what they touch).
cudaError_t Global(void** dptr, size_t* bytes, cudaLibrary_t library, const char* name, bool managed) {
  Runtime& rt = Runtime::Get();
  FatbinModule* m = rt.LibraryByHandle(library);
  if (!m) return rt.Fail(cudaErrorInvalidResourceHandle);
  if (!name || (!dptr && !bytes)) return rt.Fail(cudaErrorInvalidValue);
  if (cudaError_t e = rt.EnsureLoaded(m); e != cudaSuccess) return rt.Fail(e);
  auto g = rt.device().FindVariable(m->link_unit, name);
  if (!g.ok() || (managed && !g->managed)) return rt.Fail(cudaErrorSymbolNotFound);
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(rt.mu());
    first = m->reported_globals.insert(name).second;
  }
  if (first && rt.session_sink())
    rt.session_sink()->OnAllocation(reinterpret_cast<uint64_t>(g->address), g->size,
                                    barracuda::transport::AllocationKind::kModuleGlobal, name);
  if (dptr) *dptr = g->address;
  if (bytes) *bytes = g->size;
  return cudaSuccess;
}

}  // namespace

CUDART_EXPORT cudaError_t cudaLibraryLoadData(cudaLibrary_t* library, const void* code, cudaJitOption*, void**,
                                              unsigned int, cudaLibraryOption*, void**, unsigned int) {
  return Load(library, code);
}

CUDART_EXPORT cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t* library, const char* fileName, cudaJitOption*,
                                                  void**, unsigned int, cudaLibraryOption*, void**, unsigned int) {
  Runtime& rt = Runtime::Get();
  if (!library || !fileName) return rt.Fail(cudaErrorInvalidValue);
  std::ifstream in(fileName, std::ios::binary);
  if (!in) {
    barracuda::cudart::PrintDiagnostic(absl::StrCat("cudaLibraryLoadFromFile: cannot open ", fileName));
    return rt.Fail(cudaErrorFileNotFound);
  }
  // NUL-terminated, so that a PTX file reads as PTX text.
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes.push_back('\0');
  // 8-aligned, as a fat binary's fields are read in place.
  std::vector<uint64_t> aligned((bytes.size() + 7) / 8);
  std::memcpy(aligned.data(), bytes.data(), bytes.size());
  return Load(library, aligned.data());
}

CUDART_EXPORT cudaError_t cudaLibraryUnload(cudaLibrary_t library) {
  Runtime& rt = Runtime::Get();
  FatbinModule* m = rt.LibraryByHandle(library);
  if (!m || !rt.UnloadLibrary(m)) return rt.Fail(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaLibraryGetKernel(cudaKernel_t* kernel, cudaLibrary_t library, const char* name) {
  Runtime& rt = Runtime::Get();
  FatbinModule* m = rt.LibraryByHandle(library);
  if (!m) return rt.Fail(cudaErrorInvalidResourceHandle);
  if (!kernel || !name) return rt.Fail(cudaErrorInvalidValue);
  for (RegisteredKernel* k : m->kernels) {
    if (k->name != name) continue;
    *kernel = reinterpret_cast<cudaKernel_t>(k);
    return cudaSuccess;
  }
  return rt.Fail(cudaErrorSymbolNotFound);
}

CUDART_EXPORT cudaError_t cudaLibraryGetKernelCount(unsigned int* count, cudaLibrary_t library) {
  Runtime& rt = Runtime::Get();
  FatbinModule* m = rt.LibraryByHandle(library);
  if (!m) return rt.Fail(cudaErrorInvalidResourceHandle);
  if (!count) return rt.Fail(cudaErrorInvalidValue);
  *count = static_cast<unsigned>(m->kernels.size());
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaLibraryEnumerateKernels(cudaKernel_t* kernels, unsigned int numKernels,
                                                      cudaLibrary_t library) {
  Runtime& rt = Runtime::Get();
  FatbinModule* m = rt.LibraryByHandle(library);
  if (!m) return rt.Fail(cudaErrorInvalidResourceHandle);
  if (!kernels || numKernels == 0) return rt.Fail(cudaErrorInvalidValue);
  // As documented: at most numKernels handles, in the library's order.
  for (size_t i = 0; i < m->kernels.size() && i < numKernels; ++i)
    kernels[i] = reinterpret_cast<cudaKernel_t>(m->kernels[i]);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaLibraryGetGlobal(void** dptr, size_t* bytes, cudaLibrary_t library, const char* name) {
  return Global(dptr, bytes, library, name, /*managed=*/false);
}

CUDART_EXPORT cudaError_t cudaLibraryGetManaged(void** dptr, size_t* bytes, cudaLibrary_t library, const char* name) {
  return Global(dptr, bytes, library, name, /*managed=*/true);
}

// One device: an attribute for device 0 is the kernel's attribute.
CUDART_EXPORT cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel, cudaFuncAttribute attr, int value,
                                                          int device) {
  if (device != 0) return Runtime::Get().Fail(cudaErrorInvalidDevice);
  return cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), attr, value);
}
