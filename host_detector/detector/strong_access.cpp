// Strong accesses and fences: release and acquire patterns of the PTX memory
// consistency model, handled at run time (host_detector/detector/SEMANTICS.md,
// "Synchronizes-with"), as C++ race detectors handle atomic_thread_fence: a
// release fence leaves a pending release clock that the thread's later strong
// writes publish; strong reads gather what they observed into pending acquire
// clocks that the thread's next acquire fence joins. Explicit acquire/release
// accesses (ld.acquire, st.release, atom.acq_rel) act at once.
//
// Why at run time and not by matching instruction shapes (the paper's §3.1):
// the fence after a spin loop's exit, a fence at the top of a retry loop, a
// warp vote between the load and the fence (CUB's WaitForValid), and fences
// and atomics in called functions (-G builds) are all the same pattern to
// the model, and a weak store after a fence is not a release at all.
//
// The race check of the access itself is memory_access.cpp's; these run per
// lane around it, in lane order, so lanes of one warp instruction on one
// location act as if serialised in lane order.
#include <bit>

#include "host_detector/detector/detector_impl.h"

namespace barracuda::detector {

using protocol::Op;
using shadow::ScopeLevel;

// `clock` joined with what the lane's asynchronous copies did so far (their
// thread's clock: BlockState::async_records), for a release that the copies'
// completion triggers.
void Detector::Impl::JoinLaneCopies(const BlockState& bs, unsigned warp, unsigned lane, vc::VectorClock& clock) const {
  const uint32_t thread = warp * vc::kLanes + lane;
  if (!launch.HasAsyncThreads() || thread >= bs.async_records.size() || bs.async_records[thread] == 0) return;
  const auto copies = static_cast<vc::ThreadId>(launch.AsyncThreadOf(bs.clocks.warp(warp).tid(lane)));
  clock.Set(copies, std::max<vc::Clock>(clock.Get(copies), bs.async_records[thread]));
}

void Detector::Impl::StrongBefore(const protocol::Record& r, BlockState& bs, uint32_t block, unsigned warp,
                                  unsigned lane) {
  const Op op = protocol::OpOf(r.header);
  if (op != Op::kAcquire && op != Op::kAcqRel) return;
  const ScopeLevel level = launch.LevelOf(op, protocol::ScopeOf(r.header));
  const shadow::SyncKey key{static_cast<shadow::Space>(protocol::SpaceOf(r.header)), r.addr[lane]};
  vc::VectorClock acquired;
  const bool any = sync_locations.Observe(key, block, launch.ClusterOf(block), level,
                                          [&](ScopeLevel, const vc::VectorClock& s) { acquired.Join(s); });
  if (any) bs.clocks.Acquire(warp, lane, acquired);
}

void Detector::Impl::StrongAfter(const protocol::Record& r, BlockState& bs, uint32_t block, unsigned warp,
                                 unsigned lane, WorkerCounters& c) {
  const Op op = protocol::OpOf(r.header);
  const bool loads = StrongLoads(r.header), stores = StrongStores(r.header);
  const ScopeLevel level = launch.LevelOf(op, protocol::ScopeOf(r.header));
  const shadow::SyncKey key{static_cast<shadow::Space>(protocol::SpaceOf(r.header)), r.addr[lane]};
  const uint32_t cluster = launch.ClusterOf(block);
  const shadow::ReleaseKind kind = loads ? shadow::ReleaseKind::kReadModifyWrite : shadow::ReleaseKind::kStore;
  const uint32_t thread = warp * vc::kLanes + lane;
  c.sync_ops++;
  // The read half of a strong access that is not an acquire itself: an acquire
  // pattern if an acquire fence follows; keep what it observed by level.
  if (loads && op != Op::kAcquire && op != Op::kAcqRel) {
    PendingSync* p = nullptr;
    sync_locations.Observe(key, block, cluster, level, [&](ScopeLevel part, const vc::VectorClock& s) {
      if (p == nullptr) p = &bs.pending[thread];
      p->acquire[static_cast<size_t>(part)].Join(s);
      p->acquire_parts |= static_cast<uint8_t>(1u << static_cast<unsigned>(part));
    });
  }
  // Relaxed publication chains (classification only): a strong store that is
  // not a read-modify-write publishes what its thread and block know; a strong
  // load that is not one learns it for its block.
  const bool releases = op == Op::kRelease || op == Op::kAcqRel;
  // The thread's clock, expanded once for the publications below (none changes it).
  vc::VectorClock mine =
      (stores && !loads) || releases ? bs.clocks.warp(warp).Expand(lane) : vc::VectorClock();
  // An arrive-on triggered by the lane's copies (cp.async.mbarrier.arrive)
  // releases what the copies did, which the lane itself has not observed.
  if ((r.header.flags & protocol::kFlagAsync) != 0 && stores) JoinLaneCopies(bs, warp, lane, mine);
  if (stores && !loads) {
    // The store's value replaces the location's: a relaxed load learns what
    // this store's thread and block knew, not every earlier store's (joining
    // them all made D_x grow with every store: detector_bench d_locks 10x
    // slower than before wave 2).
    dependency_locations.Publish(key, block, cluster, ScopeLevel::kGpu, shadow::ReleaseKind::kStore,
                                 [&](vc::VectorClock& slot) {
                                   slot = mine;
                                   slot.Join(bs.dependency);
                                 });
    // What the thread does after the store is not what it published: its
    // later reads must not look dependency-ordered (a read after a flag
    // store shared the store's epoch, and a write after a poll of the flag
    // was then a warning, exit 0, though nothing orders the two).
    if (!releases) bs.clocks.Increment(warp, 1u << lane);
  } else if (loads && !stores) {
    dependency_locations.Observe(key, block, cluster, ScopeLevel::kGpu,
                                 [&](ScopeLevel, const vc::VectorClock& s) { bs.dependency.Join(s); });
  }
  // A read-modify-write below gpu scope continues only the release sequences
  // of threads its scope includes (morally strong with their releases).
  if (loads && stores && level < ScopeLevel::kGpu)
    sync_locations.KeepWithinScope(key, block, cluster, level,
                                   [&](uint64_t b) { return launch.ClusterOf(static_cast<uint32_t>(b)) == cluster; });
  if (releases) {
    sync_locations.Publish(key, block, cluster, level, kind, [&](vc::VectorClock& slot) { slot.Join(mine); });
    bs.clocks.Increment(warp, 1u << lane);
    return;
  }
  if (!stores) return;
  // A strong write after a release fence completes a release pattern at the
  // narrower of the two scopes; without one, a store still ends every release
  // sequence of x (a reader of its value synchronises with nobody) and a
  // read-modify-write continues them.
  auto it = bs.pending.find(thread);
  if (it != bs.pending.end() && it->second.has_release) {
    const PendingSync& p = it->second;
    sync_locations.Publish(key, block, cluster, std::min(level, p.release_level), kind,
                           [&](vc::VectorClock& slot) { slot.Join(p.release); });
  } else if (kind == shadow::ReleaseKind::kStore) {
    sync_locations.Overwrite(key);
  }
}

// The async proxy completes a copy's bytes on the mbarrier of the CTA that
// receives them (a multicast, a copy or st.async into a neighbour's shared
// memory), and that CTA's threads observe them through its own phase with a
// cta-scope wait: the completion is not a memory operation of the issuing
// thread, whose cta scope could never reach those waiters. So it is
// published into the target block's cta part (what the issuing lane and its
// copies did, as StrongAfter's release), and the mbarrier word is not
// race-checked against it (SEMANTICS.md, "Asynchronous copies").
void Detector::Impl::RemoteCompleteTx(const protocol::Record& r, BlockState& bs, uint32_t block, unsigned warp,
                                      unsigned lane, uint32_t target, WorkerCounters& c) {
  c.sync_ops++;
  const shadow::SyncKey key{static_cast<shadow::Space>(protocol::SpaceOf(r.header)), r.addr[lane]};
  vc::VectorClock mine = bs.clocks.warp(warp).Expand(lane);
  JoinLaneCopies(bs, warp, lane, mine);
  sync_locations.Publish(key, target, launch.ClusterOf(block), ScopeLevel::kBlock, shadow::ReleaseKind::kReadModifyWrite,
                         [&](vc::VectorClock& slot) { slot.Join(mine); });
  bs.clocks.Increment(warp, 1u << lane);
}

void Detector::Impl::Fence(const protocol::Record& r, uint32_t block, unsigned warp, WorkerCounters& c) {
  BlockState& bs = Block(block);
  const uint8_t sides = r.header.flags & (protocol::kFlagLoad | protocol::kFlagStore);
  const bool acquire = sides == 0 || (sides & protocol::kFlagLoad) != 0;
  const bool release = sides == 0 || (sides & protocol::kFlagStore) != 0;
  const ScopeLevel level = launch.LevelOf(Op::kFence, protocol::ScopeOf(r.header));
  const uint32_t mask = r.header.active_mask & bs.live[warp];
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    const unsigned lane = static_cast<unsigned>(std::countr_zero(m));
    const uint32_t thread = warp * vc::kLanes + lane;
    c.sync_ops++;
    // Acquire side first (fence.sc / acq_rel order both ways): the parts of the
    // pending acquire that this fence's scope reaches.
    if (acquire) {
      if (auto it = bs.pending.find(thread); it != bs.pending.end() && it->second.acquire_parts != 0) {
        PendingSync& p = it->second;
        vc::VectorClock joined;
        for (unsigned part = 0; part <= static_cast<unsigned>(level); ++part) {
          if ((p.acquire_parts >> part & 1) == 0) continue;
          joined.Join(p.acquire[part]);
          p.acquire[part].Clear();
          p.acquire_parts &= static_cast<uint8_t>(~(1u << part));
        }
        if (!joined.IsBottom()) bs.clocks.Acquire(warp, lane, joined);
      }
    }
    if (release) {
      PendingSync& p = bs.pending[thread];
      p.release = bs.clocks.warp(warp).Expand(lane);
      p.release_level = level;
      p.has_release = true;
    }
  }
  // What the thread does after a release fence is not part of what it released.
  if (release && mask != 0) bs.clocks.Increment(warp, mask);
  if (options.warp_model == WarpModel::kLockstep) bs.clocks.JoinIncrement(warp, mask);  // ENDINSN
}

void Detector::Impl::ProxyFence(const protocol::Record& r, uint32_t block, unsigned warp, WorkerCounters& c) {
  BlockState& bs = Block(block);
  const uint32_t mask = r.header.active_mask & bs.live[warp];
  const vc::WarpClocks& wc = bs.clocks.warp(warp);
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    const unsigned lane = static_cast<unsigned>(std::countr_zero(m));
    c.sync_ops++;
    proxy_fences.Note(static_cast<vc::ThreadId>(wc.tid(lane)), wc.Local(lane), wc.Expand(lane));
  }
  // Accesses after the fence are not before it (ProxyFences: clock <= f).
  if (mask != 0) bs.clocks.Increment(warp, mask);
  if (options.warp_model == WarpModel::kLockstep) bs.clocks.JoinIncrement(warp, mask);  // ENDINSN
}

}  // namespace barracuda::detector
