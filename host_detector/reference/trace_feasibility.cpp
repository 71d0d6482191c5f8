// The invariants of a generated (feasible) trace, checked by replaying it over
// a model of the SIMT state: per warp live mask and divergence stack, blocked
// lanes, barrier generations. A shrunk trace must still satisfy them.
//
// Observation order: a strong read observes the writes to its location that
// come before it in the stream (the detectors apply publish / observe in
// stream order, and in stamp order across rings), so a feasible stream needs
// its strong accesses and fences stamped densely in stream order: checked
// below through CarriesStamp. Which write a read observes is then fixed by the
// stream itself; the generator makes the observing read come after the write
// it is meant to read from (a soft wait), and an earlier read is feasible too
// (it read an older value).
#include <bit>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "host_detector/reference/trace_generator.h"

namespace barracuda::reference {

namespace {

using protocol::Op;
using protocol::Record;

struct Warp {
  uint32_t live = 0;
  uint32_t blocked = 0;
  std::vector<DivergenceFrame> frames;
  uint32_t Active() const {
    if (frames.empty()) return live;
    return (frames.back().in_else ? frames.back().e : frames.back().t) & live;
  }
};
struct Generation {
  uint32_t arrived = 0;
  uint32_t count = 0;
  std::set<uint32_t> threads;
  std::vector<std::pair<uint32_t, uint32_t>> waiters;  // (warp, mask)
};

}  // namespace

absl::Status CheckFeasible(std::span<const Record> records, bool stamp_barriers) {
  bool in_launch = false;
  uint32_t blocks = 0, tpb = 0, wpb = 0;
  std::vector<Warp> warps;
  std::map<std::pair<uint32_t, uint32_t>, Generation> gens;
  uint64_t next_stamp = 1;
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    const Op op = protocol::OpOf(r.header);
    auto fail = [&](const std::string& why) {
      return absl::FailedPreconditionError(absl::StrCat("record #", i, " (", DumpRecord(r), "): ", why));
    };
    if (CarriesStamp(op, stamp_barriers)) {
      if (r.stamp != next_stamp) return fail(absl::StrCat("stamp ", r.stamp, ", expected ", next_stamp));
      ++next_stamp;
    } else if (r.stamp != 0) {
      return fail("unexpected stamp");
    }
    if (op == Op::kKernelBegin) {
      if (in_launch) return fail("kernel begin inside a launch");
      in_launch = true;
      blocks = r.kernel.grid[0] * r.kernel.grid[1] * r.kernel.grid[2];
      tpb = r.kernel.block[0] * r.kernel.block[1] * r.kernel.block[2];
      wpb = protocol::WarpsPerBlock(tpb);
      if (blocks == 0 || tpb == 0 || tpb > 1024) return fail("bad shape");
      warps.assign(blocks * wpb, Warp{});
      for (uint32_t w = 0; w < warps.size(); ++w) {
        const uint32_t lanes = std::min(32u, tpb - (w % wpb) * 32);
        warps[w].live = lanes == 32 ? ~0u : (1u << lanes) - 1;
      }
      gens.clear();
      continue;
    }
    if (!in_launch) return fail("record outside a launch");
    if (op == Op::kKernelEnd) {
      if (!gens.empty()) return fail("barrier generation open at kernel end");
      for (const Warp& w : warps) {
        if (w.live != 0 && !w.frames.empty()) return fail("divergence still open at kernel end");
      }
      in_launch = false;
      continue;
    }
    if (r.header.warp_id >= warps.size()) return fail("warp id out of range");
    Warp& w = warps[r.header.warp_id];
    const uint32_t block = r.header.warp_id / wpb;
    const uint32_t mask = r.header.active_mask;
    if (w.live == 0) return fail("record of a warp with no live lane");
    switch (op) {
      case Op::kElse: {
        if (w.frames.empty() || w.frames.back().in_else) return fail("else without an open then-side");
        DivergenceFrame& f = w.frames.back();
        if (mask != (f.e & w.live)) return fail("else mask is not the else lanes");
        if (mask & w.blocked) return fail("else lanes are blocked");
        f.in_else = true;
        continue;
      }
      case Op::kFi: {
        if (w.frames.empty() || !w.frames.back().in_else) return fail("fi without an open else-side");
        const DivergenceFrame f = w.frames.back();
        if (mask != (f.m & w.live)) return fail("fi mask is not the reconverged lanes");
        if (mask & w.blocked) return fail("fi lanes are blocked");
        w.frames.pop_back();
        continue;
      }
      default: break;
    }
    if (mask == 0) return fail("empty active mask");
    if (mask != w.Active()) return fail(absl::StrCat("active mask is not the warp's active lanes ", w.Active()));
    if (mask & w.blocked) return fail("lanes blocked at a barrier");
    switch (op) {
      case Op::kRead: case Op::kWrite: case Op::kAtomic:
      case Op::kAcquire: case Op::kRelease: case Op::kAcqRel: {
        const uint32_t size = r.header.access_size;
        if (size != 1 && size != 2 && size != 4 && size != 8) return fail("bad access size");
        const bool shared = protocol::SpaceOf(r.header) == protocol::Space::kShared;
        for (uint32_t lane = 0; lane < 32; ++lane) {
          if (!(mask >> lane & 1)) continue;
          if (r.addr[lane] % size != 0) return fail("misaligned address");
          if (shared && protocol::SharedBlock(r.addr[lane]) != block) return fail("shared address of another block");
        }
        if (protocol::IsSyncOp(op) && protocol::ScopeOf(r.header) == protocol::Scope::kNone) {
          return fail("sync op without a scope");
        }
        if (r.header.flags & protocol::kFlagVolatile) {
          // ld.volatile / st.volatile: a relaxed load or store at sys scope.
          const bool rmw = (r.header.flags & protocol::kFlagLoad) && (r.header.flags & protocol::kFlagStore);
          if (op != Op::kAtomic || rmw || protocol::ScopeOf(r.header) != protocol::Scope::kSys) {
            return fail("volatile access that is not a sys-scope relaxed load or store");
          }
        }
        break;
      }
      case Op::kFence:
        // A fence carries no address; kFlagLoad / kFlagStore pick its sides.
        if (r.header.flags & ~(protocol::kFlagLoad | protocol::kFlagStore)) return fail("fence with other flags");
        if (protocol::ScopeOf(r.header) == protocol::Scope::kNone) return fail("sync op without a scope");
        break;
      case Op::kIf:
        if (r.branch.then_mask & ~mask) return fail("then mask outside the active mask");
        w.frames.push_back(DivergenceFrame{mask, r.branch.then_mask, mask & ~r.branch.then_mask, false});
        break;
      case Op::kExit:
        for (const auto& [key, g] : gens) {
          if (key.first == block && g.count == 0) return fail("exit while a whole-block barrier is open");
        }
        w.live &= ~mask;
        if (w.live == 0) w.frames.clear();
        break;
      case Op::kBarrier: case Op::kBarrierArrive: {
        Generation& g = gens[{block, r.barrier.barrier_id}];
        if (!g.threads.empty() && g.count != r.barrier.thread_count) return fail("thread count changed within a generation");
        g.count = r.barrier.thread_count;
        if (op == Op::kBarrierArrive && g.count == 0) return fail("bar.arrive without a thread count");
        for (uint32_t lane = 0; lane < 32; ++lane) {
          if ((mask >> lane & 1) && !g.threads.insert(r.header.warp_id * 32 + lane).second) {
            return fail("a thread arrived twice in one generation");
          }
        }
        g.arrived += std::popcount(mask);
        if (op == Op::kBarrier) {
          w.blocked |= mask;
          g.waiters.emplace_back(r.header.warp_id, mask);
        }
        uint32_t expected = g.count;
        if (expected == 0) {
          for (uint32_t k = 0; k < wpb; ++k) expected += std::popcount(warps[block * wpb + k].live);
        }
        if (g.arrived > expected) return fail("more arrivals than the barrier expects");
        if (g.arrived == expected) {
          for (auto [ww, m] : g.waiters) warps[ww].blocked &= ~m;
          gens.erase({block, r.barrier.barrier_id});
        }
        break;
      }
      default: break;
    }
  }
  if (in_launch) return absl::FailedPreconditionError("trace ends inside a launch");
  return absl::OkStatus();
}

}  // namespace barracuda::reference
