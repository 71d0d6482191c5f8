// Internal state of the detector (not part of the public API): launch geometry,
// per-block clocks and barrier generations, the shadow memory and the
// synchronisation-location map, and the serialised race sink.
#ifndef BARRACUDA_HOST_DETECTOR_DETECTOR_IMPL_H_
#define BARRACUDA_HOST_DETECTOR_DETECTOR_IMPL_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "device_logger/protocol.h"
#include "host_detector/detector/detector.h"
#include "host_detector/detector/load_observers.h"
#include "host_detector/detector/proxy_fences.h"
#include "host_detector/detector/report_model.h"
#include "host_detector/detector/same_value.h"
#include "host_detector/detector/shared_lifetime.h"
#include "shadow_memory/shadow_memory.h"
#include "shadow_memory/sync_locations.h"
#include "vc_compression/block_clocks.h"
#include "vc_compression/vector_clock.h"

namespace barracuda::detector {

inline constexpr uint32_t kMaxBarrierIds = 16;
// Warp syncs waiting for members per block (BlockState::warp_syncs).
inline constexpr size_t kMaxPendingWarpSyncs = 64;

struct LaunchGeometry {
  bool active = false;
  uint32_t threads_per_block = 0;
  uint32_t warps_per_block = 0;
  uint64_t blocks = 0;
  uint64_t threads = 0;
  uint64_t launch_id = 0;
  uint32_t name_id = 0;
  // Thread-block clusters (KernelPayload::cluster; 1,1,1 when absent).
  uint32_t grid[3] = {1, 1, 1};
  uint32_t cluster[3] = {1, 1, 1};
  uint32_t cluster_size = 1;  // CTAs per cluster
  // The blocks of `block`'s cluster (cluster_size of them, rank order).
  void ClusterBlocks(uint32_t block, uint32_t* out) const;
  // The cluster of a block (its linear index among the clusters; the block
  // itself without clusters).
  uint32_t ClusterOf(uint32_t block) const;
  uint32_t BlockOfThread(uint64_t tid) const { return static_cast<uint32_t>(tid / threads_per_block); }
  // Asynchronous copies (protocol kFlagAsync; SEMANTICS.md "Asynchronous
  // copies"): thread t's copies act as a thread of their own, tid threads + t,
  // whose clock counts t's async records. Only while every such id fits the
  // 32-bit thread ids of the shadow cells (a launch of up to 2^31 threads).
  bool HasAsyncThreads() const { return threads <= (uint64_t{1} << 31); }
  uint64_t AsyncThreadOf(uint64_t tid) const { return threads + tid; }
  bool IsAsyncThread(uint64_t tid) const { return tid >= threads && tid < 2 * threads; }
  // Is thread b inside scope `level` of thread a (symmetric: same block, same
  // cluster, or any thread of the launch)?
  bool InScope(uint64_t a, uint64_t b, shadow::ScopeLevel level) const {
    switch (level) {
      case shadow::ScopeLevel::kGpu: return true;
      case shadow::ScopeLevel::kCluster: return ClusterOf(BlockOfThread(a)) == ClusterOf(BlockOfThread(b));
      case shadow::ScopeLevel::kBlock: break;
    }
    return BlockOfThread(a) == BlockOfThread(b);
  }
  // The level of a strong access, release or acquire of `op` at `scope`
  // (SEMANTICS.md: kNone is gpu for kAtomic, cta otherwise; cluster scope is
  // block scope in a launch without clusters; sys is gpu within a launch).
  shadow::ScopeLevel LevelOf(protocol::Op op, protocol::Scope scope) const {
    switch (scope) {
      case protocol::Scope::kCta: return shadow::ScopeLevel::kBlock;
      case protocol::Scope::kCluster: return cluster_size > 1 ? shadow::ScopeLevel::kCluster : shadow::ScopeLevel::kBlock;
      case protocol::Scope::kGpu:
      case protocol::Scope::kSys: return shadow::ScopeLevel::kGpu;
      case protocol::Scope::kNone: break;
    }
    return op == protocol::Op::kAtomic ? shadow::ScopeLevel::kGpu : shadow::ScopeLevel::kBlock;
  }
};

// Whether a strong record reads / writes memory (kFlagLoad / kFlagStore). A
// record without either flag (older producers, hand-built traces) loads if it
// is an acquire and writes otherwise.
inline bool StrongLoads(const protocol::RecordHeader& h) {
  return (h.flags & protocol::kFlagLoad) != 0 ||
         ((h.flags & protocol::kFlagStore) == 0 && protocol::OpOf(h) == protocol::Op::kAcquire);
}
inline bool StrongStores(const protocol::RecordHeader& h) {
  return (h.flags & protocol::kFlagStore) != 0 ||
         ((h.flags & protocol::kFlagLoad) == 0 && protocol::OpOf(h) != protocol::Op::kAcquire);
}

// A thread's pending release and acquire (SEMANTICS.md "Synchronizes-with"):
// what its latest release fence would publish through a later strong write,
// and what its strong reads observed for a later acquire fence, by the level
// from which each part counts. Kept only for threads that need one.
struct PendingSync {
  vc::VectorClock release;  // C_t at the latest release fence
  shadow::ScopeLevel release_level = shadow::ScopeLevel::kBlock;
  bool has_release = false;
  std::array<vc::VectorClock, 3> acquire;  // indexed by ScopeLevel
  uint8_t acquire_parts = 0;               // bit per non-empty part
};

// One generation of one barrier id of a block (arrivals in record order).
struct BarrierGeneration {
  std::vector<uint32_t> sync;    // per warp: lanes that arrived with kBarrier
  std::vector<uint32_t> arrive;  // per warp: lanes that arrived with kBarrierArrive
  // Per warp, with DetectorOptions::barrier_arrivals_in_groups: its first
  // partial block-wide kBarrier of this generation (site kNoSite: none yet),
  // reported as divergent too once lanes arrive at another site.
  struct FirstArrival {
    uint32_t site = protocol::kNoSite;
    uint32_t lanes = 0;
    uint64_t index = 0;
    bool reported = false;
  };
  std::vector<FirstArrival> first;
  vc::VectorClock released;      // what bar.arrive lanes released at arrival
  uint32_t arrived = 0;
  uint32_t thread_count = 0;  // as given by the first arrival (0: the block's live threads)
  bool open = false;
};

struct BlockState {
  vc::BlockClocks clocks;
  std::vector<uint32_t> live;  // per warp: lanes that exist and have not exited
  uint32_t live_threads = 0;
  uint32_t exited_threads = 0;
  std::array<std::unique_ptr<BarrierGeneration>, kMaxBarrierIds> barriers;
  // Keyed by thread index in the block (warp * 32 + lane).
  absl::flat_hash_map<uint32_t, PendingSync> pending;
  // What the block's threads learnt through relaxed strong loads of values
  // published by strong stores, fences or not (SEMANTICS.md, "Ordered only by
  // a dependency"): classifies, never orders.
  vc::VectorClock dependency;
  // Shared cells that took out-of-line clocks since the last whole-block
  // barrier, which orders everything they record and so collapses them
  // (shadow::CollapseOrdered): without it every access to a hot shared word
  // scanned all its earlier readers and atomic writers (scripts/
  // scaling_benchmark.py). Not kept with clusters (neighbours reach the cells).
  // A cell may be listed twice (inflated, deflated, inflated again).
  std::vector<shadow::Cell> inflated_shared;
  // Per thread of the block (warp * 32 + lane), its async records so far: the
  // clock of its copies' thread (LaunchGeometry::AsyncThreadOf). Sized at the
  // block's first async record.
  std::vector<uint32_t> async_records;
  // Warp syncs some of whose members logged their arrival and others not yet
  // (WarpSyncPayload: a GPU warp reaches one __syncwarp in groups). Few at a
  // time: a group waits in the instruction until the others arrive.
  struct PendingWarpSync {
    uint32_t warp;
    uint32_t members;
    uint32_t arrived;
  };
  std::vector<PendingWarpSync> warp_syncs;
};

// Counters of one worker (merged into Statistics at the end; no sharing on the
// hot path). A cache line of its own: workers' counters sit side by side in a
// vector and are bumped per record (false sharing made 2 workers slower than 1).
struct alignas(64) WorkerCounters {
  uint64_t records = 0;
  uint64_t warp_accesses = 0;
  uint64_t thread_accesses = 0;
  uint64_t sync_ops = 0;
  uint64_t barriers_completed = 0;
  uint64_t malformed = 0;
  uint64_t shadow_dropped = 0;
  uint64_t limit_unchecked = 0;  // lanes on pages made over the memory limit
  uint64_t oom_skipped = 0;      // records not analysed after an allocation failed
  uint64_t generations_dropped = 0;  // open barrier generations of blocks released early
  // Not a counter: this worker's view of the launch's store-site values.
  SiteValueCache site_values;
  void MergeInto(WorkerCounters& total) const {
    total.records += records;
    total.warp_accesses += warp_accesses;
    total.thread_accesses += thread_accesses;
    total.sync_ops += sync_ops;
    total.barriers_completed += barriers_completed;
    total.malformed += malformed;
    total.shadow_dropped += shadow_dropped;
    total.limit_unchecked += limit_unchecked;
    total.oom_skipped += oom_skipped;
    total.generations_dropped += generations_dropped;
  }
};

class Detector::Impl {
 public:
  explicit Impl(DetectorOptions options);

  // Total-order entry point.
  void Process(const protocol::Record& r, uint64_t record_index, WorkerCounters& c);

  // Launch boundaries (quiescent callers).
  void BeginLaunch(const protocol::Record& r, WorkerCounters& c);
  void EndLaunch();

  // A warp record of the current launch. Thread-safe for records of distinct
  // blocks (the parallel engine guarantees a block is drained by one worker).
  void ProcessWarpRecord(const protocol::Record& r, uint64_t record_index, WorkerCounters& c);
  // ProcessWarpRecord, unless an allocation failed before: the host ran out
  // of memory (past what the memory limit foresaw). The record that hit
  // std::bad_alloc and every later one of the stream are then skipped and
  // counted (Statistics::oom_skipped_records): what was reported stays true
  // (cell locks and report_mu are RAII guards, released as it unwinds), the
  // rest is missing, and the daemon keeps serving the other processes.
  void AnalyseWarpRecord(const protocol::Record& r, uint64_t record_index, WorkerCounters& c) {
    if (out_of_memory.load(std::memory_order_relaxed)) {
      c.oom_skipped++;
      return;
    }
    try {
      ProcessWarpRecord(r, record_index, c);
    } catch (const std::bad_alloc&) {
      out_of_memory.store(true, std::memory_order_relaxed);
      c.oom_skipped++;
    }
  }

  void Malformed(WorkerCounters& c, const std::string& what, uint64_t record_index);

  // --- state -------------------------------------------------------------
  DetectorOptions options;
  LaunchGeometry launch;
  std::vector<std::unique_ptr<BlockState>> blocks;  // per block of the launch, lazily created
  // Per block: all its threads exited and its state (and shared window) was
  // released (ReleaseFinishedBlock). A byte each: workers of distinct blocks
  // write distinct elements.
  std::vector<uint8_t> finished_blocks;
  // Per block of a launch with clusters of several CTAs: the lifetime of its
  // shared window (shared_lifetime.h). Empty without clusters.
  std::unique_ptr<WindowLifetime[]> window_lifetimes;
  shadow::ShadowMemory shadow;
  shadow::SyncLocationMap<vc::VectorClock> sync_locations;
  // fence.proxy.async per thread (kFence with kFlagAsyncProxy), for the proxy
  // test of async-proxy accesses (proxy_fences.h).
  ProxyFences proxy_fences;
  // Per location, the join of every strong store's clock (with its block's
  // dependency clock): the relaxed publication chains of decoupled look-back.
  shadow::SyncLocationMap<vc::VectorClock> dependency_locations;
  // Strong loads that observed other threads' strong writes: PTX causality
  // through observation order (load_observers.h).
  LoadObservers load_observers;

  std::mutex report_mu;  // guards report, listener calls, status, racy count, pending
  RaceReport report;
  // Write-write races between records whose class (same-value or data race)
  // is decided at the end of the launch from `site_values` (same_value.h).
  SiteValueTable site_values;
  std::vector<PendingSameValue> pending_same_value;
  std::function<void(const RaceEvent&)> listener;
  absl::Status status;
  uint64_t racy_accesses = 0;
  std::atomic<bool> out_of_memory{false};  // AnalyseWarpRecord

  // Set while several workers analyse at once: global cells (and neighbours'
  // shared cells) are then locked around every check-and-update.
  bool concurrent = false;

  WorkerCounters totals;  // single-stream counters and merged worker counters
  uint64_t next_record_index = 0;
  uint64_t launches = 0;
  uint64_t dropped_generations = 0;
  size_t peak_clock_bytes = 0;
  uint64_t last_threads = 0;

 private:
  BlockState& Block(uint32_t block);
  void MemoryAccess(const protocol::Record& r, uint64_t index, uint32_t block, unsigned warp,
                    WorkerCounters& c);
  // Strong accesses and fences (strong_access.cpp): the synchronisation part
  // of a strong access's lane before (acquire) and after (pending acquire,
  // release, publication of a pending release) its race check.
  void StrongBefore(const protocol::Record& r, BlockState& bs, uint32_t block, unsigned warp, unsigned lane);
  void JoinLaneCopies(const BlockState& bs, unsigned warp, unsigned lane, vc::VectorClock& clock) const;
  // A complete-tx (async release record) on the mbarrier of another block of
  // the cluster, `target`: published as that block's cta-scope release, no
  // access to the word (strong_access.cpp).
  void RemoteCompleteTx(const protocol::Record& r, BlockState& bs, uint32_t block, unsigned warp, unsigned lane,
                        uint32_t target, WorkerCounters& c);
  void StrongAfter(const protocol::Record& r, BlockState& bs, uint32_t block, unsigned warp, unsigned lane,
                   WorkerCounters& c);
  void Fence(const protocol::Record& r, uint32_t block, unsigned warp, WorkerCounters& c);
  // kFence with kFlagAsyncProxy: the lanes' proxy fences (ProxyFences::Note).
  void ProxyFence(const protocol::Record& r, uint32_t block, unsigned warp, WorkerCounters& c);
  void BarrierArrival(const protocol::Record& r, uint64_t index, uint32_t block, unsigned warp,
                      WorkerCounters& c);
  void TryCompleteBarrier(BlockState& bs, uint32_t id, WorkerCounters& c);
  // Every thread of the block exited: nothing can reach its clocks, barriers
  // or (without clusters) its shared memory any more, so they go now instead
  // of at the launch's end. Per-block state is ~3.7 KiB plus 32 bytes per
  // shared byte: a vector add of 16 M floats (65536 blocks) held 240 MiB of
  // finished blocks' clocks at its end.
  void ReleaseFinishedBlock(uint32_t block, WorkerCounters& c);
  void Branch(const protocol::Record& r, uint64_t index, uint32_t block, unsigned warp,
              WorkerCounters& c);
  void Exit(const protocol::Record& r, uint64_t index, uint32_t block, unsigned warp, WorkerCounters& c);
  // Distributed shared memory lifetime (shared_lifetime.cpp). A lane's access
  // (thread `tid` at `clock`) to the window of `owner`, another block.
  void NoteRemoteShared(uint32_t owner, uint64_t tid, uint32_t site, protocol::Op op, uint64_t clock,
                        uint64_t address, uint8_t size);
  // Lanes of `block` exit: their clocks join the exit clock; at the last one
  // the block's window is dead and the remote accesses not ordered before
  // are reported.
  void WindowExit(BlockState& bs, uint32_t block, unsigned warp, uint32_t lanes, uint32_t site, uint64_t index);
  void EmitLifetime(const WindowLifetime& w, const WindowLifetime::Key& key, const WindowLifetime::Use& use);
  // kWarpSync: joins the members once every live one has arrived; reports
  // its strays (warp-sync-mask).
  void WarpSync(const protocol::Record& r, uint64_t index, uint32_t block, unsigned warp);
  // A misused synchronisation instruction (barrier divergence, warp-sync-mask):
  // one event naming its site and the first of `lanes` (lane 0 if none).
  void SyncMisuse(RaceKind kind, RaceClass cls, BlockState& bs, unsigned warp, uint32_t lanes, uint32_t site,
                  protocol::Op op, uint64_t index);
  // Joins the pending warp syncs of `warp` that no live member still owes.
  void CompleteWarpSyncs(BlockState& bs, unsigned warp);
  // kAsyncWait: the lanes acquire their copies' clocks up to the counts given.
  void AsyncWait(const protocol::Record& r, uint32_t block, unsigned warp, WorkerCounters& c);

 public:
  // Race plumbing (memory_access.cpp).
  AccessInfo Describe(uint64_t tid, uint32_t site, protocol::Op op) const;
  RaceClass Classify(uint32_t block, unsigned warp, unsigned lane, uint64_t earlier_tid) const;
  void Emit(const RaceEvent& e);
  // Classifies and emits the launch's pending write-write races.
  void ResolveSameValue();
  size_t ClockBytes() const;
};

}  // namespace barracuda::detector

#endif  // BARRACUDA_HOST_DETECTOR_DETECTOR_IMPL_H_
