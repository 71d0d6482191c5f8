// SIMT stack operations: divergence, reconvergence, exit. See warp.h for the
// stack discipline and the kIf/kElse/kFi pairing it guarantees.
#include <bit>

#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/exec/warp.h"

namespace barracuda::emu {

void Warp::Emit(protocol::Op op, uint32_t mask, uint32_t site) const {
  protocol::Record r{};
  r.header.op = static_cast<uint8_t>(op);
  r.header.active_mask = mask;
  r.header.warp_id = warp_global;
  r.header.site_id = site;
  tracer->Emit(r);
}

namespace {

void EmitIf(const Warp& w, uint32_t header, uint32_t then_mask, uint32_t site) {
  protocol::Record r{};
  r.header.op = static_cast<uint8_t>(protocol::Op::kIf);
  r.header.active_mask = header;
  r.header.warp_id = w.warp_global;
  r.header.site_id = site;
  r.branch.then_mask = then_mask;
  w.tracer->Emit(r);
}

}  // namespace

void Diverge(Warp& w, uint32_t then_mask, uint32_t then_pc, uint32_t else_pc, uint32_t reconv, uint32_t site) {
  auto& stack = w.frame().stack;
  SimtEntry& e = stack.back();
  const uint32_t active = e.mask;
  e.pc = reconv;
  stack.push_back(SimtEntry{else_pc, reconv, active & ~then_mask, SimtEntry::Kind::kElse, 0, site});
  stack.push_back(SimtEntry{then_pc, reconv, then_mask, SimtEntry::Kind::kThen, 0, site});
  if (w.tracer != nullptr) EmitIf(w, active, then_mask, site);
  w.events |= kEventStackChanged;
}

void NormalizeStack(Warp& w) {
  bool rebind = false;
  while (w.depth != 0) {
    CallFrame& f = w.frame();
    const uint32_t size = static_cast<uint32_t>(f.fn->code.size());
    while (!f.stack.empty()) {
      SimtEntry& e = f.stack.back();
      if (e.mask != 0 && e.pc != e.reconv) {
        if (e.pending_if != 0) {
          if (w.tracer != nullptr) EmitIf(w, e.pending_if & w.live, e.mask, e.site);
          e.pending_if = 0;
        }
        if (e.pc >= size) {
          // Only kExitReconvPc can get here legitimately... and it cannot: those
          // entries end by emptying. Anything else is falling off the end.
          const Inst& last = f.fn->code.back();
          w.Raise(FaultKind::kInvalidPc, last, static_cast<uint32_t>(std::countr_zero(e.mask)), e.pc,
                  "control reached the end of function " + f.fn->name + " without ret/exit");
          return;
        }
        break;
      }
      const SimtEntry popped = e;
      f.stack.pop_back();
      if (w.tracer == nullptr) continue;
      // The header of kElse/kFi: the lanes of the side / join that runs next
      // (a brx.idx else side that splits again carries its full mask in pending_if).
      const SimtEntry* next = f.stack.empty() ? nullptr : &f.stack.back();
      const uint32_t next_mask = next == nullptr ? 0 : next->pending_if != 0 ? next->pending_if & w.live : next->mask;
      if (popped.kind == SimtEntry::Kind::kThen) {
        // A then side that emptied before it ever ran still owes its kIf.
        if (popped.pending_if != 0) EmitIf(w, popped.pending_if & w.live, 0, popped.site);
        w.Emit(protocol::Op::kElse, next_mask, popped.site);
      } else if (popped.kind == SimtEntry::Kind::kElse) {
        w.Emit(protocol::Op::kFi, next_mask, popped.site);
      }
    }
    if (!f.stack.empty()) break;
    // Every lane of the frame returned (or exited): back to the caller.
    --w.depth;
    rebind = true;
  }
  if (w.depth == 0) {
    w.state = WarpState::kDone;
    w.active = 0;
    return;
  }
  if (rebind) w.BindFrame();
}

void ExitLanes(Warp& w, uint32_t lanes) {
  lanes &= w.live;
  if (lanes == 0) return;
  for (uint32_t d = 0; d < w.depth; ++d)
    for (SimtEntry& e : w.frames[d].stack) e.mask &= ~lanes;
  w.live &= ~lanes;
  if (w.tracer != nullptr) w.Emit(protocol::Op::kExit, lanes, protocol::kNoSite);
  w.events |= kEventStackChanged;
  w.block->live_threads -= static_cast<uint32_t>(std::popcount(lanes));
  RecheckBarriers(*w.block);
}

void ExitParkedLanes(Warp& w) {
  CallFrame& f = w.frame();
  const std::vector<Inst>& code = f.fn->code;
  uint32_t above = 0;  // lanes of the entries above: still running
  for (size_t i = f.stack.size(); i-- > 0;) {
    SimtEntry& e = f.stack[i];
    const uint32_t parked = e.mask & ~above;
    above |= e.mask;
    if (i + 1 == f.stack.size() || parked == 0 || e.pc >= code.size()) continue;
    const Inst& next = code[e.pc];
    const bool leaves = next.guard == kNoPred && (next.opcode == ptx::Opcode::kExit ||
                                                  (next.opcode == ptx::Opcode::kRet && w.depth == 1));
    if (leaves) ExitLanes(w, parked);
  }
}

}  // namespace barracuda::emu
