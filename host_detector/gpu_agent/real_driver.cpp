#include "host_detector/gpu_agent/real_driver.h"

#include <dlfcn.h>

#include <cstdio>

namespace barracuda::gpu_agent {

void* FindRealDriver(const char* name, bool quiet) {
  if (void* f = dlsym(RTLD_NEXT, name)) return f;
  // A driver the program dlopened with RTLD_LOCAL is not in the global scope.
  if (void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
    void* f = dlsym(lib, name);
    dlclose(lib);  // NOLOAD took a reference; the program's own keeps it loaded
    if (f != nullptr) return f;
  }
  if (quiet) return nullptr;
  std::fprintf(stderr, "barracuda gpu agent: %s not found in the CUDA driver the program loaded (libcuda.so.1)\n",
               name);
  return nullptr;
}

}  // namespace barracuda::gpu_agent
