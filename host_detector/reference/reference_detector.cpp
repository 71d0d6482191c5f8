#include "host_detector/reference/reference_detector.h"

#include <bit>
#include <string>

#include "absl/strings/str_cat.h"

namespace barracuda::reference {

namespace {

using protocol::Op;
using protocol::Record;
using protocol::Scope;
using protocol::Space;

// Keeps the reference cheap enough to be obviously bounded: a launch of more
// threads than this is refused (it is a test oracle, not a production path).
constexpr uint64_t kMaxThreads = 1u << 16;

uint32_t LanesOfWarp(uint32_t threads_per_block, uint32_t warp_in_block) {
  const uint32_t first = warp_in_block * protocol::kWarpSize;
  const uint32_t n = std::min(protocol::kWarpSize, threads_per_block - first);
  return n == 32 ? 0xffffffffu : ((1u << n) - 1);
}

}  // namespace

const char* WarpModelName(WarpModel model) {
  return model == WarpModel::kLockstep ? "lockstep" : "its";
}

const char* AccessKindName(AccessKind kind) {
  switch (kind) {
    case AccessKind::kRead: return "read";
    case AccessKind::kWrite: return "write";
    case AccessKind::kAtomic: return "atomic";
    case AccessKind::kAtomicLoad: return "atomic load";
  }
  return "?";
}

ReferenceDetector::ReferenceDetector(Options options) : options_(options) {}

uint32_t ReferenceDetector::ThreadCount() const {
  return launch_ ? launch_->blocks * launch_->threads_per_block : 0;
}

uint32_t ReferenceDetector::ThreadOf(uint32_t warp_id, uint32_t lane) const {
  const uint32_t block = BlockOfWarp(warp_id);
  const uint32_t warp_in_block = warp_id % launch_->warps_per_block;
  return block * launch_->threads_per_block + warp_in_block * protocol::kWarpSize + lane;
}

uint32_t ReferenceDetector::LiveThreadsOfBlock(uint32_t block) const {
  uint32_t n = 0;
  for (uint32_t w = 0; w < launch_->warps_per_block; ++w) {
    n += std::popcount(warps_[block * launch_->warps_per_block + w].live);
  }
  return n;
}

absl::Status ReferenceDetector::ProcessAll(std::span<const Record> records) {
  for (const Record& r : records) {
    if (absl::Status s = Process(r); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ReferenceDetector::Validate(const Record& r) const {
  const Op op = protocol::OpOf(r.header);
  if (static_cast<uint8_t>(op) >= static_cast<uint8_t>(Op::kCount)) {
    return absl::InvalidArgumentError(absl::StrCat("unknown op ", r.header.op));
  }
  if (op == Op::kKernelBegin) {
    if (launch_) return absl::InvalidArgumentError("kKernelBegin inside a launch");
    const auto& k = r.kernel;
    const uint64_t blocks = uint64_t{k.grid[0]} * k.grid[1] * k.grid[2];
    const uint64_t tpb = uint64_t{k.block[0]} * k.block[1] * k.block[2];
    if (blocks == 0 || tpb == 0 || tpb > 1024 || blocks * tpb > kMaxThreads) {
      return absl::InvalidArgumentError("kKernelBegin: empty or oversized launch shape");
    }
    return absl::OkStatus();
  }
  if (!launch_) return absl::InvalidArgumentError("record outside a launch");
  if (op == Op::kKernelEnd) return absl::OkStatus();
  if (r.header.warp_id >= warps_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("warp id ", r.header.warp_id, " out of range"));
  }
  const WarpState& warp = warps_[r.header.warp_id];
  const uint32_t mask = r.header.active_mask;
  // Control records name the lanes through the stack; every other record's
  // active lanes must be live (a dead lane executes nothing).
  if (op != Op::kElse && op != Op::kFi && (mask & ~warp.live) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("active mask ", mask, " has lanes that are not live (live ", warp.live, ")"));
  }
  switch (op) {
    case Op::kRead: case Op::kWrite: case Op::kAtomic:
    case Op::kAcquire: case Op::kRelease: case Op::kAcqRel: {
      const uint32_t size = r.header.access_size;
      if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16) {
        return absl::InvalidArgumentError(absl::StrCat("bad access size ", size));
      }
      if (protocol::SpaceOf(r.header) == Space::kShared) {
        for (uint32_t lane = 0; lane < protocol::kWarpSize; ++lane) {
          if ((mask >> lane & 1) && protocol::SharedBlock(r.addr[lane]) >= launch_->blocks) {
            return absl::InvalidArgumentError("shared address names a block outside the grid");
          }
        }
      } else if (protocol::SpaceOf(r.header) != Space::kGlobal) {
        return absl::InvalidArgumentError("bad memory space");
      }
      break;
    }
    case Op::kIf:
      if ((r.branch.then_mask & ~mask) != 0) {
        return absl::InvalidArgumentError("kIf: then_mask is not inside the active mask");
      }
      break;
    case Op::kElse: case Op::kFi:
      if (warp.stack.size() < 2) {
        return absl::InvalidArgumentError("kElse/kFi without an open kIf");
      }
      break;
    case Op::kBarrier: case Op::kBarrierArrive:
      if (r.barrier.barrier_id >= 16) return absl::InvalidArgumentError("barrier id >= 16");
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

absl::Status ReferenceDetector::Process(const Record& r) {
  if (absl::Status s = Validate(r); !s.ok()) {
    ++next_index_;
    return absl::Status(s.code(), absl::StrCat("record ", next_index_ - 1, ": ", s.message()));
  }
  const Op op = protocol::OpOf(r.header);
  const bool lockstep = options_.warp_model == WarpModel::kLockstep;
  switch (op) {
    case Op::kKernelBegin: BeginLaunch(r); break;
    case Op::kKernelEnd: EndLaunch(); break;
    case Op::kRead: MemoryAccess(r, AccessKind::kRead); break;
    case Op::kWrite: MemoryAccess(r, AccessKind::kWrite); break;
    case Op::kAtomic:
      MemoryAccess(r, (r.header.flags & protocol::kFlagStore) == 0 && (r.header.flags & protocol::kFlagLoad) != 0
                          ? AccessKind::kAtomicLoad : AccessKind::kAtomic);
      break;
    case Op::kAcquire: case Op::kRelease: case Op::kAcqRel: SyncAccess(r); break;
    case Op::kFence: break;  // an unbundled fence orders nothing by itself
    case Op::kBarrier: case Op::kBarrierArrive: Arrive(r); break;
    case Op::kIf: {
      WarpState& warp = warps_[r.header.warp_id];
      const uint32_t then_mask = r.branch.then_mask;
      warp.stack.push_back(r.header.active_mask & ~then_mask);
      warp.stack.push_back(then_mask);
      if (lockstep) JoinAndFork(r.header.warp_id, then_mask);  // IF
      break;
    }
    case Op::kElse: case Op::kFi: {
      WarpState& warp = warps_[r.header.warp_id];
      warp.stack.pop_back();
      if (lockstep) JoinAndFork(r.header.warp_id, warp.stack.back());  // ELSEENDIF
      break;
    }
    case Op::kWarpSync: JoinAndFork(r.header.warp_id, r.header.active_mask); break;
    case Op::kExit: {
      WarpState& warp = warps_[r.header.warp_id];
      warp.live &= ~r.header.active_mask;
      // Fewer live threads can complete a whole-block barrier the others wait at.
      const uint32_t block = BlockOfWarp(r.header.warp_id);
      std::vector<uint32_t> ids;
      for (const auto& [key, gen] : generations_) {
        if (key.first == block && gen.thread_count == 0) ids.push_back(key.second);
      }
      for (uint32_t id : ids) MaybeCompleteGeneration(block, id);
      break;
    }
    case Op::kCount: break;
  }
  // ENDINSN (paper Fig. 2): every warp-level memory instruction joins and forks its lanes.
  if (lockstep && launch_ && protocol::IsMemoryOp(op)) JoinAndFork(r.header.warp_id, r.header.active_mask);
  ++next_index_;
  return absl::OkStatus();
}

void ReferenceDetector::BeginLaunch(const Record& r) {
  const auto& k = r.kernel;
  Launch launch;
  launch.ordinal = launches_seen_++;
  launch.blocks = k.grid[0] * k.grid[1] * k.grid[2];
  launch.threads_per_block = k.block[0] * k.block[1] * k.block[2];
  launch.warps_per_block = protocol::WarpsPerBlock(launch.threads_per_block);
  launch_ = launch;
  const uint32_t threads = launch.blocks * launch.threads_per_block;
  // Initial state σ0: C_t = inc_t(⊥), K_w = [initActive].
  clocks_.assign(threads, VectorClock(threads));
  for (uint32_t t = 0; t < threads; ++t) clocks_[t].Increment(t);
  warps_.assign(launch.blocks * launch.warps_per_block, WarpState{});
  for (uint32_t w = 0; w < warps_.size(); ++w) {
    const uint32_t mask = LanesOfWarp(launch.threads_per_block, w % launch.warps_per_block);
    warps_[w].live = mask;
    warps_[w].stack = {mask};
  }
  generations_.clear();
  sync_.clear();
  history_[0].clear();
  history_[1].clear();
}

void ReferenceDetector::EndLaunch() {
  dropped_generations_ += generations_.size();
  launch_.reset();
  clocks_.clear();
  warps_.clear();
  generations_.clear();
  sync_.clear();
  history_[0].clear();
  history_[1].clear();
}

void ReferenceDetector::JoinAndFork(uint32_t warp_id, uint32_t mask) {
  // Exited lanes are not "active at the time" (paper §3.2): they take no part.
  mask &= warps_[warp_id].live;
  if (mask == 0) return;
  VectorClock vc(clocks_.size());
  for (uint32_t lane = 0; lane < protocol::kWarpSize; ++lane) {
    if (mask >> lane & 1) vc.JoinWith(clocks_[ThreadOf(warp_id, lane)]);
  }
  for (uint32_t lane = 0; lane < protocol::kWarpSize; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const uint32_t t = ThreadOf(warp_id, lane);
    clocks_[t] = vc;
    clocks_[t].Increment(t);
  }
}

void ReferenceDetector::MemoryAccess(const Record& r, AccessKind kind) {
  const uint64_t index = next_index_;
  const Space space = protocol::SpaceOf(r.header);
  const bool same_value = (r.header.flags & protocol::kFlagSameValue) != 0;
  auto& space_history = history_[static_cast<int>(space)];
  for (uint32_t lane = 0; lane < protocol::kWarpSize; ++lane) {
    if (!(r.header.active_mask >> lane & 1)) continue;
    const uint32_t t = ThreadOf(r.header.warp_id, lane);
    const VectorClock& now = clocks_[t];
    const HistoryEntry entry{t, now.Get(t), kind, AccessRef{index, lane}, same_value};
    for (uint32_t i = 0; i < r.header.access_size; ++i) {
      const uint64_t address = r.addr[lane] + i;
      std::vector<HistoryEntry>& past = space_history[address];
      for (const HistoryEntry& e : past) {
        // Two accesses conflict when one writes and not both are atomic.
        auto writes = [](AccessKind k) { return k == AccessKind::kWrite || k == AccessKind::kAtomic; };
        auto atomic = [](AccessKind k) { return k == AccessKind::kAtomic || k == AccessKind::kAtomicLoad; };
        const bool conflict = (writes(e.kind) || writes(kind)) && !(atomic(e.kind) && atomic(kind));
        if (!conflict) continue;
        // Same-value filter (paper §3.3.1): lanes of one store record that wrote equal values.
        if (e.ref.record_index == index && same_value && e.same_value) continue;
        if (e.clock <= now.Get(e.thread)) continue;  // e happens-before this access
        const ByteLocation loc{launch_->ordinal, space, address};
        racy_.push_back(RacyAccess{loc, entry.ref, kind, e.ref, e.kind});
        first_racy_.emplace(loc, entry.ref);
        break;
      }
      past.push_back(entry);
    }
  }
}

std::vector<uint32_t> ReferenceDetector::ScopeBlocks(Scope scope, uint32_t block) const {
  // Clusters are one block in this version (no cluster shape in kKernelBegin
  // yet), so cluster scope is block scope; kNone is treated as the weakest.
  if (scope == Scope::kGpu || scope == Scope::kSys) {
    std::vector<uint32_t> all(launch_->blocks);
    for (uint32_t b = 0; b < launch_->blocks; ++b) all[b] = b;
    return all;
  }
  return {block};
}

void ReferenceDetector::SyncAccess(const Record& r) {
  const Op op = protocol::OpOf(r.header);
  const bool loads = (r.header.flags & protocol::kFlagLoad) != 0;
  const bool stores = (r.header.flags & protocol::kFlagStore) != 0;
  const bool acquires = op == Op::kAcquire || op == Op::kAcqRel;
  const bool releases = op == Op::kRelease || op == Op::kAcqRel;
  // A plain store release overwrites S_x; a read-modify-write extends the release sequence.
  const bool overwrite = op == Op::kRelease && stores && !loads;
  const uint32_t block = BlockOfWarp(r.header.warp_id);
  const std::vector<uint32_t> blocks = ScopeBlocks(protocol::ScopeOf(r.header), block);
  for (uint32_t lane = 0; lane < protocol::kWarpSize; ++lane) {
    if (!(r.header.active_mask >> lane & 1)) continue;
    const uint32_t t = ThreadOf(r.header.warp_id, lane);
    auto& s = sync_[SyncKey{static_cast<uint8_t>(protocol::SpaceOf(r.header)), r.addr[lane]}];
    if (acquires) {
      for (uint32_t b : blocks) {
        if (auto it = s.find(b); it != s.end()) clocks_[t].JoinWith(it->second);
      }
    }
    if (releases) {
      for (uint32_t b : blocks) {
        auto [it, inserted] = s.try_emplace(b, clocks_[t]);
        if (!inserted) {
          if (overwrite) {
            it->second = clocks_[t];
          } else {
            it->second.JoinWith(clocks_[t]);
          }
        }
      }
      clocks_[t].Increment(t);
    }
  }
}

void ReferenceDetector::Arrive(const Record& r) {
  const uint32_t warp_id = r.header.warp_id;
  const uint32_t block = BlockOfWarp(warp_id);
  const bool waits = protocol::OpOf(r.header) == Op::kBarrier;
  if (waits && r.barrier.thread_count == 0 && r.header.active_mask != warps_[warp_id].live) {
    divergences_.push_back(BarrierDivergence{next_index_, r.header.site_id, warp_id,
                                             r.header.active_mask, warps_[warp_id].live});
  }
  Generation& gen = generations_[{block, r.barrier.barrier_id}];
  for (uint32_t lane = 0; lane < protocol::kWarpSize; ++lane) {
    if (!(r.header.active_mask >> lane & 1)) continue;
    const uint32_t t = ThreadOf(warp_id, lane);
    Arrival arrival{t, waits, VectorClock()};
    if (!waits && options_.arrive == ArriveSemantics::kSnapshotAtArrival) {
      arrival.snapshot = clocks_[t];
      clocks_[t].Increment(t);
    }
    gen.arrivals.push_back(std::move(arrival));
  }
  gen.thread_count = r.barrier.thread_count;
  MaybeCompleteGeneration(block, r.barrier.barrier_id);
}

void ReferenceDetector::MaybeCompleteGeneration(uint32_t block, uint32_t barrier_id) {
  auto it = generations_.find({block, barrier_id});
  if (it == generations_.end() || it->second.arrivals.empty()) return;
  Generation& gen = it->second;
  const uint32_t expected = gen.thread_count != 0 ? gen.thread_count : LiveThreadsOfBlock(block);
  if (gen.arrivals.size() < expected) return;
  // BAR (paper Fig. 3), generalised to the threads that arrived.
  const bool snapshot = options_.arrive == ArriveSemantics::kSnapshotAtArrival;
  VectorClock vc(clocks_.size());
  for (const Arrival& a : gen.arrivals) {
    vc.JoinWith(!a.waits && snapshot ? a.snapshot : clocks_[a.thread]);
  }
  for (const Arrival& a : gen.arrivals) {
    if (a.waits) {
      clocks_[a.thread] = vc;
      clocks_[a.thread].Increment(a.thread);
    } else if (!snapshot) {
      clocks_[a.thread].Increment(a.thread);
    }
  }
  generations_.erase(it);
}

}  // namespace barracuda::reference
