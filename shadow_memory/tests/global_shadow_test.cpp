#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include <unistd.h>

#include "shadow_memory/global_shadow.h"

using namespace barracuda::shadow;

TEST_CASE("pages are created on demand and found afterwards") {
  MemoryAccounting acct;
  GlobalShadow g(&acct);
  const uint64_t addr = 0x7f12'3456'7890ull;
  CHECK_FALSE(g.Find(addr).valid());
  CHECK(g.live_pages() == 0);
  PageView v = g.View(addr);
  REQUIRE(v.valid());
  CHECK(v.base() == (addr & ~(kPageBytes - 1)));
  CHECK(v.tracked());
  CHECK(g.live_pages() == 1);
  CHECK(g.Find(addr).valid());
  CHECK(acct.Events(ShadowEvent::kGlobalPagesMapped) == 1);

  Cell& c = v.CellAt(addr);
  CHECK(c.IsPristine());
  c.SetWrite({1, 2}, 3, false);
  CHECK(g.Find(addr).CellAt(addr).write_epoch() == Epoch{1, 2});
  // One granule cell per 4 bytes, and 4 byte cells per granule for when they differ.
  CHECK(&g.View(addr + 3).CellAt(addr + 3) == &c);
  CHECK(&g.View(addr + 4).CellAt(addr + 4) == &c + 1);
  CHECK(v.ByteCells(c) + 4 == v.ByteCells(*(&c + 1)));
  CHECK(v.ByteCells(c)->IsPristine());
  CHECK(v.AddressOf(*(&c + 1)) == addr + 4);
  CHECK(g.CellFor(addr) == &c);
  CHECK(g.live_pages() == 1);
  g.View(addr + kPageBytes);
  CHECK(g.live_pages() == 2);
}

TEST_CASE("Contains and Cells respect page bounds") {
  MemoryAccounting acct;
  GlobalShadow g(&acct);
  const uint64_t base = 5 * kPageBytes;
  PageView v = g.View(base + 100);
  CHECK(v.Contains(base));
  CHECK(v.Contains(base + kPageBytes - 1));
  CHECK_FALSE(v.Contains(base + kPageBytes));
  CHECK_FALSE(v.Contains(base - 1));
  CHECK(v.Contains(base + kPageBytes - 16, 16));
  CHECK_FALSE(v.Contains(base + kPageBytes - 15, 16));
  std::span<Cell> s = v.Cells(base + 64, 16);
  CHECK(s.size() == 16 / kGranuleBytes);
  CHECK(s.data() == &v.CellAt(base + 64));
  CHECK_FALSE(PageView().Contains(0));
}

TEST_CASE("the whole 57-bit address space is supported, and nothing beyond") {
  MemoryAccounting acct;
  GlobalShadow g(&acct);
  for (uint64_t addr : {uint64_t{0}, uint64_t{1} << 39, kMaxAddress, kMaxAddress - kPageBytes,
                        uint64_t{0x00ff'ffff'ffff'0000}}) {
    PageView v = g.View(addr);
    REQUIRE(v.valid());
    CHECK(v.Contains(addr));
    v.CellAt(addr).SetRead({1, 1}, 0);
  }
  CHECK_FALSE(g.View(kMaxAddress + 1).valid());
  CHECK_FALSE(g.View(~uint64_t{0}).valid());
  CHECK(g.CellFor(uint64_t{1} << 60) == nullptr);
  // Distinct addresses that alias modulo 2^57 must not share cells.
  CHECK(&g.View(0).CellAt(0) != &g.View(kMaxAddress).CellAt(kMaxAddress));
}

TEST_CASE("concurrent page insertion yields one page per MiB") {
  MemoryAccounting acct;
  GlobalShadow g(&acct);
  constexpr int kThreads = 8, kPages = 64;
  // Pages spread over several leaves and roots, visited in a different order
  // by each thread, so insertions of pages and leaves race.
  std::vector<uint64_t> bases;
  for (int p = 0; p < kPages; ++p) {
    bases.push_back((static_cast<uint64_t>(p % 4) << 45) + static_cast<uint64_t>(p) * 3 * kPageBytes);
  }
  std::vector<std::vector<Cell*>> seen(kThreads, std::vector<Cell*>(kPages));
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<int> order(kPages);
      for (int p = 0; p < kPages; ++p) order[p] = p;
      std::shuffle(order.begin(), order.end(), std::mt19937(t));
      ready.fetch_add(1);
      while (ready.load() < kThreads) {
      }
      for (int p : order) {
        uint64_t addr = bases[p] + 128 * t;
        Cell& c = g.View(addr).CellAt(addr);
        CellLockGuard lock(c);
        c.SetWrite({static_cast<Tid>(t), 1}, static_cast<SiteId>(p), false);
        seen[t][p] = &c - 128 / kGranuleBytes * t;  // the page's cell for bases[p]
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(g.live_pages() == kPages);
  CHECK(acct.Events(ShadowEvent::kGlobalPagesMapped) == kPages);
  for (int p = 0; p < kPages; ++p) {
    for (int t = 1; t < kThreads; ++t) CHECK(seen[t][p] == seen[0][p]);
    for (int t = 0; t < kThreads; ++t) {
      uint64_t addr = bases[p] + 128 * t;
      Cell& c = g.Find(addr).CellAt(addr);  // every write survived (none went to a lost page)
      CHECK(c.write_epoch() == Epoch{static_cast<Tid>(t), 1});
      CHECK(c.write_site() == static_cast<SiteId>(p));
    }
  }
}

TEST_CASE("touched bytes are counted per 4 KiB of cells and match mincore") {
  MemoryAccounting acct;
  GlobalShadow g(&acct);
  const uint64_t base = 77 * kPageBytes;
  PageView v = g.View(base);
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 0);  // mapping alone costs nothing
  CHECK(g.ResidentCellBytes() == 0);
  v.CellAt(base).SetWrite({1, 1}, 0, false);
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 4096);
  for (uint64_t a = base; a < base + 128; a += 4) {  // one coalesced warp: same 4 KiB (512 B)
    for (Cell& c : v.Cells(a, 4)) c.SetRead({2, 1}, 0);
  }
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 4096);
  v.CellAt(base + 512).SetRead({1, 1}, 0);
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 8192);
  // Byte cells (of split granules) are counted alike.
  for (int i = 0; i < 4; ++i) v.ByteCells(v.CellAt(base + 4 * i))[i].SetRead({1, 1}, 0);
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 3 * 4096);
  for (Cell* b = v.ByteCells(v.CellAt(base)); b != v.ByteCells(v.CellAt(base)) + 16; ++b) *b = Cell();
  for (int i = 0; i < 10; ++i) v.CellAt(base + 100'000 + i * 1000).SetRead({1, 1}, 0);
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 13 * 4096);
  // Every cell handed out was written, so the OS agrees exactly (4 KiB pages,
  // no huge pages on shadow mappings).
  if (sysconf(_SC_PAGESIZE) == 4096) CHECK(g.ResidentCellBytes() == 13 * 4096);
  CHECK(acct.Bytes(MemoryCategory::kPageTable) > 0);
}

TEST_CASE("Reset unmaps every page and frees its accounting") {
  MemoryAccounting acct;
  GlobalShadow g(&acct);
  for (int p = 0; p < 10; ++p) {
    uint64_t a = static_cast<uint64_t>(p) * 7 * kPageBytes;
    g.View(a).CellAt(a).SetWrite({1, 1}, 0, false);
  }
  CHECK(g.live_pages() == 10);
  const uint64_t table = acct.Bytes(MemoryCategory::kPageTable);
  g.Reset();
  CHECK(g.live_pages() == 0);
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 0);
  CHECK(acct.Bytes(MemoryCategory::kPageTable) == table);  // descriptors kept as spares
  CHECK(g.ResidentCellBytes() == 0);
  CHECK_FALSE(g.Find(0).valid());
  // The next launch reuses a released mapping; its cells read as zeros again
  // (cell 0 of every page above was written).
  CHECK(g.View(0).CellAt(0).IsPristine());
  CHECK(acct.Events(ShadowEvent::kGlobalPagesReused) == 1);
  CHECK(acct.Events(ShadowEvent::kGlobalPagesMapped) == 11);
  for (uint64_t a = 0; a < kPageBytes; a += 4096) CHECK(g.Find(0).CellAt(a).IsPristine());
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 256 * 4096);
}

TEST_CASE("at most kMaxSparePages released mappings are kept") {
  MemoryAccounting acct;
  GlobalShadow g(&acct);
  constexpr uint64_t kPages = GlobalShadow::kMaxSparePages + 36;
  for (uint64_t p = 0; p < kPages; ++p) g.View(p * kPageBytes).CellAt(p * kPageBytes);
  const uint64_t table_before = acct.Bytes(MemoryCategory::kPageTable);
  g.Reset();
  CHECK(acct.Bytes(MemoryCategory::kPageTable) == table_before - 36 * sizeof(GlobalPage));
}

TEST_CASE("Reset zeroes touched regions in place and keeps them as resident spares") {
  MemoryAccounting acct;  // unlimited: the spare budget is kMaxSpareResidentBytes
  GlobalShadow g(&acct);
  const uint64_t base = 5 * kPageBytes;
  PageView v = g.View(base);
  for (uint64_t a = base; a < base + 64 * 512; a += 512) v.CellAt(a).SetWrite({1, 1}, 3, false);
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 64 * 4096);
  g.Reset();
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 0);
  CHECK(acct.Bytes(MemoryCategory::kSpareCells) == 64 * 4096);
  // The next launch gets the same mapping back, zeroed, still resident: its
  // first touches move bytes from spare to live without new memory.
  PageView w = g.View(9 * kPageBytes);
  CHECK(acct.Events(ShadowEvent::kGlobalPagesReused) == 1);
  for (uint64_t a = 0; a < 64 * 512; a += 4) REQUIRE(w.CellAt(9 * kPageBytes + a).IsPristine());
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 64 * 4096);
  CHECK(acct.Bytes(MemoryCategory::kSpareCells) == 0);
  if (sysconf(_SC_PAGESIZE) == 4096) CHECK(g.ResidentCellBytes() == 64 * 4096);
  w.CellAt(9 * kPageBytes + 1).SetRead({2, 2}, 4);
  g.Reset();
  CHECK(acct.Bytes(MemoryCategory::kSpareCells) == 64 * 4096);
  CHECK(g.View(0).CellAt(1).IsPristine());
}

TEST_CASE("resident spares are given back before a page would be mapped coarse") {
  MemoryAccounting acct;
  GlobalShadow g(&acct);
  PageView v = g.View(0);
  for (uint64_t a = 0; a < 256 * 512; a += 512) v.CellAt(a).SetWrite({1, 1}, 3, false);
  g.Reset();
  const uint64_t spare = acct.Bytes(MemoryCategory::kSpareCells);
  REQUIRE(spare == 256 * 4096);
  // A limit the spares alone exceed: the next page is full-grained, and the
  // spare memory is gone instead.
  acct.set_limit(acct.Total() - spare / 2);
  REQUIRE(acct.OverLimit());
  CHECK(g.View(0).tracked());
  CHECK(acct.Bytes(MemoryCategory::kSpareCells) == 0);
  CHECK(g.Find(0).CellAt(0).IsPristine());
  // With a limit, at most an eighth of it stays resident after a Reset.
  acct.set_limit(acct.Total() + 64 * 4096);
  PageView w = g.View(0);
  for (uint64_t a = 0; a < 256 * 512; a += 512) w.CellAt(a).SetWrite({1, 1}, 3, false);
  g.Reset();
  CHECK(acct.Bytes(MemoryCategory::kSpareCells) == 0);  // 1 MiB touched > limit / 8
}
