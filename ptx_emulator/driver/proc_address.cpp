// cuGetProcAddress (v1, v2) and cuGetExportTable.
//
// A name resolves to the ABI variant a program built against CUDA 13's
// cuda.h calls by it (cuda.h's #define: cuMemAlloc -> cuMemAlloc_v2,
// cuCtxCreate -> cuCtxCreate_v4; proc_aliases.inc, generated), or to an
// older one when the caller asks for a CUDA version before that variant
// (kIntroduced), with the per-thread-default-stream flag to its _ptsz /
// _ptds form where one is exported. Every exported name resolves, a stub
// included (it says "not supported" when called, as a GPU-less driver would
// fail it); anything else is CUDA_ERROR_NOT_FOUND.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "ptx_emulator/driver/driver_api.h"
#include "ptx_emulator/driver/not_supported.h"

namespace barracuda::cuda_driver {
namespace {

struct Alias {
  const char* name;
  const char* target;
};
constexpr Alias kAliases[] = {
#include "proc_aliases.inc"
};

// When a variant appeared (CUDA version), where it is not 3.2 (the _v2 forms
// of the 64-bit API). An unlisted _v3 or later is taken as CUDA 13's.
struct Introduced {
  const char* name;
  int version;
};
constexpr Introduced kIntroduced[] = {
    {"cuCtxCreate_v3", 11040}, {"cuCtxCreate_v4", 12050},
    {"cuGetProcAddress_v2", 12000}, {"cuStreamBeginCapture_v2", 10010},
    {"cuDeviceGetUuid_v2", 11040}, {"cuDevicePrimaryCtxRelease_v2", 11000},
    {"cuDevicePrimaryCtxReset_v2", 11000}, {"cuDevicePrimaryCtxSetFlags_v2", 11000},
    {"cuEventElapsedTime_v2", 12080}, {"cuGraphInstantiateWithFlags", 11040},
    {"cuGraphExecUpdate_v2", 12000}, {"cuGraphAddKernelNode_v2", 12000},
    {"cuGraphKernelNodeGetParams_v2", 12000}, {"cuGraphKernelNodeSetParams_v2", 12000},
    {"cuGraphExecKernelNodeSetParams_v2", 12000}, {"cuStreamGetCaptureInfo_v2", 11030},
    {"cuStreamGetCaptureInfo_v3", 12030}, {"cuGraphGetEdges_v2", 12030},
    {"cuGraphNodeGetDependencies_v2", 12030}, {"cuGraphNodeGetDependentNodes_v2", 12030},
    {"cuGraphAddDependencies_v2", 12030}, {"cuGraphRemoveDependencies_v2", 12030},
    {"cuGraphAddNode_v2", 12030}, {"cuStreamUpdateCaptureDependencies_v2", 12030},
    {"cuStreamWriteValue32_v2", 11070}, {"cuStreamWaitValue32_v2", 11070},
    {"cuStreamWriteValue64_v2", 11070}, {"cuStreamWaitValue64_v2", 11070},
    {"cuStreamBatchMemOp_v2", 11070}, {"cuMemAdvise_v2", 12020},
    {"cuMemPrefetchAsync_v2", 12020}, {"cuIpcOpenMemHandle_v2", 11000},
};

void* Exported(const std::string& name) {
  // kProcTable is sorted by strcmp (libcuda_exports.txt, LC_ALL=C).
  const ProcEntry* begin = kProcTable;
  const ProcEntry* end = kProcTable + kProcTableSize;
  while (begin < end) {
    const ProcEntry* mid = begin + (end - begin) / 2;
    const int c = std::strcmp(mid->name, name.c_str());
    if (c == 0) return mid->address;
    if (c < 0) begin = mid + 1;
    else end = mid;
  }
  return nullptr;
}

int IntroducedIn(const std::string& variant) {
  for (const Introduced& i : kIntroduced)
    if (variant == i.name) return i.version;
  const size_t v = variant.rfind("_v");
  if (v == std::string::npos) return 0;
  return std::atoi(variant.c_str() + v + 2) == 2 ? 3020 : 13000;
}

// `variant` without its _vN suffix, or one version lower ("_v3" -> "_v2", "_v2" -> the base).
std::string Older(const std::string& variant) {
  const size_t v = variant.rfind("_v");
  if (v == std::string::npos) return variant;
  const int n = std::atoi(variant.c_str() + v + 2);
  return n > 2 ? variant.substr(0, v) + "_v" + std::to_string(n - 1) : variant.substr(0, v);
}

CUresult Lookup(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                CUdriverProcAddressQueryResult* status) {
  if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
  if (flags > (CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM))
    return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  auto set_status = [&](CUdriverProcAddressQueryResult s) {
    if (status) *status = s;
  };
  const std::string name = symbol;
  std::string variant = name;
  for (const Alias& a : kAliases)
    if (name == a.name) variant = a.target;
  // The newest variant the caller's CUDA version knows.
  while (variant != name && IntroducedIn(variant) > cudaVersion) {
    const std::string older = Older(variant);
    variant = older == variant ? name : older;
    if (!Exported(variant)) variant = name;
  }
  void* address = Exported(variant);
  if (!address) {
    set_status(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    return CUDA_ERROR_NOT_FOUND;
  }
  if (IntroducedIn(variant) > cudaVersion) {
    set_status(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    return CUDA_ERROR_NOT_FOUND;
  }
  if (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) {
    if (void* p = Exported(variant + "_ptsz")) address = p;
    else if (void* p = Exported(variant + "_ptds")) address = p;
  }
  *pfn = address;
  set_status(CU_GET_PROC_ADDRESS_SUCCESS);
  return CUDA_SUCCESS;
}

}  // namespace
}  // namespace barracuda::cuda_driver

CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                             CUdriverProcAddressQueryResult* symbolStatus) {
  return barracuda::cuda_driver::Lookup(symbol, pfn, cudaVersion, flags, symbolStatus);
}

// NVIDIA's private tables (used by its own runtime and tools) are not
// emulated: the replacement runtime never asks for them. NVIDIA's runtime
// does, first thing: a program linked with the static runtime (nvcc's
// default) run with LD_LIBRARY_PATH alone then fails its first CUDA call with
// "operation not supported"; say why, once.
CUresult cuGetExportTable(const void** ppExportTable, const CUuuid*) {
  static std::once_flag once;
  std::call_once(once, [] {
    std::fprintf(stderr,
                 "barracuda emulator: NVIDIA's CUDA runtime asked for its private driver tables, which the emulator "
                 "does not have: this program links the CUDA runtime statically (nvcc's default). Run it under "
                 "barracuda (barracuda ./app), which takes that runtime over, or build it with -cudart shared.\n");
  });
  if (ppExportTable) *ppExportTable = nullptr;
  return CUDA_ERROR_NOT_SUPPORTED;
}
