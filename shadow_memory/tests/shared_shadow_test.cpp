#include <catch2/catch.hpp>

#include <algorithm>

#include "shadow_memory/cell_vc.h"
#include "shadow_memory/shared_shadow.h"

using namespace barracuda::shadow;

namespace {
constexpr uint64_t SharedAddr(uint64_t block, uint32_t offset) { return block << 32 | offset; }
}  // namespace

TEST_CASE("each block gets its own window of static + dynamic bytes") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  SharedShadow s(&acct, &pool);
  s.BeginLaunch(4, 100);
  CHECK(s.live_windows() == 0);  // lazily allocated
  CHECK(acct.Bytes(MemoryCategory::kSharedCells) == 0);
  // 25 granule cells, then 4 byte cells per granule.
  const CellSpan w0 = s.Window(0);
  CHECK(w0.size() == 25 + 100);
  CHECK(s.live_windows() == 1);
  CHECK(s.Window(0).front() == w0.front());
  const CellSpan w3 = s.Window(3);
  CHECK(w3.size() == 125);
  CHECK_FALSE(w3.front() == w0.front());
  CHECK(s.Window(4).empty());
  CHECK(acct.Bytes(MemoryCategory::kSharedCells) > 0);

  CHECK(s.CellFor(SharedAddr(3, 99)) == w3[24]);  // the granule of bytes 96..99
  CHECK_FALSE(s.CellFor(SharedAddr(3, 100)));
  CHECK_FALSE(s.CellFor(SharedAddr(4, 0)));
  CHECK(s.Cells(SharedAddr(0, 96), 4).size() == 1);
  CHECK(s.Cells(SharedAddr(0, 94), 4).size() == 2);  // straddles two granules
  CHECK(s.Cells(SharedAddr(0, 97), 4).empty());  // crosses the window's end
  CHECK(s.Cells(SharedAddr(0, 0xfffffffe), 4).empty());  // no 32-bit wrap-around

  w0[1].SetWrite({1, 1}, 2, false);
  CHECK(s.CellFor(SharedAddr(0, 5)).write_epoch() == Epoch{1, 1});
  CHECK(s.CellFor(SharedAddr(3, 5)).IsPristine());  // windows do not alias
}

TEST_CASE("a window's view splits granules like a global page and charges byte cells once") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  SharedShadow s(&acct, &pool);
  s.BeginLaunch(2, 4096);
  const PageView v = s.View(SharedAddr(1, 8));
  REQUIRE(v.valid());
  REQUIRE(v.tracked());
  CHECK(v.Contains(SharedAddr(1, 4092), 4));
  CHECK_FALSE(v.Contains(SharedAddr(1, 4093), 4));
  CHECK_FALSE(v.Contains(SharedAddr(0, 8), 4));  // another block's window
  const uint64_t granules_only = acct.Bytes(MemoryCategory::kSharedCells);
  const Cell g = v.Cells(SharedAddr(1, 8), 4).front();
  CHECK(v.AddressOf(g) == SharedAddr(1, 8));
  g.SetWrite({7, 3}, 1, false);
  AddReader(g, pool, {1, 1}, 0);
  AddReader(g, pool, {2, 2}, 0);  // another clock: a read VC
  const CellSpan bytes = v.ByteCells(g);
  CHECK(acct.Bytes(MemoryCategory::kSharedCells) == granules_only + 4096 * 2 * kCellHalfSize);
  SplitGranule(g, bytes, pool);
  CHECK(g.split());
  for (const Cell b : bytes) {
    CHECK(b.write_epoch() == Epoch{7, 3});
    CHECK(b.read_shared());
  }
  CHECK(pool.live() == 4);  // each byte its own copy of the readers' clock
  v.ByteCells(v.Cells(SharedAddr(1, 12), 4).front());
  CHECK(acct.Bytes(MemoryCategory::kSharedCells) == granules_only + 4096 * 2 * kCellHalfSize);  // once
  // The byte cells are the window's, after its granules: released with it.
  s.ReleaseBlock(1);
  CHECK(pool.live() == 0);
  CHECK(acct.Bytes(MemoryCategory::kSharedCells) == 0);
  // The next window of the same slot starts unsplit and uncharged.
  s.View(SharedAddr(1, 0));
  CHECK(acct.Bytes(MemoryCategory::kSharedCells) == granules_only);
  CHECK_FALSE(s.CellFor(SharedAddr(1, 8)).split());
}

TEST_CASE("a kernel without shared memory has no windows") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  SharedShadow s(&acct, &pool);
  s.BeginLaunch(1000, 0);
  CHECK(s.Window(0).empty());
  CHECK_FALSE(s.CellFor(SharedAddr(0, 0)));
  CHECK(acct.Total() == 0 + acct.Bytes(MemoryCategory::kVectorClocks));
}

TEST_CASE("ReleaseBlock frees the window and the clocks its cells hold") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  SharedShadow s(&acct, &pool);
  s.BeginLaunch(2, 48 * 1024);
  const uint64_t vc_baseline = acct.Bytes(MemoryCategory::kVectorClocks);
  const CellSpan w = s.Window(1);
  for (uint32_t off : {0u, 20000u, 48u * 1024 - 1}) {
    AddReader(w[off], pool, {1, 1}, 0);
    AddReader(w[off], pool, {2, 2}, 0);  // another clock: a read VC
    SetWriteEpoch(w[off], pool, {1, 1}, 0, true);
    AddWriter(w[off], pool, {3, 1}, 0, true);
  }
  CHECK(pool.live() == 6);
  s.Window(0);
  CHECK(s.live_windows() == 2);
  s.ReleaseBlock(1);
  CHECK(pool.live() == 0);
  CHECK(acct.Bytes(MemoryCategory::kVectorClocks) == vc_baseline);
  CHECK(s.live_windows() == 1);
  s.ReleaseBlock(1);  // idempotent
  s.EndLaunch();
  CHECK(s.live_windows() == 0);
  CHECK(acct.Bytes(MemoryCategory::kSharedCells) == 0);
}

TEST_CASE("a huge grid costs only the windows its blocks touch") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  SharedShadow s(&acct, &pool);
  const uint64_t kBlocks = uint64_t{1} << 32;  // the most a launch may have
  s.BeginLaunch(kBlocks, 48 * 1024);
  s.Window(0)[0].SetRead({1, 1}, 0);
  s.Window(kBlocks - 1)[48 * 1024 - 1].SetRead({1, 1}, 0);
  CHECK(s.live_windows() == 2);
  CHECK(acct.Bytes(MemoryCategory::kSharedCells) < 4 * 1024 * 1024);
  s.EndLaunch();
  CHECK(acct.Bytes(MemoryCategory::kSharedCells) == 0);
  // A new launch starts from pristine windows.
  s.BeginLaunch(1, 16);
  CHECK(s.Window(0)[0].IsPristine());
}

TEST_CASE("a released window is zeroed and reused by the next block, within bounds") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  SharedShadow s(&acct, &pool);
  s.BeginLaunch(8, 20000);  // 625 KiB of cells per window, several OS pages
  const CellSpan w = s.Window(0);
  for (uint32_t off : {0u, 9000u, 19999u}) {
    w[off].SetWrite({1, 1}, 2, false);
    AddReader(w[off], pool, {1, 1}, 0);
    AddReader(w[off], pool, {2, 2}, 0);  // another clock: a read VC
  }
  const CellWriteHalf* const first = w.front().write_half();
  s.ReleaseBlock(0);
  CHECK(pool.live() == 0);
  CHECK(s.spare_windows() == 1);
  CHECK(acct.Bytes(MemoryCategory::kSharedCells) == 0);
  CHECK(acct.Bytes(MemoryCategory::kSpareCells) > 0);
  const CellSpan again = s.Window(5);
  CHECK(again.front().write_half() == first);  // the same mapping, handed on
  CHECK(s.spare_windows() == 0);
  CHECK(acct.Bytes(MemoryCategory::kSpareCells) == 0);
  CHECK(std::all_of(again.begin(), again.end(), [](const Cell c) { return c.IsPristine(); }));
  // At most kMaxSpareBytes of spares: releasing every block keeps a bounded few.
  for (uint64_t b = 0; b < 8; ++b) s.Window(b)[b].SetRead({1, 1}, 0);
  s.EndLaunch();
  CHECK(acct.Bytes(MemoryCategory::kSharedCells) == 0);
  const uint64_t window_mapping = acct.Bytes(MemoryCategory::kSpareCells) / s.spare_windows();
  CHECK(window_mapping >= 20000 * kCellSize);
  CHECK(s.spare_windows() == std::min<uint64_t>(8, SharedShadow::kMaxSpareBytes / window_mapping));
  // A launch with windows of another size drops them; none of its cells is stale.
  s.BeginLaunch(2, 64);
  CHECK(s.spare_windows() == 0);
  CHECK(acct.Bytes(MemoryCategory::kSpareCells) == 0);
  CHECK(s.Window(1)[1].IsPristine());
  // Under a memory limit spares take at most an eighth of it (with global
  // spares), so a cache never makes new global pages degrade.
  s.EndLaunch();
  acct.set_limit(8 * 4096);  // 4 KiB of spares allowed: not one 3-page window
  s.BeginLaunch(2, 200);     // 200 cells: a page of write halves, one of read halves, one of locks
  s.Window(0)[0].SetRead({1, 1}, 0);
  s.ReleaseBlock(0);
  CHECK(s.spare_windows() == 0);
  CHECK(acct.Bytes(MemoryCategory::kSpareCells) == 0);
}
