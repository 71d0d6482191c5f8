// The instrumentation passes: rewrite a PTX module so that, when it runs, it
// calls the device logger (device_logger/logger_abi.h) for every event the
// detector needs, with the same record contents the emulator's own tracer
// produces for the original module (DESIGN.md "Emulator contract").
//
// What is logged (site ids from BuildSiteTable on the *original* module,
// classification from ClassifyAccesses, so both producers agree):
//   ld/ldu/st/atom/red in global, shared or generic space (one call per vector
//   element; generic addresses classified by the logger with isspacep), fences
//   not folded into an acquire/release bundle, bar/barrier (id and count),
//   bar.warp.sync and the *.sync warp primitives, `@p bra` divergence (if),
//   the start of the second side (else) and the reconvergence point (fi),
//   kernel ret / exit, mbarrier.*, the cp.async family (copies, waits with
//   per-thread counts kept in added registers, cp.async.mbarrier.arrive, bulk
//   copies to shared memory with complete_tx), fence.proxy.async, ldmatrix /
//   stmatrix and wmma.load / wmma.store (README "Asynchronous copies",
//   "Matrix loads and stores"). Release-class accesses are logged before the access,
//   acquire-class after it (the logger stamps them).
// Predicated logged instructions become `@!p bra skip; log; inst; skip:` so
// the logging call runs under the same condition as the instruction.
#ifndef BARRACUDA_PTX_REWRITER_INSTRUMENT_INSTRUMENT_H_
#define BARRACUDA_PTX_REWRITER_INSTRUMENT_INSTRUMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ptx_rewriter/ir.h"

namespace barracuda::ptx {

struct InstrumentOptions {
  // The paper's pruning (§4.1): within a basic block, an unguarded plain read
  // or write through the same address operand (register unchanged since, same
  // space/size/shape) as an earlier logged access that covers it, with no
  // synchronisation, call or atomic in between, is not logged again. Off when a
  // test needs every record the emulator emits.
  bool prune = true;
  // Added to every site id (a process numbering several modules' sites).
  uint32_t site_base = 0;
  // Declare the logger's functions as `.extern .func` at the top of the module
  // (what MergeLogger replaces with their definitions).
  bool declare_logger = true;
};

// A memory or synchronisation instruction the passes leave unlogged
// (Action::kNotCovered): races through it are not checked on the GPU backend.
struct UncheckedInstruction {
  std::string function;  // where it is
  uint32_t site = 0;     // its site id (site_base added), or protocol::kNoSite
  std::string opcode;    // opcode and modifiers as written
  uint32_t ptx_line = 0;
  bool operator==(const UncheckedInstruction&) const = default;
};

// Static counts for one module (the paper's Figure 9).
struct InstrumentStats {
  uint64_t functions = 0;             // functions with a body
  uint64_t static_instructions = 0;   // instructions of the original module
  uint64_t instrumented_before = 0;   // instructions that get logging, without pruning
  uint64_t instrumented_after = 0;    // ... after pruning
  // Breakdown of instrumented_after.
  uint64_t accesses = 0;    // ld/ldu/st/atom/red
  uint64_t fences = 0;
  uint64_t barriers = 0;
  uint64_t warp_syncs = 0;
  uint64_t branches = 0;    // `@p bra` (if / else / fi)
  uint64_t exits = 0;
  uint64_t predicated = 0;  // logged instructions rewritten into a branch around
  // Memory / synchronisation sites the passes do not log (brx.idx, multimem,
  // bulk async-groups, TMA, ...): see README "Statistics".
  uint64_t not_covered = 0;
  // The not-covered instructions themselves (not_covered of them), in module
  // order: the GPU agent tells the report which kernels reach them.
  std::vector<UncheckedInstruction> unchecked;

  InstrumentStats& operator+=(const InstrumentStats& o);
};

// "static instructions 1234, instrumented 300 (24.3%) before pruning, 250
// (20.3%) after; accesses ..." on several lines.
std::string FormatStats(const InstrumentStats& stats);

// Instruments every function with a body. Fails (InvalidArgument with
// file:line:col) on a function whose CFG cannot be built, on an operand form
// it cannot log, and on a module that already declares logger functions.
absl::StatusOr<InstrumentStats> InstrumentModule(Module& module, const InstrumentOptions& options = {});

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_INSTRUMENT_INSTRUMENT_H_
