// barrier.cluster.arrive / barrier.cluster.wait across the CTAs of a cluster
// (see cluster.h for the model, device_logger/protocol.h for the records).
#include "ptx_emulator/exec/cluster.h"

#include <bit>
#include <string>

#include "device_logger/protocol.h"
#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/exec/control_handlers.h"
#include "ptx_emulator/exec/run_queue.h"

namespace barracuda::emu {

void Cluster::Reset(uint32_t size, uint32_t wpb) {
  windows.size = size;
  windows.exited = 0;
  warps_per_block = wpb;
  done_ctas = 0;
  phase = 0;
  arrived.assign(size_t{size} * wpb, 0);
  owed.assign(size_t{size} * wpb, 0);
  waiters.clear();
}

uint32_t Cluster::MissingThreads() const {
  uint32_t missing = 0;
  for (uint32_t r = 0; r < size(); ++r) {
    const Block& b = *ctas[r];
    for (uint32_t i = 0; i < warps_per_block; ++i) {
      missing += static_cast<uint32_t>(std::popcount(b.warps[i]->live & ~arrived[r * warps_per_block + i]));
    }
  }
  return missing;
}

bool Cluster::Stuck() const {
  for (uint32_t r = 0; r < size(); ++r) {
    if (ctas[r]->runnable_warps != 0) return false;
  }
  return done_ctas < size();
}

namespace {

enum ClusterMode : uint64_t { kArriveRelease = 0, kArriveRelaxed = 1, kWait = 2 };

// One record for the lanes `mask` of `w`: kRelease for an arrival of phase
// `phase`, kAcquire for a wait that observed its completion (protocol.h).
void EmitSync(Warp& w, protocol::Op op, uint32_t mask, uint32_t site, const Cluster& c, uint64_t phase) {
  protocol::Record r{};
  r.header.op = static_cast<uint8_t>(op);
  const bool release = op == protocol::Op::kRelease;
  r.header.flags = release ? protocol::kFlagLoad | protocol::kFlagStore : protocol::kFlagLoad;
  r.header.access_size = 4;
  r.header.space_scope = protocol::PackSpaceScope(protocol::Space::kShared, protocol::Scope::kCluster);
  r.header.active_mask = mask;
  r.header.warp_id = w.warp_global;
  r.header.site_id = site;
  const uint64_t address = protocol::ClusterBarrierAddress(c.ctas[0]->linear, phase);
  for (uint32_t m = mask; m; m &= m - 1) r.addr[Lane(m)] = address;
  // A release stamps before it publishes (its arrival), an acquire after it
  // observed the completion: the caller emits at those points.
  r.stamp = w.tracer->Stamp();
  w.tracer->Emit(r);
}

// Completes the current phase if no live thread is missing: waiters resume
// (each emits its acquire now, after every arrival of the phase).
void TryComplete(Cluster& c) {
  if (c.MissingThreads() != 0) return;
  // A phase with no arrival at all (every thread exited) completes nothing.
  bool any = false;
  for (uint32_t a : c.arrived) any |= a != 0;
  if (!any) return;
  const uint64_t completed = c.phase++;
  std::fill(c.arrived.begin(), c.arrived.end(), 0);
  std::vector<Cluster::Waiter> waiters;
  waiters.swap(c.waiters);
  for (const Cluster::Waiter& wt : waiters) {
    Warp& w = *wt.warp;
    if (w.tracer != nullptr) EmitSync(w, protocol::Op::kAcquire, wt.mask, wt.site, c, completed);
    if (w.state == WarpState::kWaitingBarrier) {
      w.state = WarpState::kRunnable;
      ++w.block->runnable_warps;
      if (!w.queued && w.block->queue != nullptr) w.block->queue->Add(&w);
    }
  }
}

uint32_t Slot(const Warp& w) { return w.block->cluster_rank * w.block->cluster->warps_per_block + w.warp_in_block; }

void ArriveHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  Warp& w = W(ctx);
  if (exec == 0) return;
  Cluster& c = *w.block->cluster;
  const uint32_t slot = Slot(w);
  if (const uint32_t twice = exec & c.owed[slot]; twice != 0) {
    w.Raise(FaultKind::kUnsupported, inst, static_cast<uint32_t>(std::countr_zero(twice)), 0,
            "barrier.cluster.arrive: the thread arrives again before its barrier.cluster.wait (undefined in PTX)");
    return;
  }
  c.arrived[slot] |= exec;
  c.owed[slot] |= exec;
  if (w.tracer != nullptr && inst.imm == kArriveRelease)
    EmitSync(w, protocol::Op::kRelease, exec, inst.site, c, c.phase);
  TryComplete(c);
}

void WaitHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  Warp& w = W(ctx);
  if (exec == 0) return;
  Cluster& c = *w.block->cluster;
  const uint32_t slot = Slot(w);
  if (const uint32_t never = exec & ~c.owed[slot]; never != 0) {
    w.Raise(FaultKind::kUnsupported, inst, static_cast<uint32_t>(std::countr_zero(never)), 0,
            "barrier.cluster.wait without a preceding barrier.cluster.arrive by the thread (undefined in PTX)");
    return;
  }
  c.owed[slot] &= ~exec;
  // Lanes parked at an exit leave first (see ExitParkedLanes): they must not
  // be waited for. Their exit may complete the phase.
  if (exec != w.live && (exec & c.arrived[slot]) != 0) ExitParkedLanes(w);
  if ((exec & c.arrived[slot]) == 0) {
    // The phase these lanes arrived in has completed already (an owing lane
    // cannot have arrived in a later one).
    if (w.tracer != nullptr) EmitSync(w, protocol::Op::kAcquire, exec, inst.site, c, c.phase - 1);
    return;
  }
  c.waiters.push_back(Cluster::Waiter{&w, exec, inst.site});
  w.state = WarpState::kWaitingBarrier;
  w.wait_barrier = kClusterBarrierWaitId;
  w.wait_line = inst.ptx_line;
  --w.block->runnable_warps;
  w.events |= kEventBlocked;
}

}  // namespace

void RecheckClusterBarrier(Cluster& c) { TryComplete(c); }

absl::StatusOr<bool> SelectClusterBarrierOp(const ptx::Instruction& ir, Inst& inst) {
  if (ir.HasModifier(".arrive")) {
    if (ir.HasModifier(".acquire")) return UnimplementedForm(ir, "barrier.cluster.arrive takes .release or .relaxed");
    inst.imm = ir.HasModifier(".relaxed") ? kArriveRelaxed : kArriveRelease;
    inst.fn = ArriveHandler;
    return true;
  }
  if (ir.HasModifier(".wait")) {
    if (ir.HasModifier(".release") || ir.HasModifier(".relaxed"))
      return UnimplementedForm(ir, "barrier.cluster.wait takes only .acquire");
    inst.imm = kWait;
    inst.fn = WaitHandler;
    return true;
  }
  return UnimplementedForm(ir, "barrier.cluster needs .arrive or .wait");
}

}  // namespace barracuda::emu
