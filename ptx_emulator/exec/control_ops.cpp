// Control family: selection (SelectControlOp) and the handlers for branches,
// calls, returns, exit, trap, nanosleep and pmevent. Barriers are in
// barriers.cpp, extern builtins (vprintf, __assertfail, malloc, free, cudaGraphSetConditional) in
// builtins.cpp.
//
// Control handlers see the warp's pc already advanced past the instruction
// (Warp::cur_pc is the instruction itself) and change the SIMT stack directly,
// reporting changes through Warp::events.
#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/exec/cluster.h"
#include "ptx_emulator/exec/control_handlers.h"

namespace barracuda::emu {
namespace {

uint32_t FirstLane(uint32_t mask) { return static_cast<uint32_t>(std::countr_zero(mask)); }

uint32_t ReconvPc(const Inst& inst) { return inst.reconv >= 0 ? static_cast<uint32_t>(inst.reconv) : kExitReconvPc; }
uint32_t BranchTarget(const Inst& inst) {
  return inst.target >= 0 ? static_cast<uint32_t>(inst.target) : inst.ops[0].index;
}

// Unguarded bra: every active lane goes. A backward one may be a spin
// (SpinCheck: forward progress for the other lanes of the warp).
void JumpHandler(const Inst& inst, WarpCtx& ctx, uint32_t) {
  Warp& w = W(ctx);
  SimtEntry& e = w.top();
  e.pc = BranchTarget(inst);
  if (e.pc <= w.cur_pc) SpinCheck(w, e);
}

// @p bra: uniform (nothing emitted) or a split at the immediate post-dominator.
void BranchHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  Warp& w = W(ctx);
  SimtEntry& e = w.top();
  if (exec == e.mask) {
    e.pc = BranchTarget(inst);
    if (e.pc <= w.cur_pc) SpinCheck(w, e);
    return;
  }
  if (exec == 0) return;
  Diverge(w, exec, BranchTarget(inst), w.cur_pc + 1, ReconvPc(inst), inst.site);
}

// brx.idx: lanes grouped by target (in order of their lowest lane); k groups
// nest as if (g1) {...} else if (g2) {...} ... so the records stay binary:
// bottom to top E(pc=R), X1..X(k-2) (else, pc=R), X(k-1) (else, pc=t_k),
// T(k-1)..T2 (then, kIf pending), T1 (then).
void BrxHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  Warp& w = W(ctx);
  if (exec == 0) return;
  const Function& fn = *w.function;
  const Opnd& table = inst.ops[1];
  const uint32_t first = table.index;
  // index2 holds the entry count (count saturates at 255).
  const uint32_t count = table.index2 != 0 ? table.index2 : table.count;
  const uint64_t* idx = ctx.Src(inst.ops[0].ref);
  uint32_t targets[kLanes + 1];
  uint32_t masks[kLanes + 1];
  uint32_t groups = 0;
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const uint64_t i = idx[l] & 0xffffffffu;
    if (i >= count || first + i >= fn.jump_tables.size()) {
      w.Raise(FaultKind::kInvalidPc, inst, l, i,
              "brx.idx: index " + std::to_string(i) + " outside its " + std::to_string(count) + "-entry target list");
      return;
    }
    const uint32_t t = fn.jump_tables[first + i];
    uint32_t g = 0;
    while (g < groups && targets[g] != t) ++g;
    if (g == groups) targets[groups] = t, masks[groups++] = 0;
    masks[g] |= 1u << l;
  }
  SimtEntry& e = w.top();
  const uint32_t active = e.mask;
  if (exec != active) targets[groups] = w.cur_pc + 1, masks[groups++] = active & ~exec;  // guard-false lanes
  if (groups == 1) {
    e.pc = targets[0];
    return;
  }
  const uint32_t reconv = ReconvPc(inst);
  const uint32_t k = groups;
  e.pc = reconv;
  uint32_t rest = active & ~masks[0];  // lanes of g2..gk
  for (uint32_t i = 1; i + 1 < k; ++i) {  // X1..X(k-2)
    PushEntry(w, SimtEntry{reconv, reconv, rest, SimtEntry::Kind::kElse, 0, inst.site});
    rest &= ~masks[i];
  }
  PushEntry(w, SimtEntry{targets[k - 1], reconv, masks[k - 1], SimtEntry::Kind::kElse, 0, inst.site});
  uint32_t header = masks[k - 1];
  for (uint32_t i = k - 1; i >= 2; --i) {  // T(k-1)..T2; header = g_i | ... | g_k
    header |= masks[i - 1];
    PushEntry(w, SimtEntry{targets[i - 1], reconv, masks[i - 1], SimtEntry::Kind::kThen, header, inst.site});
  }
  PushEntry(w, SimtEntry{targets[0], reconv, masks[0], SimtEntry::Kind::kThen, 0, inst.site});
  if (w.tracer != nullptr) {
    protocol::Record r{};
    r.header.op = static_cast<uint8_t>(protocol::Op::kIf);
    r.header.active_mask = active;
    r.header.warp_id = w.warp_global;
    r.header.site_id = inst.site;
    r.branch.then_mask = masks[0];
    w.tracer->Emit(r);
  }
  w.events |= kEventStackChanged;
}

bool PushFrame(Warp& w, const Inst& inst, const Function::CallSite& cs, const Function& callee, uint32_t lanes) {
  if (callee.code.empty()) {
    w.Raise(FaultKind::kInvalidPc, inst, FirstLane(lanes), 0, "call to " + callee.name + ", which has no body");
    return false;
  }
  const CallFrame& cur = w.frame();
  const uint32_t align = std::max<uint32_t>(1, callee.frame_align);
  uint64_t used = uint64_t{cur.frame_base} + cur.fn->frame_bytes;
  if (cur.dynamic)  // above what the calling lanes allocated
    for (uint32_t m = lanes; m; m &= m - 1) used = std::max<uint64_t>(used, cur.stack_top[Lane(m)]);
  const uint64_t base = (used + align - 1) / align * align;
  if (w.local_base == nullptr || base + callee.frame_bytes > w.local_stride || w.depth >= kMaxCallDepth) {
    w.Raise(FaultKind::kStackOverflow, inst, FirstLane(lanes), base,
            "call to " + callee.name + " at depth " + std::to_string(w.depth) + " needs local bytes up to " +
                std::to_string(base + callee.frame_bytes) + " of " + std::to_string(w.local_stride));
    return false;
  }
  const uint32_t caller_base = cur.frame_base;
  if (w.frames.size() <= w.depth) w.frames.emplace_back();  // may move `cur`: not used below
  CallFrame& f = w.frames[w.depth];
  f.fn = &callee;
  f.regs.assign(size_t{callee.num_registers} * kLanes, 0);
  f.preds.assign(callee.num_predicates, 0);
  f.frame_base = static_cast<uint32_t>(base);
  f.dynamic = false;
  f.call_site = inst.aux;
  f.ResetStack(lanes);
  const size_t n = std::min(cs.arg_offsets.size(), callee.params.size());
  for (size_t i = 0; i < n; ++i) {
    const uint32_t bytes = std::min(cs.arg_sizes.size() > i ? cs.arg_sizes[i] : callee.params[i].size,
                                    callee.params[i].size);
    for (uint32_t m = lanes; m; m &= m - 1) {
      uint8_t* window = w.LocalWindow(Lane(m));
      std::memmove(window + base + callee.params[i].offset, window + caller_base + cs.arg_offsets[i], bytes);
    }
  }
  ++w.depth;
  w.BindFrame();
  w.events |= kEventStackChanged;
  return true;
}

// A call of -G's __syncwarp(mask) (Function::warp_sync_wrapper) by lanes
// whose mask names live lanes not with them: the call waits in this frame as
// the bar.warp.sync itself would (exec/barriers.cpp BarWarpSyncHandler), since
// lanes on the other path wait in this frame too and cannot run while the
// callee's frame is on top. Once it arrives (force_arrive), the call goes on.
bool DeferWarpSyncCall(Warp& w, const Function::CallSite& cs, const Function& wrapper, uint32_t exec) {
  if (cs.arg_offsets.size() != 1) return false;
  const uint32_t base = w.frame().frame_base + cs.arg_offsets[0];
  uint32_t members = 0;
  bool first = true, uniform = true;
  for (uint32_t m = exec; m; m &= m - 1) {
    uint32_t v;
    std::memcpy(&v, w.LocalWindow(Lane(m)) + base, sizeof v);
    uniform = uniform && (first || v == members);
    members = v;
    first = false;
  }
  for (const Inst& sync : wrapper.code)
    if (sync.opcode == ptx::Opcode::kBar) return DeferWarpSync(w, sync, exec, members, uniform);
  return false;
}

void CallHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  Warp& w = W(ctx);
  if (exec == 0) return;
  const Function& caller = *w.function;
  if (inst.aux >= caller.call_sites.size()) {
    w.Raise(FaultKind::kUnsupported, inst, FirstLane(exec), 0, "call: no call-site entry");
    return;
  }
  const Function::CallSite& cs = caller.call_sites[inst.aux];
  if (cs.builtin != Builtin::kNone) {
    RunBuiltin(w, inst, cs, exec);
    return;
  }
  int64_t callee = cs.callee;
  if (callee < 0 && cs.callee_ref == kNoRef) callee = inst.target;
  uint32_t lanes = exec;
  if (callee < 0) {
    // Indirect: lanes may hold different function pointers. The lanes of the
    // first one call now; the others re-run this call afterwards (kSplit
    // entries reconverging after the call), like a GPU serialising targets.
    const uint64_t* v = ctx.Src(cs.callee_ref);
    const uint64_t value = v[FirstLane(exec)];
    const uint64_t index = value & ~kFunctionPointerTag;
    if ((value & kFunctionPointerTag) != kFunctionPointerTag || index >= w.device->function_count()) {
      w.Raise(FaultKind::kInvalidPc, inst, FirstLane(exec), value, "indirect call through an invalid function pointer");
      return;
    }
    lanes = 0;
    for (uint32_t m = exec; m; m &= m - 1)
      if (v[Lane(m)] == value) lanes |= 1u << Lane(m);
    if (lanes != exec) {
      const uint32_t after = w.cur_pc + 1;
      PushEntry(w, SimtEntry{w.cur_pc, after, exec & ~lanes, SimtEntry::Kind::kSplit, 0, protocol::kNoSite});
      PushEntry(w, SimtEntry{after, after, lanes, SimtEntry::Kind::kSplit, 0, protocol::kNoSite});
    }
    callee = static_cast<int64_t>(index);
  }
  const Function& fn = w.device->function(static_cast<uint32_t>(callee));
  if (fn.warp_sync_wrapper && lanes == exec && !w.force_arrive && DeferWarpSyncCall(w, cs, fn, exec)) return;
  PushFrame(w, inst, cs, fn, lanes);
}

void RetHandler(const Inst&, WarpCtx& ctx, uint32_t exec) {
  Warp& w = W(ctx);
  if (exec == 0) return;
  if (w.depth == 1) {  // ret from the kernel: the lanes exit
    ExitLanes(w, exec);
    return;
  }
  CallFrame& f = w.frame();
  const CallFrame& caller = w.frames[w.depth - 2];
  const Function::CallSite& cs = caller.fn->call_sites[f.call_site];
  const size_t n = std::min(cs.ret_offsets.size(), f.fn->returns.size());
  for (size_t i = 0; i < n; ++i) {
    const uint32_t bytes = std::min(cs.ret_sizes.size() > i ? cs.ret_sizes[i] : f.fn->returns[i].size,
                                    f.fn->returns[i].size);
    for (uint32_t m = exec; m; m &= m - 1) {
      uint8_t* window = w.LocalWindow(Lane(m));
      std::memmove(window + caller.frame_base + cs.ret_offsets[i], window + f.frame_base + f.fn->returns[i].offset,
                   bytes);
    }
  }
  // Returned lanes leave the frame; they wait at the caller's entry until the
  // whole frame is done (NormalizeStack pops it).
  for (SimtEntry& e : f.stack) e.mask &= ~exec;
  w.events |= kEventStackChanged;
}

void ExitHandler(const Inst&, WarpCtx& ctx, uint32_t exec) {
  if (exec != 0) ExitLanes(W(ctx), exec);
}

void TrapHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (exec == 0) return;
  ctx.Raise(FaultKind::kTrap, inst, FirstLane(exec), 0,
            inst.opcode == ptx::Opcode::kBrkpt ? "brkpt: breakpoint reached" : "kernel trapped");  // FaultStatus adds "trap: "
}

// ---- dynamic stack allocation (PTX alloca, stacksave, stackrestore)
// Each lane's allocations sit in its own local window above the running
// frame (CallFrame::stack_top); a call puts the callee above them, a return
// frees them with the frame. Pointers are local-window offsets (ld.local /
// st.local, or cvta.local to a generic address).
void StartDynamicStack(CallFrame& f) {
  if (f.dynamic) return;
  f.stack_top.fill(f.frame_base + f.fn->frame_bytes);
  f.dynamic = true;
}

// alloca.type ptr, size[, immAlign]: alignment max(immAlign, 8), the PTX minimum.
void AllocaHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (exec == 0) return;
  Warp& w = W(ctx);
  CallFrame& f = w.frame();
  StartDynamicStack(f);
  const bool wide = inst.info.type() == ptx::Type::kU64;
  const uint64_t* size = ctx.Src(inst.ops[1].ref);
  const uint64_t align = inst.num_ops > 2 ? std::max<uint64_t>(ctx.Src(inst.ops[2].ref)[Lane(exec)], 8) : 8;
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const uint64_t bytes = wide ? size[l] : static_cast<uint32_t>(size[l]);
    const uint64_t at = (uint64_t{f.stack_top[l]} + align - 1) / align * align;
    if (w.local_base == nullptr || at + bytes > w.local_stride) {
      w.Raise(FaultKind::kStackOverflow, inst, l, at,
              "alloca of " + std::to_string(bytes) + " bytes needs local bytes up to " + std::to_string(at + bytes) +
                  " of " + std::to_string(w.local_stride) + " (cudaLimitStackSize)");
      return;
    }
    d[l] = at;
    f.stack_top[l] = static_cast<uint32_t>(at + bytes);
  }
}

void StacksaveHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  Warp& w = W(ctx);
  CallFrame& f = w.frame();
  StartDynamicStack(f);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  for (uint32_t m = exec; m; m &= m - 1) d[Lane(m)] = f.stack_top[Lane(m)];
}

// stackrestore.type a: a from stacksave in this frame; a value outside
// [frame end, window] would let later allocations overwrite the frame or run
// off the window, so it faults instead.
void StackrestoreHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  Warp& w = W(ctx);
  CallFrame& f = w.frame();
  StartDynamicStack(f);
  const uint64_t* a = ctx.Src(inst.ops[0].ref);
  const uint64_t floor = uint64_t{f.frame_base} + f.fn->frame_bytes;
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    if (a[l] < floor || a[l] > w.local_stride) {
      w.Raise(FaultKind::kStackOverflow, inst, l, a[l],
              "stackrestore to " + std::to_string(a[l]) + ", outside this frame's stack (" + std::to_string(floor) +
                  " to " + std::to_string(w.local_stride) + "): not a value of stacksave");
      return;
    }
    f.stack_top[l] = static_cast<uint32_t>(a[l]);
  }
}

void YieldHandler(const Inst&, WarpCtx& ctx, uint32_t exec) {
  if (exec != 0) W(ctx).events |= kEventYield;  // let spinning peers run
}
void NopHandler(const Inst&, WarpCtx&, uint32_t) {}

bool IsValue(const Opnd& o) { return o.kind == Opnd::Kind::kValue; }

}  // namespace

absl::StatusOr<bool> SelectControlOp(const ptx::Instruction& ir, Inst& inst) {
  switch (ir.op) {
    case ptx::Opcode::kBra:
      if (inst.target < 0 && (inst.num_ops < 1 || inst.ops[0].kind != Opnd::Kind::kLabel))
        return UnimplementedForm(ir, "branch target is not a label");
      inst.fn = (ir.guard.present() || inst.guard != kNoPred) ? BranchHandler : JumpHandler;
      return true;
    case ptx::Opcode::kBrx:
      if (inst.num_ops < 2 || !IsValue(inst.ops[0]) || inst.ops[1].kind != Opnd::Kind::kLabel)
        return UnimplementedForm(ir, "expected brx.idx index, target-list");
      inst.fn = BrxHandler;
      return true;
    case ptx::Opcode::kCall: inst.fn = CallHandler; return true;
    case ptx::Opcode::kRet: inst.fn = RetHandler; return true;
    case ptx::Opcode::kExit: inst.fn = ExitHandler; return true;
    case ptx::Opcode::kTrap:
    case ptx::Opcode::kBrkpt: inst.fn = TrapHandler; return true;
    case ptx::Opcode::kNanosleep: inst.fn = YieldHandler; return true;
    case ptx::Opcode::kAlloca:
      if (inst.num_ops < 2 || !IsValue(inst.ops[0]) || !IsValue(inst.ops[1]) ||
          (inst.num_ops > 2 && !IsValue(inst.ops[2])))
        return UnimplementedForm(ir, "expected ptr, size [, immAlign]");
      inst.fn = AllocaHandler;
      return true;
    case ptx::Opcode::kStacksave:
    case ptx::Opcode::kStackrestore:
      if (inst.num_ops != 1 || !IsValue(inst.ops[0])) return UnimplementedForm(ir, "expected one register");
      inst.fn = ir.op == ptx::Opcode::kStacksave ? StacksaveHandler : StackrestoreHandler;
      return true;
    case ptx::Opcode::kPmevent: inst.fn = NopHandler; return true;
    case ptx::Opcode::kBar:
    case ptx::Opcode::kBarrier:
      // barrier.cluster.arrive / .wait: exec/cluster.cpp.
      if (ir.HasModifier(".cluster")) return SelectClusterBarrierOp(ir, inst);
      switch (ir.info.barrier) {
        case ptx::BarrierMode::kWarpSync:
          if (inst.num_ops != 1 || !IsValue(inst.ops[0])) return UnimplementedForm(ir, "expected membermask");
          inst.fn = BarWarpSyncHandler;
          return true;
        case ptx::BarrierMode::kSync:
          if (inst.num_ops < 1 || !IsValue(inst.ops[0]) || (inst.num_ops > 1 && !IsValue(inst.ops[1])))
            return UnimplementedForm(ir, "expected barrier id [, thread count]");
          inst.fn = BarSyncHandler;
          return true;
        case ptx::BarrierMode::kArrive:
          if (inst.num_ops < 2 || !IsValue(inst.ops[0]) || !IsValue(inst.ops[1]))
            return UnimplementedForm(ir, "expected barrier id, thread count");
          inst.fn = BarArriveHandler;
          return true;
        case ptx::BarrierMode::kRed:
          if (ir.info.bool_op != ptx::BoolOp::kPopc && ir.info.bool_op != ptx::BoolOp::kAnd &&
              ir.info.bool_op != ptx::BoolOp::kOr)
            return UnimplementedForm(ir, "bar.red needs .popc, .and or .or");
          if (inst.num_ops < 3 || inst.ops[inst.num_ops - 1].kind != Opnd::Kind::kPred || !IsValue(inst.ops[1]))
            return UnimplementedForm(ir, "expected destination, barrier id [, thread count], predicate");
          inst.fn = BarRedHandler;
          return true;
        default: return UnimplementedForm(ir, "barrier without .sync/.arrive/.red");
      }
    default: return false;
  }
}

}  // namespace barracuda::emu
