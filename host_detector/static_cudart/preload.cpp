// libbarracuda_static_cudart.so: preloaded by `barracuda` for a program that
// carries the CUDA runtime statically. Its constructor runs before the
// executable's own (which register the fat binaries) and redirects the
// executable's runtime entry points to libcudart.so.13 (redirect.h): the
// emulator's replacement, or NVIDIA's behind the GPU agent, whose hooks come
// first in the global lookup when it is preloaded too.
//
// BARRACUDA_CUDART: the runtime to load (default: "libcudart.so.13" through
// the library path). BARRACUDA_STATIC_CUDART_VERBOSE=1: say what was done.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "host_detector/static_cudart/redirect.h"

namespace {

// barracuda's exit status for a static runtime it cannot take over (cli/exit_codes.h).
constexpr int kExitStaticCudart = 122;
constexpr const char* kVersionNode = "libcudart.so.13";

[[noreturn]] void Fail(const std::string& why) {
  std::fprintf(stderr, "barracuda: %s; rebuild with -cudart shared (exit status %d)\n", why.c_str(),
               kExitStaticCudart);
  _exit(kExitStaticCudart);
}

__attribute__((constructor)) void RedirectStaticCudart() {
  using barracuda::static_cudart::AddressRange;
  const char* verbose_env = std::getenv("BARRACUDA_STATIC_CUDART_VERBOSE");
  const bool verbose = verbose_env != nullptr && *verbose_env == '1';
  void* runtime = nullptr;
  const AddressRange main_range = barracuda::static_cudart::MainExecutableRange();
  // Only a static-runtime executable loads the shared runtime: children the
  // program execs inherit the preload and must stay as they are.
  auto resolve = [&](const std::string& name) -> void* {
    if (runtime == nullptr) {
      const char* path = std::getenv("BARRACUDA_CUDART");
      if (path != nullptr && *path != '\0') {
        runtime = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
        if (runtime == nullptr) Fail(std::string("cannot load the shared CUDA runtime: ") + dlerror());
      } else {
        // The library path first, then where the toolkit installs it.
        std::string tried;
        const char* home = std::getenv("CUDA_HOME");
        for (const std::string& candidate :
             {std::string("libcudart.so.13"), std::string(home != nullptr ? home : "/usr/local/cuda") + "/lib64/libcudart.so.13",
              std::string("/usr/local/cuda/targets/x86_64-linux/lib/libcudart.so.13")}) {
          runtime = dlopen(candidate.c_str(), RTLD_NOW | RTLD_GLOBAL);
          if (runtime != nullptr) break;
          tried += std::string(tried.empty() ? "" : ", ") + candidate;
        }
        if (runtime == nullptr)
          Fail("the program links the CUDA runtime statically and no shared CUDA runtime to take over from it "
               "was found (tried " + tried + ")");
      }
    }
    // The global scope first: a preloaded agent's hook of that name wins.
    void* f = dlvsym(RTLD_DEFAULT, name.c_str(), kVersionNode);
    if (f == nullptr || main_range.Contains(reinterpret_cast<uintptr_t>(f)))
      f = dlvsym(runtime, name.c_str(), kVersionNode);
    return f;
  };
  absl::StatusOr<barracuda::static_cudart::RedirectSummary> summary =
      barracuda::static_cudart::RedirectMainExecutable(resolve);
  if (!summary.ok()) Fail(std::string(summary.status().message()));
  if (verbose && summary->static_runtime) {
    std::fprintf(stderr, "barracuda: %s: static CUDA runtime redirected (%zu entry points", summary->executable.c_str(),
                 summary->redirected);
    if (!summary->left_alone.empty()) std::fprintf(stderr, "; %zu not exported by the shared runtime", summary->left_alone.size());
    if (!summary->too_small.empty()) std::fprintf(stderr, "; %zu too short to patch", summary->too_small.size());
    std::fprintf(stderr, ")\n");
  }
}

}  // namespace
