#include <catch2/catch.hpp>

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

// The rules of host_detector/SEMANTICS.md, one explicit clock per block.
struct Reference {
  std::vector<TestClock> s;
  explicit Reference(size_t blocks) : s(blocks) {}
  void Release(size_t b, bool global, bool rmw, const TestClock& ct) {
    for (size_t i = 0; i < s.size(); ++i) {
      if (!global && i != b) continue;
      if (rmw) {
        s[i].Join(ct);
      } else {
        s[i] = ct;
      }
    }
  }
  TestClock Acquire(size_t b, bool global) const {
    TestClock r;
    for (size_t i = 0; i < s.size(); ++i) {
      if (global || i == b) r.Join(s[i]);
    }
    return r;
  }
};

}  // namespace

TEST_CASE("block-scope release and acquire stay within the block") {
  SyncLocationMap<TestClock> m;
  m.BeginLaunch(4);
  const SyncKey x{Space::kGlobal, 0x1000};
  TestClock got;
  CHECK_FALSE(m.AcquireBlock(x, 0, [&](const TestClock& c) { got.Join(c); }));
  CHECK_FALSE(m.Contains(x));
  m.ReleaseBlock(x, 1, ReleaseKind::kStore, [](TestClock& s) { s = Tick(7, 3); });
  CHECK(m.Contains(x));
  CHECK_FALSE(m.AcquireBlock(x, 0, [&](const TestClock& c) { got.Join(c); }));  // relBlk b1, acqBlk b0
  CHECK(got.c.empty());
  CHECK(m.AcquireBlock(x, 1, [&](const TestClock& c) { got.Join(c); }));
  CHECK(got == Tick(7, 3));
  // A different space at the same address is a different location.
  CHECK_FALSE(m.Contains(SyncKey{Space::kShared, 0x1000}));
}

TEST_CASE("a global release reaches every block and a global acquire sees every block") {
  SyncLocationMap<TestClock> m;
  m.BeginLaunch(1000);
  const SyncKey x{Space::kGlobal, 8};
  m.ReleaseGlobal(x, ReleaseKind::kStore, [](TestClock& s) { s = Tick(1, 5); });
  for (uint64_t b : {0u, 1u, 999u}) {
    TestClock got;
    CHECK(m.AcquireBlock(x, b, [&](const TestClock& c) { got.Join(c); }));
    CHECK(got == Tick(1, 5));
  }
  m.ReleaseBlock(x, 3, ReleaseKind::kStore, [](TestClock& s) { s = Tick(2, 9); });
  TestClock all;
  m.AcquireGlobal(x, [&](const TestClock& c) { all.Join(c); });
  TestClock want = Tick(1, 5);
  want.Join(Tick(2, 9));
  CHECK(all == want);
}

TEST_CASE("global operations cost O(blocks with their own clock), not O(grid)") {
  SyncLocationMap<TestClock> m;
  m.BeginLaunch(uint64_t{1} << 32);
  const SyncKey x{Space::kShared, uint64_t{5} << 32 | 64};
  m.ReleaseGlobal(x, ReleaseKind::kStore, [](TestClock& s) { s = Tick(1, 1); });
  CHECK(m.OwnClockCount(x) == 0);
  for (uint64_t b : {10u, 20u, 30u}) {
    m.ReleaseBlock(x, b, ReleaseKind::kReadModifyWrite, [&](TestClock& s) { s.Join(Tick(2, b)); });
  }
  CHECK(m.OwnClockCount(x) == 3);
  int visits = 0;
  m.ReleaseGlobal(x, ReleaseKind::kReadModifyWrite, [&](TestClock& s) {
    ++visits;
    s.Join(Tick(3, 1));
  });
  CHECK(visits == 4);  // base + 3 own clocks
  visits = 0;
  m.AcquireGlobal(x, [&](const TestClock&) { ++visits; });
  CHECK(visits == 4);
  m.ReleaseGlobal(x, ReleaseKind::kStore, [](TestClock& s) { s = Tick(4, 4); });
  CHECK(m.OwnClockCount(x) == 0);
  // The rmw release kept block 20's own history joined with the global one.
}

TEST_CASE("the map matches the per-block reference on random operation sequences") {
  for (size_t blocks : {1u, 2u, 5u}) {
    for (uint32_t seed = 1; seed <= 60; ++seed) {
      std::mt19937 rng(seed * 31 + static_cast<uint32_t>(blocks));
      SyncLocationMap<TestClock> m;
      m.BeginLaunch(blocks);
      Reference ref(blocks);
      const SyncKey x{Space::kGlobal, 0x40};
      for (int step = 0; step < 40; ++step) {
        size_t b = rng() % blocks;
        bool global = rng() % 3 == 0;
        int op = static_cast<int>(rng() % 4);
        TestClock ct = Tick(static_cast<uint32_t>(rng() % 6), 1 + rng() % 50);
        if (rng() % 2) ct.Join(Tick(static_cast<uint32_t>(rng() % 6), 1 + rng() % 50));
        if (op == 0 || op == 1) {
          bool rmw = op == 1;
          ReleaseKind kind = rmw ? ReleaseKind::kReadModifyWrite : ReleaseKind::kStore;
          auto update = [&](TestClock& s) {
            if (rmw) {
              s.Join(ct);
            } else {
              s = ct;
            }
          };
          if (global) {
            m.ReleaseGlobal(x, kind, update);
          } else {
            m.ReleaseBlock(x, b, kind, update);
          }
          ref.Release(b, global, rmw, ct);
        } else {
          TestClock got;
          auto join = [&](const TestClock& c) { got.Join(c); };
          if (global) {
            m.AcquireGlobal(x, join);
          } else {
            m.AcquireBlock(x, b, join);
          }
          INFO("blocks " << blocks << " seed " << seed << " step " << step);
          REQUIRE(got == ref.Acquire(b, global));
        }
      }
      for (size_t b = 0; b < blocks; ++b) {
        TestClock got;
        m.AcquireBlock(x, b, [&](const TestClock& c) { got.Join(c); });
        REQUIRE(got == ref.Acquire(b, false));
      }
    }
  }
}

TEST_CASE("sync locations are safe under concurrent releases and counted") {
  MemoryAccounting acct;
  SyncLocationMap<TestClock> m(&acct);
  m.BeginLaunch(64);
  constexpr int kThreads = 4, kLocations = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kLocations; ++i) {
        SyncKey x{Space::kGlobal, static_cast<uint64_t>(i) * 4};
        m.ReleaseBlock(x, static_cast<uint64_t>(t), ReleaseKind::kReadModifyWrite,
                       [&](TestClock& s) { s.Join(Tick(static_cast<uint32_t>(t), i + 1)); });
        m.ReleaseGlobal(SyncKey{Space::kGlobal, 1}, ReleaseKind::kReadModifyWrite,
                        [&](TestClock& s) { s.Join(Tick(static_cast<uint32_t>(t), i + 1)); });
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(m.size() == kLocations + 1);
  CHECK(acct.Events(ShadowEvent::kSyncLocations) == kLocations + 1);
  for (int i = 0; i < kLocations; ++i) {
    TestClock all;
    m.AcquireGlobal(SyncKey{Space::kGlobal, static_cast<uint64_t>(i) * 4},
                    [&](const TestClock& c) { all.Join(c); });
    for (int t = 0; t < kThreads; ++t) CHECK(all.c[static_cast<uint32_t>(t)] == static_cast<uint64_t>(i + 1));
  }
  TestClock hot;
  m.AcquireBlock(SyncKey{Space::kGlobal, 1}, 17, [&](const TestClock& c) { hot.Join(c); });
  for (int t = 0; t < kThreads; ++t) CHECK(hot.c[static_cast<uint32_t>(t)] == kLocations);
  CHECK(acct.Bytes(MemoryCategory::kSyncLocations) > 0);
  m.EndLaunch();
  CHECK(m.size() == 0);
  CHECK(acct.Bytes(MemoryCategory::kSyncLocations) == 0);
  CHECK(acct.Events(ShadowEvent::kSyncLocations) == 0);
}
