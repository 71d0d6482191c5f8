#include "host_detector/reference/trace_generator.h"

#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <stdexcept>
#include <utility>

namespace barracuda::reference {

namespace {

using protocol::Op;
using protocol::Record;
using protocol::Scope;
using protocol::Space;

// splitmix64: tiny, good enough, and the same sequence on every standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed ^ 0x5851F42D4C957F2Dull) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t Below(uint32_t n) { return n == 0 ? 0 : static_cast<uint32_t>(Next() % n); }
  bool Percent(uint32_t p) { return Below(100) < p; }
  // A subset of `mask` with a spread of shapes: empty, all, one lane, a prefix, random.
  uint32_t Subset(uint32_t mask) {
    switch (Below(6)) {
      case 0: return 0;
      case 1: return mask;
      case 2: {
        const uint32_t n = std::popcount(mask);
        uint32_t pick = Below(n), m = mask;
        while (pick--) m &= m - 1;
        return m & -m;
      }
      case 3: return mask & ((1u << Below(32)) - 1);
      default: return mask & static_cast<uint32_t>(Next());
    }
  }
  // A subset that is neither empty nor all of `mask` (popcount(mask) >= 2).
  uint32_t ProperSubset(uint32_t mask) {
    for (;;) {
      const uint32_t s = mask & static_cast<uint32_t>(Next());
      if (s != 0 && s != mask) return s;
    }
  }

 private:
  uint64_t state_;
};

// Address pools. Data and flags are disjoint except for a rare deliberate
// overlap (a plain access to a flag location: sync accesses must not touch R/W).
constexpr uint64_t kGlobalData = 0x10000;
constexpr uint32_t kSharedData = 0;
constexpr uint64_t kGlobalFlag = 0x80000;
constexpr uint32_t kSharedFlag = 0x4000;
constexpr uint32_t kFlags = 3;
constexpr uint32_t kFlagSize = 4;
// Message-passing data: slots of 0x100 bytes past the pools (data pools are at
// most 4096 bytes, shared flags are at 0x4000).
constexpr uint64_t kGlobalMessage = kGlobalData + 0x8000;
constexpr uint32_t kSharedMessage = 0x2000;
constexpr uint32_t kMessageSlots = 8;

constexpr Scope kScopes[] = {Scope::kCta, Scope::kCluster, Scope::kGpu, Scope::kSys};
// kAtomic scopes: kNone reads as gpu (the atom/red default).
constexpr Scope kAtomicScopes[] = {Scope::kNone, Scope::kCta, Scope::kGpu, Scope::kSys};

struct Item {
  Record rec{};
  uint32_t involved = 0;  // lanes that must not be blocked
  int episode = -1;       // barrier arrival: index into episodes
  int wait_for = -1;      // acquire: uid of the release it reads from (soft)
  int uid = -1;
};

struct WarpGen {
  uint32_t warp_id = 0;
  uint32_t block = 0;
  uint32_t first_thread = 0;  // grid-linear id of lane 0
  uint32_t live = 0;
  std::vector<DivergenceFrame> frames;
  std::vector<Item> program;
  // Per lane: kFlagAsync records issued, and the count a wait last named.
  std::array<uint32_t, 32> async_issued{};
  std::array<uint32_t, 32> async_observed{};
};

struct Episode {
  uint32_t block = 0;
  uint32_t barrier_id = 0;
  uint32_t thread_count = 0;      // 0: whole block
  uint32_t expected = 0;          // threads that will arrive
  std::vector<int> pre_exits;     // exits of the block scripted before it
};

struct Release {
  int uid;
  uint8_t space;
  uint64_t address;
  uint32_t warp;
};

class LaunchBuilder {
 public:
  LaunchBuilder(Rng& rng, const GeneratorOptions& options, uint64_t launch_id)
      : rng_(rng), options_(options) {
    const uint32_t blocks = 1 + rng_.Below(std::max(1u, options.max_blocks));
    tpb_ = options.block_sizes.empty()
               ? 32
               : std::clamp(options.block_sizes[rng_.Below(static_cast<uint32_t>(options.block_sizes.size()))], 1u, 1024u);
    wpb_ = protocol::WarpsPerBlock(tpb_);
    blocks_ = blocks;
    begin_ = Record{};
    begin_.header.op = static_cast<uint8_t>(Op::kKernelBegin);
    begin_.header.site_id = protocol::kNoSite;
    auto& k = begin_.kernel;
    k.grid[0] = k.grid[1] = k.grid[2] = 1;
    k.grid[rng_.Below(3)] = blocks;
    k.block[0] = tpb_;
    k.block[1] = k.block[2] = 1;
    if (tpb_ % 16 == 0 && rng_.Percent(30)) {
      k.block[0] = 16;
      k.block[1] = tpb_ / 16;
    }
    k.static_shared_bytes = 0x4000 + (kFlags + kMessageSlots) * 8;
    k.launch_id = launch_id;
    k.name_id = static_cast<uint32_t>(launch_id);
    // Two styles: "chaotic" (small pools, any pattern: races everywhere) and
    // "disciplined" (stencil-like: each thread owns its slot, records read or
    // write a neighbour's, barriers are frequent) so that race-free traces,
    // which exercise the happens-before rules hardest, are common too.
    disciplined_ = rng_.Percent(50);
    pool_ = disciplined_ ? 4096 : std::array<uint32_t, 4>{8, 16, 32, 128}[rng_.Below(4)];
    for (uint32_t b = 0; b < blocks; ++b) {
      for (uint32_t w = 0; w < wpb_; ++w) {
        WarpGen g;
        g.warp_id = b * wpb_ + w;
        g.block = b;
        g.first_thread = b * tpb_ + w * 32;
        const uint32_t lanes = std::min(32u, tpb_ - w * 32);
        g.live = lanes == 32 ? ~0u : (1u << lanes) - 1;
        warps_.push_back(std::move(g));
      }
    }
    block_exits_.resize(blocks);
  }

  void BuildScript() {
    const uint32_t steps =
        options_.min_steps + rng_.Below(std::max(options_.max_steps, options_.min_steps) - options_.min_steps + 1);
    for (uint32_t s = 0; s < steps; ++s) {
      const uint32_t b = rng_.Below(blocks_);
      const uint32_t r = rng_.Below(100);
      if (r < options_.barrier_percent * (disciplined_ ? 4 : 1)) {
        BarrierPoint(b);
      } else if (r < options_.barrier_percent * (disciplined_ ? 4 : 1) + options_.named_barrier_percent) {
        NamedEpisode(b);
      } else if (r < options_.barrier_percent * (disciplined_ ? 4 : 1) + options_.named_barrier_percent +
                         options_.message_passing_percent) {
        MessagePassingStep(b);
      } else {
        std::vector<uint32_t> candidates;
        for (uint32_t w = 0; w < wpb_; ++w) {
          if (warps_[b * wpb_ + w].live != 0) candidates.push_back(b * wpb_ + w);
        }
        if (!candidates.empty()) WarpStep(warps_[candidates[rng_.Below(static_cast<uint32_t>(candidates.size()))]]);
      }
    }
    for (WarpGen& w : warps_) {
      if (w.live == 0) continue;
      CloseAll(w);
      if (rng_.Percent(70)) Exit(w);
    }
  }

  // Picks a producer warp in block b and a consumer warp (same block or not).
  void MessagePassingStep(uint32_t b) {
    std::vector<uint32_t> producers, consumers;
    for (uint32_t w = 0; w < wpb_; ++w) {
      if (warps_[b * wpb_ + w].live != 0) producers.push_back(b * wpb_ + w);
    }
    if (producers.empty()) return;
    const uint32_t p = producers[rng_.Below(static_cast<uint32_t>(producers.size()))];
    const bool same_block = blocks_ == 1 || rng_.Percent(40);
    for (uint32_t w = 0; w < warps_.size(); ++w) {
      if (w != p && warps_[w].live != 0 && (warps_[w].block == b) == same_block) consumers.push_back(w);
    }
    if (consumers.empty()) return;
    MessagePassing(warps_[p], warps_[consumers[rng_.Below(static_cast<uint32_t>(consumers.size()))]]);
  }

  // Interleaves the programs; appends the launch's records to `out`.
  void Schedule(std::vector<Record>& out) {
    out.push_back(begin_);
    std::vector<size_t> pc(warps_.size(), 0);
    std::vector<uint32_t> blocked(warps_.size(), 0);
    std::vector<bool> emitted(next_uid_, false);
    std::vector<uint32_t> arrived(episodes_.size(), 0);
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> waiters(episodes_.size());
    // Per (block, barrier id): the episodes in script order and the next one to run.
    std::map<std::pair<uint32_t, uint32_t>, std::pair<std::vector<int>, size_t>> queues;
    for (int e = 0; e < static_cast<int>(episodes_.size()); ++e) {
      queues[{episodes_[e].block, episodes_[e].barrier_id}].first.push_back(e);
    }
    auto is_current = [&](int e) {
      const auto& q = queues[{episodes_[e].block, episodes_[e].barrier_id}];
      return q.second < q.first.size() && q.first[q.second] == e;
    };
    auto enabled = [&](size_t w, bool honour_waits) {
      if (pc[w] >= warps_[w].program.size()) return false;
      const Item& item = warps_[w].program[pc[w]];
      if (item.involved & blocked[w]) return false;
      if (item.episode >= 0) {
        if (!is_current(item.episode)) return false;
        for (int u : episodes_[item.episode].pre_exits) {
          if (!emitted[u]) return false;
        }
      }
      if (honour_waits && item.wait_for >= 0 && !emitted[item.wait_for]) return false;
      return true;
    };
    for (;;) {
      std::vector<size_t> ready;
      bool all_done = true;
      for (size_t w = 0; w < warps_.size(); ++w) {
        if (pc[w] < warps_[w].program.size()) all_done = false;
        if (enabled(w, true)) ready.push_back(w);
      }
      if (all_done) break;
      if (ready.empty()) {
        // Only soft waits can block every warp: let one acquire read an older value.
        std::vector<size_t> waiting;
        for (size_t w = 0; w < warps_.size(); ++w) {
          if (enabled(w, false)) waiting.push_back(w);
        }
        if (waiting.empty()) throw std::logic_error("trace generator: barrier deadlock in script");
        const size_t w = waiting[rng_.Below(static_cast<uint32_t>(waiting.size()))];
        warps_[w].program[pc[w]].wait_for = -1;
        continue;
      }
      const size_t w = ready[rng_.Below(static_cast<uint32_t>(ready.size()))];
      for (uint32_t burst = 1 + rng_.Below(4); burst > 0 && enabled(w, true); --burst) {
        const Item& item = warps_[w].program[pc[w]++];
        out.push_back(item.rec);
        if (item.uid >= 0) emitted[item.uid] = true;
        if (item.episode < 0) continue;
        const int e = item.episode;
        arrived[e] += std::popcount(item.rec.header.active_mask);
        if (protocol::OpOf(item.rec.header) == Op::kBarrier) {
          blocked[w] |= item.rec.header.active_mask;
          waiters[e].emplace_back(static_cast<uint32_t>(w), item.rec.header.active_mask);
        }
        if (arrived[e] == episodes_[e].expected) {
          for (auto [ww, mask] : waiters[e]) blocked[ww] &= ~mask;
          ++queues[{episodes_[e].block, episodes_[e].barrier_id}].second;
        }
      }
    }
    Record end{};
    end.header.op = static_cast<uint8_t>(Op::kKernelEnd);
    end.header.site_id = protocol::kNoSite;
    out.push_back(end);
  }

 private:
  static uint32_t Active(const WarpGen& w) {
    if (w.frames.empty()) return w.live;
    const DivergenceFrame& f = w.frames.back();
    return (f.in_else ? f.e : f.t) & w.live;
  }

  Record Make(const WarpGen& w, Op op, uint32_t mask) {
    Record r{};
    r.header.op = static_cast<uint8_t>(op);
    r.header.active_mask = mask;
    r.header.warp_id = w.warp_id;
    r.header.site_id = next_site_++;
    return r;
  }

  int Append(WarpGen& w, const Record& r, uint32_t involved, int episode = -1, int wait_for = -1) {
    Item item;
    item.rec = r;
    item.involved = involved;
    item.episode = episode;
    item.wait_for = wait_for;
    item.uid = next_uid_++;
    w.program.push_back(item);
    return item.uid;
  }

  void WarpStep(WarpGen& w) {
    const uint32_t active = Active(w);
    if (active == 0) return Close(w);
    if (rng_.Percent(options_.exit_percent)) return Exit(w);
    const uint32_t r = rng_.Below(100);
    if (r < 45) return Memory(w);
    if (r < 58) return Sync(w);
    if (r < 64) return Append(w, Make(w, Op::kWarpSync, active), active), void();
    if (r < 66) return Fence(w, kFenceFlags[rng_.Below(4)]), void();
    if (r < 69) return AsyncCopy(w);
    if (r < 82 && w.frames.size() < options_.max_branch_depth) return If(w, rng_.Subset(active));
    if (r >= 82 && !w.frames.empty()) return Close(w);
    Memory(w);
  }

  // fence.sc / fence.acq_rel (neither flag or both), fence.acquire, fence.release.
  static constexpr uint8_t kFenceFlags[] = {0, protocol::kFlagLoad | protocol::kFlagStore, protocol::kFlagLoad,
                                            protocol::kFlagStore};

  // Disciplined launches mostly use scopes wide enough for their patterns.
  Scope SyncScope() { return disciplined_ && rng_.Percent(80) ? kScopes[2 + rng_.Below(2)] : kScopes[rng_.Below(4)]; }

  void Fence(WarpGen& w, uint8_t flags, Scope scope = Scope::kNone) {
    const uint32_t active = Active(w);
    Record f = Make(w, Op::kFence, active);
    f.header.space_scope = protocol::PackSpaceScope(Space::kGlobal, scope == Scope::kNone ? SyncScope() : scope);
    f.header.flags = flags;
    Append(w, f, active);
  }

  // Flags and scope of a strong (kAtomic) access: ld.relaxed, st.relaxed,
  // atom (RMW); ld/st.volatile = relaxed at sys scope.
  void MakeStrong(Record& r, uint32_t load_percent, uint32_t store_percent) {
    const uint32_t k = rng_.Below(100);
    r.header.flags = k < load_percent                   ? protocol::kFlagLoad
                     : k < load_percent + store_percent ? protocol::kFlagStore
                                                        : protocol::kFlagLoad | protocol::kFlagStore;
    Scope scope = kAtomicScopes[rng_.Below(4)];
    if (disciplined_ && scope == Scope::kCta && rng_.Percent(80)) scope = Scope::kGpu;
    if (r.header.flags != (protocol::kFlagLoad | protocol::kFlagStore) && rng_.Percent(15)) {
      r.header.flags |= protocol::kFlagVolatile;
      scope = Scope::kSys;
    }
    r.header.space_scope = protocol::PackSpaceScope(protocol::SpaceOf(r.header), scope);
  }

  void If(WarpGen& w, uint32_t then_mask) {
    const uint32_t active = Active(w);
    Record r = Make(w, Op::kIf, active);
    r.branch.then_mask = then_mask;
    Append(w, r, active);
    w.frames.push_back(DivergenceFrame{active, then_mask, active & ~then_mask, false});
  }

  void Close(WarpGen& w) {
    DivergenceFrame& f = w.frames.back();
    if (!f.in_else) {
      f.in_else = true;
      const uint32_t mask = f.e & w.live;
      Append(w, Make(w, Op::kElse, mask), mask);
    } else {
      const uint32_t mask = f.m & w.live;
      w.frames.pop_back();
      Append(w, Make(w, Op::kFi, mask), mask);
    }
  }

  void CloseAll(WarpGen& w) {
    while (!w.frames.empty()) Close(w);
  }

  void Exit(WarpGen& w) {
    const uint32_t active = Active(w);
    // griddepcontrol.wait before some exits: a no-op for the analysis of the
    // launch (chosen without the random stream, which the other shapes use).
    if ((w.block + w.first_thread / 32) % 5 == 0) Append(w, Make(w, Op::kGridDepWait, active), active);
    const int uid = Append(w, Make(w, Op::kExit, active), active);
    block_exits_[w.block].push_back(uid);
    w.live &= ~active;
    if (w.live == 0) w.frames.clear();  // a warp with no live lane logs nothing more
  }

  // cp.async by the active lanes: a read of global data and a write of the
  // block's shared data (kFlagAsync), sometimes each lane's own slot, and
  // often followed by a wait (kAsyncWait) naming all or part of what each
  // lane issued; sometimes an mbarrier arrive-on triggered by the copies
  // (a release RMW with kFlagAsync) instead.
  void AsyncCopy(WarpGen& w) {
    const uint32_t active = Active(w);
    const uint32_t size = 4u << rng_.Below(2);  // cp-size 16 is two 8-byte accesses' worth: the traces keep to 8
    const bool own = rng_.Percent(60);
    const uint32_t base = rng_.Below(pool_) & ~(size - 1);
    Record rd = Make(w, Op::kRead, active), wr = Make(w, Op::kWrite, active);
    rd.header.site_id = wr.header.site_id;  // one instruction
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (!(active >> lane & 1)) continue;
      const uint32_t thread = w.first_thread % tpb_ + lane;
      const uint32_t offset = own ? thread * 16 % pool_ & ~(size - 1) : (base + lane * size) % pool_ & ~(size - 1);
      rd.addr[lane] = kGlobalData + (rng_.Below(pool_) & ~(size - 1));
      wr.addr[lane] = protocol::SharedAddress(w.block, kSharedData + offset);
      w.async_issued[lane] += 2;
    }
    for (Record* r : {&rd, &wr}) {
      r->header.access_size = static_cast<uint8_t>(size);
      r->header.flags = protocol::kFlagAsync;
    }
    rd.header.space_scope = protocol::PackSpaceScope(Space::kGlobal, Scope::kNone);
    wr.header.space_scope = protocol::PackSpaceScope(Space::kShared, Scope::kNone);
    Append(w, rd, active);
    Append(w, wr, active);
    if (!rng_.Percent(70)) return;
    const uint32_t lanes = active;  // a warp instruction: every active lane (partial waits through the counts)
    if (rng_.Percent(15)) {  // cp.async.mbarrier.arrive on a shared flag location
      Record a = Make(w, Op::kRelease, lanes);
      a.header.flags = protocol::kFlagLoad | protocol::kFlagStore | protocol::kFlagAsync;
      a.header.access_size = kFlagSize;
      a.header.space_scope = protocol::PackSpaceScope(Space::kShared, Scope::kCta);
      const uint32_t flag = rng_.Below(kFlags);
      for (uint32_t lane = 0; lane < 32; ++lane)
        if (lanes >> lane & 1) a.addr[lane] = protocol::SharedAddress(w.block, kSharedFlag + 8 * flag);
      Append(w, a, lanes);
      return;
    }
    Record wait = Make(w, Op::kAsyncWait, lanes);
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (!(lanes >> lane & 1)) continue;
      // wait_all, or wait_group N leaving the newest copies in flight.
      const uint32_t from = w.async_observed[lane], to = w.async_issued[lane];
      const uint32_t seen = rng_.Percent(60) ? to : from + rng_.Below(to - from + 1);
      wait.addr[lane] = seen;
      w.async_observed[lane] = std::max(from, seen);
    }
    Append(w, wait, lanes);
  }

  void Memory(WarpGen& w) {
    const uint32_t active = Active(w);
    static constexpr Op kOps[] = {Op::kRead, Op::kRead, Op::kWrite, Op::kWrite, Op::kAtomic};
    const Op op = kOps[rng_.Below(5)];
    Record r = Make(w, op, active);
    const Space space = rng_.Percent(55) ? Space::kGlobal : Space::kShared;
    uint32_t size = op == Op::kAtomic ? (disciplined_ ? 4u : 4u << rng_.Below(2)) : 1u << rng_.Below(4);
    const uint32_t pattern = rng_.Below(100);
    const bool on_flag = rng_.Percent(3);
    if (on_flag) size = kFlagSize;
    const uint32_t base = rng_.Below(pool_) & ~(size - 1);
    // Disciplined: thread t touches slot t + shift (its own, a lane or a warp away).
    static constexpr int32_t kShifts[] = {0, 0, 0, 0, 0, 0, 0, 1, -1, 32};
    const int32_t shift = kShifts[rng_.Below(10)];
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (!(active >> lane & 1)) continue;
      uint64_t address;
      if (on_flag) {
        const uint32_t flag = rng_.Below(kFlags);
        address = space == Space::kGlobal ? kGlobalFlag + 8 * flag
                                          : protocol::SharedAddress(w.block, kSharedFlag + 8 * flag);
      } else {
        uint32_t offset;
        const uint32_t thread = space == Space::kGlobal ? w.first_thread + lane : w.first_thread % tpb_ + lane;
        if (disciplined_ && pattern < 90) {
          offset = static_cast<uint32_t>(static_cast<int32_t>(thread) + shift + 64) * 8 % pool_ & ~(size - 1);
        } else if (pattern < 25) {
          offset = base;  // broadcast
        } else if (pattern < 70) {
          offset = (base + thread * size) % pool_ & ~(size - 1);
        } else {
          offset = rng_.Below(pool_) & ~(size - 1);
        }
        address = space == Space::kGlobal ? kGlobalData + offset
                                          : protocol::SharedAddress(w.block, kSharedData + offset);
      }
      r.addr[lane] = address;
    }
    r.header.access_size = static_cast<uint8_t>(size);
    r.header.space_scope = protocol::PackSpaceScope(space, Scope::kNone);
    if (op == Op::kWrite && rng_.Percent(pattern < 25 ? 60 : 20)) r.header.flags |= protocol::kFlagSameValue;
    // Strong accesses: RMWs, relaxed loads and stores, at every scope, some volatile.
    if (op == Op::kAtomic) MakeStrong(r, 30, 20);
    Append(w, r, active);
  }

  // Message passing from warp p to warp c (distinct, both with active lanes):
  //   p: weak write data; [fence (release side, usually)]; flag write (strong
  //      store / RMW, sometimes weak)
  //   c: strong read of the flag (usually scheduled after p's write);
  //      [fence (acquire side, usually)]; weak read of p's data
  // Well-formed episodes (fences on the right sides, scopes wide enough, one
  // producer lane or an RMW flag write so that every lane's data is released)
  // synchronise unless something else touches the flag in between; the others
  // draw every part at random, so both outcomes are common.
  void MessagePassing(WarpGen& p, WarpGen& c) {
    const bool well_formed = rng_.Percent(disciplined_ ? 85 : 45);
    const bool same_block = p.block == c.block;
    const Space space = same_block && rng_.Percent(40) ? Space::kShared : Space::kGlobal;
    const uint32_t slot = next_message_slot_++ % kMessageSlots;
    // Well-formed episodes use their slot's own flag (past the shared ones);
    // the others a flag that Sync steps and other episodes use too.
    const uint32_t flag = well_formed ? kFlags + slot : rng_.Below(kFlags);
    auto at = [&](const WarpGen& w, uint64_t global, uint32_t shared) {
      return space == Space::kGlobal ? global : protocol::SharedAddress(w.block, shared);
    };
    // A scope wide enough for the pattern (cta within a block, else gpu/sys).
    auto wide = [&]() { return same_block && rng_.Percent(30) ? Scope::kCta : kScopes[2 + rng_.Below(2)]; };
    const uint32_t data_size = 4u << rng_.Below(2);
    const uint32_t flag_size = well_formed || rng_.Percent(85) ? kFlagSize : 8;
    const bool rmw_flag = well_formed ? rng_.Percent(50) : rng_.Percent(35);
    const bool one_lane = std::popcount(Active(p)) > 1 && (well_formed ? !rmw_flag : rng_.Percent(40));
    if (one_lane) {
      uint32_t m = Active(p);
      for (uint32_t pick = rng_.Below(std::popcount(m)); pick > 0; --pick) m &= m - 1;
      If(p, Lowest(m));
    }
    const uint32_t pmask = Active(p);
    int flag_uid = -1;
    if (pmask != 0) {
      Record data = Make(p, Op::kWrite, pmask);
      for (uint32_t l = 0; l < 32; ++l) {
        if (pmask >> l & 1) data.addr[l] = at(p, kGlobalMessage + 0x100 * slot + 8 * l, kSharedMessage + 0x100 * slot + 8 * l);
      }
      data.header.access_size = static_cast<uint8_t>(data_size);
      data.header.space_scope = protocol::PackSpaceScope(space, Scope::kNone);
      Append(p, data, pmask);
      // Mostly a release side; sometimes only an acquire side (no release).
      static constexpr uint8_t kReleaseSide[] = {protocol::kFlagStore, protocol::kFlagStore, 0,
                                                 protocol::kFlagLoad | protocol::kFlagStore, protocol::kFlagLoad};
      if (well_formed) {
        Fence(p, kReleaseSide[rng_.Below(4)], wide());
      } else if (rng_.Percent(85)) {
        Fence(p, kReleaseSide[rng_.Below(5)]);
      }
      const bool weak = !well_formed && rng_.Percent(10);  // fence + weak store: no release pattern
      Record st = Make(p, weak ? Op::kWrite : Op::kAtomic, pmask);
      for (uint32_t l = 0; l < 32; ++l) {
        if (pmask >> l & 1) st.addr[l] = at(p, kGlobalFlag + 8 * flag, kSharedFlag + 8 * flag);
      }
      st.header.access_size = static_cast<uint8_t>(flag_size);
      st.header.space_scope = protocol::PackSpaceScope(space, Scope::kNone);
      if (!weak) {
        MakeStrong(st, 0, rmw_flag ? 0 : 100);
        if (well_formed && protocol::ScopeOf(st.header) == Scope::kCta && !same_block) {
          st.header.space_scope = protocol::PackSpaceScope(space, Scope::kGpu);
        }
      }
      flag_uid = Append(p, st, pmask);
    }
    if (one_lane) {
      Close(p);
      Close(p);
    }
    const uint32_t cmask = Active(c);
    if (cmask == 0) return;
    Record ld = Make(c, Op::kAtomic, cmask);
    for (uint32_t l = 0; l < 32; ++l) {
      if (cmask >> l & 1) ld.addr[l] = at(c, kGlobalFlag + 8 * flag, kSharedFlag + 8 * flag);
    }
    ld.header.access_size = static_cast<uint8_t>(flag_size);
    ld.header.space_scope = protocol::PackSpaceScope(space, Scope::kNone);
    MakeStrong(ld, 85, 0);
    if (well_formed && protocol::ScopeOf(ld.header) == Scope::kCta && !same_block) {
      ld.header.space_scope = protocol::PackSpaceScope(space, Scope::kGpu);
    }
    Append(c, ld, cmask, -1, flag_uid >= 0 && (well_formed || rng_.Percent(85)) ? flag_uid : -1);
    static constexpr uint8_t kAcquireSide[] = {protocol::kFlagLoad, protocol::kFlagLoad, 0,
                                               protocol::kFlagLoad | protocol::kFlagStore, protocol::kFlagStore};
    if (well_formed) {
      Fence(c, kAcquireSide[rng_.Below(4)], wide());
    } else if (rng_.Percent(85)) {
      Fence(c, kAcquireSide[rng_.Below(5)]);
    }
    Record rd = Make(c, Op::kRead, cmask);
    const uint32_t source = pmask != 0 ? pmask : 1;
    for (uint32_t l = 0; l < 32; ++l) {
      if (!(cmask >> l & 1)) continue;
      const uint32_t from = (source >> l & 1) ? l : std::countr_zero(source);
      rd.addr[l] = at(c, kGlobalMessage + 0x100 * slot + 8 * from, kSharedMessage + 0x100 * slot + 8 * from);
    }
    rd.header.access_size = static_cast<uint8_t>(data_size);
    rd.header.space_scope = protocol::PackSpaceScope(space, Scope::kNone);
    Append(c, rd, cmask);
    // Sometimes the consumer then resets or re-reads the flag with a weak
    // access (a polling loop's `flag = 0`): ordered after the producer's flag
    // write only through observation order (PTX causality order, clause 2),
    // when its strong read observed that write.
    if (rng_.Percent(25)) {
      const bool one = std::popcount(cmask) > 1 && rng_.Percent(60);
      if (one) If(c, Lowest(cmask));
      const uint32_t rmask = Active(c);
      Record reset = Make(c, rng_.Percent(60) ? Op::kWrite : Op::kRead, rmask);
      for (uint32_t l = 0; l < 32; ++l) {
        if (rmask >> l & 1) reset.addr[l] = at(c, kGlobalFlag + 8 * flag, kSharedFlag + 8 * flag);
      }
      reset.header.access_size = static_cast<uint8_t>(flag_size);
      reset.header.space_scope = protocol::PackSpaceScope(space, Scope::kNone);
      Append(c, reset, rmask);
      if (one) {
        Close(c);
        Close(c);
      }
    }
  }

  static uint32_t Lowest(uint32_t mask) { return mask & -mask; }

  void Sync(WarpGen& w) {
    const uint32_t active = Active(w);
    const uint32_t kind = rng_.Below(10);
    const Op op = kind < 4 ? Op::kAcquire : kind < 8 ? Op::kRelease : Op::kAcqRel;
    Record r = Make(w, op, active);
    const Space space = rng_.Percent(60) ? Space::kGlobal : Space::kShared;
    r.header.space_scope = protocol::PackSpaceScope(space, kScopes[rng_.Below(4)]);
    r.header.access_size = kFlagSize;
    switch (op) {
      case Op::kAcquire: r.header.flags = protocol::kFlagLoad | (rng_.Percent(30) ? protocol::kFlagStore : 0); break;
      case Op::kRelease: r.header.flags = protocol::kFlagStore | (rng_.Percent(40) ? protocol::kFlagLoad : 0); break;
      default: r.header.flags = protocol::kFlagLoad | protocol::kFlagStore; break;
    }
    auto flag_address = [&](uint32_t flag) {
      return space == Space::kGlobal ? kGlobalFlag + 8 * flag
                                     : protocol::SharedAddress(w.block, kSharedFlag + 8 * flag);
    };
    const bool one_flag = rng_.Percent(80);
    const uint64_t common = flag_address(rng_.Below(kFlags));
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (active >> lane & 1) r.addr[lane] = one_flag ? common : flag_address(rng_.Below(kFlags));
    }
    int wait_for = -1;
    if (op == Op::kAcquire && one_flag && rng_.Percent(options_.wait_percent)) {
      std::vector<int> candidates;
      for (const Release& rel : releases_) {
        if (rel.space == static_cast<uint8_t>(space) && rel.address == common && rel.warp != w.warp_id) {
          candidates.push_back(rel.uid);
        }
      }
      if (!candidates.empty()) wait_for = candidates[rng_.Below(static_cast<uint32_t>(candidates.size()))];
    }
    const int uid = Append(w, r, active, -1, wait_for);
    if (op != Op::kAcquire && one_flag) releases_.push_back(Release{uid, static_cast<uint8_t>(space), common, w.warp_id});
  }

  void BarrierPoint(uint32_t b) {
    Episode ep;
    ep.block = b;
    ep.pre_exits = block_exits_[b];
    const int e = static_cast<int>(episodes_.size());
    for (uint32_t i = 0; i < wpb_; ++i) {
      WarpGen& w = warps_[b * wpb_ + i];
      if (w.live == 0) continue;
      CloseAll(w);
      const uint32_t live = w.live;
      ep.expected += std::popcount(live);
      auto arrive = [&](uint32_t mask) {
        Record r = Make(w, Op::kBarrier, mask);
        r.barrier = protocol::BarrierPayload{0, 0};
        Append(w, r, mask, e);
      };
      if (std::popcount(live) >= 2 && rng_.Percent(options_.divergent_barrier_percent)) {
        // Barrier divergence: each side of a branch reaches bar.sync on its own.
        If(w, rng_.ProperSubset(live));
        arrive(w.frames.back().t);
        Close(w);
        arrive(w.frames.back().e);
        Close(w);
      } else {
        arrive(live);
      }
    }
    if (ep.expected > 0) episodes_.push_back(std::move(ep));
  }

  void NamedEpisode(uint32_t b) {
    std::vector<WarpGen*> chosen;
    for (uint32_t i = 0; i < wpb_; ++i) {
      WarpGen& w = warps_[b * wpb_ + i];
      if (w.live == ~0u && rng_.Percent(60)) chosen.push_back(&w);
    }
    if (chosen.empty()) return;
    Episode ep;
    ep.block = b;
    ep.barrier_id = 1 + rng_.Below(3);
    ep.thread_count = 32 * static_cast<uint32_t>(chosen.size());
    ep.expected = ep.thread_count;
    const int e = static_cast<int>(episodes_.size());
    episodes_.push_back(ep);
    for (WarpGen* w : chosen) {
      CloseAll(*w);
      // Producers bar.arrive (release only), consumers bar.sync (wait and acquire).
      Record r = Make(*w, rng_.Percent(50) ? Op::kBarrierArrive : Op::kBarrier, ~0u);
      r.barrier = protocol::BarrierPayload{ep.barrier_id, ep.thread_count};
      Append(*w, r, ~0u, e);
    }
  }

  Rng& rng_;
  const GeneratorOptions& options_;
  Record begin_{};
  uint32_t blocks_ = 0, tpb_ = 0, wpb_ = 0, pool_ = 32;
  bool disciplined_ = false;
  std::vector<WarpGen> warps_;
  std::vector<Episode> episodes_;
  std::vector<std::vector<int>> block_exits_;
  std::vector<Release> releases_;
  int next_uid_ = 0;
  uint32_t next_site_ = 0;
  uint32_t next_message_slot_ = 0;
};

}  // namespace

bool IsMessagePassingData(Space space, uint64_t address) {
  if (space == Space::kGlobal) return address >= kGlobalMessage && address < kGlobalMessage + 0x100 * kMessageSlots;
  const uint32_t offset = protocol::SharedOffset(address);
  return offset >= kSharedMessage && offset < kSharedMessage + 0x100 * kMessageSlots;
}

bool CarriesStamp(Op op, bool stamp_barriers) {
  // Every strong access and fence (SEMANTICS.md: the stamps order publish / observe).
  return protocol::IsSyncOp(op) || op == Op::kAtomic || (stamp_barriers && (op == Op::kBarrier || op == Op::kBarrierArrive));
}

void RestampSyncRecords(std::vector<Record>& records, bool stamp_barriers) {
  uint64_t next = 1;
  for (Record& r : records) r.stamp = CarriesStamp(protocol::OpOf(r.header), stamp_barriers) ? next++ : 0;
}

GeneratedTrace GenerateTrace(uint64_t seed, const GeneratorOptions& options) {
  GeneratedTrace trace;
  trace.seed = seed;
  Rng rng(seed);
  const uint32_t launches = 1 + rng.Below(std::max(1u, options.max_launches));
  for (uint32_t l = 0; l < launches; ++l) {
    LaunchBuilder builder(rng, options, l + 1);
    builder.BuildScript();
    builder.Schedule(trace.records);
  }
  RestampSyncRecords(trace.records, options.stamp_barriers);
  return trace;
}

std::vector<std::vector<RingRecord>> SplitIntoRings(std::span<const Record> records, uint32_t rings) {
  std::vector<std::vector<RingRecord>> out(std::max(1u, rings));
  uint32_t warps_per_block = 1;
  for (uint64_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    const Op op = protocol::OpOf(r.header);
    if (op == Op::kKernelBegin || op == Op::kKernelEnd) {
      if (op == Op::kKernelBegin) {
        warps_per_block = protocol::WarpsPerBlock(r.kernel.block[0] * r.kernel.block[1] * r.kernel.block[2]);
      }
      for (auto& ring : out) ring.push_back(RingRecord{i, r});
      continue;
    }
    const uint32_t block = r.header.warp_id / std::max(1u, warps_per_block);
    out[block % out.size()].push_back(RingRecord{i, r});
  }
  return out;
}

}  // namespace barracuda::reference
