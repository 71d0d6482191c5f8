#include <catch2/catch.hpp>

#include <cstring>
#include <thread>
#include <vector>

#include "shadow_memory/cell.h"

using namespace barracuda::shadow;

namespace {

bool AllZero(const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) {
    if (b[i] != 0) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("zero-filled halves are the initial state, the read half at its fixed offset") {
  OwnedCells d;
  const Cell c = d.cell();
  CHECK(AllZero(c.write_half(), kCellHalfSize));
  CHECK(AllZero(c.read_half(), kCellHalfSize));
  CHECK(reinterpret_cast<char*>(c.read_half()) - reinterpret_cast<char*>(c.write_half()) ==
        static_cast<std::ptrdiff_t>(kReadHalfOffset));
  CHECK(c.IsPristine());
  CHECK(c.write_epoch().IsBottom());
  CHECK(c.read_epoch().IsBottom());
  CHECK_FALSE(c.write_atomic());
  CHECK_FALSE(c.read_shared());
  CHECK_FALSE(c.write_shared());
  CHECK(c.space() == Space::kGlobal);
  CHECK_FALSE(Cell());
  CHECK(static_cast<bool>(c));
}

TEST_CASE("epochs round-trip at the edges of their widths") {
  OwnedCells owned;
  const Cell c = owned.cell();
  const Epoch edges[] = {{0, 1}, {0xffffffffu, kMaxClock}, {12345, 0xffffffffull},
                         {7, 0x100000000ull}, {1, 0xabcdef012345ull}};
  for (const Epoch& e : edges) {
    c.SetWrite(e, 42, false, MakeStrength(8, ScopeLevel::kGpu));
    CHECK(c.write_epoch() == e);
    c.SetRead(e, 43, ReadKind::kAtomicRead, MakeStrength(4, ScopeLevel::kBlock));
    CHECK(c.read_epoch() == e);
  }
  CHECK(c.write_site() == 42);
  CHECK(c.read_site() == 43);
  CHECK(c.write_strength() == MakeStrength(8, ScopeLevel::kGpu));
  CHECK(c.read_strength() == MakeStrength(4, ScopeLevel::kBlock));
  CHECK(c.read_kind() == ReadKind::kAtomicRead);
  CHECK(FitsTid(0xffffffffull));
  CHECK_FALSE(FitsTid(0x100000000ull));
  CHECK(FitsClock(kMaxClock));
  CHECK_FALSE(FitsClock(kMaxClock + 1));
}

TEST_CASE("write and read halves and flags are independent") {
  OwnedCells owned;
  const Cell c = owned.cell();
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

TEST_CASE("each half holds its own metadata: a write stores no read half, a read no write half") {
  OwnedCells owned(2);
  const Cell w = owned[0], r = owned[1];
  // Writes (and R := bottom over a bottom R) leave the read half all zero.
  w.SetWrite({3, 4}, 5, true, MakeStrength(4, ScopeLevel::kGpu));
  w.ClearRead();
  w.SetFlag(kCellRaced);
  w.SetFlag(kCellSplit);
  w.ClearFlag(kCellReadShared);
  CHECK(AllZero(w.read_half(), kCellHalfSize));
  // Reads and read flags leave the write half all zero.
  r.SetRead({6, 7}, 8, ReadKind::kKeptWrite, MakeStrength(4, ScopeLevel::kBlock));
  r.SetFlag(kCellReadShared);
  r.ClearFlag(kCellReadShared);
  r.ClearFlag(kCellWriteShared);
  CHECK(AllZero(r.write_half(), kCellHalfSize));
  CHECK(r.read_kind() == ReadKind::kKeptWrite);
  // Flags read back through flags() in their documented bytes.
  CHECK(w.flags() == (kCellWriteAtomic | kCellRaced | kCellSplit));
  CHECK(r.flags() == kCellReadKeptWrite);
  CHECK((kCellReadShared & kCellWriteFlags) == 0);
  CHECK((kCellSplit & kCellReadFlags) == 0);
}

TEST_CASE("vector clock handles replace the epoch and set the flags") {
  OwnedCells owned;
  const Cell c = owned.cell();
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

TEST_CASE("the stripe lock serialises read-check-update from several threads") {
  OwnedCells owned;
  const Cell c = owned.cell();
  constexpr int kThreads = 4, kIters = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&owned, c, t] {
      for (int i = 0; i < kIters; ++i) {
        CellSpanLock g(owned.span(), true);
        // Non-atomic read-modify-write of two fields: torn without the lock.
        Epoch e = c.write_epoch();
        c.SetWrite({static_cast<Tid>(t), e.clock + 1}, static_cast<SiteId>(e.clock + 1), false);
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(c.write_epoch().clock == kThreads * kIters);
  CHECK(c.write_site() == kThreads * kIters);
  CHECK(owned.span().locks()[0] == 0);
}

TEST_CASE("whole-cell bits match the field setters and store only the halves that change") {
  OwnedCells owned(6);
  const Cell a = owned[0], b = owned[1];
  a.SetWrite({7, 0x1234567890ull}, 11, true, MakeStrength(8, ScopeLevel::kCluster));
  a.SetRead({9, 5}, 12, ReadKind::kKeptWrite, MakeStrength(4, ScopeLevel::kGpu));
  a.SetFlag(kCellSharedSpace);
  b.CopyMetadataFrom(a);
  CHECK(b.MetadataEquals(a));
  CHECK(b.write_strength() == a.write_strength());
  CHECK(b.read_strength() == a.read_strength());
  b.SetRead({9, 6}, 12, ReadKind::kKeptWrite);
  CHECK_FALSE(b.MetadataEquals(a));
  a.StoreBits(b.bits());
  CHECK(a.MetadataEquals(b));

  // WithPlainWrite = ClearRead + SetWrite(plain); WithPlainRead = SetRead(kRead).
  const Cell w = owned[2], w2 = owned[3];
  w.CopyMetadataFrom(b);
  w.ClearRead();
  w.SetWrite({3, 0xabcdef012345ull}, 40, false);
  w2.StoreBits(Cell::WithPlainWrite(b.bits(), {3, 0xabcdef012345ull}, 40));
  CHECK(w2.MetadataEquals(w));
  CHECK(w2.read_epoch().IsBottom());
  CHECK_FALSE(w2.write_atomic());
  CHECK(w2.write_strength() == kWeak);
  CHECK(w2.Has(kCellSharedSpace));
  const Cell r = owned[4], r2 = owned[5];
  r.CopyMetadataFrom(b);
  r.SetRead({4, 0x100000001ull}, 41, ReadKind::kRead);
  r2.StoreBits(Cell::WithPlainRead(b.bits(), {4, 0x100000001ull}, 41));
  CHECK(r2.MetadataEquals(r));
  CHECK(r2.read_kind() == ReadKind::kRead);
  CHECK(r2.write_epoch() == b.write_epoch());

  // A plain write over a cell never read stores no read half; a plain read
  // over a cell never written stores no write half.
  OwnedCells fresh(2);
  fresh[0].StoreBits(Cell::WithPlainWrite(fresh[0].bits(), {1, 1}, 2));
  CHECK(AllZero(fresh[0].read_half(), kCellHalfSize));
  fresh[1].StoreBits(Cell::WithPlainRead(fresh[1].bits(), {1, 1}, 2));
  CHECK(AllZero(fresh[1].write_half(), kCellHalfSize));
}

TEST_CASE("striped locks: one lock byte per kCellsPerLock cells, taken once per stripe") {
  constexpr size_t k = kCellsPerLock;
  OwnedCells owned(3 * k);
  const StripeLock* locks = owned.span().locks();
  {
    CellSpanLock lock(owned.span().subspan(k - 1, k + 2), true);  // the last cell of stripe 0 .. stripe 2
    CHECK(locks[0] == 1);
    CHECK(locks[1] == 1);
    CHECK(locks[2] == 1);
    CHECK_FALSE(TryLockStripe(owned.span().locks()[0]));
  }
  CHECK((locks[0] | locks[1] | locks[2]) == 0);
  {
    CellSpanLock lock(owned.span().subspan(k + 1, 3), true);  // inside stripe 1
    CHECK(locks[0] == 0);
    CHECK(locks[1] == 1);
    CHECK(locks[2] == 0);
  }
  {
    CellSpanLock off(owned.span().subspan(0, 4), false);  // one analysis thread: no lock
    CHECK(locks[0] == 0);
  }
  // The span's cells and positions.
  const CellSpan s = owned.span().subspan(5, 10);
  CHECK(s.size() == 10);
  CHECK(s.index() == 5);
  CHECK(s.subspan(3, 1).index() == 8);
  CHECK(s.front() == owned[5]);
  CHECK(s.back() == owned[14]);
  size_t n = 0;
  for (const Cell c : s) CHECK(c == owned[5 + n++]);
  CHECK(n == 10);
  CHECK(s.end() - s.begin() == 10);
}

TEST_CASE("SetFirstPlainRead stores what SetRead stores over no reader, and only then") {
  OwnedCells owned(8);
  // Over an untouched cell, and over a bottom reader that keeps a read site
  // and a write (a plain write's R := bottom), with epochs of full width.
  const Cell a = owned[0], b = owned[1];
  CHECK(a.SetFirstPlainRead({0xfffffffeu, 0xabcdef012345ull}, 77));
  b.SetRead({0xfffffffeu, 0xabcdef012345ull}, 77);
  CHECK(a.MetadataEquals(b));
  CHECK(AllZero(a.write_half(), kCellHalfSize));
  const Cell c = owned[2], d = owned[3];
  c.SetWrite({5, 9}, 3, false);
  c.SetRead({6, 2}, 4);
  c.StoreBits(Cell::WithPlainWrite(c.bits(), {5, 10}, 3));  // R := bottom, read site kept
  d.CopyMetadataFrom(c);
  CHECK(c.SetFirstPlainRead({8, 4}, 12));
  d.SetRead({8, 4}, 12);
  CHECK(c.MetadataEquals(d));
  // Refused, nothing changed: a reader held, another kind on a bottom clock,
  // a run, a read VC.
  const Cell held = owned[4], kind = owned[5], run = owned[6], vc = owned[7];
  held.SetRead({1, 1}, 2);
  kind.SetRead({1, 0}, 2, ReadKind::kAtomicRead);
  run.SetReadRun({10, 0, 3, 7}, 5, ReadKind::kRead, kWeak);
  vc.SetReadVc(3, 6);
  for (const Cell x : {held, kind, run, vc}) {
    const Cell::Bits before = x.bits();
    CHECK_FALSE(x.SetFirstPlainRead({2, 3}, 9));
    CHECK(x.bits() == before);
  }
}
