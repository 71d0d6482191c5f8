// SIMT stack operations: divergence, reconvergence, exit. See warp.h for the
// stack discipline and the kIf/kElse/kFi pairing it guarantees.
#include <algorithm>
#include <bit>
#include <cstddef>

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

void PushEntry(Warp& w, const SimtEntry& e) {
  CallFrame& f = w.frame();
  SimtEntry n = e;
  n.seq = f.next_seq++;
  if (f.cur + 1 == f.stack.size()) {
    f.stack.push_back(n);
  } else {
    f.stack.insert(f.stack.begin() + f.cur + 1, n);
  }
  ++f.cur;
}

void Diverge(Warp& w, uint32_t then_mask, uint32_t then_pc, uint32_t else_pc, uint32_t reconv, uint32_t site) {
  SimtEntry& e = w.top();
  const uint32_t active = e.mask;
  e.pc = reconv;
  PushEntry(w, SimtEntry{else_pc, reconv, active & ~then_mask, SimtEntry::Kind::kElse, 0, site});
  PushEntry(w, SimtEntry{then_pc, reconv, then_mask, SimtEntry::Kind::kThen, 0, site});
  if (w.tracer != nullptr) EmitIf(w, active, then_mask, site);
  w.events |= kEventStackChanged;
}

namespace {

// Removes entry `i` of the innermost frame, emitting what its kind owes:
// a popped then side emits kElse, a popped else side kFi.
void EraseEntry(Warp& w, CallFrame& f, size_t i) {
  const SimtEntry popped = f.stack[i];
  if (i + 1 == f.stack.size()) {
    f.stack.pop_back();
  } else {
    f.stack.erase(f.stack.begin() + static_cast<std::ptrdiff_t>(i));
  }
  if (f.cur >= i && f.cur != 0) --f.cur;
  if (w.tracer == nullptr) return;
  // The header of kElse/kFi: the lanes of the side / join that runs next
  // (a brx.idx else side that splits again carries its full mask in pending_if).
  const SimtEntry* next = i == 0 ? nullptr : &f.stack[i - 1];
  const uint32_t next_mask = next == nullptr ? 0 : next->pending_if != 0 ? next->pending_if & w.live : next->mask;
  if (popped.kind == SimtEntry::Kind::kThen) {
    // A then side that emptied before it ever ran still owes its kIf.
    if (popped.pending_if != 0) EmitIf(w, popped.pending_if & w.live, 0, popped.site);
    w.Emit(protocol::Op::kElse, next_mask, popped.site);
  } else if (popped.kind == SimtEntry::Kind::kElse) {
    w.Emit(protocol::Op::kFi, next_mask, popped.site);
  }
}

// Finished: no lanes, or at the reconvergence point (and not waiting at a barrier).
bool Finished(const SimtEntry& e) { return e.wait == SimtEntry::Wait::kNone && (e.mask == 0 || e.pc == e.reconv); }

bool Recordless(const SimtEntry& e) { return e.kind == SimtEntry::Kind::kFork || e.kind == SimtEntry::Kind::kSplit; }

// First run of an entry: a pending brx.idx kIf, and the falling-off-the-end
// check. False on a fault.
bool StartEntry(Warp& w, CallFrame& f, SimtEntry& e) {
  if (e.pending_if != 0) {
    if (w.tracer != nullptr) EmitIf(w, e.pending_if & w.live, e.mask, e.site);
    e.pending_if = 0;
  }
  if (e.pc >= f.fn->code.size()) {
    // Only kExitReconvPc can get here legitimately... and it cannot: those
    // entries end by emptying. Anything else is falling off the end.
    const Inst& last = f.fn->code.back();
    w.Raise(FaultKind::kInvalidPc, last, static_cast<uint32_t>(std::countr_zero(e.mask)), e.pc,
            "control reached the end of function " + f.fn->name + " without ret/exit");
    return false;
  }
  return true;
}

void EnterIts(CallFrame& f) {
  if (f.its) return;
  // Outside `its` mode the stack order is the creation order.
  for (size_t i = 0; i < f.stack.size(); ++i) f.stack[i].seq = static_cast<uint32_t>(i);
  f.next_seq = static_cast<uint32_t>(f.stack.size());
  f.its = true;
}

// Lanes `free` of entry `i` wait at its pc while the rest of its lanes are
// in entries above that wait at barriers: they go on alone (G1, on top) and
// the rest continue as G2 (directly above `i`, under their entries); both
// reconverge where entry `i` would, and entry `i` waits there for them. The
// forks take the creation order of `i`, so the entries above `i` that were
// opened after it can still close before them.
void Fork(CallFrame& f, size_t i, uint32_t free) {
  for (size_t j = i + 1; j < f.stack.size(); ++j)
    if (Finished(f.stack[j])) f.stack[j].mask &= ~free;  // finished sides: their lanes are the free ones
  SimtEntry& e = f.stack[i];
  SimtEntry g2{e.pc, e.reconv, e.mask & ~free, SimtEntry::Kind::kFork, 0, protocol::kNoSite};
  SimtEntry g1{e.pc, e.reconv, free, SimtEntry::Kind::kFork, 0, protocol::kNoSite};
  g1.seq = g2.seq = e.seq;
  g1.site = g2.site = f.next_seq++;  // the fork's id: only its two halves merge again
  e.pc = e.reconv;
  f.stack.insert(f.stack.begin() + static_cast<std::ptrdiff_t>(i) + 1, g2);
  f.stack.push_back(g1);
  f.cur = static_cast<uint32_t>(f.stack.size() - 1);
}

// The deferred barrier of entry `i` arrives now (its handler runs again with
// force_arrive); the entry is then parked, or runs on if the barrier released.
void ArriveDeferred(Warp& w, CallFrame& f, size_t i) {
  f.cur = static_cast<uint32_t>(i);
  SimtEntry& e = f.stack[i];
  e.wait = SimtEntry::Wait::kNone;
  const uint32_t pc = e.pc;
  const Inst& in = f.fn->code[pc];
  e.pc = pc + 1;
  uint32_t exec = e.mask;
  if (in.guard != kNoPred) {
    const uint32_t p = w.preds[in.guard];
    exec &= in.guard_negated ? ~p : p;
  }
  const uint32_t saved_events = w.events;
  w.active = e.mask;
  w.cur_pc = pc;
  w.force_arrive = true;
  in.fn(in, w, exec);
  w.force_arrive = false;
  w.events = saved_events;
}

enum class ItsStep { kRun, kFrameDone, kStop, kCalled };

// NormalizeStack for a frame in `its` mode: erase finished entries (newest
// first, so records stay nested), run the topmost runnable leaf, else fork
// lanes waiting at a reconvergence point, else let deferred barriers arrive,
// else the warp waits for a barrier release.
ItsStep NormalizeIts(Warp& w, CallFrame& f) {
  auto& st = f.stack;
  for (;;) {
    if (st.empty()) return ItsStep::kFrameDone;
    // 1. Erase a finished entry: no lanes of it in entries above, and (if it
    // owes records) nothing opened after it still open.
    uint32_t newest = 0;
    for (const SimtEntry& e : st) newest = std::max(newest, e.seq);
    bool erased = false;
    for (size_t i = st.size(); i-- > 0 && !erased;) {
      const SimtEntry& e = st[i];
      if (!Finished(e) || (!Recordless(e) && e.seq < newest)) continue;
      bool covered = false;
      for (size_t j = i + 1; j < st.size() && !covered; ++j) covered = (st[j].mask & e.mask) != 0;
      if (covered) continue;
      EraseEntry(w, f, i);
      erased = true;
    }
    if (erased) continue;
    // 2. The topmost runnable leaf (no unfinished entry above holds its lanes).
    uint32_t above = 0;
    for (size_t i = st.size(); i-- > 0;) {
      SimtEntry& e = st[i];
      if (Finished(e)) continue;
      if (e.wait == SimtEntry::Wait::kNone && (e.mask & above) == 0) {
        f.cur = static_cast<uint32_t>(i);
        if (!StartEntry(w, f, e)) return ItsStep::kStop;
        // Back to plain stack order when nothing waits and the stack is in creation order.
        bool plain = i + 1 == st.size();
        for (size_t j = 0; j < st.size() && plain; ++j)
          plain = st[j].wait == SimtEntry::Wait::kNone && (j == 0 || st[j - 1].seq <= st[j].seq);
        if (plain) f.its = false;
        return ItsStep::kRun;
      }
      above |= e.mask;
    }
    // 3. Fork the free lanes of the topmost entry that has some.
    above = 0;
    bool forked = false;
    for (size_t i = st.size(); i-- > 0 && !forked;) {
      const SimtEntry& e = st[i];
      if (Finished(e)) continue;
      const uint32_t mask = e.mask;  // Fork may reallocate the stack: `e` dangles after it
      if (e.wait == SimtEntry::Wait::kNone && (mask & ~above) != 0) {
        Fork(f, i, mask & ~above);
        forked = true;
      }
      above |= mask;
    }
    if (forked) continue;
    // 3b. Nothing else can run: yielded spinners run again (before deferred
    // barriers arrive: lanes at a barrier still wait for them).
    bool resumed = false;
    for (SimtEntry& e : st) {
      if (e.wait != SimtEntry::Wait::kYielded) continue;
      e.wait = SimtEntry::Wait::kNone;
      resumed = true;
    }
    if (resumed) continue;
    // 4. Nothing else can run: the two halves of a fork deferred at the same
    // barrier merge (one arrival with all their lanes), then deferred
    // barriers arrive, topmost first.
    bool merged = false;
    for (size_t i = st.size(); i-- > 0 && !merged;) {
      SimtEntry& hi = st[i];
      if (hi.wait != SimtEntry::Wait::kDeferred || hi.kind != SimtEntry::Kind::kFork) continue;
      for (size_t j = i; j-- > 0 && !merged;) {
        SimtEntry& lo = st[j];
        if (lo.wait != SimtEntry::Wait::kDeferred || lo.kind != SimtEntry::Kind::kFork || lo.site != hi.site ||
            lo.pc != hi.pc)
          continue;
        lo.mask |= hi.mask;
        hi.mask = 0;
        hi.wait = SimtEntry::Wait::kNone;  // finished: erased next round
        merged = true;
      }
    }
    if (merged) continue;
    bool arrived = false;
    for (size_t i = st.size(); i-- > 0 && !arrived;) {
      if (st[i].wait != SimtEntry::Wait::kDeferred) continue;
      const uint32_t depth = w.depth;
      ArriveDeferred(w, f, i);
      if (w.faulted()) return ItsStep::kStop;
      // A deferred call (-G's __syncwarp) pushed the callee's frame: run it.
      if (w.depth != depth) return ItsStep::kCalled;
      arrived = true;
    }
    if (arrived) continue;
    // 5. Every lane left waits at a barrier.
    for (size_t i = st.size(); i-- > 0;) {
      const SimtEntry& e = st[i];
      if (e.wait != SimtEntry::Wait::kParked) continue;
      w.wait_barrier = e.barrier;
      w.cur_pc = e.pc - 1;
      w.wait_line = f.fn->code[e.pc - 1].ptx_line;
      if (w.state == WarpState::kRunnable) {
        w.state = WarpState::kWaitingBarrier;
        --w.block->runnable_warps;
      }
      return ItsStep::kStop;
    }
    w.Raise(FaultKind::kInvalidPc, f.fn->code.front(), 0, 0, "internal: no runnable SIMT stack entry in " + f.fn->name);
    return ItsStep::kStop;
  }
}

}  // namespace

void WaitAt(Warp& w, SimtEntry::Wait wait, uint32_t barrier) {
  CallFrame& f = w.frame();
  EnterIts(f);
  SimtEntry& e = f.stack[f.cur];
  e.wait = wait;
  e.barrier = static_cast<uint8_t>(barrier);
  if (wait == SimtEntry::Wait::kDeferred) e.pc = w.cur_pc;
  w.events |= kEventStackChanged;
}

bool DeferBarrier(const Warp& w) {
  const CallFrame& f = w.frames[w.depth - 1];
  uint32_t others = f.stack.front().mask & w.live & ~f.stack[f.cur].mask;
  if (others == 0) return false;
  for (const SimtEntry& e : f.stack) {
    if (e.wait == SimtEntry::Wait::kDeferred) return true;
    if (e.wait == SimtEntry::Wait::kParked) others &= ~e.mask;  // a yielded entry runs again
  }
  return others != 0;
}

void SpinCheck(Warp& w, SimtEntry& e) {
  if (++e.spins < kSpinYield) return;
  e.spins = 0;
  const CallFrame& f = w.frames[w.depth - 1];
  uint32_t others = f.stack.front().mask & w.live & ~e.mask;
  for (const SimtEntry& x : f.stack)
    if (x.wait != SimtEntry::Wait::kNone) others &= ~x.mask;
  if (others != 0) WaitAt(w, SimtEntry::Wait::kYielded, 0);
}

void UnparkEntries(Warp& w, uint32_t barrier) {
  for (uint32_t d = 0; d < w.depth; ++d) {
    if (!w.frames[d].its) continue;  // entries wait only in `its` frames
    for (SimtEntry& e : w.frames[d].stack)
      if (e.wait == SimtEntry::Wait::kParked && e.barrier == barrier) e.wait = SimtEntry::Wait::kNone;
  }
}

void NormalizeStack(Warp& w) {
  bool rebind = false;
  while (w.depth != 0) {
    CallFrame& f = w.frame();
    if (f.its) {
      if (rebind) w.BindFrame();  // deferred barriers may run their handler
      rebind = false;
      const ItsStep step = NormalizeIts(w, f);
      if (step == ItsStep::kRun) break;
      if (step == ItsStep::kStop) return;
      if (step == ItsStep::kCalled) continue;  // `f` is the caller now; the callee's frame is on top
    } else {
      while (!f.stack.empty()) {
        SimtEntry& e = f.stack.back();
        if (e.mask != 0 && e.pc != e.reconv) {
          if (!StartEntry(w, f, e)) return;
          break;
        }
        EraseEntry(w, f, f.stack.size() - 1);
      }
      if (!f.stack.empty()) {
        f.cur = static_cast<uint32_t>(f.stack.size() - 1);
        break;
      }
    }
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
  // A copy still in flight lands before the lane is gone (nobody waited for it).
  if (w.async) w.async->CompleteLanes(lanes);
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
    // The running entry and entries waiting at a barrier stay.
    if (i == f.cur || e.wait != SimtEntry::Wait::kNone || parked == 0 || e.pc >= code.size()) continue;
    const Inst& next = code[e.pc];
    const bool leaves = next.guard == kNoPred && (next.opcode == ptx::Opcode::kExit ||
                                                  (next.opcode == ptx::Opcode::kRet && w.depth == 1));
    if (leaves) ExitLanes(w, parked);
  }
}

}  // namespace barracuda::emu
