#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include <unistd.h>

#include "shadow_memory/cell_vc.h"
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

  const Cell c = v.CellAt(addr);
  CHECK(c.IsPristine());
  c.SetWrite({1, 2}, 3, false);
  CHECK(g.Find(addr).CellAt(addr).write_epoch() == Epoch{1, 2});
  // One granule cell per 4 bytes, and 4 byte cells per granule for when they differ.
  CHECK(g.View(addr + 3).CellAt(addr + 3) == c);
  const Cell next = g.View(addr + 4).CellAt(addr + 4);
  CHECK(next.write_half() == c.write_half() + 1);
  CHECK(next.read_half() == c.read_half() + 1);
  CHECK(v.ByteCells(c).index() + 4 == v.ByteCells(next).index());
  CHECK(v.ByteCells(c).size() == 4);
  CHECK(v.ByteCells(c)[3].write_half() + 1 == v.ByteCells(next)[0].write_half());
  CHECK(v.ByteCells(c).front().IsPristine());
  CHECK(v.AddressOf(next) == addr + 4);
  CHECK(g.CellFor(addr) == c);
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
  const CellSpan s = v.Cells(base + 64, 16);
  CHECK(s.size() == 16 / kGranuleBytes);
  CHECK(s.front() == v.CellAt(base + 64));
  CHECK(s.index() == 64 / kGranuleBytes);
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
  CHECK_FALSE(g.CellFor(uint64_t{1} << 60));
  // Distinct addresses that alias modulo 2^57 must not share cells.
  CHECK_FALSE(g.View(0).CellAt(0) == g.View(kMaxAddress).CellAt(kMaxAddress));
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
  std::vector<std::vector<CellWriteHalf*>> seen(kThreads, std::vector<CellWriteHalf*>(kPages));
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
        const CellSpan cells = g.View(addr).Cells(addr, 1);
        CellSpanLock lock(cells, true);
        cells.front().SetWrite({static_cast<Tid>(t), 1}, static_cast<SiteId>(p), false);
        seen[t][p] = cells.front().write_half() - 128 / kGranuleBytes * t;  // the page's cell for bases[p]
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
      const Cell c = g.Find(addr).CellAt(addr);  // every write survived (none went to a lost page)
      CHECK(c.write_epoch() == Epoch{static_cast<Tid>(t), 1});
      CHECK(c.write_site() == static_cast<SiteId>(p));
    }
  }
}

TEST_CASE("touched bytes are counted per 4 KiB of the halves stored and match mincore") {
  MemoryAccounting acct;
  GlobalShadow g(&acct);
  const uint64_t base = 77 * kPageBytes;
  PageView v = g.View(base);
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 0);  // mapping alone costs nothing
  CHECK(g.ResidentCellBytes() == 0);
  v.CellAt(base, Touch::kWrite).SetWrite({1, 1}, 0, false);  // a write: write halves only
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 4096);
  for (uint64_t a = base; a < base + 128; a += 4) {  // one coalesced warp of reads: one 4 KiB (1 KiB)
    for (const Cell c : v.Cells(a, 4, Touch::kRead)) c.SetRead({2, 1}, 0);
  }
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 8192);
  v.CellAt(base + 1020, Touch::kRead).SetRead({1, 1}, 0);
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 8192);
  v.CellAt(base + 1024, Touch::kRead).SetRead({1, 1}, 0);
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 3 * 4096);
  // Byte cells (of split granules) are counted alike, both halves.
  for (int i = 0; i < 4; ++i) {
    const Cell b = v.ByteCells(v.CellAt(base + 4 * i, Touch::kNone))[i];
    b.SetRead({1, 1}, 0);
    b.SetWrite({1, 1}, 0, false);
  }
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 5 * 4096);
  for (int i = 0; i < 10; ++i) {
    const Cell c = v.CellAt(base + 100'000 + i * 1024);  // both halves
    c.SetRead({1, 1}, 0);
    c.SetWrite({1, 1}, 0, false);
  }
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 25 * 4096);
  // Every half counted was written, so the OS agrees exactly (4 KiB pages,
  // no huge pages on shadow mappings).
  if (sysconf(_SC_PAGESIZE) == 4096) CHECK(g.ResidentCellBytes() == 25 * 4096);
  CHECK(acct.Bytes(MemoryCategory::kPageTable) > 0);
}

TEST_CASE("splitting a granule that was only read stores and counts only the byte cells read halves") {
  // A byte array only read (a histogram's input): the split copies the read
  // half; the byte cells' write halves stay untouched, and the OS agrees.
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  GlobalShadow g(&acct);
  const uint64_t base = 91 * kPageBytes;
  PageView v = g.View(base);
  const Cell granule = v.CellAt(base, Touch::kRead);
  granule.SetRead({7, 3}, 5);
  const uint64_t before = acct.Bytes(MemoryCategory::kGlobalCells);
  CHECK(before == 4096);
  v.CellAt(base, Touch::kBoth);  // the split flag goes into the granule's write half
  const CellSpan bytes = v.ByteCells(granule, Touch::kRead);
  SplitGranule(granule, bytes, pool);
  for (const Cell b : bytes) {
    CHECK(b.read_epoch() == Epoch{7, 3});
    CHECK(b.write_epoch().IsBottom());
  }
  CHECK(granule.split());
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 3 * 4096);  // granule write half, byte read half
  // (mincore cannot confirm it: the split reads the byte write halves, which
  // maps the shared zero page there: no memory, but "resident". The daemon's
  // resident memory shows it: histogram 4M, 177 -> 113 MiB.)
}

TEST_CASE("Reset unmaps every page and frees its accounting") {
  MemoryAccounting acct;
  GlobalShadow g(&acct);
  for (int p = 0; p < 10; ++p) {
    uint64_t a = static_cast<uint64_t>(p) * 7 * kPageBytes;
    g.View(a).CellAt(a, Touch::kWrite).SetWrite({1, 1}, 0, false);
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
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 2 * 256 * 4096);  // both halves of every 4 KiB device bytes
}

TEST_CASE("at most kMaxSparePages released mappings are kept") {
  MemoryAccounting acct;
  GlobalShadow g(&acct);
  constexpr uint64_t kPages = GlobalShadow::kMaxSparePages + 36;
  for (uint64_t p = 0; p < kPages; ++p) g.View(p * kPageBytes).CellAt(p * kPageBytes);
  const uint64_t table_before = acct.Bytes(MemoryCategory::kPageTable);
  g.Reset();
  CHECK(acct.Bytes(MemoryCategory::kPageTable) ==
        table_before - 36 * (sizeof(GlobalPage) + (kPageBytes / kGranuleBytes) / kCellsPerLock));
}

TEST_CASE("Reset zeroes touched regions in place and keeps them as resident spares") {
  MemoryAccounting acct;  // unlimited: the spare budget is kMaxSpareResidentBytes
  GlobalShadow g(&acct);
  const uint64_t base = 5 * kPageBytes;
  PageView v = g.View(base);
  for (uint64_t a = base; a < base + 64 * 1024; a += 1024) v.CellAt(a, Touch::kWrite).SetWrite({1, 1}, 3, false);
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 64 * 4096);
  g.Reset();
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 0);
  CHECK(acct.Bytes(MemoryCategory::kSpareCells) == 64 * 4096);
  // The next launch gets the same mapping back, zeroed, still resident: its
  // first touches move bytes from spare to live without new memory.
  PageView w = g.View(9 * kPageBytes);
  CHECK(acct.Events(ShadowEvent::kGlobalPagesReused) == 1);
  for (uint64_t a = 0; a < 64 * 1024; a += 4) {
    const Cell c = w.CellAt(9 * kPageBytes + a, Touch::kWrite);
    REQUIRE((c.write_epoch().IsBottom() && c.write_site() == 0 && c.write_half()->flags == 0));  // the write half alone
  }
  CHECK(acct.Bytes(MemoryCategory::kGlobalCells) == 64 * 4096);
  CHECK(acct.Bytes(MemoryCategory::kSpareCells) == 0);
  if (sysconf(_SC_PAGESIZE) == 4096) CHECK(g.ResidentCellBytes() == 64 * 4096);
  w.CellAt(9 * kPageBytes + 1, Touch::kWrite).SetWrite({2, 2}, 4, false);
  g.Reset();
  CHECK(acct.Bytes(MemoryCategory::kSpareCells) == 64 * 4096);
  CHECK(g.View(0).CellAt(1).IsPristine());
}

TEST_CASE("resident spares are given back before a page would be mapped coarse") {
  MemoryAccounting acct;
  GlobalShadow g(&acct);
  PageView v = g.View(0);
  for (uint64_t a = 0; a < 256 * 1024; a += 1024) v.CellAt(a, Touch::kWrite).SetWrite({1, 1}, 3, false);
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
  for (uint64_t a = 0; a < 256 * 1024; a += 1024) w.CellAt(a, Touch::kWrite).SetWrite({1, 1}, 3, false);
  g.Reset();
  CHECK(acct.Bytes(MemoryCategory::kSpareCells) == 0);  // 1 MiB touched > limit / 8
}
