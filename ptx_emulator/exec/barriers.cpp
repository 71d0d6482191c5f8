// Named barriers of a block: bar/barrier .sync, .arrive, .red; and the
// arrival of divergent lanes at bar.warp.sync.
//
// Per block and id, arrivals accumulate (in threads: the popcount of the
// arriving lanes) into the current generation, which completes when they reach
// the thread count (0 = every live thread of the block; lanes that exit stop
// counting, so the generation is re-checked on exit). Waiting warps leave the
// run queue until their generation completes. The record (kBarrier /
// kBarrierArrive) is emitted at arrival, before any completion, as
// host_detector/detector/SEMANTICS.md expects. A block is always run by one worker, so
// none of this needs locks.
#include <bit>

#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/exec/cluster.h"
#include "ptx_emulator/exec/control_handlers.h"
#include "ptx_emulator/exec/run_queue.h"

namespace barracuda::emu {
namespace {

bool Complete(const Block& b, const BarrierState& s) {
  if (s.arrived == 0) return false;
  return s.arrived >= (s.count != 0 ? s.count : b.live_threads);
}

void Release(Block& b, uint32_t id) {
  BarrierState& s = b.barriers[id];
  for (const BarrierState::Waiter& wt : s.waiters) {
    const bool flag = wt.op == ptx::BoolOp::kAnd ? s.all : s.any;
    Warp& w = *wt.warp;
    CallFrame& f = w.frames[wt.frame];
    if (wt.dst_reg != BarrierState::kNoDst) {
      const uint64_t v = wt.op == ptx::BoolOp::kPopc ? s.popc : uint64_t{flag};
      uint64_t* dst = f.regs.data() + wt.dst_reg;
      for (uint32_t m = wt.mask; m; m &= m - 1) dst[Lane(m)] = v;
    }
    if (wt.dst_pred != BarrierState::kNoDst) {
      uint32_t& p = f.preds[wt.dst_pred];
      p = (p & ~wt.mask) | (flag ? wt.mask : 0);
    }
    UnparkEntries(w, id);
    if (w.state == WarpState::kWaitingBarrier) {
      w.state = WarpState::kRunnable;
      ++b.runnable_warps;
      if (!w.queued && b.queue != nullptr) b.queue->Add(&w);
    }
  }
  s = BarrierState{};
}

enum class Mode { kSync, kArrive, kRed };

void Arrive(const Inst& inst, WarpCtx& ctx, uint32_t exec, Mode mode) {
  Warp& w = static_cast<Warp&>(ctx);
  if (exec == 0) return;
  const int id_op = mode == Mode::kRed ? 1 : 0;
  const int pred_op = inst.num_ops - 1;
  const bool has_count = mode == Mode::kRed ? inst.num_ops == 4 : inst.num_ops >= 2;
  // No operand: barrier.cluster.wait, which (a cluster being one block here)
  // is a whole-block barrier 0.
  const uint64_t id = inst.num_ops > id_op ? UniformValue(ctx, inst.ops[id_op], exec) : 0;
  const uint64_t count = has_count ? UniformValue(ctx, inst.ops[id_op + 1], exec) : 0;
  const uint32_t lane = static_cast<uint32_t>(std::countr_zero(exec));
  if (id >= kMaxBarriers) {
    w.Raise(FaultKind::kUnsupported, inst, lane, id, "barrier id " + std::to_string(id) + " out of range 0..15");
    return;
  }
  if (count > w.threads_per_block || (has_count && count == 0 && mode == Mode::kArrive)) {
    w.Raise(FaultKind::kUnsupported, inst, lane, count,
            "barrier thread count " + std::to_string(count) + " invalid for a block of " +
                std::to_string(w.threads_per_block) + " threads");
    return;
  }
  if (exec != w.live) ExitParkedLanes(w);  // before counting: they must not be waited for
  // Divergent arrival (sm_70+): the lanes wait for the warp's other lanes that
  // can still run; the entry arrives when nothing else of the warp can run.
  if (mode != Mode::kArrive && exec != w.live && !w.force_arrive && DeferBarrier(w)) {
    WaitAt(w, SimtEntry::Wait::kDeferred, static_cast<uint32_t>(id));
    return;
  }
  Block& b = *w.block;
  BarrierState& s = b.barriers[id];
  s.arrived += static_cast<uint32_t>(std::popcount(exec));
  if (count != 0) s.count = static_cast<uint32_t>(count);
  BarrierState::Waiter waiter{&w, exec, w.depth - 1, BarrierState::kNoDst, BarrierState::kNoDst, ptx::BoolOp::kNone};
  if (mode == Mode::kRed) {
    const Opnd& p = inst.ops[pred_op];
    const uint32_t bits = (p.negated ? ~w.preds[p.index] : w.preds[p.index]) & exec;
    s.popc += static_cast<uint32_t>(std::popcount(bits));
    s.all = s.all && bits == exec;
    s.any = s.any || bits != 0;
    waiter.op = inst.info.bool_op;
    if (inst.ops[0].kind == Opnd::Kind::kPred) {
      waiter.dst_pred = inst.ops[0].index;
    } else {
      waiter.dst_reg = static_cast<uint32_t>(w.Dst(inst.ops[0].ref) - w.regs);
    }
  }
  if (w.tracer != nullptr) {
    protocol::Record r{};
    r.header.op = static_cast<uint8_t>(mode == Mode::kArrive ? protocol::Op::kBarrierArrive : protocol::Op::kBarrier);
    r.header.active_mask = exec;
    r.header.warp_id = w.warp_global;
    r.header.site_id = inst.site;
    r.barrier.barrier_id = static_cast<uint32_t>(id);
    r.barrier.thread_count = static_cast<uint32_t>(count);
    w.tracer->Emit(r);
  }
  if (mode != Mode::kArrive) {
    s.waiters.push_back(waiter);
    w.wait_barrier = static_cast<uint32_t>(id);
    w.wait_line = inst.ptx_line;
    w.events |= kEventBlocked;
    if (AnyItsFrame(w)) {
      // The entry parks; NormalizeStack runs other lanes of the warp or, when
      // none can run, makes the warp wait (kWaitingBarrier) until the release.
      WaitAt(w, SimtEntry::Wait::kParked, static_cast<uint32_t>(id));
    } else {
      // No other lane of the warp can run (else the arrival was deferred):
      // the whole warp waits, the common (uniform) case.
      w.state = WarpState::kWaitingBarrier;
      --b.runnable_warps;
    }
  }
  if (Complete(b, s)) Release(b, static_cast<uint32_t>(id));
}

}  // namespace

void BarSyncHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) { Arrive(inst, ctx, exec, Mode::kSync); }
void BarArriveHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) { Arrive(inst, ctx, exec, Mode::kArrive); }
void BarRedHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) { Arrive(inst, ctx, exec, Mode::kRed); }

// sm_70+: the members of a bar.warp.sync may reach it at different
// instructions (each side of a divergent branch calling __syncwarp()); none
// goes past it before all have arrived (PTX ISA, bar.warp.sync). A group whose
// mask names live lanes that are not with it waits, as a divergent bar.sync
// does (kDeferred: it arrives once nothing else of the warp can run), so the
// other side's work before its own __syncwarp() happens first. Lanes naming
// different masks in one instruction (tiled partitions) never wait here:
// each group's mask is its own lanes.
void BarWarpSyncHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  Warp& w = W(ctx);
  // Lanes that waited here logged their arrival when they began to wait.
  if (const uint32_t logged = exec & w.warp_sync_logged; logged != 0) {
    w.warp_sync_logged &= ~logged;
    exec &= ~logged;
  }
  if (exec == 0) return;
  if (!w.force_arrive) {
    const uint64_t* m = ctx.Src(inst.ops[0].ref);
    const auto members = static_cast<uint32_t>(m[std::countr_zero(exec)]);
    bool uniform = true;
    for (uint32_t rest = exec; rest; rest &= rest - 1)
      uniform = uniform && static_cast<uint32_t>(m[std::countr_zero(rest)]) == members;
    if (DeferWarpSync(w, inst, exec, members, uniform)) return;
  }
  WarpSyncRecord(inst, ctx, exec);
}

bool DeferWarpSync(Warp& w, const Inst& sync, uint32_t exec, uint32_t members, bool uniform) {
  if (!uniform || (members & w.live & ~exec) == 0 || !DeferBarrier(w)) return false;
  WarpSyncArrival(sync, w, members, exec);
  w.warp_sync_logged |= exec;
  WaitAt(w, SimtEntry::Wait::kDeferred, 0);
  return true;
}

void RecheckBarriers(Block& b) {
  for (uint32_t id = 0; id < kMaxBarriers; ++id) {
    const BarrierState& s = b.barriers[id];
    if (s.count == 0 && Complete(b, s)) Release(b, id);
  }
  if (b.cluster != nullptr) RecheckClusterBarrier(*b.cluster);
}

}  // namespace barracuda::emu
