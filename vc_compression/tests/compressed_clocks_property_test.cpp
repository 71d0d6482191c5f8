// Random operation sequences applied to the compressed clocks and to plain
// dense per-thread vector clocks; after every operation every thread of the
// touched block (and periodically every thread) must expand to exactly the
// dense clock. 200 trials x 500 operations = 100,000 operations.
#include <catch2/catch.hpp>
#include <random>
#include <vector>

#include "vc_compression/block_clocks.h"
#include "vc_compression/tests/dense_clock_model.h"

namespace barracuda::vc {
namespace {

// 100,000 operations in optimised builds (a few seconds); the sanitizer build
// (Debug, ASan+UBSan, ~20x slower) runs a fifth of them: it is there to catch
// memory errors, the optimised build gives the coverage.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kTrials = 40;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr int kTrials = 40;
#else
constexpr int kTrials = 200;
#endif
#else
constexpr int kTrials = 200;
#endif

using testing::Dense;
using testing::DenseClocks;

struct Launch {
  uint32_t threads_per_block;
  uint32_t blocks;
  std::vector<BlockClocks> blocks_clocks;
  DenseClocks dense;

  Launch(uint32_t tpb, uint32_t nblocks)
      : threads_per_block(tpb), blocks(nblocks), blocks_clocks(nblocks), dense(tpb * nblocks) {
    for (uint32_t b = 0; b < nblocks; ++b) blocks_clocks[b].Init(b * tpb, tpb);
  }
  uint32_t tid(uint32_t b, unsigned w, unsigned lane) const { return b * threads_per_block + w * 32 + lane; }

  void CheckThread(uint32_t t) const {
    uint32_t b = t / threads_per_block;
    uint32_t in = t % threads_per_block;
    const WarpClocks& wc = blocks_clocks[b].warp(in / 32);
    VectorClock v = wc.Expand(in % 32);
    // One REQUIRE per thread (not per entry) keeps 100,000 operations in seconds.
    bool ok = testing::ToDense(v, dense.size()) == dense[t] &&
              v.MaxIn(dense.size(), VectorClock::kTidEnd) == 0;
    // Point queries (the detector's hot path) agree with the expansion.
    for (uint32_t u = t % 11; ok && u < dense.size(); u += 11) ok = wc.Get(in % 32, u) == dense[t][u];
    // The bound of what the thread knows of the others (cached between
    // changes of the clocks) is never below any of them.
    Clock bound = 0;
    if (ok && wc.KnownOthersBound(in % 32, &bound)) {
      for (uint32_t u = 0; ok && u < dense.size(); ++u) ok = u == t || dense[t][u] <= bound;
    }
    if (!ok) {
      INFO("thread " << t << " compressed " << v.DebugString());
      REQUIRE(testing::ToDense(v, dense.size()) == dense[t]);
      REQUIRE(ok);
    }
  }
  void CheckWarp(uint32_t b, unsigned w) const {
    REQUIRE(blocks_clocks[b].warp(w).CheckInvariants());
    const uint32_t lanes = blocks_clocks[b].warp(w).geometry().lanes;
    for (uint32_t lane = 0; lane < lanes; ++lane) CheckThread(tid(b, w, lane));
  }
  void CheckBlock(uint32_t b) const {
    bool invariants = true;
    for (unsigned w = 0; w < blocks_clocks[b].warp_count(); ++w) {
      invariants = invariants && blocks_clocks[b].warp(w).CheckInvariants();
    }
    REQUIRE(invariants);
    for (uint32_t i = 0; i < threads_per_block; ++i) CheckThread(b * threads_per_block + i);
  }
};

TEST_CASE("compressed clocks equal full vector clocks under random operations", "[vc][property]") {
  std::mt19937_64 rng(20170618);
  uint64_t operations = 0;
  size_t formats_seen[4] = {0, 0, 0, 0};
  for (int trial = 0; trial < kTrials; ++trial) {
    // Partial last warps are the common case here (e.g. 45 threads = 32 + 13).
    uint32_t tpb = 1 + static_cast<uint32_t>(rng() % 72);
    uint32_t nblocks = 1 + static_cast<uint32_t>(rng() % 3);
    Launch l(tpb, nblocks);
    std::vector<VectorClock> sync_c(4);
    std::vector<Dense> sync_d(4, Dense(l.dense.size(), 0));
    for (int step = 0; step < 500; ++step, ++operations) {
      uint32_t b = static_cast<uint32_t>(rng() % nblocks);
      BlockClocks& bc = l.blocks_clocks[b];
      unsigned w = static_cast<unsigned>(rng() % bc.warp_count());
      WarpClocks& wc = bc.warp(w);
      uint32_t existing = wc.existing_mask();
      uint32_t mask = static_cast<uint32_t>(rng()) & existing;
      if (rng() % 4 == 0) mask = existing;  // converged operations are common
      std::vector<uint32_t> set;
      for (unsigned lane = 0; lane < 32; ++lane) {
        if (mask >> lane & 1) set.push_back(l.tid(b, w, lane));
      }
      unsigned lane = static_cast<unsigned>(rng() % wc.geometry().lanes);
      uint32_t t = l.tid(b, w, lane);
      size_t k = rng() % sync_c.size();
      bool whole_block = false;
      switch (rng() % 12) {
        case 0:
        case 1:  // release-style increment of some lanes (independent scheduling)
          bc.Increment(w, mask);
          for (uint32_t x : set) l.dense.Increment(x);
          break;
        case 2:
        case 3:  // ENDINSN / warp-sync over a subset
          bc.JoinIncrement(w, mask);
          if (!set.empty()) l.dense.JoinIncrement(set);
          break;
        case 4: {  // IF / ELSE / FI on the reconvergence stack (lockstep rules)
          ReconvergenceStack& st = wc.stack();
          if (st.depth() < 5 && rng() % 2) {
            uint32_t top = st.top();
            uint32_t then_mask = st.PushIf(top, static_cast<uint32_t>(rng()));
            bc.JoinIncrement(w, then_mask);
            std::vector<uint32_t> s2;
            for (unsigned x = 0; x < 32; ++x)
              if (then_mask >> x & 1) s2.push_back(l.tid(b, w, x));
            if (!s2.empty()) l.dense.JoinIncrement(s2);
          } else {
            uint32_t top;
            if (st.Pop(&top)) {
              bc.JoinIncrement(w, top);
              std::vector<uint32_t> s2;
              for (unsigned x = 0; x < 32; ++x)
                if (top >> x & 1) s2.push_back(l.tid(b, w, x));
              if (!s2.empty()) l.dense.JoinIncrement(s2);
            }
          }
          break;
        }
        case 5:
        case 6:  // acquire from a synchronisation location (any block's release)
          bc.Acquire(w, lane, sync_c[k]);
          l.dense.Acquire(t, sync_d[k]);
          break;
        case 7: {  // release: plain store (assign) or RMW (join), then inc
          VectorClock c = wc.Expand(lane);
          if (rng() % 2) {
            sync_c[k] = c;
            sync_d[k] = l.dense[t];
          } else {
            sync_c[k].Join(c);
            DenseClocks::Max(sync_d[k], l.dense[t]);
          }
          bc.Increment(w, 1u << lane);
          l.dense.Increment(t);
          break;
        }
        case 8:
        case 9: {  // block-wide barrier (fast path)
          whole_block = true;
          bc.BarrierAll();
          std::vector<uint32_t> all;
          for (uint32_t i = 0; i < tpb; ++i) all.push_back(b * tpb + i);
          l.dense.Barrier(all, Dense(l.dense.size(), 0));
          break;
        }
        case 10: {  // named barrier: some lanes arrive (bar.arrive) first, some wait
          whole_block = true;
          std::vector<uint32_t> sync_masks(bc.warp_count());
          std::vector<uint32_t> sync;
          VectorClock released;
          Dense released_d(l.dense.size(), 0);
          for (unsigned x = 0; x < bc.warp_count(); ++x) {
            uint32_t ex = bc.warp(x).existing_mask();
            uint32_t s = static_cast<uint32_t>(rng()) & ex;
            uint32_t a = rng() % 3 == 0 ? 0 : static_cast<uint32_t>(rng()) & ex & ~s;
            sync_masks[x] = s;
            bc.Arrive(x, a, released);
            for (unsigned y = 0; y < 32; ++y) {
              if (s >> y & 1) sync.push_back(l.tid(b, x, y));
              if (a >> y & 1) l.dense.Arrive(l.tid(b, x, y), released_d);
            }
          }
          bc.Barrier(sync_masks, released);
          if (!sync.empty()) l.dense.Barrier(sync, released_d);
          break;
        }
        default: {  // an arbitrary full clock joined by one thread: S from another thread
          uint32_t other = static_cast<uint32_t>(rng() % l.dense.size());
          uint32_t ob = other / tpb, oin = other % tpb;
          VectorClock c = l.blocks_clocks[ob].warp(oin / 32).Expand(oin % 32);
          // The other thread's clock is only acquirable after it released it.
          l.blocks_clocks[ob].Increment(oin / 32, 1u << (oin % 32));
          l.dense.Increment(other);
          bc.Acquire(w, lane, c);
          Dense d = l.dense[other];
          --d[other];
          l.dense.Acquire(t, d);
          break;
        }
      }
      formats_seen[static_cast<int>(wc.format())]++;
      // The touched warp after every operation, its block every few (barriers
      // touch the whole block), everything every 50.
      l.CheckWarp(b, w);
      if (whole_block || step % 5 == 4) l.CheckBlock(b);
      if (step % 50 == 49) {
        for (uint32_t bb = 0; bb < nblocks; ++bb) l.CheckBlock(bb);
      }
    }
  }
  CHECK(operations >= static_cast<uint64_t>(kTrials) * 500);
  if (kTrials == 200) CHECK(operations >= 100000);
  // Every format must actually be exercised.
  for (size_t f : formats_seen) CHECK(f > 0);
}

}  // namespace
}  // namespace barracuda::vc
