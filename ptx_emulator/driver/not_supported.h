// What the replacement libcuda.so.1 does for a driver function it does not
// implement (the generated weak stubs, driver_stubs.cpp), and the table of
// every exported name that cuGetProcAddress searches.
#ifndef BARRACUDA_PTX_EMULATOR_DRIVER_NOT_SUPPORTED_H_
#define BARRACUDA_PTX_EMULATOR_DRIVER_NOT_SUPPORTED_H_

#include <atomic>

namespace barracuda::cuda_driver {

class NotSupportedOnce {
 public:
  // Prints "barracuda emulator: <name> is not supported" the first time and
  // returns CUDA_ERROR_NOT_SUPPORTED (801).
  int Report(const char* name);

 private:
  std::atomic<bool> reported_{false};
};

// One exported function: its name and address (the implementation, or the
// stub when there is none). Sorted by name (strcmp), libcuda_exports.txt's order.
struct ProcEntry {
  const char* name;
  void* address;
};
extern const ProcEntry kProcTable[];
extern const unsigned kProcTableSize;

}  // namespace barracuda::cuda_driver

#endif  // BARRACUDA_PTX_EMULATOR_DRIVER_NOT_SUPPORTED_H_
