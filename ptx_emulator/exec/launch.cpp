// Device::Launch: validation, parameter buffer, workers, blocks, tracing.
//
// Blocks are handed to workers (threads; worker 0 is the calling thread)
// through one atomic counter, so with one worker the block order, and with a
// seeded policy the whole schedule, is deterministic. A worker keeps up to
// max_resident_blocks_per_worker blocks resident and interleaves all their
// warps with its SchedulePolicy, a quantum at a time, so spin-waits between
// resident blocks make progress. Cooperative launches make every block
// resident at once (partitioned over the workers). Block objects (warps,
// register files, shared and local windows) are recycled within a worker.
//
// Thread-block clusters: the unit handed out is a cluster (one block when the
// launch has none); its CTAs are admitted together by one worker, so they are
// co-resident, interleave on one run queue, and retire together once all of
// them finished (a neighbour may read a finished CTA's shared memory until
// then). exec/cluster.h has the cluster barrier.
//
// The first fault anywhere stops every worker; a cluster whose live warps all
// wait at barriers is a deadlock (nothing else can release its barriers).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "ptx_emulator/core/device.h"
#include "ptx_emulator/exec/cluster.h"
#include "ptx_emulator/exec/fault_status.h"
#include "ptx_emulator/exec/launch_runner.h"
#include "ptx_emulator/exec/run_queue.h"
#include "ptx_emulator/exec/schedule_policy.h"
#include "ptx_emulator/exec/spin_watch.h"
#include "ptx_emulator/exec/testing_hooks.h"
#include "ptx_emulator/exec/warp.h"

namespace barracuda::emu {

std::unique_ptr<SchedulePolicy> MakeSchedulePolicy(const ScheduleOptions& options, uint32_t worker) {
  if (options.policy_factory) return options.policy_factory(worker);
  if (options.policy == ScheduleOptions::Policy::kRandom)
    return std::make_unique<RandomPolicy>(options.seed ^ (0x632be59bd9b4e019ull * (worker + 1)));
  return std::make_unique<RoundRobinPolicy>();
}

namespace {

constexpr uint32_t AlignUp(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

void SetSreg(Warp& w, SpecialReg r, uint32_t lane, uint64_t v) {
  w.sreg_table[static_cast<uint32_t>(r) * kLanes + lane] = v;
}
void SetSregAll(Warp& w, SpecialReg r, uint64_t v) {
  std::fill_n(w.sreg_table.begin() + static_cast<uint32_t>(r) * kLanes, kLanes, v);
}

}  // namespace

// Cluster shape: the kernel's .reqnctapercluster (__cluster_dims__) or the
// launch's cluster dimension attribute; they must agree when both are given.
absl::Status LaunchRunner::ValidateCluster() {
  const Dim3& g = config_.grid;
  Dim3 c = launch_cluster_;
  const ClusterDirectives d = ClusterDirectivesOf(kernel_->source);
  explicit_cluster_ = c.count() > 1 || d.explicit_cluster;
  const uint64_t max_rank = d.max_rank;
  if (d.has_required) {
    const uint64_t* v = d.required;
    if (v[0] == 0 || v[1] == 0 || v[2] == 0 || v[0] * v[1] * v[2] > 0xffffffffull)
      return absl::InvalidArgumentError(absl::StrCat("launch of ", kernel_->name, ": invalid .reqnctapercluster"));
    const Dim3 k{static_cast<uint32_t>(v[0]), static_cast<uint32_t>(v[1]), static_cast<uint32_t>(v[2])};
    if (launch_cluster_.count() > 1 && (k.x != c.x || k.y != c.y || k.z != c.z))
      return absl::InvalidArgumentError(absl::StrCat(
          "launch of ", kernel_->name, ": cluster dimensions (", c.x, ",", c.y, ",", c.z,
          ") differ from the kernel's .reqnctapercluster (", k.x, ",", k.y, ",", k.z, ")"));
    c = k;
  }
  if (c.count() > kMaxClusterCtas)
    return absl::UnimplementedError(absl::StrCat("launch of ", kernel_->name, ": thread-block clusters of ",
                                                 c.count(), " CTAs are not supported by the emulator (at most ",
                                                 kMaxClusterCtas, ")"));
  if (max_rank != 0 && c.count() > max_rank)
    return absl::InvalidArgumentError(absl::StrCat("launch of ", kernel_->name, ": clusters of ", c.count(),
                                                   " CTAs exceed the kernel's .maxclusterrank ", max_rank));
  if (c.x == 0 || c.y == 0 || c.z == 0 || g.x % c.x != 0 || g.y % c.y != 0 || g.z % c.z != 0)
    return absl::InvalidArgumentError(absl::StrCat("launch of ", kernel_->name, ": grid (", g.x, ",", g.y, ",", g.z,
                                                   ") is not a multiple of the cluster dimensions (", c.x, ",", c.y,
                                                   ",", c.z, ")"));
  cluster_ = c;
  cluster_grid_ = Dim3{g.x / c.x, g.y / c.y, g.z / c.z};
  return absl::OkStatus();
}

absl::Status LaunchRunner::Validate() {
  if (kernel_index_ >= device_.function_count()) return absl::InvalidArgumentError("launch: no such kernel");
  kernel_ = &device_.function(kernel_index_);
  const DeviceDescription& d = device_.description();
  const Dim3& g = config_.grid;
  const Dim3& b = config_.block;
  if (!kernel_->is_entry) return absl::InvalidArgumentError(absl::StrCat("launch: ", kernel_->name, " is not a .entry"));
  if (kernel_->code.empty()) return absl::InvalidArgumentError(absl::StrCat("launch: ", kernel_->name, " has no body"));
  if (g.count() == 0 || b.count() == 0 || g.x > 0x7fffffffu || g.y > 65535 || g.z > 65535 || b.x > 1024 ||
      b.y > 1024 || b.z > 64)
    return absl::InvalidArgumentError(absl::StrCat("launch of ", kernel_->name, ": invalid grid (", g.x, ",", g.y, ",",
                                                   g.z, ") or block (", b.x, ",", b.y, ",", b.z, ")"));
  if (b.count() > d.max_threads_per_block || b.count() > kernel_->max_threads)
    return absl::InvalidArgumentError(absl::StrCat("launch of ", kernel_->name, ": ", b.count(),
                                                   " threads per block exceed the limit of ",
                                                   std::min(d.max_threads_per_block, kernel_->max_threads)));
  if (absl::Status cs = ValidateCluster(); !cs.ok()) return cs;
  const uint32_t static_shared = kernel_->static_shared_bytes;
  const uint64_t shared = uint64_t{AlignUp(static_shared, 16)} + config_.dynamic_shared_bytes;
  if (static_shared > d.shared_per_block || shared > d.shared_per_block_optin)
    return absl::InvalidArgumentError(absl::StrCat("launch of ", kernel_->name, ": ", shared,
                                                   " bytes of shared memory exceed the limit of ",
                                                   d.shared_per_block_optin));
  total_blocks_ = g.count();
  total_units_ = total_blocks_ / cluster_.count();
  if (total_blocks_ > 0xffffffffull)  // block ids are 32-bit in records (warp_id) and WarpCtx
    return absl::InvalidArgumentError(absl::StrCat("launch of ", kernel_->name, ": ", total_blocks_,
                                                   " blocks exceed the emulator's limit of 2^32 - 1"));
  // What the occupancy API answers for this kernel (threads, shared memory),
  // as the runtime's cudaErrorCooperativeLaunchTooLarge: not the SM's block
  // limit alone, which a large block or much shared memory never reaches.
  if (const uint64_t resident =
          uint64_t{d.sm_count} * d.ResidentBlocksPerSm(static_cast<uint32_t>(b.count()), shared);
      config_.cooperative && total_blocks_ > resident)
    return absl::InvalidArgumentError(absl::StrCat("cooperative launch of ", kernel_->name, ": ", total_blocks_,
                                                   " blocks cannot be resident at once (at most ", resident,
                                                   " of ", b.count(), " threads and ", shared,
                                                   " bytes of shared memory)"));
  if (!kernel_->params.empty() && args_ == nullptr)
    return absl::InvalidArgumentError(absl::StrCat("launch of ", kernel_->name, ": missing arguments"));
  threads_per_block_ = static_cast<uint32_t>(b.count());
  warps_per_block_ = protocol::WarpsPerBlock(threads_per_block_);
  shared_bytes_ = static_cast<uint32_t>(shared);
  if (kernel_->frame_bytes != 0 || !kernel_->call_sites.empty() || kernel_->uses_alloca) local_stride_ = AlignUp(d.local_bytes_per_thread, 16);
  uint32_t param_bytes = kernel_->param_buffer_bytes;
  for (const auto& p : kernel_->params) param_bytes = std::max(param_bytes, p.offset + p.size);
  params_.assign((param_bytes + 7) / 8, 0);
  auto* buf = reinterpret_cast<uint8_t*>(params_.data());
  for (size_t i = 0; i < kernel_->params.size(); ++i) {
    if (args_[i] == nullptr)
      return absl::InvalidArgumentError(absl::StrCat("launch of ", kernel_->name, ": argument ", i, " is null"));
    std::memcpy(buf + kernel_->params[i].offset, args_[i], kernel_->params[i].size);
  }
  return absl::OkStatus();
}

void LaunchRunner::InitBlockObject(Worker& worker, Block& b) {
  // Everything that depends only on the launch and the warp's place in the block.
  const DeviceDescription& d = device_.description();
  const Dim3& bd = config_.block;
  b.shared = std::make_unique<uint8_t[]>(std::max<uint32_t>(shared_bytes_, 1));
  b.shared_bytes = shared_bytes_;
  b.queue = &worker.queue;
  if (local_stride_ != 0) {
    const size_t bytes = size_t{local_stride_} * kLanes * warps_per_block_;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    b.local_region = p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
    if (b.local_region != nullptr) worker.mappings.push_back(Mapping{b.local_region, bytes});
  }
  b.warps.resize(warps_per_block_);
  for (uint32_t i = 0; i < warps_per_block_; ++i) {
    auto w = std::make_unique<Warp>();
    w->block = &b;
    w->device = &device_;
    w->warp_in_block = i;
    w->threads_per_block = threads_per_block_;
    const uint32_t first_thread = i * kLanes;
    const uint32_t n = std::min(kLanes, threads_per_block_ - first_thread);
    w->exists = n == kLanes ? kFullMask : (1u << n) - 1;
    w->sreg_table.assign(static_cast<size_t>(SpecialReg::kCount) * kLanes, 0);
    for (uint32_t l = 0; l < kLanes; ++l) {
      const uint32_t t = first_thread + l;
      SetSreg(*w, SpecialReg::kTidX, l, t % bd.x);
      SetSreg(*w, SpecialReg::kTidY, l, (t / bd.x) % bd.y);
      SetSreg(*w, SpecialReg::kTidZ, l, t / (bd.x * bd.y));
      SetSreg(*w, SpecialReg::kLaneId, l, l);
      const uint64_t bit = uint64_t{1} << l;
      SetSreg(*w, SpecialReg::kLanemaskEq, l, bit);
      SetSreg(*w, SpecialReg::kLanemaskLe, l, (bit << 1) - 1);
      SetSreg(*w, SpecialReg::kLanemaskLt, l, bit - 1);
      SetSreg(*w, SpecialReg::kLanemaskGe, l, ~(bit - 1) & 0xffffffffu);
      SetSreg(*w, SpecialReg::kLanemaskGt, l, ~((bit << 1) - 1) & 0xffffffffu);
    }
    SetSregAll(*w, SpecialReg::kNtidX, bd.x);
    SetSregAll(*w, SpecialReg::kNtidY, bd.y);
    SetSregAll(*w, SpecialReg::kNtidZ, bd.z);
    SetSregAll(*w, SpecialReg::kNctaidX, config_.grid.x);
    SetSregAll(*w, SpecialReg::kNctaidY, config_.grid.y);
    SetSregAll(*w, SpecialReg::kNctaidZ, config_.grid.z);
    SetSregAll(*w, SpecialReg::kWarpId, i);
    SetSregAll(*w, SpecialReg::kNwarpId, d.max_threads_per_sm / kLanes);
    SetSregAll(*w, SpecialReg::kNsmId, d.sm_count);
    SetSregAll(*w, SpecialReg::kGridId, launch_id_);
    // Cooperative launches: cooperative groups' grid.sync() finds its barrier
    // word through %envreg1 (high half) and %envreg2 (low half), as the CUDA
    // driver passes it; zero otherwise (grid.sync() then traps, as on a GPU
    // without a cooperative launch).
    SetSregAll(*w, static_cast<SpecialReg>(static_cast<uint32_t>(SpecialReg::kEnvReg0) + 1), grid_workspace_ >> 32);
    SetSregAll(*w, static_cast<SpecialReg>(static_cast<uint32_t>(SpecialReg::kEnvReg0) + 2),
               grid_workspace_ & 0xffffffffu);
    // Clusters (the per-cluster ones are set by AdmitCluster).
    SetSregAll(*w, SpecialReg::kNclusterIdX, cluster_grid_.x);
    SetSregAll(*w, SpecialReg::kNclusterIdY, cluster_grid_.y);
    SetSregAll(*w, SpecialReg::kNclusterIdZ, cluster_grid_.z);
    SetSregAll(*w, SpecialReg::kClusterNctaidX, cluster_.x);
    SetSregAll(*w, SpecialReg::kClusterNctaidY, cluster_.y);
    SetSregAll(*w, SpecialReg::kClusterNctaidZ, cluster_.z);
    SetSregAll(*w, SpecialReg::kClusterNctarank, cluster_.count());
    SetSregAll(*w, SpecialReg::kIsExplicitCluster, explicit_cluster_ ? 1 : 0);
    SetSregAll(*w, SpecialReg::kDynamicSmemSize, config_.dynamic_shared_bytes);
    SetSregAll(*w, SpecialReg::kTotalSmemSize, shared_bytes_);
    SetSregAll(*w, SpecialReg::kAggrSmemSize, shared_bytes_);
    w->sregs = w->sreg_table.data();
    w->shared_base = b.shared.get();
    w->shared_bytes = shared_bytes_;
    w->local_stride = local_stride_;
    w->local_base = b.local_region != nullptr ? b.local_region + size_t{local_stride_} * kLanes * i : nullptr;
    w->param_base = reinterpret_cast<const uint8_t*>(params_.data());
    w->param_bytes = static_cast<uint32_t>(params_.size() * 8);
    w->memory = &device_.memory();
    w->tracer = worker.tracer.get();
    w->store_buffer = worker.stores.get();
    w->frames.resize(1);
    b.warps[i] = std::move(w);
  }
}

Block* LaunchRunner::Admit(Worker& worker, uint32_t linear) {
  Block* b;
  if (!worker.free_blocks.empty()) {
    b = worker.free_blocks.back();
    worker.free_blocks.pop_back();
    std::memset(b->shared.get(), 0, b->shared_bytes);
  } else {
    worker.blocks.push_back(std::make_unique<Block>());
    b = worker.blocks.back().get();
    InitBlockObject(worker, *b);
  }
  const Dim3& g = config_.grid;
  b->linear = linear;
  b->coord = Dim3{linear % g.x, (linear / g.x) % g.y, linear / (g.x * g.y)};
  for (BarrierState& s : b->barriers) s = BarrierState{};
  b->live_threads = threads_per_block_;
  b->runnable_warps = warps_per_block_;
  b->done_warps = 0;
  const uint32_t smid = linear % device_.description().sm_count;
  for (auto& wp : b->warps) {
    Warp& w = *wp;
    w.block_linear = linear;
    w.warp_global = linear * warps_per_block_ + w.warp_in_block;
    SetSregAll(w, SpecialReg::kCtaidX, b->coord.x);
    SetSregAll(w, SpecialReg::kCtaidY, b->coord.y);
    SetSregAll(w, SpecialReg::kCtaidZ, b->coord.z);
    SetSregAll(w, SpecialReg::kSmId, smid);
    w.live = w.exists;
    w.active = w.exists;
    w.executed = 0;
    w.events = 0;
    w.fault = Fault{};
    w.async.reset();  // a reused block object: the async copies of its last block are done
    w.spin_turns = 0;
    w.mbar_failed_waits = 0;
    w.state = WarpState::kRunnable;
    w.serial_gate = deterministic_;
    w.serial_pending = false;
    CallFrame& f = w.frames[0];
    f.fn = kernel_;
    f.regs.assign(size_t{kernel_->num_registers} * kLanes, 0);
    f.preds.assign(kernel_->num_predicates, 0);
    f.frame_base = 0;
    f.dynamic = false;
    f.ResetStack(w.exists);
    w.depth = 1;
    w.BindFrame();
    worker.queue.Add(&w);
  }
  worker.resident.push_back(b);
  return b;
}

void LaunchRunner::AdmitCluster(Worker& worker, uint64_t unit) {
  Cluster* c;
  if (!worker.free_clusters.empty()) {
    c = worker.free_clusters.back();
    worker.free_clusters.pop_back();
  } else {
    worker.clusters.push_back(std::make_unique<Cluster>());
    c = worker.clusters.back().get();
  }
  const uint32_t size = static_cast<uint32_t>(cluster_.count());
  c->Reset(size, warps_per_block_);
  const Dim3& cg = cluster_grid_;
  const Dim3 cid{static_cast<uint32_t>(unit % cg.x), static_cast<uint32_t>((unit / cg.x) % cg.y),
                 static_cast<uint32_t>(unit / (uint64_t{cg.x} * cg.y))};
  const Dim3& g = config_.grid;
  for (uint32_t r = 0; r < size; ++r) {
    // %cluster_ctarank = x + y * nx + z * nx * ny over %cluster_ctaid.
    const Dim3 in{r % cluster_.x, (r / cluster_.x) % cluster_.y, r / (cluster_.x * cluster_.y)};
    const uint64_t x = uint64_t{cid.x} * cluster_.x + in.x, y = uint64_t{cid.y} * cluster_.y + in.y,
                   z = uint64_t{cid.z} * cluster_.z + in.z;
    const auto linear = static_cast<uint32_t>(x + y * g.x + z * uint64_t{g.x} * g.y);
    Block* b = Admit(worker, linear);
    b->cluster = c;
    b->cluster_rank = r;
    c->ctas[r] = b;
    c->windows.base[r] = b->shared.get();
    c->windows.block_linear[r] = linear;
    for (auto& wp : b->warps) {
      Warp& w = *wp;
      w.cluster = &c->windows;
      SetSregAll(w, SpecialReg::kClusterIdX, cid.x);
      SetSregAll(w, SpecialReg::kClusterIdY, cid.y);
      SetSregAll(w, SpecialReg::kClusterIdZ, cid.z);
      SetSregAll(w, SpecialReg::kClusterCtaidX, in.x);
      SetSregAll(w, SpecialReg::kClusterCtaidY, in.y);
      SetSregAll(w, SpecialReg::kClusterCtaidZ, in.z);
      SetSregAll(w, SpecialReg::kClusterCtarank, r);
    }
  }
}

void LaunchRunner::Retire(Worker& worker, Block* b) {
  worker.resident.erase(std::find(worker.resident.begin(), worker.resident.end(), b));
  worker.free_blocks.push_back(b);
}

std::string LaunchRunner::Coordinates(const Block& b, const Warp* w, uint32_t lane) const {
  std::string s = absl::StrCat("kernel ", kernel_->name, ", block (", b.coord.x, ",", b.coord.y, ",", b.coord.z, ")");
  if (w != nullptr) {
    const auto sr = [&](SpecialReg r) { return w->sregs[static_cast<uint32_t>(r) * kLanes + lane]; };
    absl::StrAppend(&s, ", thread (", sr(SpecialReg::kTidX), ",", sr(SpecialReg::kTidY), ",", sr(SpecialReg::kTidZ), ")");
  }
  return s;
}

void LaunchRunner::SetError(absl::Status status) {
  std::lock_guard<std::mutex> lock(error_mu_);
  if (error_.ok()) error_ = std::move(status);
  stop_.store(true, std::memory_order_relaxed);
}

void LaunchRunner::ReportFault(const Warp& w) {
  {
    std::lock_guard<std::mutex> lock(error_mu_);
    if (error_.ok() && !device_.last_fault_) {
      const auto sr = [&](SpecialReg r) {
        return static_cast<uint32_t>(w.sregs[static_cast<uint32_t>(r) * kLanes + w.fault.lane]);
      };
      device_.last_fault_ = Device::FaultReport{
          w.fault, launch_id_, w.block->coord,
          Dim3{sr(SpecialReg::kTidX), sr(SpecialReg::kTidY), sr(SpecialReg::kTidZ)}};
    }
  }
  SetError(FaultStatus(w.fault.kind, absl::StrCat(w.fault.message, " [", Coordinates(*w.block, &w, w.fault.lane), "]")));
}

void LaunchRunner::ReportDeadlock(const Block& blk) {
  const Cluster& c = *blk.cluster;
  std::string what = c.size() > 1 ? "no warp of the cluster can make progress:" : "no warp of the block can make progress:";
  const Warp* first = nullptr;
  uint32_t cluster_live = 0;
  for (uint32_t r = 0; r < c.size(); ++r) cluster_live += c.ctas[r]->live_threads;
  const uint32_t cluster_arrived = cluster_live - c.MissingThreads();
  for (uint32_t r = 0; r < c.size(); ++r) {
    const Block& b = *c.ctas[r];
    if (c.size() > 1) absl::StrAppend(&what, " block (", b.coord.x, ",", b.coord.y, ",", b.coord.z, "):");
    for (const auto& wp : b.warps) {
      const Warp& w = *wp;
      absl::StrAppend(&what, " warp ", w.warp_in_block);
      if (w.state == WarpState::kDone) {
        absl::StrAppend(&what, " exited;");
        continue;
      }
      if (SpinsOnMbarrier(w)) {
        absl::StrAppend(&what, MbarrierSpinText(w, c), ";");
      } else if (w.wait_barrier == kClusterBarrierWaitId) {
        absl::StrAppend(&what, " waits at barrier.cluster.wait (PTX line ", w.wait_line, ", pc ", w.cur_pc, "), ",
                        cluster_arrived, " of ", cluster_live, " threads of the cluster arrived;");
      } else {
        const BarrierState& s = b.barriers[w.wait_barrier];
        const uint32_t expected = s.count != 0 ? s.count : b.live_threads;
        absl::StrAppend(&what, " waits at barrier ", w.wait_barrier, " (PTX line ", w.wait_line, ", pc ", w.cur_pc,
                        "), ", s.arrived, " of ", expected, " threads arrived;");
      }
      if (first == nullptr) first = &w;
    }
  }
  if (!what.empty() && what.back() == ';') what.pop_back();
  const uint32_t lane = first != nullptr ? static_cast<uint32_t>(std::countr_zero(first->live | 1u << 31)) : 0;
  const Block& where = first != nullptr ? *first->block : blk;
  SetError(FaultStatus(FaultKind::kDeadlock, absl::StrCat(what, " [", Coordinates(where, first, lane), "]")));
}

void LaunchRunner::RunWorker(Worker& worker) {
  const ScheduleOptions& opts = device_.schedule();
  const size_t max_resident =
      config_.cooperative ? SIZE_MAX : std::max<uint32_t>(1, opts.max_resident_blocks_per_worker);
  const uint32_t quantum = std::max<uint32_t>(1, opts.quantum);
  while (!stop_.load(std::memory_order_relaxed)) {
    while (worker.resident.size() < max_resident) {
      uint64_t unit;
      if (config_.cooperative) {
        unit = worker.next_coop;
        worker.next_coop += num_workers_;
        if (unit >= total_units_) break;
      } else {
        unit = next_block_.fetch_add(1, std::memory_order_relaxed);
        if (unit >= total_units_) break;
      }
      AdmitCluster(worker, unit);
    }
    if (worker.queue.empty()) {
      if (worker.resident.empty()) return;
      ReportDeadlock(*worker.resident.front());  // defensive: caught per block below
      return;
    }
    Warp* w = worker.queue[worker.policy->PickWarp(worker.queue.warps())];
    RunCounted(worker, *w, std::max<uint32_t>(1, worker.policy->Quantum(quantum)));
    if (!AfterTurn(worker, w, true)) return;
  }
}

uint64_t LaunchRunner::RunCounted(Worker& worker, Warp& w, uint32_t budget) {
  const uint64_t executed_before = w.executed, threads_before = w.thread_executed;
  const uint64_t failed_before = w.mbar_failed_waits;
  RunWarp(w, budget);
  // Deterministic rounds only: there a poll of global memory stops the turn
  // (serial_pending), so a spin turn is one on shared memory alone.
  if (w.serial_gate) CountSpinTurn(w, w.executed - executed_before, failed_before);
  worker.warp_instructions += w.executed - executed_before;
  worker.thread_instructions += w.thread_executed - threads_before;
  return w.executed - executed_before;
}

bool LaunchRunner::AfterTurn(Worker& worker, Warp* w, bool report) {
  if (w->faulted()) {
    if (report) ReportFault(*w);
    else if (worker.fault == nullptr) worker.fault = w;
    return false;
  }
  Block* b = w->block;
  if (w->state != WarpState::kRunnable && w->queued) worker.queue.Remove(w);
  Cluster& c = *b->cluster;
  if (w->state == WarpState::kDone) {
    --b->runnable_warps;
    // Its shared memory is gone for the rest of the cluster (DSMEM lifetime).
    if (++b->done_warps == warps_per_block_) c.windows.exited |= 1u << b->cluster_rank;
    if (b->done_warps == warps_per_block_ && ++c.done_ctas == c.size()) {
      for (uint32_t r = 0; r < c.size(); ++r) Retire(worker, c.ctas[r]);
      worker.free_clusters.push_back(&c);
      return true;
    }
  }
  if ((b->runnable_warps == 0 && c.Stuck()) || (w->spin_turns >= kSpinTurns && ClusterSpinsForever(c))) {
    if (report) ReportDeadlock(*b);
    else if (worker.deadlock == nullptr) worker.deadlock = b;
    return false;
  }
  return true;
}

absl::Status LaunchRunner::Run() {
  device_.last_fault_.reset();
  if (absl::Status s = Validate(); !s.ok()) return s;
  struct WorkspaceRelease {
    Device& device;
    uint64_t address;
    ~WorkspaceRelease() {
      if (address != 0) (void)device.memory().Free(reinterpret_cast<void*>(address));
    }
  };
  if (config_.cooperative) {
    auto ws = device_.memory().Allocate(256, DeviceMemory::Kind::kDevice, "grid barrier workspace");
    if (!ws.ok()) return ws.status();
    grid_workspace_ = reinterpret_cast<uint64_t>(*ws);
  }
  WorkspaceRelease release_workspace{device_, grid_workspace_};
  launch_id_ = device_.launch_counter_.fetch_add(1) + 1;
  RecordSink* sink = device_.sink_;
  const uint32_t requested = std::max<uint32_t>(1, device_.schedule().workers);
  num_workers_ = static_cast<uint32_t>(std::min<uint64_t>(requested, total_units_));
  deterministic_ = device_.schedule().deterministic;
  // Deterministic rounds: a fixed number of resident slots whatever the number
  // of host threads, and one record stream (deterministic_rounds.cpp).
  num_slots_ = config_.cooperative
                   ? static_cast<uint32_t>(total_units_)
                   : static_cast<uint32_t>(std::min<uint64_t>(std::max<uint32_t>(1, device_.schedule().resident_slots),
                                                              total_units_));
  // What the emulated GPU holds of this kernel at once (the occupancy API's
  // figure): blocks spinning on blocks beyond the first slots get them.
  const DeviceDescription& d = device_.description();
  const uint64_t fit_units = uint64_t{d.sm_count} * d.ResidentBlocksPerSm(threads_per_block_, shared_bytes_) /
                             cluster_.count();
  max_slots_ = std::max(num_slots_, static_cast<uint32_t>(std::min(fit_units, total_units_)));
  const uint32_t rings =
      deterministic_ ? std::min(std::max<uint32_t>(1, device_.schedule().record_streams), num_slots_) : num_workers_;
  num_rings_ = rings;
  if (sink != nullptr) {
    uint32_t name_id;
    {
      std::lock_guard<std::mutex> lock(device_.load_mu_);
      auto it = device_.kernel_name_ids_.find(kernel_index_);
      if (it == device_.kernel_name_ids_.end()) {
        name_id = device_.next_kernel_name_++;
        device_.kernel_name_ids_.emplace(kernel_index_, name_id);
        sink->OnKernelName(name_id, kernel_->name);
      } else {
        name_id = it->second;
      }
    }
    protocol::Record begin{};
    begin.header.op = static_cast<uint8_t>(protocol::Op::kKernelBegin);
    begin.header.site_id = protocol::kNoSite;
    protocol::KernelPayload& k = begin.kernel;
    k.grid[0] = config_.grid.x, k.grid[1] = config_.grid.y, k.grid[2] = config_.grid.z;
    k.block[0] = config_.block.x, k.block[1] = config_.block.y, k.block[2] = config_.block.z;
    k.static_shared_bytes = kernel_->static_shared_bytes;
    k.dynamic_shared_bytes = config_.dynamic_shared_bytes;
    k.launch_id = launch_id_;
    k.stream_id = config_.stream_id;
    k.name_id = name_id;
    k.process_id = static_cast<uint32_t>(getpid());
    k.cluster[0] = cluster_.x, k.cluster[1] = cluster_.y, k.cluster[2] = cluster_.z;
    // This launch's stamps follow the last one handed out (the daemon's
    // streaming analysis starts its stamp order there).
    begin.stamp = device_.stamps_.load(std::memory_order_acquire);
    sink->OnLaunchBegin(begin, rings);
  }
  if (deterministic_) {
    RunRounds(sink);
  } else {
    RunFreeWorkers(sink);
  }
  if (sink != nullptr) {
    protocol::Record end{};
    end.header.op = static_cast<uint8_t>(protocol::Op::kKernelEnd);
    end.header.site_id = protocol::kNoSite;
    end.kernel.launch_id = launch_id_;
    sink->OnLaunchEnd(end);
  }
  std::lock_guard<std::mutex> lock(error_mu_);
  return error_;
}

// Workers take blocks from one atomic counter and run them as they come: fast,
// and deterministic only with one worker (ScheduleOptions::deterministic off).
void LaunchRunner::RunFreeWorkers(RecordSink* sink) {
  std::vector<Worker> workers(num_workers_);
  for (uint32_t i = 0; i < num_workers_; ++i) {
    workers[i].index = i;
    workers[i].next_coop = i;
    workers[i].policy = MakeSchedulePolicy(device_.schedule(), i);
    if (sink != nullptr) workers[i].tracer = std::make_unique<Tracer>(sink, i, &device_.stamps_);
  }
  std::vector<std::thread> threads;
  for (uint32_t i = 1; i < num_workers_; ++i) threads.emplace_back([this, &workers, i] { RunWorker(workers[i]); });
  RunWorker(workers[0]);
  for (auto& t : threads) t.join();
  for (const Worker& w : workers) {
    device_.warp_instructions_.fetch_add(w.warp_instructions, std::memory_order_relaxed);
    device_.thread_instructions_.fetch_add(w.thread_instructions, std::memory_order_relaxed);
  }
}

uint32_t InstallFunctionForTesting(Device& device, std::unique_ptr<Function> fn) {
  return LaunchRunner::Install(device, std::move(fn));
}

absl::Status Device::Launch(uint32_t kernel, const LaunchConfig& config, void* const* args) {
  LaunchRunner runner(*this, kernel, config, Dim3{}, args);
  return runner.Run();
}

absl::Status Device::LaunchCluster(uint32_t kernel, const LaunchConfig& config, Dim3 cluster, void* const* args) {
  LaunchRunner runner(*this, kernel, config, cluster, args);
  return runner.Run();
}

}  // namespace barracuda::emu
