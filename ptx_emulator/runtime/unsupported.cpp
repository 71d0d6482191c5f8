#include "ptx_emulator/runtime/unsupported.h"

#include <string>

#include "ptx_emulator/runtime/runtime_state.h"

namespace barracuda::cudart {

int UnsupportedOnce::Report(const char* name) {
  if (!reported_.exchange(true)) PrintDiagnostic(std::string(name) + " is not supported by the emulator backend");
  static_assert(cudaErrorNotSupported == 801);
  return Runtime::Get().Fail(cudaErrorNotSupported);
}

}  // namespace barracuda::cudart
