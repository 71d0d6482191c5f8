// kMemoryError: a kernel's memory access fault, as the emulator saw it
// (memcheck-style reports). The launch stopped at the fault; the fault names
// the access (kind, size, space, address), the thread and the site, so that
// the daemon can report it like compute-sanitizer's memcheck, with the
// nearest allocation from its own allocation table.
#ifndef BARRACUDA_DEVICE_LOGGER_MEMORY_ERROR_MESSAGE_H_
#define BARRACUDA_DEVICE_LOGGER_MEMORY_ERROR_MESSAGE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "device_logger/protocol.h"

namespace barracuda::transport {

// What was wrong with the access (mirrors emu::MemoryError).
enum class MemoryErrorKind : uint32_t {
  kOutOfBounds = 1,     // outside every live allocation, or outside the shared/local window
  kUseAfterFree = 2,    // inside an allocation that was freed
  kInvalidAddress = 3,  // in no state space (null, unmapped)
  kMisaligned = 4,      // not aligned to its size
  kReadOnly = 5,        // a write to constant memory or kernel parameters
};
// The access's state space as the instruction named it (mirrors emu::mem::Space).
enum class MemorySpace : uint32_t { kGeneric = 0, kGlobal, kShared, kLocal, kParam, kConst };

const char* MemoryErrorKindName(MemoryErrorKind kind);  // "out-of-bounds", "use-after-free", ...
const char* MemorySpaceName(MemorySpace space);         // "generic", "global", ...

struct MemoryErrorInfo {
  int32_t cuda_error = 0;  // what the launch returned (cudaErrorIllegalAddress, ...)
  MemoryErrorKind kind = MemoryErrorKind::kInvalidAddress;
  bool write = false;
  MemorySpace space = MemorySpace::kGeneric;
  uint32_t size = 0;  // bytes of the access
  uint64_t address = 0;
  uint64_t launch_id = 0;
  uint32_t site = protocol::kNoSite;
  uint32_t ptx_line = 0;
  uint32_t block[3] = {0, 0, 0};
  uint32_t thread[3] = {0, 0, 0};
  std::string kernel;   // mangled
  std::string message;  // the emulator's own description of the fault

  std::string Encode() const;
  static std::optional<MemoryErrorInfo> Decode(std::string_view payload);  // nullopt: malformed
};

}  // namespace barracuda::transport

#endif  // BARRACUDA_DEVICE_LOGGER_MEMORY_ERROR_MESSAGE_H_
