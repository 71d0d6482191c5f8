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
#include <link.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
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

// Defined by the replacement runtime (runtime/session_notes.cpp): kernels
// that cannot run, told to the barracuda session.
extern "C" void __barracudaEmuNoteNotRun(int cuda_error, const char* what, const char* reason);

namespace barracuda::cuda_driver {
namespace {

// The loaded object whose segments hold `address`: its file name, and
// whether it is the main program (dl_iterate_phdr lists that one first).
struct CallerObject {
  std::string name;  // base name; "" when not found
  bool main_program = false;
};
CallerObject ObjectOf(const void* address) {
  struct Search {
    uintptr_t address;
    int index = 0;
    CallerObject found;
  } search{reinterpret_cast<uintptr_t>(address), 0, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        const int index = s->index++;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD) continue;
          const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
          if (s->address < begin || s->address >= begin + ph.p_memsz) continue;
          std::string path = info->dlpi_name != nullptr ? info->dlpi_name : "";
          const size_t slash = path.rfind('/');
          s->found.name = slash == std::string::npos ? path : path.substr(slash + 1);
          s->found.main_program = index == 0;
          return 1;
        }
        return 0;
      },
      &search);
  return search.found;
}

}  // namespace
}  // namespace barracuda::cuda_driver

// NVIDIA's private tables (used by its own runtime and tools) are not
// emulated: the replacement runtime never asks for them. NVIDIA's runtime
// does, first thing. Two callers: a program linked with the static runtime
// (nvcc's default) run with LD_LIBRARY_PATH alone, whose first CUDA call
// then fails with "operation not supported" (under `barracuda` that runtime
// is taken over and never gets here); or a library that carries its own copy
// of the runtime (cuBLAS, cuFFT, cuRAND, cuSPARSE, cuDNN, NCCL, ...): nothing
// it launches can reach the emulator, so its kernels are told to the session
// as not run (the analysis is incomplete, never "0 races" about kernels that
// did not run). Said once per calling object.
CUresult cuGetExportTable(const void** ppExportTable, const CUuuid*) {
  using namespace barracuda::cuda_driver;
  const void* caller = __builtin_return_address(0);
  static std::mutex mu;
  static std::set<std::string> told;
  const CallerObject found = ObjectOf(caller);
  const bool program = found.main_program;
  const std::string object = program ? std::string("the program") : found.name;
  bool first;
  {
    std::lock_guard<std::mutex> lock(mu);
    first = told.insert(object).second;
  }
  if (first && program) {
    std::fprintf(stderr,
                 "barracuda emulator: NVIDIA's CUDA runtime asked for its private driver tables, which the emulator "
                 "does not have: this program links the CUDA runtime statically (nvcc's default). Run it under "
                 "barracuda (barracuda ./app), which takes that runtime over, or build it with -cudart shared.\n");
    // Under barracuda the runtime was not taken over (a session exists only there).
    __barracudaEmuNoteNotRun(801 /* cudaErrorNotSupported */, "(the kernels of the program)",
                             "its statically linked CUDA runtime was not taken over by barracuda and asked for a "
                             "GPU driver's private tables: its CUDA calls fail (build it with -cudart shared)");
  } else if (first) {
    const std::string name = object.empty() ? std::string("a library of the program") : object;
    const std::string reason =
        "it carries its own copy of NVIDIA's CUDA runtime, which needs a GPU driver's private tables: its CUDA "
        "calls fail (cudaErrorNotSupported or the library's own error status), so nothing it launches runs on "
        "the emulator or is analysed";
    std::fprintf(stderr, "barracuda emulator: %s: %s\n", name.c_str(), reason.c_str());
    __barracudaEmuNoteNotRun(801 /* cudaErrorNotSupported */, ("(the kernels of " + name + ")").c_str(),
                             (name + ": " + reason).c_str());
  }
  if (ppExportTable) *ppExportTable = nullptr;
  return CUDA_ERROR_NOT_SUPPORTED;
}
