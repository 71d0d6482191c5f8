// Synchronisation records other than strong accesses and fences
// (strong_access.cpp): barriers (BAR with barrier-divergence detection, named
// barriers with counts, bar.arrive), branches (IF, ELSE/ENDIF), warp-sync and
// exits. Semantics: host_detector/detector/SEMANTICS.md.
#include <algorithm>
#include <bit>

#include "host_detector/detector/detector_impl.h"
#include "shadow_memory/cell_vc.h"

namespace barracuda::detector {

using protocol::Op;

void Detector::Impl::SyncMisuse(RaceKind kind, RaceClass cls, BlockState& bs, unsigned warp, uint32_t lanes,
                                uint32_t site, Op op, uint64_t index) {
  RaceEvent e;
  e.kind = kind;
  e.cls = cls;
  e.launch_id = launch.launch_id;
  e.kernel_name_id = launch.name_id;
  const unsigned lane = lanes != 0 ? static_cast<unsigned>(std::countr_zero(lanes)) : 0;
  e.later = Describe(bs.clocks.warp(warp).tid(lane), site, op);
  e.later.record_index = index;
  e.earlier = e.later;
  Emit(e);
}

void Detector::Impl::BarrierArrival(const protocol::Record& r, uint64_t index, uint32_t block,
                                    unsigned warp, WorkerCounters& c) {
  BlockState& bs = Block(block);
  const uint32_t id = r.barrier.barrier_id;
  if (id >= kMaxBarrierIds) {
    Malformed(c, "barrier id out of range", index);
    return;
  }
  const bool waits = protocol::OpOf(r.header) == Op::kBarrier;
  std::unique_ptr<BarrierGeneration>& slot = bs.barriers[id];
  if (!slot) {
    slot = std::make_unique<BarrierGeneration>();
    slot->sync.assign(launch.warps_per_block, 0);
    slot->arrive.assign(launch.warps_per_block, 0);
    slot->first.assign(launch.warps_per_block, BarrierGeneration::FirstArrival{});
  }
  auto report = [&](uint32_t site, uint32_t mask, uint64_t at) {
    SyncMisuse(RaceKind::kBarrierDivergence, RaceClass::kDivergence, bs, warp, mask & bs.live[warp], site,
               Op::kBarrier, at);
  };
  // Paper BAR: every thread must be active at a block-wide barrier. When the
  // producer logs the lanes that arrive together (the GPU backend), a warp's
  // lanes may arrive at one bar.sync in several groups: divergence then means
  // lanes of the warp at different barrier instructions of one generation
  // (both sites are reported, as without the option).
  // Lanes that exited are not waited for (PTX ISA, barrier and exit): a warp
  // whose other lanes exit instead of arriving is not divergence.
  const bool partial = waits && r.barrier.thread_count == 0 && r.header.active_mask != bs.live[warp];
  if (partial && options.barrier_arrivals_in_groups) {
    BarrierGeneration::FirstArrival& first = slot->first[warp];
    if (first.site == protocol::kNoSite) {
      first = {r.header.site_id, r.header.active_mask, index, false};
    } else if (first.site != r.header.site_id) {
      if (!first.reported) report(first.site, first.lanes, first.index);
      first.reported = true;
      report(r.header.site_id, r.header.active_mask, index);
    }
  } else if (partial) {
    report(r.header.site_id, r.header.active_mask, index);
  }
  BarrierGeneration& g = *slot;
  if (!g.open) {
    g.open = true;
    g.thread_count = r.barrier.thread_count;
  }
  // A lane arriving twice in one generation is a producer error: count it once.
  const uint32_t lanes = r.header.active_mask & bs.live[warp] & ~(g.sync[warp] | g.arrive[warp]);
  (waits ? g.sync : g.arrive)[warp] |= lanes;
  // bar.arrive releases at arrival and does not wait: its accesses after the
  // arrival are not ordered before the waiters.
  if (!waits) bs.clocks.Arrive(warp, lanes, g.released);
  g.arrived += static_cast<uint32_t>(std::popcount(lanes));
  TryCompleteBarrier(bs, id, c);
}

void Detector::Impl::TryCompleteBarrier(BlockState& bs, uint32_t id, WorkerCounters& c) {
  BarrierGeneration* g = bs.barriers[id].get();
  if (g == nullptr || !g->open) return;
  const uint32_t expected = g->thread_count != 0 ? g->thread_count : bs.live_threads;
  if (g->arrived < expected) return;
  // Fast path (paper §4.3.2): every thread of the block waits and none has
  // exited, so the barrier is a broadcast of the tracked block maximum.
  bool all = bs.exited_threads == 0;
  for (unsigned w = 0; all && w < g->sync.size(); ++w) {
    all = g->arrive[w] == 0 && g->sync[w] == bs.clocks.warp(w).existing_mask();
  }
  if (all) {
    bs.clocks.BarrierAll();
    for (const shadow::Cell cell : bs.inflated_shared) shadow::CollapseOrdered(cell, shadow.vcs());
    bs.inflated_shared.clear();
  } else {
    bs.clocks.Barrier(g->sync, g->released);
  }
  std::fill(g->sync.begin(), g->sync.end(), 0);
  std::fill(g->arrive.begin(), g->arrive.end(), 0);
  std::fill(g->first.begin(), g->first.end(), BarrierGeneration::FirstArrival{});
  g->released.Clear();
  g->arrived = 0;
  g->open = false;
  c.barriers_completed++;
}

void Detector::Impl::Branch(const protocol::Record& r, uint64_t index, uint32_t block,
                            unsigned warp, WorkerCounters& c) {
  BlockState& bs = Block(block);
  vc::ReconvergenceStack& stack = bs.clocks.warp(warp).stack();
  uint32_t join_mask = 0;
  const uint32_t lanes = r.header.active_mask & bs.live[warp];
  switch (protocol::OpOf(r.header)) {
    case Op::kIf:
      join_mask = stack.PushIf(lanes, r.branch.then_mask);
      break;
    case Op::kElse:
      if (!stack.Else(lanes, &join_mask)) {
        Malformed(c, "else without an open branch of its lanes", index);
        return;
      }
      break;
    case Op::kFi:
      if (!stack.Fi(lanes, &join_mask)) {
        Malformed(c, "fi without an open branch of its lanes", index);
        return;
      }
      break;
    default:
      return;
  }
  // IF and ELSEENDIF join and fork the lanes of the new path (lockstep only:
  // under independent thread scheduling the paths do not order lanes).
  if (options.warp_model == WarpModel::kLockstep && join_mask != 0) {
    bs.clocks.JoinIncrement(warp, join_mask & bs.live[warp]);
  }
}

void Detector::Impl::Exit(const protocol::Record& r, uint64_t index, uint32_t block, unsigned warp,
                          WorkerCounters& c) {
  BlockState& bs = Block(block);
  const uint32_t lanes = r.header.active_mask & bs.live[warp];
  if (window_lifetimes) WindowExit(bs, block, warp, lanes, r.header.site_id, index);
  bs.live[warp] &= ~lanes;
  bs.clocks.warp(warp).stack().RemoveLanes(lanes);
  const uint32_t n = static_cast<uint32_t>(std::popcount(lanes));
  bs.live_threads -= n;
  bs.exited_threads += n;
  // Exited threads no longer count towards whole-block barriers.
  for (uint32_t id = 0; id < kMaxBarrierIds; ++id) TryCompleteBarrier(bs, id, c);
  if (!bs.warp_syncs.empty()) CompleteWarpSyncs(bs, warp);
  // With clusters a neighbour may still reach the block's shared memory
  // (its window) until the launch ends: kept then.
  if (bs.live_threads == 0 && launch.cluster_size <= 1) ReleaseFinishedBlock(block, c);
}

void Detector::Impl::WarpSync(const protocol::Record& r, uint64_t index, uint32_t block, unsigned warp) {
  BlockState& bs = Block(block);
  // Lanes that executed the primitive outside the mask they named: undefined
  // in PTX. Reported once per record (the first stray lane), not joined.
  if (const uint32_t strays = r.warp_sync.strays & bs.live[warp]; strays != 0)
    SyncMisuse(RaceKind::kWarpSyncMask, RaceClass::kIntraWarp, bs, warp, strays, r.header.site_id, Op::kWarpSync,
               index);
  const uint32_t arrived = r.header.active_mask;
  // A member mask that leaves out an arriving lane is malformed: take both.
  const uint32_t members = r.warp_sync.member_mask | arrived;
  if ((members & bs.live[warp] & ~arrived) == 0) {  // all here at once (the emulator, a converged warp)
    bs.clocks.JoinIncrement(warp, members & bs.live[warp]);
    return;
  }
  auto it = std::find_if(bs.warp_syncs.begin(), bs.warp_syncs.end(),
                         [&](const BlockState::PendingWarpSync& p) { return p.warp == warp && p.members == members; });
  if (it == bs.warp_syncs.end()) {
    // Bounded against malformed streams (a real warp has few tiles waiting at once):
    // the oldest is dropped unjoined, which can only add races, never hide one.
    if (bs.warp_syncs.size() >= kMaxPendingWarpSyncs) bs.warp_syncs.erase(bs.warp_syncs.begin());
    bs.warp_syncs.push_back({warp, members, 0});
    it = bs.warp_syncs.end() - 1;
  }
  it->arrived |= arrived;
  CompleteWarpSyncs(bs, warp);
}

void Detector::Impl::CompleteWarpSyncs(BlockState& bs, unsigned warp) {
  for (size_t i = 0; i < bs.warp_syncs.size();) {
    const BlockState::PendingWarpSync p = bs.warp_syncs[i];
    if (p.warp == warp && (p.members & bs.live[warp] & ~p.arrived) == 0) {
      bs.warp_syncs.erase(bs.warp_syncs.begin() + static_cast<ptrdiff_t>(i));
      bs.clocks.JoinIncrement(warp, p.members & bs.live[warp]);
    } else {
      ++i;
    }
  }
}

void Detector::Impl::AsyncWait(const protocol::Record& r, uint32_t block, unsigned warp, WorkerCounters& c) {
  BlockState& bs = Block(block);
  const uint32_t mask = r.header.active_mask & bs.live[warp];
  if (!launch.HasAsyncThreads()) return;  // the copies counted as the lanes' own accesses
  vc::WarpClocks& wc = bs.clocks.warp(warp);
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    const unsigned lane = static_cast<unsigned>(std::countr_zero(m));
    const uint32_t thread = warp * vc::kLanes + lane;
    const uint32_t issued = thread < bs.async_records.size() ? bs.async_records[thread] : 0;
    // A count above what the lane issued is a malformed record: clamp (the
    // copies' thread never ran further than that).
    const uint64_t seen = std::min<uint64_t>(r.addr[lane], issued);
    if (seen == 0) continue;
    c.sync_ops++;
    vc::VectorClock copies;
    copies.Set(static_cast<vc::ThreadId>(launch.AsyncThreadOf(wc.tid(lane))), seen);
    bs.clocks.Acquire(warp, lane, copies);
  }
}

void Detector::Impl::ReleaseFinishedBlock(uint32_t block, WorkerCounters& c) {
  std::unique_ptr<BlockState>& slot = blocks[block];
  for (const auto& g : slot->barriers) c.generations_dropped += g && g->open;
  slot.reset();
  shadow.shared().ReleaseBlock(block);
  finished_blocks[block] = 1;
}

}  // namespace barracuda::detector
