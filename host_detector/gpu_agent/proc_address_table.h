// Which hook answers a driver entry point fetched at run time
// (cuGetProcAddress, cudaGetDriverEntryPoint): programs and libraries that
// take the driver's functions that way never go through the agent's exported
// names, so the pointer the real driver returns is swapped for the agent's
// hook of the same ABI variant. Pure logic: unit-testable without a driver.
#ifndef BARRACUDA_HOST_DETECTOR_GPU_AGENT_PROC_ADDRESS_TABLE_H_
#define BARRACUDA_HOST_DETECTOR_GPU_AGENT_PROC_ADDRESS_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"

namespace barracuda::gpu_agent {

class ProcAddressTable {
 public:
  struct Entry {
    std::string variant;  // the exported name hooked: "cuMemAlloc_v2", "cuLaunchKernel_ptsz"
    std::string base;     // the name a program asks for: "cuMemAlloc", "cuLaunchKernel"
    bool per_thread = false;   // the variant CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM selects
    int min_version = 0;       // the cudaVersion from which `base` means this variant
    void* hook = nullptr;
    void* real = nullptr;      // the real driver's definition (Resolve)
  };

  // `variant`'s base name and per-thread flag come from its suffix (_v2,
  // _ptsz, _ptds); `min_version` is the version `base` became this variant.
  void Add(std::string variant, void* hook, int min_version = 0);
  // Looks up every entry's real definition (nullptr where the driver lacks it).
  void Resolve(absl::FunctionRef<void*(const char*)> find_real);

  // The hook for what the driver returned for `symbol` (the name the program
  // asked for) at `version` with `per_thread`: by the returned pointer first
  // (the real definition of a hooked variant), else by the name when the
  // driver's pointer is not one the agent knows (a driver may hand out
  // internal entry points). nullptr: not hooked, keep the driver's pointer.
  void* HookFor(void* returned, const char* symbol, int version, bool per_thread) const;

  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

}  // namespace barracuda::gpu_agent

#endif  // BARRACUDA_HOST_DETECTOR_GPU_AGENT_PROC_ADDRESS_TABLE_H_
