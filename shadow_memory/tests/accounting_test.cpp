#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "shadow_memory/shadow_memory.h"

using namespace barracuda::shadow;

TEST_CASE("accounting adds up categories and tracks the peak") {
  MemoryAccounting acct(1000);
  acct.Add(MemoryCategory::kGlobalCells, 600);
  acct.Add(MemoryCategory::kSyncLocations, 300);
  CHECK(acct.Total() == 900);
  CHECK_FALSE(acct.OverLimit());
  acct.Add(MemoryCategory::kVectorClocks, 100);
  CHECK(acct.OverLimit());
  acct.Add(MemoryCategory::kGlobalCells, -600);
  CHECK_FALSE(acct.OverLimit());
  ShadowStats s;
  acct.Snapshot(&s);
  CHECK(s.total_bytes == 400);
  CHECK(s.peak_total_bytes == 1000);
  CHECK(s.limit_bytes == 1000);
  CHECK(s.Bytes(MemoryCategory::kSyncLocations) == 300);
  CHECK_FALSE(s.degraded());
  CHECK(std::string(MemoryCategoryName(MemoryCategory::kGlobalCells)) == "global cells");
  MemoryAccounting unlimited;
  unlimited.Add(MemoryCategory::kGlobalCells, int64_t{1} << 50);
  CHECK_FALSE(unlimited.OverLimit());
}

TEST_CASE("over the limit, new global pages are untracked and clocks do not grow, and say so") {
  ShadowMemory shadow({.memory_limit_bytes = 1});
  // The limit counts everything, including the clock pool's fixed part.
  shadow.accounting().set_limit(shadow.accounting().Total() + 256 * 1024);
  shadow.BeginLaunch(1, 0);
  GlobalShadow& g = shadow.global();
  // A read VC made while under the limit.
  const Cell hot = g.View(0).CellAt(0);
  AddReader(hot, shadow.vcs(), {1, 1}, 0);
  AddReader(hot, shadow.vcs(), {2, 2}, 0);  // another clock: a read VC
  REQUIRE(hot.read_shared());
  // Fill pages one 4 KiB region at a time until the limit is passed.
  uint64_t page = 1;
  while (!shadow.accounting().OverLimit()) {
    uint64_t base = (page++) * kPageBytes;
    PageView v = g.View(base);
    REQUIRE(v.tracked());
    for (uint64_t a = base; a < base + kPageBytes && !shadow.accounting().OverLimit(); a += 128) {
      v.CellAt(a).SetWrite({1, 1}, 0, false);
    }
  }
  CHECK_FALSE(shadow.Stats().degraded());
  // Pages that already exist stay tracked.
  CHECK(g.View(0).tracked());

  const uint64_t untracked_base = 1000 * kPageBytes;
  PageView v = g.View(untracked_base);
  REQUIRE(v.valid());
  CHECK_FALSE(v.tracked());
  CHECK(v.Contains(untracked_base + kPageBytes - 1));  // one lookup per record still
  CHECK_FALSE(g.CellFor(untracked_base));
  CHECK(g.Find(untracked_base + 5).base() == untracked_base);  // in the table: no second creation
  ShadowStats s = shadow.Stats();
  CHECK(s.degraded());
  CHECK(s.Events(ShadowEvent::kUntrackedPages) == 1);
  CHECK(s.Events(ShadowEvent::kGlobalPagesMapped) == page);
  CHECK(shadow.accounting().Bytes(MemoryCategory::kGlobalCells) <= 256 * 1024 + 4096);

  // Clocks: no new one, and a live one takes no new thread (an existing
  // thread's entry still advances); the cell then keeps the newest epoch.
  const Cell c = g.View(0).CellAt(64);
  AddReader(c, shadow.vcs(), {1, 2}, 7);
  AddReader(c, shadow.vcs(), {2, 3}, 8);
  CHECK_FALSE(c.read_shared());
  CHECK(c.read_epoch() == Epoch{2, 3});
  CHECK(c.read_site() == 8);
  AddReader(hot, shadow.vcs(), {3, 1}, 0);
  AddReader(hot, shadow.vcs(), {2, 5}, 0);
  std::map<Tid, Clock> readers;
  ForEachReader(hot, shadow.vcs(), [&](Tid t, const VcEntry& e) { readers[t] = e.clock; });
  CHECK(readers == std::map<Tid, Clock>{{1, 1}, {2, 5}});
  s = shadow.Stats();
  CHECK(s.Events(ShadowEvent::kVcAllocFailures) == 1);
  CHECK(s.Events(ShadowEvent::kVcEntriesRefused) == 1);

  // The next launch starts clean; the history is kept.
  shadow.EndLaunch();
  CHECK_FALSE(shadow.accounting().OverLimit());
  shadow.BeginLaunch(1, 0);
  CHECK(shadow.global().View(untracked_base).tracked());
  CHECK(shadow.Stats().Events(ShadowEvent::kUntrackedPages) == 1);
}

TEST_CASE("Stats gathers every category of one ShadowMemory") {
  ShadowMemory shadow;
  shadow.BeginLaunch(2, 64);
  shadow.global().View(0).CellAt(0, Touch::kWrite).SetWrite({1, 1}, 0, false);
  const Cell sc = shadow.shared().Window(1)[3];
  AddReader(sc, shadow.vcs(), {1, 1}, 0);
  AddReader(sc, shadow.vcs(), {2, 2}, 0);  // another clock: a read VC
  ShadowStats s = shadow.Stats();
  CHECK(s.Bytes(MemoryCategory::kGlobalCells) == 4096);
  CHECK(s.Bytes(MemoryCategory::kPageTable) > 0);
  CHECK(s.Bytes(MemoryCategory::kSharedCells) > 0);
  CHECK(s.Bytes(MemoryCategory::kVectorClocks) > 0);
  CHECK(s.live_global_pages == 1);
  CHECK(s.live_vcs == 1);
  uint64_t sum = 0;
  for (uint64_t b : s.bytes) sum += b;
  CHECK(s.total_bytes == sum);
  CHECK(s.limit_bytes == 0);
}
