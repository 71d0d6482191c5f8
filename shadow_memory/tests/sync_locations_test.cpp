#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "shadow_memory/sync_locations.h"

using namespace barracuda::shadow;

namespace {

// A plain vector clock standing in for the detector's block clock.
struct TestClock {
  std::map<uint32_t, uint64_t> c;
  void Join(const TestClock& o) {
    for (auto [t, v] : o.c) c[t] = std::max(c[t], v);
  }
  size_t HeapBytes() const { return c.size() * 48; }
  friend bool operator==(const TestClock&, const TestClock&) = default;
};

TestClock Tick(uint32_t t, uint64_t v) {
  TestClock r;
  r.c[t] = v;
  return r;
}

// The rule of host_detector/detector/SEMANTICS.md read literally: every release of x
// kept as (releaser block, level, clock); a store forgets the others first; an
// acquire joins the releases whose scope includes the acquirer and whose
// releaser is inside the acquire's scope. Clusters: blocks b / 2.
struct Reference {
  struct Release {
    uint64_t block;
    ScopeLevel level;
    TestClock clock;
  };
  std::vector<Release> releases;
  static uint64_t ClusterOf(uint64_t b) { return b / 2; }
  static bool InScope(uint64_t a, uint64_t b, ScopeLevel level) {
    if (level == ScopeLevel::kGpu) return true;
    if (level == ScopeLevel::kCluster) return ClusterOf(a) == ClusterOf(b);
    return a == b;
  }
  void Publish(uint64_t b, ScopeLevel level, bool rmw, const TestClock& ct) {
    if (!rmw) releases.clear();
    releases.push_back({b, level, ct});
  }
  void KeepWithinScope(uint64_t b, ScopeLevel level) {
    std::vector<Release> kept;
    for (Release e : releases) {
      if (!InScope(e.block, b, level)) continue;
      e.level = std::min(e.level, level);
      kept.push_back(e);
    }
    releases = kept;
  }
  TestClock Acquire(uint64_t b, ScopeLevel level) const {
    TestClock r;
    for (const Release& e : releases)
      if (InScope(e.block, b, e.level) && InScope(b, e.block, level)) r.Join(e.clock);
    return r;
  }
};

TestClock Observed(const SyncLocationMap<TestClock>& m, const SyncKey& x, uint64_t block, ScopeLevel level) {
  TestClock got;
  m.Observe(x, block, Reference::ClusterOf(block), level, [&](ScopeLevel, const TestClock& c) { got.Join(c); });
  return got;
}

void Publish(SyncLocationMap<TestClock>& m, const SyncKey& x, uint64_t block, ScopeLevel level, ReleaseKind kind,
             const TestClock& ct) {
  m.Publish(x, block, Reference::ClusterOf(block), level, kind, [&](TestClock& s) { s.Join(ct); });
}

}  // namespace

TEST_CASE("block-scope release and acquire stay within the block") {
  SyncLocationMap<TestClock> m;
  m.BeginLaunch();
  const SyncKey x{Space::kGlobal, 0x1000};
  CHECK(Observed(m, x, 0, ScopeLevel::kGpu).c.empty());
  CHECK_FALSE(m.Contains(x));
  Publish(m, x, 1, ScopeLevel::kBlock, ReleaseKind::kStore, Tick(7, 3));
  CHECK(m.Contains(x));
  // A block-scope release does not reach another block, even one acquiring at gpu scope.
  CHECK(Observed(m, x, 0, ScopeLevel::kBlock).c.empty());
  CHECK(Observed(m, x, 0, ScopeLevel::kGpu).c.empty());
  CHECK(Observed(m, x, 1, ScopeLevel::kBlock) == Tick(7, 3));
  // A different space at the same address is a different location.
  CHECK_FALSE(m.Contains(SyncKey{Space::kShared, 0x1000}));
}

TEST_CASE("a gpu release reaches only acquires whose scope includes the releaser") {
  SyncLocationMap<TestClock> m;
  m.BeginLaunch();
  const SyncKey x{Space::kGlobal, 8};
  Publish(m, x, 5, ScopeLevel::kGpu, ReleaseKind::kStore, Tick(1, 5));
  CHECK(Observed(m, x, 999, ScopeLevel::kGpu) == Tick(1, 5));
  CHECK(Observed(m, x, 999, ScopeLevel::kBlock).c.empty());  // acquire scope excludes block 5
  CHECK(Observed(m, x, 4, ScopeLevel::kCluster) == Tick(1, 5));  // cluster 2 = blocks 4, 5
  CHECK(Observed(m, x, 6, ScopeLevel::kCluster).c.empty());
  CHECK(Observed(m, x, 5, ScopeLevel::kBlock) == Tick(1, 5));
  // Observe names the part each clock comes from.
  std::vector<ScopeLevel> parts;
  m.Observe(x, 5, 2, ScopeLevel::kGpu, [&](ScopeLevel p, const TestClock&) { parts.push_back(p); });
  CHECK(parts == std::vector<ScopeLevel>{ScopeLevel::kBlock, ScopeLevel::kCluster, ScopeLevel::kGpu});
}

TEST_CASE("a gpu-scope release store keeps one clock, its block's and cluster's parts standing on it") {
  SyncLocationMap<TestClock> m;
  m.BeginLaunch();
  const SyncKey x{Space::kGlobal, 16};
  Publish(m, x, 4, ScopeLevel::kGpu, ReleaseKind::kStore, Tick(1, 9));
  CHECK(m.ClockCount(x) == 1);
  std::vector<ScopeLevel> parts;
  m.Observe(x, 4, 2, ScopeLevel::kGpu, [&](ScopeLevel p, const TestClock&) { parts.push_back(p); });
  CHECK(parts == std::vector<ScopeLevel>{ScopeLevel::kBlock, ScopeLevel::kCluster, ScopeLevel::kGpu});
  CHECK(Observed(m, x, 4, ScopeLevel::kBlock) == Tick(1, 9));
  CHECK(Observed(m, x, 5, ScopeLevel::kCluster) == Tick(1, 9));
  CHECK(Observed(m, x, 5, ScopeLevel::kBlock).c.empty());
  // A read-modify-write by another block separates the parts again: the
  // origin block's own part keeps only its store's clock.
  Publish(m, x, 5, ScopeLevel::kGpu, ReleaseKind::kReadModifyWrite, Tick(2, 3));
  CHECK(m.ClockCount(x) == 2 + 1 + 1);  // blocks 4 and 5, cluster 2, gpu
  CHECK(Observed(m, x, 4, ScopeLevel::kBlock) == Tick(1, 9));
  TestClock both = Tick(1, 9);
  both.Join(Tick(2, 3));
  CHECK(Observed(m, x, 0, ScopeLevel::kGpu) == both);
  CHECK(Observed(m, x, 4, ScopeLevel::kCluster) == both);
}

TEST_CASE("a release store forgets every earlier release, a read-modify-write joins") {
  SyncLocationMap<TestClock> m;
  m.BeginLaunch();
  const SyncKey x{Space::kShared, uint64_t{5} << 32 | 64};
  for (uint64_t b : {10u, 20u, 30u}) Publish(m, x, b, ScopeLevel::kGpu, ReleaseKind::kReadModifyWrite, Tick(2, b));
  CHECK(m.ClockCount(x) == 3 + 3 + 1);  // by block, by cluster, gpu
  TestClock want = Tick(2, 30);
  CHECK(Observed(m, x, 0, ScopeLevel::kGpu) == want);
  Publish(m, x, 10, ScopeLevel::kBlock, ReleaseKind::kStore, Tick(4, 4));
  CHECK(m.ClockCount(x) == 1);
  CHECK(Observed(m, x, 20, ScopeLevel::kGpu).c.empty());
  m.Overwrite(x);
  CHECK(m.ClockCount(x) == 0);
  CHECK(Observed(m, x, 10, ScopeLevel::kGpu).c.empty());
}

TEST_CASE("the map matches the literal release-list reference on random operation sequences") {
  for (uint64_t blocks : {1u, 2u, 5u}) {
    for (uint32_t seed = 1; seed <= 60; ++seed) {
      std::mt19937 rng(seed * 31 + static_cast<uint32_t>(blocks));
      SyncLocationMap<TestClock> m;
      m.BeginLaunch();
      Reference ref;
      const SyncKey x{Space::kGlobal, 0x40};
      for (int step = 0; step < 40; ++step) {
        const uint64_t b = rng() % blocks;
        const ScopeLevel level = static_cast<ScopeLevel>(rng() % 3);
        const int op = static_cast<int>(rng() % 6);
        TestClock ct = Tick(static_cast<uint32_t>(rng() % 6), 1 + rng() % 50);
        if (rng() % 2) ct.Join(Tick(static_cast<uint32_t>(rng() % 6), 1 + rng() % 50));
        INFO("blocks " << blocks << " seed " << seed << " step " << step);
        if (op <= 1) {
          const bool rmw = op == 1;
          Publish(m, x, b, level, rmw ? ReleaseKind::kReadModifyWrite : ReleaseKind::kStore, ct);
          ref.Publish(b, level, rmw, ct);
        } else if (op == 2) {
          m.Overwrite(x);
          ref.releases.clear();
        } else if (op == 5) {
          // A read-modify-write below gpu scope: the releases it is morally
          // strong with go on, at most at its scope.
          const ScopeLevel rmw_level = static_cast<ScopeLevel>(rng() % 2);
          m.KeepWithinScope(x, b, Reference::ClusterOf(b), rmw_level,
                            [&](uint64_t other) { return Reference::ClusterOf(other) == Reference::ClusterOf(b); });
          ref.KeepWithinScope(b, rmw_level);
        } else {
          REQUIRE(Observed(m, x, b, level) == ref.Acquire(b, level));
        }
      }
      for (uint64_t b = 0; b < blocks; ++b)
        for (int l = 0; l < 3; ++l)
          REQUIRE(Observed(m, x, b, static_cast<ScopeLevel>(l)) == ref.Acquire(b, static_cast<ScopeLevel>(l)));
    }
  }
}

TEST_CASE("sync locations are safe under concurrent releases and counted") {
  MemoryAccounting acct;
  SyncLocationMap<TestClock> m(&acct);
  m.BeginLaunch();
  constexpr int kThreads = 4, kLocations = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kLocations; ++i) {
        SyncKey x{Space::kGlobal, static_cast<uint64_t>(i) * 4};
        Publish(m, x, static_cast<uint64_t>(t), ScopeLevel::kGpu, ReleaseKind::kReadModifyWrite,
                Tick(static_cast<uint32_t>(t), i + 1));
        Publish(m, SyncKey{Space::kGlobal, 1}, static_cast<uint64_t>(t), ScopeLevel::kGpu,
                ReleaseKind::kReadModifyWrite, Tick(static_cast<uint32_t>(t), i + 1));
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(m.size() == kLocations + 1);
  CHECK(acct.Events(ShadowEvent::kSyncLocations) == kLocations + 1);
  for (int i = 0; i < kLocations; ++i) {
    TestClock all = Observed(m, SyncKey{Space::kGlobal, static_cast<uint64_t>(i) * 4}, 63, ScopeLevel::kGpu);
    for (int t = 0; t < kThreads; ++t) CHECK(all.c[static_cast<uint32_t>(t)] == static_cast<uint64_t>(i + 1));
  }
  TestClock hot = Observed(m, SyncKey{Space::kGlobal, 1}, 17, ScopeLevel::kGpu);
  for (int t = 0; t < kThreads; ++t) CHECK(hot.c[static_cast<uint32_t>(t)] == kLocations);
  CHECK(acct.Bytes(MemoryCategory::kSyncLocations) > 0);
  m.EndLaunch();
  CHECK(m.size() == 0);
  CHECK(acct.Bytes(MemoryCategory::kSyncLocations) == 0);
  CHECK(acct.Events(ShadowEvent::kSyncLocations) == 0);
}
