#include "host_detector/reference/reference_detector.h"

#include <algorithm>
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

// SEMANTICS.md: scope kNone is kGpu for kAtomic (atom/red default) and kCta
// for kAcquire / kRelease / kAcqRel / kFence (older producers).
Scope EffectiveScope(Op op, Scope scope) {
  if (scope != Scope::kNone) return scope;
  return op == Op::kAtomic ? Scope::kGpu : Scope::kCta;
}

Scope MinScope(Scope a, Scope b) { return static_cast<uint8_t>(a) < static_cast<uint8_t>(b) ? a : b; }

// A strong record's read and write halves. Neither flag: an old producer's
// atom (read-modify-write).
struct Halves {
  bool loads;
  bool stores;
};
Halves HalvesOf(const Record& r) {
  const bool loads = (r.header.flags & protocol::kFlagLoad) != 0;
  const bool stores = (r.header.flags & protocol::kFlagStore) != 0;
  if (!loads && !stores) return Halves{true, true};
  return Halves{loads, stores};
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

const char* RaceKindName(RaceKind kind) {
  switch (kind) {
    case RaceKind::kRaw: return "RAW";
    case RaceKind::kWar: return "WAR";
    case RaceKind::kWaw: return "WAW";
    case RaceKind::kAtomicVsPlain: return "AtomicVsPlain";
    case RaceKind::kNotMorallyStrong: return "NotMorallyStrong";
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

size_t ReferenceDetector::ReleaseEntryCount(Space space, uint64_t address) const {
  auto it = sync_.find(SyncKey{static_cast<uint8_t>(space), address});
  return it == sync_.end() ? 0 : it->second.size();
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
    case Op::kRead: case Op::kWrite: WeakAccess(r); break;
    case Op::kAtomic: case Op::kAcquire: case Op::kRelease: case Op::kAcqRel: StrongAccess(r); break;
    case Op::kFence:
      // fence.proxy.async orders proxies, not memory: the reference knows one
      // proxy only (README "Not modelled"), so it is an ordinary instruction.
      if ((r.header.flags & protocol::kFlagAsyncProxy) == 0) Fence(r);
      break;
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
    case Op::kAsyncWait:
      for (uint32_t lane = 0; lane < protocol::kWarpSize; ++lane) {
        if (!(r.header.active_mask >> lane & 1)) continue;
        const uint32_t t = ThreadOf(r.header.warp_id, lane);
        const uint32_t seen = static_cast<uint32_t>(std::min<uint64_t>(r.addr[lane], async_records_[t]));
        if (seen > clocks_[t].Get(CopiesOf(t))) clocks_[t].Set(CopiesOf(t), seen);
      }
      break;
    case Op::kGridDepWait:  // orders nothing within the launch (stream-order check only)
    case Op::kCount: break;
  }
  // ENDINSN (paper Fig. 2): every warp-level memory instruction joins and
  // forks its lanes; SEMANTICS.md: fences too.
  if (lockstep && launch_ && (protocol::IsMemoryOp(op) || op == Op::kFence)) {
    JoinAndFork(r.header.warp_id, r.header.active_mask);
  }
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
  // Clocks range over the threads and their asynchronous copies (thread
  // threads + t: the copies of t, whose clock counts t's kFlagAsync records;
  // host_detector/detector/SEMANTICS.md "Asynchronous copies").
  clocks_.assign(threads, VectorClock(2 * size_t{threads}));
  async_records_.assign(threads, 0);
  for (uint32_t t = 0; t < threads; ++t) clocks_[t].Increment(t);
  warps_.assign(launch.blocks * launch.warps_per_block, WarpState{});
  for (uint32_t w = 0; w < warps_.size(); ++w) {
    const uint32_t mask = LanesOfWarp(launch.threads_per_block, w % launch.warps_per_block);
    warps_[w].live = mask;
    warps_[w].stack = {mask};
  }
  generations_.clear();
  sync_.clear();
  pending_release_.assign(threads, std::nullopt);
  pending_acquire_.assign(threads, {});
  history_[0].clear();
  history_[1].clear();
}

void ReferenceDetector::EndLaunch() {
  dropped_generations_ += generations_.size();
  launch_.reset();
  clocks_.clear();
  async_records_.clear();
  warps_.clear();
  generations_.clear();
  sync_.clear();
  pending_release_.clear();
  pending_acquire_.clear();
  history_[0].clear();
  history_[1].clear();
}

void ReferenceDetector::JoinAndFork(uint32_t warp_id, uint32_t mask) {
  // Exited lanes are not "active at the time" (paper §3.2): they take no part.
  mask &= warps_[warp_id].live;
  if (mask == 0) return;
  VectorClock vc(2 * clocks_.size());
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

bool ReferenceDetector::InScope(uint32_t u, uint32_t t, Scope s) const {
  if (s == Scope::kGpu || s == Scope::kSys) return true;
  // cta, and cluster: the reference has no clusters, a cluster is one block.
  return u / launch_->threads_per_block == t / launch_->threads_per_block;
}

bool ReferenceDetector::Covers(uint32_t acquirer, Scope acquire_scope, const ReleaseEntry& e) const {
  return InScope(acquirer, e.releaser, e.scope) && InScope(e.releaser, acquirer, acquire_scope);
}

void ReferenceDetector::CheckAndRecord(const Record& r, uint32_t lane, const HistoryEntry& access) {
  CheckAndRecord(r, lane, access, clocks_[access.thread]);
}

bool ReferenceDetector::MorallyStrong(const HistoryEntry& x, const HistoryEntry& y) const {
  return x.strong && y.strong && x.size == y.size && x.address == y.address && InScope(y.thread, x.thread, x.scope) &&
         InScope(x.thread, y.thread, y.scope);
}

void ReferenceDetector::Observe(std::vector<HistoryEntry>& past, const HistoryEntry& access) const {
  // Reads observe the latest write in processing order (SEMANTICS.md).
  const HistoryEntry* later = &access;  // what reads the write found next
  for (size_t i = past.size(); i-- > 0;) {
    HistoryEntry& w = past[i];
    if (!w.writes) continue;
    if (!w.strong || !MorallyStrong(w, *later)) return;
    w.observers.emplace_back(access.thread, access.clock);
    if (!w.reads) return;  // a store: what it overwrote is observed no further
    later = &w;
  }
}

void ReferenceDetector::CheckAndRecord(const Record& r, uint32_t lane, const HistoryEntry& access,
                                       const VectorClock& now) {
  const Space space = protocol::SpaceOf(r.header);
  auto& space_history = history_[static_cast<int>(space)];
  for (uint32_t i = 0; i < access.size; ++i) {
    const uint64_t address = access.address + i;
    std::vector<HistoryEntry>& past = space_history[address];
    for (const HistoryEntry& e : past) {
      if (!e.writes && !access.writes) continue;  // two reads never conflict
      // Same-value filter (paper §3.3.1): lanes of one store record that wrote equal values.
      if (e.ref.record_index == access.ref.record_index && e.same_value && access.same_value) continue;
      if (e.clock <= now.Get(e.thread)) continue;  // e happens-before this access
      if (MorallyStrong(e, access)) continue;
      // PTX causality order, clause 2: a strong write of the byte's chain that
      // a strong read observed is ordered before what that read happens before.
      if (options_.observation_order && std::any_of(e.observers.begin(), e.observers.end(), [&](const auto& z) {
            return z.second <= now.Get(z.first);
          })) {
        continue;
      }
      RaceKind kind;
      if (e.strong && access.strong) {
        kind = RaceKind::kNotMorallyStrong;
      } else if (e.strong || access.strong) {
        kind = RaceKind::kAtomicVsPlain;
      } else {
        kind = e.writes && access.writes ? RaceKind::kWaw : e.writes ? RaceKind::kRaw : RaceKind::kWar;
      }
      const ByteLocation loc{launch_->ordinal, space, address};
      racy_.push_back(RacyAccess{loc, access.ref, access.kind, e.ref, e.kind, kind});
      first_racy_.emplace(loc, access.ref);
      break;
    }
    if (access.strong && access.reads) Observe(past, access);
    past.push_back(access);
  }
  (void)lane;
}

void ReferenceDetector::WeakAccess(const Record& r) {
  const bool writes = protocol::OpOf(r.header) == Op::kWrite;
  for (uint32_t lane = 0; lane < protocol::kWarpSize; ++lane) {
    if (!(r.header.active_mask >> lane & 1)) continue;
    HistoryEntry access;
    const uint32_t t = ThreadOf(r.header.warp_id, lane);
    access.thread = t;
    access.clock = clocks_[t].Get(t);
    access.kind = writes ? AccessKind::kWrite : AccessKind::kRead;
    access.ref = AccessRef{next_index_, lane};
    access.same_value = (r.header.flags & protocol::kFlagSameValue) != 0;
    access.writes = writes;
    access.size = r.header.access_size;
    access.address = r.addr[lane];
    if ((r.header.flags & protocol::kFlagAsync) != 0) {
      // The copy's access: checked with what t knows at issue, recorded as
      // the copies' thread at its next clock.
      access.thread = CopiesOf(t);
      access.clock = ++async_records_[t];
      CheckAndRecord(r, lane, access, clocks_[t]);
      continue;
    }
    CheckAndRecord(r, lane, access);
  }
}

void ReferenceDetector::Publish(uint32_t t, const SyncKey& key, Scope scope, const VectorClock& clock, bool store) {
  std::vector<ReleaseEntry>& entries = sync_[key];
  // A store starts a new release sequence; a read-modify-write continues it.
  if (store) entries.clear();
  entries.push_back(ReleaseEntry{t, scope, clock});
}

void ReferenceDetector::StrongAccess(const Record& r) {
  const Op op = protocol::OpOf(r.header);
  const Scope scope = EffectiveScope(op, protocol::ScopeOf(r.header));
  const Halves halves = HalvesOf(r);
  const bool store_only = halves.stores && !halves.loads;
  const Space space = protocol::SpaceOf(r.header);
  for (uint32_t lane = 0; lane < protocol::kWarpSize; ++lane) {
    if (!(r.header.active_mask >> lane & 1)) continue;
    const uint32_t t = ThreadOf(r.header.warp_id, lane);
    const SyncKey key{static_cast<uint8_t>(space), r.addr[lane]};
    VectorClock& c = clocks_[t];
    // Acquire half: kAcquire / kAcqRel join now. The read of any other strong
    // access (kAtomic, the read of a kRelease RMW) only observes: an acquire
    // fence decides later what counts. (What a kAcquire could observe, it has
    // joined already: a later fence's min(read scope, fence scope) is no wider.)
    if (halves.loads) {
      if (auto it = sync_.find(key); it != sync_.end()) {
        for (const ReleaseEntry& e : it->second) {
          if (op == Op::kAcquire || op == Op::kAcqRel) {
            if (Covers(t, scope, e)) c.JoinWith(e.clock);
          } else {
            pending_acquire_[t].push_back(Observed{e, scope});
          }
        }
      }
    }
    // The access itself: race-checked like any strong access, except the
    // synthetic cluster-barrier locations.
    if (!(space == Space::kShared && protocol::IsClusterBarrierAddress(r.addr[lane]))) {
      HistoryEntry access;
      access.thread = t;
      access.clock = c.Get(t);
      access.kind = halves.stores ? AccessKind::kAtomic : AccessKind::kAtomicLoad;
      access.ref = AccessRef{next_index_, lane};
      access.same_value = (r.header.flags & protocol::kFlagSameValue) != 0;
      access.strong = true;
      access.writes = halves.stores;
      access.reads = halves.loads;
      access.size = r.header.access_size;
      access.address = r.addr[lane];
      access.scope = scope;
      CheckAndRecord(r, lane, access);
    }
    // A read-modify-write continues only the release sequences of releasers
    // its scope includes (observation order needs morally strong links): the
    // others end here. And a later reader observes through it only from
    // within its scope: what it continues narrows to that scope.
    if (halves.loads && halves.stores) {
      if (auto it = sync_.find(key); it != sync_.end()) {
        std::erase_if(it->second, [&](const ReleaseEntry& e) { return !InScope(e.releaser, t, scope); });
        for (ReleaseEntry& e : it->second) e.scope = MinScope(e.scope, scope);
      }
    }
    // Release half. kRelease / kAcqRel publish C_t (which covers any pending
    // release at a scope no narrower); the write of any other strong access
    // (kAtomic, the write of a kAcquire RMW) publishes the pending release.
    if (op == Op::kRelease || op == Op::kAcqRel) {
      if ((r.header.flags & protocol::kFlagAsync) != 0 && async_records_[t] != 0) {
        // Triggered by t's copies: releases them too.
        VectorClock with_copies = c;
        with_copies.Set(CopiesOf(t), std::max(with_copies.Get(CopiesOf(t)), async_records_[t]));
        Publish(t, key, scope, with_copies, op == Op::kRelease && store_only);
      } else {
        Publish(t, key, scope, c, op == Op::kRelease && store_only);
      }
      c.Increment(t);
    } else if (halves.stores) {
      if (const auto& p = pending_release_[t]; p.has_value()) {
        Publish(t, key, MinScope(scope, p->scope), p->clock, store_only);
      } else if (store_only) {
        sync_[key].clear();  // a store breaks every release sequence
      }
    }
  }
}

void ReferenceDetector::Fence(const Record& r) {
  const Scope scope = EffectiveScope(Op::kFence, protocol::ScopeOf(r.header));
  const bool loads = (r.header.flags & protocol::kFlagLoad) != 0;
  const bool stores = (r.header.flags & protocol::kFlagStore) != 0;
  const bool acquire_side = loads || !stores;  // fence.acquire, or both sides
  const bool release_side = stores || !loads;  // fence.release, or both sides
  for (uint32_t lane = 0; lane < protocol::kWarpSize; ++lane) {
    if (!(r.header.active_mask >> lane & 1)) continue;
    const uint32_t t = ThreadOf(r.header.warp_id, lane);
    if (acquire_side) {
      std::vector<Observed> kept;
      for (Observed& o : pending_acquire_[t]) {
        if (Covers(t, MinScope(o.read_scope, scope), o.entry)) {
          clocks_[t].JoinWith(o.entry.clock);
        } else {
          kept.push_back(std::move(o));
        }
      }
      pending_acquire_[t] = std::move(kept);
    }
    if (release_side) {
      pending_release_[t] = PendingRelease{clocks_[t], scope};
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
  VectorClock vc(2 * clocks_.size());
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
