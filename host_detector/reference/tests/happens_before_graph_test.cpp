// A second oracle for the reference itself: paper §3.2's synchronisation order
// built as an explicit event graph (program order, join/fork nodes for
// ENDINSN, IF/ELSE/FI, warp-sync and barrier completion, release -> acquire
// edges: from the release node (a kRelease access, or the release fence that a
// strong store publishes) of each entry of a location's release sequence to
// the acquire node (a kAcquire access, or the acquire fence after the strong
// read that observed it)) and races found by graph reachability, with the
// wave-2 conflict rule (weak/strong, morally strong pairs). No vector clocks: it checks the reference's clock bookkeeping
// (where increments go, what joins what) on generated traces, comparing every
// racy (access, byte), not just the first per byte.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

#include "host_detector/reference/reference_detector.h"
#include "host_detector/reference/trace_generator.h"

namespace barracuda::reference {
namespace {

using protocol::Op;
using protocol::Record;

class HappensBeforeGraph {
 public:
  // (record, lane, space, byte) of every racy access byte.
  using Racy = std::set<std::tuple<uint64_t, uint32_t, uint8_t, uint64_t>>;

  HappensBeforeGraph(std::span<const Record> trace, WarpModel model) : model_(model) {
    for (uint64_t i = 0; i < trace.size(); ++i) Step(trace[i], i);
  }
  const Racy& racy() const { return racy_; }

 private:
  struct Access {
    uint32_t node;
    uint32_t thread;
    uint64_t record;
    bool same_value;
    bool strong;
    bool writes;
    uint8_t size;
    uint64_t start;
    uint8_t scope;  // effective scope, strong accesses only
    bool reads = false;  // strong: loads (a read-modify-write when it also writes)
    // A strong write: the nodes of the strong reads that observed it (PTX
    // observation order): it is ordered before their descendants.
    std::vector<uint32_t> observers;
  };
  // A release: its node (what it makes visible is the node's ancestors).
  struct Release {
    uint32_t node;
    uint32_t thread;
    uint8_t scope;
  };
  struct Observed {
    Release release;
    uint8_t read_scope;
  };
  static constexpr uint8_t kCta = static_cast<uint8_t>(protocol::Scope::kCta);
  static constexpr uint8_t kGpu = static_cast<uint8_t>(protocol::Scope::kGpu);
  // Thread u is in scope(t, s).
  bool Sees(uint32_t t, uint8_t s, uint32_t u) const { return s >= kGpu || t / tpb_ == u / tpb_; }
  bool MorallyStrong(const Access& x, const Access& y) const {
    return x.strong && y.strong && x.size == y.size && x.start == y.start && Sees(x.thread, x.scope, y.thread) &&
           Sees(y.thread, y.scope, x.thread);
  }
  bool Synchronises(const Release& r, uint32_t t, uint8_t acquire_scope) const {
    return Sees(r.thread, r.scope, t) && Sees(t, acquire_scope, r.thread);
  }
  void PublishNode(std::vector<Release>& seq, Release r, bool store) {
    if (store) seq.clear();
    seq.push_back(r);
  }

  uint32_t NewNode() {
    preds_.emplace_back();
    return static_cast<uint32_t>(preds_.size() - 1);
  }
  // A node that follows thread t in program order.
  uint32_t Follow(uint32_t t) {
    const uint32_t n = NewNode();
    preds_[n].push_back(last_[t]);
    last_[t] = n;
    return n;
  }
  void JoinFork(uint32_t warp, uint32_t mask) {
    mask &= live_[warp];
    if (mask == 0) return;
    const uint32_t j = NewNode();
    for (uint32_t l = 0; l < 32; ++l) {
      if (mask >> l & 1) preds_[j].push_back(last_[Thread(warp, l)]);
    }
    for (uint32_t l = 0; l < 32; ++l) {
      if (mask >> l & 1) last_[Thread(warp, l)] = j;
    }
  }
  uint32_t Thread(uint32_t warp, uint32_t lane) const {
    return warp / wpb_ * tpb_ + warp % wpb_ * 32 + lane;
  }
  uint32_t LiveThreads(uint32_t block) const {
    uint32_t n = 0;
    for (uint32_t w = 0; w < wpb_; ++w) n += std::popcount(live_[block * wpb_ + w]);
    return n;
  }
  std::vector<bool> Ancestors(uint32_t node) const {
    std::vector<bool> seen(preds_.size(), false);
    std::vector<uint32_t> stack{node};
    while (!stack.empty()) {
      const uint32_t n = stack.back();
      stack.pop_back();
      for (uint32_t p : preds_[n]) {
        if (!seen[p]) {
          seen[p] = true;
          stack.push_back(p);
        }
      }
    }
    return seen;
  }
  void MaybeComplete(uint32_t block, uint32_t id) {
    auto it = gens_.find({block, id});
    if (it == gens_.end()) return;
    auto& g = it->second;
    const uint32_t expected = g.count ? g.count : LiveThreads(block);
    if (g.arrivals.size() < expected) return;
    const uint32_t j = NewNode();
    for (auto [t, waits, node] : g.arrivals) preds_[j].push_back(waits ? last_[t] : node);
    for (auto [t, waits, node] : g.arrivals) {
      if (waits) last_[t] = j;
    }
    gens_.erase(it);
  }

  void Step(const Record& r, uint64_t index) {
    const Op op = protocol::OpOf(r.header);
    const bool lockstep = model_ == WarpModel::kLockstep;
    if (op == Op::kKernelBegin) {
      tpb_ = r.kernel.block[0] * r.kernel.block[1] * r.kernel.block[2];
      wpb_ = protocol::WarpsPerBlock(tpb_);
      blocks_ = r.kernel.grid[0] * r.kernel.grid[1] * r.kernel.grid[2];
      ++launch_;
      preds_.clear();
      last_.assign(blocks_ * tpb_, 0);
      for (auto& l : last_) l = NewNode();
      live_.assign(blocks_ * wpb_, 0);
      stacks_.assign(blocks_ * wpb_, {});
      for (uint32_t w = 0; w < live_.size(); ++w) {
        const uint32_t lanes = std::min(32u, tpb_ - w % wpb_ * 32);
        live_[w] = lanes == 32 ? ~0u : (1u << lanes) - 1;
        stacks_[w] = {live_[w]};
      }
      accesses_.clear();
      releases_.clear();
      observed_.assign(blocks_ * tpb_, {});
      fence_.assign(blocks_ * tpb_, std::nullopt);
      copies_.assign(blocks_ * tpb_, {});
      gens_.clear();
      return;
    }
    if (op == Op::kKernelEnd) return;
    const uint32_t warp = r.header.warp_id;
    const uint32_t mask = r.header.active_mask;
    const uint32_t block = warp / wpb_;
    switch (op) {
      case Op::kRead: case Op::kWrite: case Op::kAtomic:
      case Op::kAcquire: case Op::kRelease: case Op::kAcqRel: {
        const bool strong = op != Op::kRead && op != Op::kWrite;
        bool loads = (r.header.flags & protocol::kFlagLoad) != 0;
        bool stores = (r.header.flags & protocol::kFlagStore) != 0;
        if (!strong) {
          loads = op == Op::kRead;
          stores = op == Op::kWrite;
        } else if (!loads && !stores) {
          loads = stores = true;
        }
        uint8_t scope = static_cast<uint8_t>(protocol::ScopeOf(r.header));
        if (scope == 0) scope = op == Op::kAtomic ? kGpu : kCta;
        const bool same_value = (r.header.flags & protocol::kFlagSameValue) != 0;
        const uint8_t space = static_cast<uint8_t>(protocol::SpaceOf(r.header));
        for (uint32_t l = 0; l < 32; ++l) {
          if (!(mask >> l & 1)) continue;
          const uint32_t t = Thread(warp, l);
          // An asynchronous copy's access: a node after the issuer's, which
          // the issuer does not pass through (it observes the copy only by a
          // wait, or through a release of the copies: below).
          const bool async = !strong && (r.header.flags & protocol::kFlagAsync) != 0;
          uint32_t n;
          if (async) {
            n = NewNode();
            preds_[n].push_back(last_[t]);
            copies_[t].push_back(n);
          } else {
            n = Follow(t);
          }
          std::vector<Release>& seq = releases_[{space, r.addr[l]}];
          if (op == Op::kAcquire || op == Op::kAcqRel) {
            for (const Release& rel : seq) {
              if (Synchronises(rel, t, scope)) preds_[n].push_back(rel.node);
            }
          }
          if ((op == Op::kAtomic || op == Op::kRelease) && loads) {
            for (const Release& rel : seq) observed_[t].push_back(Observed{rel, scope});
          }
          const bool synthetic = space == static_cast<uint8_t>(protocol::Space::kShared) &&
                                 protocol::IsClusterBarrierAddress(r.addr[l]);
          if (!synthetic) {
            Access a{n, t, index, same_value, strong, stores, r.header.access_size, r.addr[l], scope, strong && loads, {}};
            const std::vector<bool> before = Ancestors(n);
            for (uint64_t y = r.addr[l]; y < r.addr[l] + r.header.access_size; ++y) {
              auto& past = accesses_[{space, y}];
              for (const Access& e : past) {
                if (!e.writes && !a.writes) continue;
                if (e.record == index && e.same_value && a.same_value) continue;
                if (before[e.node]) continue;
                if (MorallyStrong(e, a)) continue;
                // Causality order, clause 2: observed by a read that is an ancestor.
                if (std::any_of(e.observers.begin(), e.observers.end(), [&](uint32_t z) { return before[z]; })) continue;
                racy_.insert({index, l, space, y});
                break;
              }
              if (a.reads) {
                // The read observes the byte's latest write, and through
                // morally strong read-modify-writes the writes they read.
                const Access* later = &a;
                for (size_t i = past.size(); i-- > 0;) {
                  Access& w = past[i];
                  if (!w.writes) continue;
                  if (!MorallyStrong(w, *later)) break;
                  w.observers.push_back(n);
                  if (!w.reads) break;
                  later = &w;
                }
              }
              past.push_back(a);
            }
          }
          const bool store_only = stores && !loads;
          if ((op == Op::kRelease || op == Op::kAcqRel) && (r.header.flags & protocol::kFlagAsync) != 0) {
            // Triggered by t's copies: what it publishes follows them too.
            const uint32_t p = NewNode();
            preds_[p].push_back(n);
            for (uint32_t c : copies_[t]) preds_[p].push_back(c);
            PublishNode(seq, Release{p, t, scope}, op == Op::kRelease && store_only);
          } else if (op == Op::kRelease || op == Op::kAcqRel) {
            PublishNode(seq, Release{n, t, scope}, op == Op::kRelease && store_only);
          } else if (strong && stores) {  // kAtomic, or the write of a kAcquire RMW
            if (fence_[t].has_value()) {
              PublishNode(seq, Release{fence_[t]->node, t, std::min(scope, fence_[t]->scope)}, store_only);
            } else if (store_only) {
              seq.clear();
            }
          }
        }
        if (lockstep) JoinFork(warp, mask);
        break;
      }
      case Op::kFence: {
        uint8_t scope = static_cast<uint8_t>(protocol::ScopeOf(r.header));
        if (scope == 0) scope = kCta;
        const bool loads = (r.header.flags & protocol::kFlagLoad) != 0;
        const bool stores = (r.header.flags & protocol::kFlagStore) != 0;
        for (uint32_t l = 0; l < 32; ++l) {
          if (!(mask >> l & 1)) continue;
          const uint32_t t = Thread(warp, l);
          const uint32_t n = Follow(t);
          if (loads || !stores) {
            std::vector<Observed> rest;
            for (const Observed& o : observed_[t]) {
              if (Synchronises(o.release, t, std::min(o.read_scope, scope))) {
                preds_[n].push_back(o.release.node);
              } else {
                rest.push_back(o);
              }
            }
            observed_[t] = rest;
          }
          if (stores || !loads) fence_[t] = Release{n, t, scope};
        }
        if (lockstep) JoinFork(warp, mask);
        break;
      }
      case Op::kIf: {
        auto& st = stacks_[warp];
        st.push_back(mask & ~r.branch.then_mask);
        st.push_back(r.branch.then_mask);
        if (lockstep) JoinFork(warp, r.branch.then_mask);
        break;
      }
      case Op::kElse: case Op::kFi: {
        auto& st = stacks_[warp];
        st.pop_back();
        if (lockstep) JoinFork(warp, st.back());
        break;
      }
      case Op::kWarpSync: JoinFork(warp, mask); break;
      case Op::kAsyncWait:
        for (uint32_t l = 0; l < 32; ++l) {
          if (!(mask >> l & 1)) continue;
          const uint32_t t = Thread(warp, l);
          const uint64_t k = std::min<uint64_t>(r.addr[l], copies_[t].size());
          if (k == 0) continue;
          const uint32_t n = Follow(t);
          for (uint64_t i = 0; i < k; ++i) preds_[n].push_back(copies_[t][i]);
        }
        break;
      case Op::kBarrier: case Op::kBarrierArrive: {
        auto& g = gens_[{block, r.barrier.barrier_id}];
        g.count = r.barrier.thread_count;
        for (uint32_t l = 0; l < 32; ++l) {
          if (!(mask >> l & 1)) continue;
          const uint32_t t = Thread(warp, l);
          if (op == Op::kBarrier) {
            g.arrivals.emplace_back(t, true, 0);
          } else {
            g.arrivals.emplace_back(t, false, Follow(t));  // the arrival publishes what came before
          }
        }
        MaybeComplete(block, r.barrier.barrier_id);
        break;
      }
      case Op::kExit: {
        live_[warp] &= ~mask;
        std::vector<uint32_t> ids;
        for (const auto& [key, g] : gens_) {
          if (key.first == block && g.count == 0) ids.push_back(key.second);
        }
        for (uint32_t id : ids) MaybeComplete(block, id);
        break;
      }
      default: break;
    }
  }

  struct Generation {
    uint32_t count = 0;
    std::vector<std::tuple<uint32_t, bool, uint32_t>> arrivals;  // thread, waits, arrival node
  };
  WarpModel model_;
  uint32_t tpb_ = 0, wpb_ = 0, blocks_ = 0;
  int launch_ = -1;
  std::vector<std::vector<uint32_t>> preds_;
  std::vector<uint32_t> last_;
  std::vector<std::vector<uint32_t>> copies_;  // per thread: its async records' nodes, in order
  std::vector<uint32_t> live_;
  std::vector<std::vector<uint32_t>> stacks_;
  std::map<std::pair<uint8_t, uint64_t>, std::vector<Access>> accesses_;
  std::map<std::pair<uint8_t, uint64_t>, std::vector<Release>> releases_;  // per location
  std::vector<std::vector<Observed>> observed_;  // per thread: observed, not yet acquired
  std::vector<std::optional<Release>> fence_;    // per thread: latest release fence
  std::map<std::pair<uint32_t, uint32_t>, Generation> gens_;
  Racy racy_;
};

#ifdef BARRACUDA_REFERENCE_SANITIZED
constexpr uint64_t kGraphTraces = 100;  // the graph search is slow under ASan
#else
constexpr uint64_t kGraphTraces = 400;
#endif

TEST_CASE("reference equals an explicit happens-before graph on random traces", "[reference]") {
  for (uint64_t seed = 0; seed < kGraphTraces; ++seed) {
    const GeneratedTrace trace = GenerateTrace(seed);
    for (WarpModel model : {WarpModel::kLockstep, WarpModel::kIts}) {
      ReferenceDetector ref(Options{model});
      REQUIRE(ref.ProcessAll(trace.records).ok());
      HappensBeforeGraph::Racy from_ref;
      for (const RacyAccess& r : ref.racy_accesses()) {
        from_ref.insert({r.access.record_index, r.access.lane, static_cast<uint8_t>(r.location.space), r.location.address});
      }
      const HappensBeforeGraph graph(trace.records, model);
      std::ostringstream diff;
      for (const auto& [rec, lane, space, byte] : from_ref) {
        if (!graph.racy().count({rec, lane, space, byte})) diff << " ref-only #" << rec << "/" << lane << "@0x" << std::hex << byte << std::dec;
      }
      for (const auto& [rec, lane, space, byte] : graph.racy()) {
        if (!from_ref.count({rec, lane, space, byte})) diff << " graph-only #" << rec << "/" << lane << "@0x" << std::hex << byte << std::dec;
      }
      INFO("seed " << seed << " model " << WarpModelName(model) << diff.str() << "\n" << DumpTrace(trace.records));
      REQUIRE(from_ref.size() == graph.racy().size());
      REQUIRE(from_ref == graph.racy());
    }
  }
}

}  // namespace
}  // namespace barracuda::reference
