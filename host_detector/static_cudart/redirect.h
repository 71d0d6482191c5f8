// Sends a statically linked CUDA runtime's entry points to a shared one.
//
// A program linked with -cudart static (nvcc's and CMake's default) calls the
// runtime's functions directly inside its own executable; that copy then talks
// to the driver through private, undocumented export tables. Instead of
// impersonating the driver at that level, barracuda makes each runtime
// function of the executable (found by name in .symtab) jump to the function
// of the same name of a shared libcudart.so.13: the emulator's replacement on
// the emulator backend, NVIDIA's (behind the preloaded agent's hooks) on the
// GPU backend. The program then behaves as its -cudart shared build: same
// documented API, same registration calls.
//
// Limits (README.md): the main executable only (not a shared library that
// carries its own static runtime), x86-64, an unstripped executable.
#ifndef BARRACUDA_HOST_DETECTOR_STATIC_CUDART_REDIRECT_H_
#define BARRACUDA_HOST_DETECTOR_STATIC_CUDART_REDIRECT_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace barracuda::static_cudart {

// The address calls to `name` must go to, or nullptr when the target runtime
// has no such export (the executable's function is then left alone).
using Resolver = std::function<void*(const std::string& name)>;

struct RedirectSummary {
  bool static_runtime = false;  // false: nothing to do, nothing done
  std::string executable;       // its path
  size_t redirected = 0;
  std::vector<std::string> left_alone;  // runtime-named functions the target does not export
  std::vector<std::string> too_small;   // under 5 bytes: cannot hold a jump
};

// Inspects the running process's main executable; when it carries the CUDA
// runtime statically, redirects each entry point `resolve` knows. Call from a
// preload constructor, before the executable's own constructors register its
// fat binaries. Errors: a stripped static-runtime executable, an unreadable
// executable, patching refused.
absl::StatusOr<RedirectSummary> RedirectMainExecutable(const Resolver& resolve);

// The main executable's load range in this process ([begin, end)), for a
// resolver to refuse an address inside it (a function the executable exports
// to itself).
struct AddressRange {
  uintptr_t begin = 0, end = 0;
  bool Contains(uintptr_t a) const { return a >= begin && a < end; }
};
AddressRange MainExecutableRange();

}  // namespace barracuda::static_cudart

#endif  // BARRACUDA_HOST_DETECTOR_STATIC_CUDART_REDIRECT_H_
