// Registration entry points called by nvcc-generated host code (static
// constructors and atexit handlers of the program). Modules are only read here;
// PTX is loaded on the first launch or symbol access (Runtime::EnsureLoaded).
#include <cstring>

#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/runtime/runtime_state.h"

using barracuda::cudart::FatbinModule;
using barracuda::cudart::RegisteredVar;
using barracuda::cudart::Runtime;

void** __cudaRegisterFatBinary(void* fat_cubin) {
  FatbinModule* m = Runtime::Get().RegisterFatbin(fat_cubin);
  return &m->handle_slot;
}

void __cudaRegisterFatBinaryEnd(void** /*handle*/) {}

void __cudaUnregisterFatBinary(void** handle) {
  if (FatbinModule* m = Runtime::FromHandle(handle)) Runtime::Get().Unregister(m);
}

void __cudaRegisterFunction(void** handle, const char* host_fun, char* device_fun, const char* device_name,
                            int /*thread_limit*/, uint3* /*tid*/, uint3* /*bid*/, dim3* /*block_dim*/,
                            dim3* /*grid_dim*/, int* /*warp_size*/) {
  FatbinModule* m = Runtime::FromHandle(handle);
  if (!m || !host_fun) return;
  Runtime::Get().RegisterKernel(m, host_fun, device_fun ? device_fun : device_name);
}

void __cudaRegisterVar(void** handle, char* host_var, char* device_address, const char* device_name, int /*ext*/,
                       size_t size, int constant, int /*global*/) {
  FatbinModule* m = Runtime::FromHandle(handle);
  if (!m || !host_var) return;
  RegisteredVar v;
  v.name = device_address ? device_address : device_name;
  v.host_symbol = host_var;
  v.size = size;
  v.constant = constant != 0;
  Runtime::Get().RegisterVar(m, std::move(v));
}

void __cudaRegisterManagedVar(void** handle, void** host_var_ptr_address, char* device_address,
                              const char* device_name, int /*ext*/, size_t size, int constant, int /*global*/) {
  FatbinModule* m = Runtime::FromHandle(handle);
  if (!m || !host_var_ptr_address) return;
  RegisteredVar v;
  v.name = device_address ? device_address : device_name;
  v.host_symbol = host_var_ptr_address;
  v.size = size;
  v.constant = constant != 0;
  v.managed = true;
  v.managed_pointer = host_var_ptr_address;
  Runtime::Get().RegisterVar(m, std::move(v));
}

// Called before the program's first host access to a __managed__ variable of
// the module: load it so that the managed pointers hold device addresses.
char __cudaInitModule(void** handle) {
  FatbinModule* m = Runtime::FromHandle(handle);
  if (!m) return 0;
  return Runtime::Get().EnsureLoaded(m) == cudaSuccess ? 1 : 0;
}
