#include <catch2/catch.hpp>

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

TEST_CASE("over the limit, new global pages degrade to coarse cells and say so") {
  ShadowMemory shadow({.memory_limit_bytes = 1, .degraded_bytes_per_cell = 8});
  // The limit counts everything, including the clock pool's fixed part.
  shadow.accounting().set_limit(shadow.accounting().Total() + 256 * 1024);
  shadow.BeginLaunch(1, 0);
  GlobalShadow& g = shadow.global();
  // Fill pages one 4 KiB region at a time until the limit is passed.
  uint64_t page = 0;
  while (!shadow.accounting().OverLimit()) {
    uint64_t base = (page++) * kPageBytes;
    PageView v = g.View(base);
    REQUIRE_FALSE(v.degraded());
    for (uint64_t a = base; a < base + kPageBytes && !shadow.accounting().OverLimit(); a += 128) {
      v.CellAt(a).SetWrite({1, 1}, 0, false);
    }
  }
  CHECK_FALSE(shadow.Stats().degraded());
  // Pages that already exist keep full granularity.
  CHECK_FALSE(g.View(0).degraded());

  const uint64_t coarse_base = 1000 * kPageBytes;
  PageView v = g.View(coarse_base);
  REQUIRE(v.valid());
  CHECK(v.degraded());
  CHECK(v.bytes_per_cell() == 8);
  ShadowStats s = shadow.Stats();
  CHECK(s.degraded());
  CHECK(s.Events(ShadowEvent::kDegradedPages) == 1);

  // A coarse cell merges its 8 bytes; a lane's 4-byte access maps to one cell,
  // a 16-byte access to two, and the page still spans 1 MiB.
  CHECK(&v.CellAt(coarse_base + 3) == &v.CellAt(coarse_base + 7));
  CHECK(&v.CellAt(coarse_base + 8) == &v.CellAt(coarse_base) + 1);
  CHECK(v.Cells(coarse_base + 4, 4).size() == 1);
  CHECK(v.Cells(coarse_base + 16, 16).size() == 2);
  CHECK(v.Contains(coarse_base + kPageBytes - 1));
  Cell& last = v.CellAt(coarse_base + kPageBytes - 1);
  last.SetWrite({2, 3}, 4, true);
  CHECK(g.Find(coarse_base + kPageBytes - 8).CellAt(coarse_base + kPageBytes - 8).write_epoch() ==
        Epoch{2, 3});

  // A coarse page costs 8x less: the whole of it, touched, stays under 4 MiB.
  const uint64_t before = shadow.accounting().Bytes(MemoryCategory::kGlobalCells);
  for (uint64_t a = coarse_base; a < coarse_base + kPageBytes; a += 8) v.CellAt(a).SetRead({1, 1}, 0);
  CHECK(shadow.accounting().Bytes(MemoryCategory::kGlobalCells) - before <= 4 * 1024 * 1024);

  // The next launch starts clean but the limit still applies while over it.
  shadow.EndLaunch();
  CHECK_FALSE(shadow.accounting().OverLimit());
  shadow.BeginLaunch(1, 0);
  CHECK_FALSE(shadow.global().View(coarse_base).degraded());
  CHECK(shadow.Stats().Events(ShadowEvent::kDegradedPages) == 1);  // history is kept
}

TEST_CASE("the degraded granularity is configurable and clamped to a power of two") {
  for (auto [asked, got] : {std::pair<uint32_t, uint32_t>{4, 8}, {8, 8}, {16, 16}, {24, 16}, {1, 8}, {1000, 256}}) {
    ShadowMemory shadow({.memory_limit_bytes = 1, .degraded_bytes_per_cell = asked});
    shadow.shared();  // nothing allocated yet, but the pool's chunk table is over 1 byte
    REQUIRE(shadow.accounting().OverLimit());
    CHECK(shadow.global().View(0).bytes_per_cell() == got);
  }
}

TEST_CASE("Stats gathers every category of one ShadowMemory") {
  ShadowMemory shadow;
  shadow.BeginLaunch(2, 64);
  shadow.global().View(0).CellAt(0).SetWrite({1, 1}, 0, false);
  Cell& sc = shadow.shared().Window(1)[3];
  AddReader(sc, shadow.vcs(), {1, 1}, 0);
  AddReader(sc, shadow.vcs(), {2, 1}, 0);
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
