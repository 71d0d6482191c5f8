// Hand-built record traces for the rule tests: a fluent builder over
// protocol::Record and a runner that collects every race event.
#ifndef BARRACUDA_HOST_DETECTOR_TESTS_TRACE_BUILDER_H_
#define BARRACUDA_HOST_DETECTOR_TESTS_TRACE_BUILDER_H_

#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "device_logger/protocol.h"
#include "host_detector/detector/detector.h"

namespace barracuda::detector::testing {

using protocol::Op;
using protocol::Record;
using protocol::Scope;
using protocol::Space;

// Address of lane `lane`: a per-lane function or one address for every lane.
using AddrFn = std::function<uint64_t(unsigned lane)>;
inline AddrFn Same(uint64_t a) {
  return [a](unsigned) { return a; };
}
inline AddrFn Strided(uint64_t base, uint64_t stride) {
  return [base, stride](unsigned l) { return base + l * stride; };
}

class TraceBuilder {
 public:
  // A launch of `blocks` blocks of `threads` threads (1-D).
  TraceBuilder& Begin(uint32_t blocks, uint32_t threads, uint32_t shared_bytes = 4096,
                      uint64_t launch_id = 1) {
    Record r = Blank(Op::kKernelBegin);
    r.kernel.grid[0] = blocks;
    r.kernel.grid[1] = r.kernel.grid[2] = 1;
    r.kernel.block[0] = threads;
    r.kernel.block[1] = r.kernel.block[2] = 1;
    r.kernel.static_shared_bytes = shared_bytes;
    r.kernel.launch_id = launch_id;
    stamp_ = 0;
    return Push(r);
  }
  TraceBuilder& End() { return Push(Blank(Op::kKernelEnd)); }
  // Thread-block clusters of the launch just begun (KernelPayload::cluster).
  // Grid shape of the launch just begun (the block count must stay the same).
  TraceBuilder& GridShape(uint32_t x, uint32_t y, uint32_t z = 1) {
    for (auto it = records_.rbegin(); it != records_.rend(); ++it) {
      if (protocol::OpOf(it->header) != Op::kKernelBegin) continue;
      it->kernel.grid[0] = x, it->kernel.grid[1] = y, it->kernel.grid[2] = z;
      break;
    }
    return *this;
  }
  TraceBuilder& ClusterShape(uint32_t x, uint32_t y = 1, uint32_t z = 1) {
    for (auto it = records_.rbegin(); it != records_.rend(); ++it) {
      if (protocol::OpOf(it->header) != Op::kKernelBegin) continue;
      it->kernel.cluster[0] = x, it->kernel.cluster[1] = y, it->kernel.cluster[2] = z;
      break;
    }
    return *this;
  }
  // barrier.cluster as the emulator encodes it (protocol.h, "Thread-block
  // clusters"): arrive = cluster-scope read-modify-write release, wait =
  // cluster-scope acquire, on the cluster's synthetic address of `phase`.
  TraceBuilder& ClusterArrive(uint32_t warp, uint32_t mask, uint32_t rank0_block, uint64_t phase) {
    Sync(Op::kRelease, Scope::kCluster, warp, mask, Same(protocol::ClusterBarrierAddress(rank0_block, phase)),
         protocol::kFlagLoad | protocol::kFlagStore, 700);
    records_.back().header.space_scope = protocol::PackSpaceScope(Space::kShared, Scope::kCluster);
    return *this;
  }
  TraceBuilder& ClusterWait(uint32_t warp, uint32_t mask, uint32_t rank0_block, uint64_t phase) {
    Sync(Op::kAcquire, Scope::kCluster, warp, mask, Same(protocol::ClusterBarrierAddress(rank0_block, phase)),
         protocol::kFlagLoad, 701);
    records_.back().header.space_scope = protocol::PackSpaceScope(Space::kShared, Scope::kCluster);
    return *this;
  }

  TraceBuilder& Mem(Op op, uint32_t warp, uint32_t mask, const AddrFn& addr, uint32_t site,
                    uint8_t size = 4, Space space = Space::kGlobal, uint8_t flags = 0) {
    Record r = Blank(op);
    r.header.warp_id = warp;
    r.header.active_mask = mask;
    r.header.site_id = site;
    r.header.access_size = size;
    r.header.flags = flags;
    r.header.space_scope = protocol::PackSpaceScope(space, Scope::kNone);
    for (unsigned l = 0; l < 32; ++l) r.addr[l] = (mask >> l & 1) ? addr(l) : 0;
    return Push(r);
  }
  TraceBuilder& Read(uint32_t warp, uint32_t mask, const AddrFn& a, uint32_t site, uint8_t size = 4) {
    return Mem(Op::kRead, warp, mask, a, site, size);
  }
  TraceBuilder& Write(uint32_t warp, uint32_t mask, const AddrFn& a, uint32_t site, uint8_t size = 4) {
    return Mem(Op::kWrite, warp, mask, a, site, size);
  }
  // A plain write whose lanes all stored `value` (kFlagValue; the value rides in the stamp field).
  TraceBuilder& WriteValue(uint32_t warp, uint32_t mask, const AddrFn& a, uint32_t site, uint64_t value,
                           uint8_t size = 4, uint8_t flags = 0) {
    Mem(Op::kWrite, warp, mask, a, site, size, Space::kGlobal, static_cast<uint8_t>(flags | protocol::kFlagValue));
    records_.back().stamp = value;
    return *this;
  }
  TraceBuilder& Atomic(uint32_t warp, uint32_t mask, const AddrFn& a, uint32_t site, uint8_t size = 4) {
    return Mem(Op::kAtomic, warp, mask, a, site, size);
  }
  // Acquire/release/acq_rel (stamped). flags: kFlagLoad/kFlagStore.
  TraceBuilder& Sync(Op op, Scope scope, uint32_t warp, uint32_t mask, const AddrFn& a,
                     uint8_t flags, uint32_t site = 900, uint8_t size = 4) {
    Record r = Blank(op);
    r.header.warp_id = warp;
    r.header.active_mask = mask;
    r.header.site_id = site;
    r.header.access_size = op == Op::kFence ? 0 : size;
    r.header.flags = flags;
    r.header.space_scope = protocol::PackSpaceScope(Space::kGlobal, scope);
    r.stamp = ++stamp_;
    for (unsigned l = 0; l < 32; ++l) r.addr[l] = (mask >> l & 1) ? a(l) : 0;
    return Push(r);
  }
  TraceBuilder& Acquire(Scope s, uint32_t warp, uint32_t mask, uint64_t x) {
    return Sync(Op::kAcquire, s, warp, mask, Same(x), protocol::kFlagLoad);
  }
  TraceBuilder& ReleaseStore(Scope s, uint32_t warp, uint32_t mask, uint64_t x) {
    return Sync(Op::kRelease, s, warp, mask, Same(x), protocol::kFlagStore);
  }
  TraceBuilder& ReleaseRmw(Scope s, uint32_t warp, uint32_t mask, uint64_t x) {
    return Sync(Op::kRelease, s, warp, mask, Same(x), protocol::kFlagLoad | protocol::kFlagStore);
  }
  TraceBuilder& AcqRel(Scope s, uint32_t warp, uint32_t mask, uint64_t x) {
    return Sync(Op::kAcqRel, s, warp, mask, Same(x), protocol::kFlagLoad | protocol::kFlagStore);
  }
  // Strong accesses without acquire/release meaning (kAtomic, stamped):
  // ld/st.relaxed, ld/st.volatile (scope kSys), atom/red.
  TraceBuilder& StrongLoad(Scope s, uint32_t warp, uint32_t mask, uint64_t x, uint32_t site = 901,
                           uint8_t size = 4) {
    return Sync(Op::kAtomic, s, warp, mask, Same(x), protocol::kFlagLoad, site, size);
  }
  TraceBuilder& StrongStore(Scope s, uint32_t warp, uint32_t mask, uint64_t x, uint32_t site = 902,
                            uint8_t size = 4) {
    return Sync(Op::kAtomic, s, warp, mask, Same(x), protocol::kFlagStore, site, size);
  }
  TraceBuilder& StrongRmw(Scope s, uint32_t warp, uint32_t mask, uint64_t x, uint32_t site = 903,
                          uint8_t size = 4) {
    return Sync(Op::kAtomic, s, warp, mask, Same(x), protocol::kFlagLoad | protocol::kFlagStore, site, size);
  }
  // A fence: sides kFlagLoad (acquire), kFlagStore (release), or both (0 too).
  TraceBuilder& FenceOp(Scope s, uint32_t warp, uint32_t mask, uint8_t sides = 0) {
    return Sync(Op::kFence, s, warp, mask, Same(0), sides, 904);
  }
  TraceBuilder& Bar(uint32_t warp, uint32_t mask, uint32_t id = 0, uint32_t count = 0,
                    uint32_t site = 800, Op op = Op::kBarrier) {
    Record r = Blank(op);
    r.header.warp_id = warp;
    r.header.active_mask = mask;
    r.header.site_id = site;
    r.barrier.barrier_id = id;
    r.barrier.thread_count = count;
    return Push(r);
  }
  TraceBuilder& Arrive(uint32_t warp, uint32_t mask, uint32_t id, uint32_t count) {
    return Bar(warp, mask, id, count, 801, Op::kBarrierArrive);
  }
  // Whole-block barrier: every warp of the block arrives with `mask`.
  TraceBuilder& BlockBar(uint32_t block, uint32_t warps_per_block, uint32_t mask = 0xffffffffu) {
    for (uint32_t w = 0; w < warps_per_block; ++w) Bar(block * warps_per_block + w, mask);
    return *this;
  }
  TraceBuilder& If(uint32_t warp, uint32_t mask, uint32_t then_mask) {
    Record r = Blank(Op::kIf);
    r.header.warp_id = warp;
    r.header.active_mask = mask;
    r.branch.then_mask = then_mask;
    return Push(r);
  }
  TraceBuilder& Else(uint32_t warp, uint32_t lanes = 0) { return Simple(Op::kElse, warp, lanes); }
  TraceBuilder& Fi(uint32_t warp, uint32_t lanes = 0) { return Simple(Op::kFi, warp, lanes); }
  TraceBuilder& WarpSync(uint32_t warp, uint32_t mask) { return Simple(Op::kWarpSync, warp, mask); }
  // The lanes in `arrived` log their arrival at a warp sync of `members` (the
  // GPU backend: a warp reaches one __syncwarp in groups).
  TraceBuilder& WarpSyncArrive(uint32_t warp, uint32_t arrived, uint32_t members) {
    Record r = Blank(Op::kWarpSync);
    r.header.warp_id = warp;
    r.header.active_mask = arrived;
    r.warp_sync.member_mask = members;
    return Push(r);
  }
  // A warp sync of `members` at `site` also executed by the `strays` (lanes
  // outside the mask they named).
  TraceBuilder& WarpSyncWithStrays(uint32_t warp, uint32_t members, uint32_t strays, uint32_t site) {
    Record r = Blank(Op::kWarpSync);
    r.header.warp_id = warp;
    r.header.active_mask = members;
    r.header.site_id = site;
    r.warp_sync.strays = strays;
    return Push(r);
  }
  TraceBuilder& Exit(uint32_t warp, uint32_t mask) { return Simple(Op::kExit, warp, mask); }

  // An asynchronous copy (cp.async) by the lanes: a read of `src` (global) and
  // a write of `dst` (shared), each record flagged kFlagAsync.
  TraceBuilder& AsyncCopy(uint32_t warp, uint32_t mask, const AddrFn& dst, const AddrFn& src, uint32_t site,
                          uint8_t size = 4) {
    Mem(Op::kRead, warp, mask, src, site, size, Space::kGlobal, protocol::kFlagAsync);
    return Mem(Op::kWrite, warp, mask, dst, site, size, Space::kShared, protocol::kFlagAsync);
  }
  // A bulk copy (cp.async.bulk, TMA) by `lane`: `bytes` (a multiple of 16)
  // from src to dst, as the emulator logs it: per 16 bytes a read of src,
  // then per 16 bytes a write of dst, each kFlagAsync | kFlagAsyncProxy.
  TraceBuilder& BulkCopy(uint32_t warp, unsigned lane, uint64_t dst, Space dst_space, uint64_t src,
                         Space src_space, uint32_t bytes, uint32_t site) {
    constexpr uint8_t kProxy = protocol::kFlagAsync | protocol::kFlagAsyncProxy;
    for (uint32_t off = 0; off < bytes; off += 16) Mem(Op::kRead, warp, 1u << lane, Same(src + off), site, 16, src_space, kProxy);
    for (uint32_t off = 0; off < bytes; off += 16) Mem(Op::kWrite, warp, 1u << lane, Same(dst + off), site, 16, dst_space, kProxy);
    return *this;
  }
  // fence.proxy.async by the lanes (proxy ordering only).
  TraceBuilder& ProxyFence(uint32_t warp, uint32_t mask) {
    return Sync(Op::kFence, Scope::kNone, warp, mask, Same(0), protocol::kFlagAsyncProxy, 907);
  }
  // cp.async.wait_*: the lanes observed their first `records` async records.
  TraceBuilder& AsyncWait(uint32_t warp, uint32_t mask, uint64_t records) {
    Record r = Blank(Op::kAsyncWait);
    r.header.warp_id = warp;
    r.header.active_mask = mask;
    for (unsigned l = 0; l < 32; ++l) r.addr[l] = (mask >> l & 1) ? records : 0;
    return Push(r);
  }
  // An mbarrier arrive-on at shared `x` (a release read-modify-write of the
  // object); `async`: triggered by the lanes' copies (cp.async.mbarrier.arrive).
  TraceBuilder& MbarArrive(uint32_t warp, uint32_t mask, uint64_t x, bool async = false) {
    Sync(Op::kRelease, Scope::kCta, warp, mask, Same(x),
         static_cast<uint8_t>(protocol::kFlagLoad | protocol::kFlagStore | (async ? protocol::kFlagAsync : 0)), 905,
         8);
    records_.back().header.space_scope = protocol::PackSpaceScope(Space::kShared, Scope::kCta);
    return *this;
  }
  // A test_wait / try_wait that found its phase complete (an acquire load).
  TraceBuilder& MbarWaitDone(uint32_t warp, uint32_t mask, uint64_t x) {
    Sync(Op::kAcquire, Scope::kCta, warp, mask, Same(x), protocol::kFlagLoad, 906, 8);
    records_.back().header.space_scope = protocol::PackSpaceScope(Space::kShared, Scope::kCta);
    return *this;
  }

  const std::vector<Record>& records() const { return records_; }
  size_t size() const { return records_.size(); }

 private:
  static Record Blank(Op op) {
    Record r;
    std::memset(&r, 0, sizeof(r));
    r.header.op = static_cast<uint8_t>(op);
    r.header.site_id = protocol::kNoSite;
    return r;
  }
  TraceBuilder& Simple(Op op, uint32_t warp, uint32_t mask) {
    Record r = Blank(op);
    r.header.warp_id = warp;
    r.header.active_mask = mask;
    return Push(r);
  }
  TraceBuilder& Push(const Record& r) {
    records_.push_back(r);
    return *this;
  }
  std::vector<Record> records_;
  uint64_t stamp_ = 0;
};

struct RunResult {
  std::vector<RaceEvent> events;
  Statistics stats;
  std::vector<RaceEntry> entries;
  bool ok = true;
};

inline RunResult RunWith(const TraceBuilder& t, const DetectorOptions& o,
                         const std::function<void(Detector&)>& before_end = nullptr) {
  Detector d(o);
  RunResult out;
  d.SetRaceListener([&](const RaceEvent& e) { out.events.push_back(e); });
  const auto& recs = t.records();
  for (size_t i = 0; i < recs.size(); ++i) {
    if (before_end && protocol::OpOf(recs[i].header) == Op::kKernelEnd) before_end(d);
    d.Process(recs[i]);
  }
  out.stats = d.Stats();
  out.entries = d.Report().entries();
  out.ok = d.status().ok();
  return out;
}

inline RunResult Run(const TraceBuilder& t, WarpModel model = WarpModel::kIts,
                     const std::function<void(Detector&)>& before_end = nullptr) {
  DetectorOptions o;
  o.warp_model = model;
  return RunWith(t, o, before_end);
}

inline size_t CountKind(const RunResult& r, RaceKind k) {
  size_t n = 0;
  for (const RaceEvent& e : r.events) n += e.kind == k;
  return n;
}

}  // namespace barracuda::detector::testing

#endif  // BARRACUDA_HOST_DETECTOR_TESTS_TRACE_BUILDER_H_
