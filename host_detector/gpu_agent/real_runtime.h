// The real CUDA runtime behind the agent: each interposed name resolved with
// dlvsym(RTLD_NEXT, name, "libcudart.so.13") (the version every CUDA 13 app
// imports), falling back to dlsym(RTLD_NEXT). "Real" is whatever
// libcudart.so.13 the app loaded: NVIDIA's on a GPU machine, or the emulator's
// (barracuda --gpu-runtime=emulator), which runs the instrumented PTX on the
// CPU so the whole GPU path is testable without a GPU.
#ifndef BARRACUDA_HOST_DETECTOR_GPU_AGENT_REAL_RUNTIME_H_
#define BARRACUDA_HOST_DETECTOR_GPU_AGENT_REAL_RUNTIME_H_

namespace barracuda::gpu_agent {

inline constexpr const char* kCudartVersionNode = "libcudart.so.13";

// The next definition of `name` after the agent; nullptr when none (the app
// did not load a CUDA runtime). Prints the failure once per name.
void* FindReal(const char* name);

// Typed: Real<decltype(cudaMalloc)>("cudaMalloc"). Callers cache the result
// in a function-local static.
template <typename Fn>
Fn* Real(const char* name) {
  return reinterpret_cast<Fn*>(FindReal(name));
}

// Set while the calling thread is inside an agent hook: a runtime that calls
// its own exported names through the PLT (the emulator's may) reaches the
// real definition directly instead of being traced twice.
class HookScope {
 public:
  HookScope() : outermost_(depth_++ == 0) {}
  ~HookScope() { --depth_; }
  HookScope(const HookScope&) = delete;
  HookScope& operator=(const HookScope&) = delete;
  bool outermost() const { return outermost_; }

 private:
  static thread_local int depth_;
  bool outermost_;
};

}  // namespace barracuda::gpu_agent

#endif  // BARRACUDA_HOST_DETECTOR_GPU_AGENT_REAL_RUNTIME_H_
