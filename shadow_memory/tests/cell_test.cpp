#include <catch2/catch.hpp>

#include <cstring>
#include <thread>
#include <vector>

#include "shadow_memory/cell.h"

using namespace barracuda::shadow;

TEST_CASE("a zero-filled cell is the initial state") {
  alignas(Cell) unsigned char raw[sizeof(Cell)];
  std::memset(raw, 0, sizeof raw);
  Cell* c = reinterpret_cast<Cell*>(raw);
  CHECK(c->IsPristine());
  CHECK(c->write_epoch().IsBottom());
  CHECK(c->read_epoch().IsBottom());
  CHECK_FALSE(c->write_atomic());
  CHECK_FALSE(c->read_shared());
  CHECK_FALSE(c->write_shared());
  CHECK(c->space() == Space::kGlobal);
  Cell d;
  CHECK(std::memcmp(&d, raw, sizeof(Cell)) == 0);
}

TEST_CASE("epochs round-trip at the edges of their widths") {
  Cell c;
  const Epoch edges[] = {{0, 1}, {0xffffffffu, kMaxClock}, {12345, 0xffffffffull},
                         {7, 0x100000000ull}, {1, 0xabcdef012345ull}};
  for (const Epoch& e : edges) {
    c.SetWrite(e, 42, false);
    CHECK(c.write_epoch() == e);
    c.SetRead(e, 43);
    CHECK(c.read_epoch() == e);
  }
  CHECK(c.write_site() == 42);
  CHECK(c.read_site() == 43);
  CHECK(FitsTid(0xffffffffull));
  CHECK_FALSE(FitsTid(0x100000000ull));
  CHECK(FitsClock(kMaxClock));
  CHECK_FALSE(FitsClock(kMaxClock + 1));
}

TEST_CASE("write and read halves and flags are independent") {
  Cell c;
  c.SetWrite({5, 9}, 100, true);
  c.SetRead({6, 10}, 200);
  c.SetFlag(kCellSyncLocation);
  c.MarkSpace(Space::kShared);
  CHECK(c.write_epoch() == Epoch{5, 9});
  CHECK(c.read_epoch() == Epoch{6, 10});
  CHECK(c.write_atomic());
  CHECK(c.Has(kCellSyncLocation));
  CHECK(c.space() == Space::kShared);

  c.SetWrite({5, 11}, 101, false);  // a plain write clears the atomic bit only
  CHECK_FALSE(c.write_atomic());
  CHECK(c.Has(kCellSyncLocation));
  CHECK(c.read_epoch() == Epoch{6, 10});

  c.ClearRead();
  CHECK(c.read_epoch().IsBottom());
  CHECK(c.write_epoch() == Epoch{5, 11});
  CHECK_FALSE(c.IsPristine());
}

TEST_CASE("vector clock handles replace the epoch and set the flags") {
  Cell c;
  c.SetReadVc(77, 3);
  CHECK(c.read_shared());
  CHECK(c.read_vc() == 77);
  CHECK(c.read_site() == 3);
  c.SetWriteVc(78, 4, true);
  CHECK(c.write_shared());
  CHECK(c.write_atomic());
  CHECK(c.write_vc() == 78);
  c.ClearReadVc();
  c.ClearWriteVc();
  CHECK_FALSE(c.read_shared());
  CHECK_FALSE(c.write_shared());
  CHECK(c.read_epoch().IsBottom());
  CHECK(c.write_epoch().IsBottom());
}

TEST_CASE("the cell lock excludes and keeps the flags") {
  Cell c;
  c.SetFlag(kCellRaced);
  REQUIRE(c.TryLock());
  CHECK(c.Has(kCellLocked));
  CHECK_FALSE(c.TryLock());
  c.SetWrite({1, 2}, 3, true);  // updates under the lock keep the lock bit
  CHECK(c.Has(kCellLocked));
  c.Unlock();
  CHECK_FALSE(c.Has(kCellLocked));
  CHECK(c.Has(kCellRaced));
  CHECK(c.write_atomic());
  { CellLockGuard g(c); CHECK(c.Has(kCellLocked)); }
  CHECK_FALSE(c.Has(kCellLocked));
}

TEST_CASE("the cell lock serialises read-check-update from several threads") {
  Cell c;
  constexpr int kThreads = 4, kIters = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&c, t] {
      for (int i = 0; i < kIters; ++i) {
        CellLockGuard g(c);
        // Non-atomic read-modify-write of two fields: torn without the lock.
        Epoch e = c.write_epoch();
        c.SetWrite({static_cast<Tid>(t), e.clock + 1}, static_cast<SiteId>(e.clock + 1), false);
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(c.write_epoch().clock == kThreads * kIters);
  CHECK(c.write_site() == kThreads * kIters);
  CHECK_FALSE(c.Has(kCellLocked));
}

TEST_CASE("whole-cell bits ignore the lock bit and match the field setters") {
  Cell a, b;
  a.SetWrite({7, 0x1234567890ull}, 11, true);
  a.SetRead({9, 5}, 12, ReadKind::kKeptWrite);
  a.SetFlag(kCellSharedSpace);
  b.CopyMetadataFrom(a);
  CHECK(b.MetadataEquals(a));
  REQUIRE(a.TryLock());
  CHECK(a.MetadataEquals(b));  // the lock bit is not metadata
  b.SetRead({9, 6}, 12, ReadKind::kKeptWrite);
  CHECK_FALSE(b.MetadataEquals(a));
  // StoreBits keeps the target's own lock bit.
  a.StoreBits(b.bits());
  CHECK(a.Has(kCellLocked));
  CHECK(a.MetadataEquals(b));
  a.Unlock();

  // WithPlainWrite = ClearRead + SetWrite(plain); WithPlainRead = SetRead(kRead).
  Cell w;
  w.CopyMetadataFrom(b);
  w.ClearRead();
  w.SetWrite({3, 0xabcdef012345ull}, 40, false);
  Cell w2;
  w2.StoreBits(Cell::WithPlainWrite(b.bits(), {3, 0xabcdef012345ull}, 40));
  CHECK(w2.MetadataEquals(w));
  CHECK(w2.read_epoch().IsBottom());
  CHECK_FALSE(w2.write_atomic());
  CHECK(w2.Has(kCellSharedSpace));
  Cell r;
  r.CopyMetadataFrom(b);
  r.SetRead({4, 0x100000001ull}, 41, ReadKind::kRead);
  Cell r2;
  r2.StoreBits(Cell::WithPlainRead(b.bits(), {4, 0x100000001ull}, 41));
  CHECK(r2.MetadataEquals(r));
  CHECK(r2.read_kind() == ReadKind::kRead);
  CHECK(r2.write_epoch() == b.write_epoch());
}

TEST_CASE("striped locks: one lock bit per kCellsPerLock aligned cells, taken once per stripe") {
  constexpr size_t k = kCellsPerLock;
  alignas(kCellLockStripeBytes) static Cell cells[3 * k];
  for (size_t i = 0; i < 3 * k; ++i) CHECK(&StripeLockCell(cells[i]) == &cells[i / k * k]);
  {
    CellSpanLock lock(std::span<Cell>(cells + k - 1, k + 2), true);  // the last cell of stripe 0 .. stripe 2
    CHECK(cells[0].Has(kCellLocked));
    CHECK(cells[k].Has(kCellLocked));
    CHECK(cells[2 * k].Has(kCellLocked));
    CHECK_FALSE(cells[k - 1].Has(kCellLocked));
    CHECK_FALSE(cells[k + 1].Has(kCellLocked));
    CHECK_FALSE(cells[0].TryLock());
  }
  for (const Cell& c : cells) CHECK_FALSE(c.Has(kCellLocked));
  {
    CellSpanLock off(std::span<Cell>(cells, 4), false);  // one analysis thread: no lock
    CHECK_FALSE(cells[0].Has(kCellLocked));
  }
}
