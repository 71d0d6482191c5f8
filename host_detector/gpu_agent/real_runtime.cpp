#include "host_detector/gpu_agent/real_runtime.h"

#include <dlfcn.h>

#include <cstdio>

namespace barracuda::gpu_agent {

thread_local int HookScope::depth_ = 0;

void* FindReal(const char* name) {
  if (void* f = dlvsym(RTLD_NEXT, name, kCudartVersionNode)) return f;
  if (void* f = dlsym(RTLD_NEXT, name)) return f;
  std::fprintf(stderr, "barracuda gpu agent: %s not found in the CUDA runtime the program loaded (%s)\n", name,
               kCudartVersionNode);
  return nullptr;
}

}  // namespace barracuda::gpu_agent
