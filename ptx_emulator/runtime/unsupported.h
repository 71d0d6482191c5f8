// The fallback for every exported runtime function the emulator does not
// implement (generated weak stubs, unsupported_stubs.cpp): one message per
// function, then cudaErrorNotSupported.
#ifndef BARRACUDA_PTX_EMULATOR_RUNTIME_UNSUPPORTED_H_
#define BARRACUDA_PTX_EMULATOR_RUNTIME_UNSUPPORTED_H_

#include <atomic>

namespace barracuda::cudart {

class UnsupportedOnce {
 public:
  // Prints "barracuda emulator: <name> is not supported by the emulator
  // backend" the first time, records the last error and returns 801
  // (cudaErrorNotSupported).
  int Report(const char* name);

 private:
  std::atomic<bool> reported_{false};
};

}  // namespace barracuda::cudart

#endif  // BARRACUDA_PTX_EMULATOR_RUNTIME_UNSUPPORTED_H_
