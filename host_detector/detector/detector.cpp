// Record dispatch, launch boundaries, statistics and the public Detector API.
#include "host_detector/detector/detector.h"

#include <bit>
#include <string>

#include "absl/strings/str_cat.h"
#include "host_detector/detector/detector_impl.h"

namespace barracuda::detector {

using protocol::Op;

Detector::Impl::Impl(DetectorOptions opts)
    : options(opts),
      shadow(shadow::ShadowOptions{.memory_limit_bytes = opts.shadow_limit_bytes}),
      sync_locations(&shadow.accounting()),
      load_observers(&shadow.accounting()) {}

void Detector::Impl::Malformed(WorkerCounters& c, const std::string& what, uint64_t record_index) {
  c.malformed++;
  std::lock_guard<std::mutex> lock(report_mu);
  if (status.ok()) {
    status = absl::InvalidArgumentError(absl::StrCat("record ", record_index, ": ", what));
  }
}

BlockState& Detector::Impl::Block(uint32_t block) {
  std::unique_ptr<BlockState>& slot = blocks[block];
  if (!slot) {
    // Created by the one worker that owns the block: no lock needed.
    slot = std::make_unique<BlockState>();
    const uint64_t first = uint64_t{block} * launch.threads_per_block;
    slot->clocks.Init(static_cast<vc::ThreadId>(first), launch.threads_per_block);
    slot->live.resize(launch.warps_per_block);
    for (unsigned w = 0; w < launch.warps_per_block; ++w) slot->live[w] = slot->clocks.warp(w).existing_mask();
    slot->live_threads = launch.threads_per_block;
  }
  return *slot;
}

void Detector::Impl::BeginLaunch(const protocol::Record& r, WorkerCounters& c) {
  if (launch.active) EndLaunch();
  const protocol::KernelPayload& k = r.kernel;
  const uint64_t tpb = uint64_t{k.block[0]} * k.block[1] * k.block[2];
  const uint64_t nblocks = uint64_t{k.grid[0]} * k.grid[1] * k.grid[2];
  if (tpb == 0 || tpb > 1024 || nblocks == 0 || nblocks > (uint64_t{1} << 31) ||
      tpb * nblocks > (uint64_t{1} << 32)) {
    Malformed(c, absl::StrCat("kernel begin with an unsupported shape (", tpb, " threads per block, ",
                              nblocks, " blocks)"),
              next_record_index);
    return;
  }
  // Clusters: all-zero (producers predating the field) means none.
  uint32_t cl[3] = {k.cluster[0], k.cluster[1], k.cluster[2]};
  if (cl[0] == 0 && cl[1] == 0 && cl[2] == 0) cl[0] = cl[1] = cl[2] = 1;
  if (cl[0] == 0 || cl[1] == 0 || cl[2] == 0 || k.grid[0] % cl[0] != 0 || k.grid[1] % cl[1] != 0 ||
      k.grid[2] % cl[2] != 0 || uint64_t{cl[0]} * cl[1] * cl[2] > protocol::kMaxClusterCtas) {
    Malformed(c, absl::StrCat("kernel begin with an unsupported cluster shape (", cl[0], ",", cl[1], ",", cl[2],
                              ") for grid (", k.grid[0], ",", k.grid[1], ",", k.grid[2], ")"),
              next_record_index);
    return;
  }
  launch.active = true;
  for (int i = 0; i < 3; ++i) {
    launch.grid[i] = k.grid[i];
    launch.cluster[i] = cl[i];
  }
  launch.cluster_size = cl[0] * cl[1] * cl[2];
  launch.threads_per_block = static_cast<uint32_t>(tpb);
  launch.warps_per_block = protocol::WarpsPerBlock(launch.threads_per_block);
  launch.blocks = nblocks;
  launch.threads = tpb * nblocks;
  launch.launch_id = k.launch_id;
  launch.name_id = k.name_id;
  last_threads = launch.threads;
  blocks.clear();
  blocks.resize(nblocks);
  finished_blocks.assign(nblocks, 0);
  window_lifetimes.reset(launch.cluster_size > 1 ? new WindowLifetime[nblocks] : nullptr);
  shadow.BeginLaunch(nblocks, k.static_shared_bytes + k.dynamic_shared_bytes);
  sync_locations.BeginLaunch();
  dependency_locations.BeginLaunch();
  load_observers.Clear();
  launches++;
}

void LaunchGeometry::ClusterBlocks(uint32_t block, uint32_t* out) const {
  const uint64_t gx = grid[0], gy = grid[1];
  const uint64_t x = block % gx, y = (block / gx) % gy, z = block / (gx * gy);
  const uint64_t ox = x - x % cluster[0], oy = y - y % cluster[1], oz = z - z % cluster[2];
  uint32_t n = 0;
  for (uint32_t k = 0; k < cluster[2]; ++k)
    for (uint32_t j = 0; j < cluster[1]; ++j)
      for (uint32_t i = 0; i < cluster[0]; ++i)
        out[n++] = static_cast<uint32_t>((ox + i) + (oy + j) * gx + (oz + k) * gx * gy);
}

uint32_t LaunchGeometry::ClusterOf(uint32_t block) const {
  if (cluster_size <= 1) return block;
  const uint64_t gx = grid[0], gy = grid[1];
  const uint64_t x = block % gx, y = (block / gx) % gy, z = block / (gx * gy);
  const uint64_t nx = gx / cluster[0], ny = gy / cluster[1];
  return static_cast<uint32_t>(x / cluster[0] + (y / cluster[1]) * nx + (z / cluster[2]) * nx * ny);
}

void Detector::Impl::EndLaunch() {
  if (!launch.active) return;
  for (const auto& b : blocks) {
    if (!b) continue;
    for (const auto& g : b->barriers) {
      if (g && g->open) dropped_generations++;
    }
  }
  peak_clock_bytes = std::max(peak_clock_bytes, ClockBytes());
  ResolveSameValue();
  site_values.Clear();
  // Kernels on one stream are ordered: nothing of this launch can race with
  // the next one, so all state goes (memory does not grow with launches).
  blocks.clear();
  blocks.shrink_to_fit();
  finished_blocks.clear();
  finished_blocks.shrink_to_fit();
  window_lifetimes.reset();
  shadow.EndLaunch();
  sync_locations.EndLaunch();
  dependency_locations.EndLaunch();
  load_observers.Clear();
  proxy_fences.Clear();
  launch = LaunchGeometry{};
}

size_t Detector::Impl::ClockBytes() const {
  size_t bytes = blocks.capacity() * sizeof(blocks[0]);
  for (const auto& b : blocks) {
    if (b) bytes += sizeof(BlockState) + b->clocks.MemoryBytes() + b->live.capacity() * 4;
  }
  return bytes;
}

void Detector::Impl::Process(const protocol::Record& r, uint64_t record_index, WorkerCounters& c) {
  c.records++;
  switch (protocol::OpOf(r.header)) {
    case Op::kKernelBegin:
      BeginLaunch(r, c);
      return;
    case Op::kKernelEnd:
      EndLaunch();
      return;
    default:
      AnalyseWarpRecord(r, record_index, c);
  }
}

void Detector::Impl::ProcessWarpRecord(const protocol::Record& r, uint64_t index, WorkerCounters& c) {
  const Op op = protocol::OpOf(r.header);
  if (op >= Op::kCount) {
    Malformed(c, absl::StrCat("unknown operation ", static_cast<int>(r.header.op)), index);
    return;
  }
  if (!launch.active) {
    Malformed(c, absl::StrCat(protocol::OpName(op), " record outside a launch"), index);
    return;
  }
  const uint32_t block = r.header.warp_id / launch.warps_per_block;
  const unsigned warp = r.header.warp_id % launch.warps_per_block;
  if (block >= launch.blocks) {
    Malformed(c, absl::StrCat("warp id ", r.header.warp_id, " outside the launch"), index);
    return;
  }
  if (finished_blocks[block] != 0) {
    Malformed(c, absl::StrCat("record of warp ", r.header.warp_id, " after every thread of its block exited"), index);
    return;
  }
  switch (op) {
    case Op::kRead:
    case Op::kWrite:
    case Op::kAtomic:
    case Op::kAcquire:
    case Op::kRelease:
    case Op::kAcqRel:
      MemoryAccess(r, index, block, warp, c);
      return;
    case Op::kFence:
      if ((r.header.flags & protocol::kFlagAsyncProxy) != 0) {
        ProxyFence(r, block, warp, c);
      } else {
        Fence(r, block, warp, c);
      }
      return;
    case Op::kBarrier:
    case Op::kBarrierArrive:
      BarrierArrival(r, index, block, warp, c);
      return;
    case Op::kIf:
    case Op::kElse:
    case Op::kFi:
      Branch(r, index, block, warp, c);
      return;
    case Op::kWarpSync:
      WarpSync(r, index, block, warp);
      return;
    case Op::kExit:
      Exit(r, index, block, warp, c);
      return;
    case Op::kAsyncWait:
      AsyncWait(r, block, warp, c);
      return;
    default:
      return;
  }
}

// --- public API ---------------------------------------------------------------

Detector::Detector(DetectorOptions options) : impl_(std::make_unique<Impl>(options)) {}
Detector::~Detector() = default;

void Detector::Process(const protocol::Record& record) {
  impl_->Process(record, impl_->next_record_index++, impl_->totals);
}

void Detector::SetRaceListener(std::function<void(const RaceEvent&)> listener) {
  std::lock_guard<std::mutex> lock(impl_->report_mu);
  impl_->listener = std::move(listener);
}

const RaceReport& Detector::Report() const {
  // A stream that stopped inside a launch (no kKernelEnd) still reports its
  // pending write-write races, classified by what the launch showed.
  impl_->ResolveSameValue();
  return impl_->report;
}

absl::Status Detector::status() const {
  std::lock_guard<std::mutex> lock(impl_->report_mu);
  return impl_->status;
}

const DetectorOptions& Detector::options() const { return impl_->options; }

size_t Detector::RaceCount() const {
  std::lock_guard<std::mutex> lock(impl_->report_mu);
  return impl_->report.size();
}

Statistics Detector::Stats() const {
  const Impl& d = *impl_;
  Statistics s;
  s.records = d.totals.records;
  s.launches = d.launches;
  s.warp_accesses = d.totals.warp_accesses;
  s.thread_accesses = d.totals.thread_accesses;
  s.sync_ops = d.totals.sync_ops;
  s.barriers_completed = d.totals.barriers_completed;
  s.barrier_generations_dropped = d.dropped_generations + d.totals.generations_dropped;
  s.racy_accesses = d.racy_accesses;
  s.malformed_records = d.totals.malformed;
  s.shadow_dropped_accesses = d.totals.shadow_dropped;
  s.threads = d.last_threads;
  s.clock_state_bytes = d.ClockBytes();
  s.peak_clock_state_bytes = std::max(d.peak_clock_bytes, s.clock_state_bytes);
  const shadow::ShadowStats ss = d.shadow.Stats();
  s.shadow_bytes = ss.total_bytes;
  s.peak_shadow_bytes = ss.peak_total_bytes;
  s.shadow_spare_bytes = ss.Bytes(shadow::MemoryCategory::kSpareCells);
  s.sync_location_bytes = ss.Bytes(shadow::MemoryCategory::kSyncLocations);
  s.limit_unchecked_accesses = d.totals.limit_unchecked;
  s.limit_untracked_pages =
      ss.Events(shadow::ShadowEvent::kUntrackedPages) + ss.Events(shadow::ShadowEvent::kPageMapFailures);
  s.limit_dropped_clock_entries =
      ss.Events(shadow::ShadowEvent::kVcAllocFailures) + ss.Events(shadow::ShadowEvent::kVcEntriesRefused);
  s.shadow_limit_bytes = ss.limit_bytes;
  s.oom_skipped_records = d.totals.oom_skipped;
  s.out_of_memory = d.out_of_memory.load(std::memory_order_relaxed);
  return s;
}

uint64_t Detector::ResidentGlobalCellBytes() const { return impl_->shadow.global().ResidentCellBytes(); }

vc::VectorClock Detector::ThreadClock(uint64_t tid) const {
  const Impl& d = *impl_;
  vc::VectorClock v;
  if (!d.launch.active || tid >= d.launch.threads) return v;
  const uint32_t block = static_cast<uint32_t>(tid / d.launch.threads_per_block);
  const uint32_t in_block = static_cast<uint32_t>(tid % d.launch.threads_per_block);
  if (d.finished_blocks[block] != 0) return v;  // exited, state released: empty
  const BlockState* bs = d.blocks[block].get();
  if (bs == nullptr) {
    v.Set(static_cast<vc::ThreadId>(tid), 1);  // untouched: inc_t(bottom)
    return v;
  }
  return bs->clocks.warp(in_block / vc::kLanes).Expand(in_block % vc::kLanes);
}

}  // namespace barracuda::detector
