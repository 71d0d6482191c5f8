// Handlers of the control family (selected by SelectControlOp in
// control_ops.cpp), split by concern: branches/calls/exit in control_ops.cpp,
// barriers in barriers.cpp, extern builtins in builtins.cpp.
#ifndef BARRACUDA_PTX_EMULATOR_EXEC_CONTROL_HANDLERS_H_
#define BARRACUDA_PTX_EMULATOR_EXEC_CONTROL_HANDLERS_H_

#include <cstdint>

#include "ptx_emulator/core/exec_form.h"
#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/exec/warp.h"

namespace barracuda::emu {

// barriers.cpp: bar/barrier .sync/.arrive/.red. Operand layout (positional):
//   sync/arrive: ops[0] id, ops[1] thread count (optional for sync)
//   red:         ops[0] destination, ops[1] id, [ops[2] count], last: predicate
void BarSyncHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec);
void BarArriveHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec);
void BarRedHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec);
// bar.warp.sync membermask (ops[0]).
void BarWarpSyncHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec);
// Whether lanes `exec` naming `members` (the same mask in every lane:
// `uniform`) wait for members on other paths before their warp sync; if so
// the running entry is deferred and their arrival logged at once (`sync`: the
// bar.warp.sync), so the detector joins when the last group arrives, before
// that group goes on. Also for -G's __syncwarp wrapper calls.
bool DeferWarpSync(Warp& w, const Inst& sync, uint32_t exec, uint32_t members, bool uniform);

// builtins.cpp: extern functions without a PTX body, run for `exec` lanes with
// arguments read from the caller's frame (call site offsets).
void RunBuiltin(Warp& w, const Inst& inst, const Function::CallSite& site, uint32_t exec);

// The warp behind a handler's context (the interpreter runs handlers on Warps).
inline Warp& W(WarpCtx& ctx) { return static_cast<Warp&>(ctx); }

// Reads a value operand that must be the same for every lane (barrier id,
// thread count): the first lane of `exec`.
inline uint64_t UniformValue(const WarpCtx& ctx, const Opnd& op, uint32_t exec) {
  const uint32_t lane = exec ? static_cast<uint32_t>(__builtin_ctz(exec)) : 0;
  return ctx.Src(op.ref)[lane];
}

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_EXEC_CONTROL_HANDLERS_H_
