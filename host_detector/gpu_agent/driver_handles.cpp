#include "host_detector/gpu_agent/driver_handles.h"

namespace barracuda::gpu_agent {

void DriverHandles::AddModule(const void* handle, uint32_t module) {
  // A reused address is a new module: the old one's functions went with it.
  RemoveModule(handle);
  modules_[handle] = module;
}

bool DriverHandles::AliasModule(const void* alias, const void* handle) {
  auto it = modules_.find(handle);
  if (it == modules_.end()) return false;
  if (alias != handle) modules_[alias] = it->second;
  return true;
}

const uint32_t* DriverHandles::ModuleOf(const void* handle) const {
  auto it = modules_.find(handle);
  return it == modules_.end() ? nullptr : &it->second;
}

bool DriverHandles::AddFunction(const void* function, const void* module_handle, const std::string& name) {
  const uint32_t* module = ModuleOf(module_handle);
  if (module == nullptr || function == nullptr) return false;
  functions_[function] = Function{*module, name};
  return true;
}

bool DriverHandles::AliasFunction(const void* alias, const void* function) {
  auto it = functions_.find(function);
  if (it == functions_.end() || alias == nullptr) return false;
  if (alias != function) {
    Function copy = it->second;  // the insertion may move the table
    functions_[alias] = std::move(copy);
  }
  return true;
}

const DriverHandles::Function* DriverHandles::FunctionOf(const void* function) const {
  auto it = functions_.find(function);
  return it == functions_.end() ? nullptr : &it->second;
}

void DriverHandles::RemoveModule(const void* handle) {
  auto it = modules_.find(handle);
  if (it == modules_.end()) return;
  const uint32_t module = it->second;
  absl::erase_if(modules_, [&](const auto& kv) { return kv.second == module; });
  absl::erase_if(functions_, [&](const auto& kv) { return kv.second.module == module; });
}

}  // namespace barracuda::gpu_agent
