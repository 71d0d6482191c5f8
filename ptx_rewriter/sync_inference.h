// How each memory and fence instruction of a function takes part in the PTX
// memory consistency model: weak or strong access, acquire/release semantics,
// fence sides, scope (host_detector/detector/SEMANTICS.md). Decided per instruction;
// fences are handled at run time by the detector, not bundled with accesses.
// One classification, used by both producers of records (the emulator's
// tracer and the instrumentation pass), so the two agree (DESIGN.md "The
// record contract").
#ifndef BARRACUDA_PTX_REWRITER_SYNC_INFERENCE_H_
#define BARRACUDA_PTX_REWRITER_SYNC_INFERENCE_H_

#include <cstdint>
#include <vector>

#include "ptx_rewriter/ir.h"

namespace barracuda::ptx {

struct AccessClass {
  enum class Kind : uint8_t {
    kNone,      // not a memory/fence instruction, or one that is never logged
                // (.local/.param/.const space, prefetch, proxy fences)
    kRead, kWrite, kAtomic, kAcquire, kRelease, kAcqRel, kFence,
  };
  Kind kind = Kind::kNone;
  Scope scope = Scope::kNone;
  bool loads = false;       // the access reads memory (kFence: acquire side)
  bool stores = false;      // the access writes memory (kFence: release side)
  bool is_volatile = false; // .volatile (a kAtomic at .sys scope)
  bool operator==(const AccessClass&) const = default;
};

// One entry per statement of function.body (kNone for non-instructions).
std::vector<AccessClass> ClassifyAccesses(const Function& function);

// The scope of a strong access with these modifiers: .sys for .volatile, else
// its scope qualifier, .gpu when it names none (the ISA's default).
Scope StrongAccessScope(const ModifierInfo& m);

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_SYNC_INFERENCE_H_
