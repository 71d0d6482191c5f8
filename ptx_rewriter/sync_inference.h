// How each memory and fence instruction of a function takes part in
// synchronisation: the paper's acquire/release inference (§3.1) extended to the
// explicit semantics and scopes of modern PTX. One classification, used by both
// producers of records (the emulator's tracer and the instrumentation pass), so
// the two agree (DESIGN.md "The record contract").
//
// Paper rules (static adjacency in the instruction stream, labels and .loc
// lines ignored): fence then st -> release; ld then fence -> acquire; fence,
// atom, fence -> acq_rel; atom.cas then fence -> acquire; fence then atom.exch
// -> release; other atoms -> plain atomic (extended for one-sided atomics and
// guarded forward branches: sync_inference.cpp). Scope from the fence (membar.cta /
// fence.*.cta -> cta, membar.gl / .gpu -> gpu, .sys -> sys). A fence consumed
// by such a bundle is not reported separately. Explicit .acquire / .release /
// .acq_rel / .relaxed / .volatile semantics and scopes take precedence.
#ifndef BARRACUDA_PTX_REWRITER_SYNC_INFERENCE_H_
#define BARRACUDA_PTX_REWRITER_SYNC_INFERENCE_H_

#include <cstdint>
#include <vector>

#include "ptx_rewriter/ir.h"

namespace barracuda::ptx {

struct AccessClass {
  enum class Kind : uint8_t {
    kNone,      // not a memory/fence instruction, or one that is never logged
                // (.local/.param/.const space, prefetch), or a fence folded into a bundle
    kRead, kWrite, kAtomic, kAcquire, kRelease, kAcqRel, kFence,
  };
  Kind kind = Kind::kNone;
  Scope scope = Scope::kNone;
  bool loads = false;       // the access reads memory
  bool stores = false;      // the access writes memory
  bool is_volatile = false; // .volatile
  bool inferred = false;    // acquire/release from fence adjacency, not explicit
  bool operator==(const AccessClass&) const = default;
};

// One entry per statement of function.body (kNone for non-instructions).
std::vector<AccessClass> ClassifyAccesses(const Function& function);

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_SYNC_INFERENCE_H_
