// The real CUDA driver behind the agent's driver-API hooks: NVIDIA's
// libcuda.so.1, or the emulator's (barracuda --gpu-runtime=emulator). Its
// names are unversioned; each is the next definition after the agent
// (dlsym(RTLD_NEXT)), else the one of a libcuda.so.1 the program dlopened
// locally.
#ifndef BARRACUDA_HOST_DETECTOR_GPU_AGENT_REAL_DRIVER_H_
#define BARRACUDA_HOST_DETECTOR_GPU_AGENT_REAL_DRIVER_H_

#pragma GCC visibility push(default)
#include <cuda.h>
#pragma GCC visibility pop

namespace barracuda::gpu_agent {

// nullptr when no driver defines `name`; says so on stderr unless `quiet`.
void* FindRealDriver(const char* name, bool quiet = false);

template <typename Fn>
Fn* RealDriver(const char* name) {
  return reinterpret_cast<Fn*>(FindRealDriver(name));
}

}  // namespace barracuda::gpu_agent

#endif  // BARRACUDA_HOST_DETECTOR_GPU_AGENT_REAL_DRIVER_H_
