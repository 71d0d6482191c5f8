// Overwrites the first bytes of functions in the running process with a jump
// elsewhere (x86-64): how a statically linked CUDA runtime's entry points are
// sent to a shared one (redirect.h). The patched function's own code is never
// run again, so nothing of it needs relocating.
#ifndef BARRACUDA_HOST_DETECTOR_STATIC_CUDART_JUMP_PATCH_H_
#define BARRACUDA_HOST_DETECTOR_STATIC_CUDART_JUMP_PATCH_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace barracuda::static_cudart {

struct JumpSite {
  std::string name;       // for messages
  uintptr_t address = 0;  // the function's first byte in this process
  uint64_t size = 0;      // its st_size: how many bytes may be overwritten
  uintptr_t target = 0;   // where calls must go instead
};

// Bytes written at a site: a 14-byte absolute jump (`jmp *0(%rip)` + address)
// when the function has room, else a 5-byte `jmp rel32` to such a jump in a
// trampoline page mapped within +-2 GiB.
inline constexpr uint64_t kAbsoluteJumpBytes = 14;
inline constexpr uint64_t kRelativeJumpBytes = 5;

struct PatchOutcome {
  size_t patched = 0;
  std::vector<std::string> too_small;  // sites under 5 bytes (or of unknown size): left as they are
};

// Patches every site, making the code pages writable for the time of the
// writes. Must run while no other thread executes the sites (a preload
// constructor). Errors: not x86-64, mprotect refused (a hardened kernel), no
// trampoline page in reach.
absl::StatusOr<PatchOutcome> WriteJumps(std::span<const JumpSite> sites);

}  // namespace barracuda::static_cudart

#endif  // BARRACUDA_HOST_DETECTOR_STATIC_CUDART_JUMP_PATCH_H_
