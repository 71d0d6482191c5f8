// Instructions that steer the hardware but change nothing a program can
// observe in the emulator's one coherent memory and unbounded registers:
//   griddepcontrol.launch_dependents / .wait (programmatic dependent launch):
//     launches on one stream run one after another here, so every
//     prerequisite grid has completed and its memory is visible before a
//     dependent grid starts: .wait has nothing to wait for. It is logged
//     (kGridDepWait): on a GPU the launch's accesses before it may overlap
//     the grid it depends on, which the daemon's stream-order check reports;
//   setmaxnreg.{inc,dec}.sync.aligned.u32 N: registers are not a budget here;
//   createpolicy.* d, ...: d gets an opaque cache policy (0) that only cache
//     hint operands consume, and the emulator ignores those.
#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/ops/mem_access.h"

namespace barracuda::emu {
namespace {

void Nothing(const Inst&, WarpCtx&, uint32_t) {}

void GridDependencyWait(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (ctx.tracer == nullptr || exec == 0) return;
  protocol::Record r = mem::MakeRecord(inst, ctx, exec, protocol::Space::kGlobal, 0, protocol::Op::kGridDepWait, 0,
                                       protocol::Scope::kNone);
  ctx.tracer->Emit(r);
}

void ZeroPolicy(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  mem::ForLanes(exec, [&](uint32_t l) { d[l] = 0; });
}

}  // namespace

absl::StatusOr<bool> SelectHintOp(const ptx::Instruction& ir, Inst& inst) {
  switch (ir.op) {
    case ptx::Opcode::kGriddepcontrol:
      inst.fn = ir.HasModifier(".wait") ? &GridDependencyWait : &Nothing;
      return true;
    case ptx::Opcode::kSetmaxnreg:
      inst.fn = &Nothing;
      return true;
    case ptx::Opcode::kCreatepolicy:
      if (inst.num_ops < 1 || inst.ops[0].kind != Opnd::Kind::kValue)
        return mem::UnimplementedForm(ir, "a destination register expected");
      inst.fn = &ZeroPolicy;
      return true;
    default:
      return false;
  }
}

}  // namespace barracuda::emu
