// The driver's handles of the modules the agent instrumented: CUmodule and
// CUlibrary (several handles may name one module: cuLibraryGetModule), and
// CUfunction and CUkernel (cuModuleGetFunction, cuLibraryGetKernel,
// cuKernelGetFunction; a CUkernel may be launched as a CUfunction). A launch
// finds its kernel's module (site table, queue set) and name here. Pure
// bookkeeping, unit-testable; the agent locks around it.
#ifndef BARRACUDA_HOST_DETECTOR_GPU_AGENT_DRIVER_HANDLES_H_
#define BARRACUDA_HOST_DETECTOR_GPU_AGENT_DRIVER_HANDLES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace barracuda::gpu_agent {

class DriverHandles {
 public:
  struct Function {
    uint32_t module = 0;  // the agent's module id
    std::string name;     // the kernel's (mangled) name
  };

  void AddModule(const void* handle, uint32_t module);
  // Another handle for the module `handle` names; false when that one is unknown.
  bool AliasModule(const void* alias, const void* handle);
  // nullptr when `handle` is not a module the agent loaded.
  const uint32_t* ModuleOf(const void* handle) const;

  // A function looked up in a known module; false (nothing recorded) when the
  // module is not the agent's (a module loaded before the agent, or refused
  // earlier in a way that left no handle).
  bool AddFunction(const void* function, const void* module_handle, const std::string& name);
  // Another handle for a known function (cuKernelGetFunction).
  bool AliasFunction(const void* alias, const void* function);
  const Function* FunctionOf(const void* function) const;

  // cuModuleUnload / cuLibraryUnload: every handle of the module and of its
  // functions is forgotten (the driver may hand the same addresses out again).
  void RemoveModule(const void* handle);

  size_t module_handles() const { return modules_.size(); }
  size_t function_handles() const { return functions_.size(); }

 private:
  absl::flat_hash_map<const void*, uint32_t> modules_;
  absl::flat_hash_map<const void*, Function> functions_;
};

}  // namespace barracuda::gpu_agent

#endif  // BARRACUDA_HOST_DETECTOR_GPU_AGENT_DRIVER_HANDLES_H_
