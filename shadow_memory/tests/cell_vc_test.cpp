#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "shadow_memory/cell_vc.h"

using namespace barracuda::shadow;

namespace {
std::map<Tid, VcEntry> Readers(const Cell& c, const SparseVcPool& pool) {
  std::map<Tid, VcEntry> out;
  ForEachReader(c, pool, [&](Tid t, const VcEntry& e) { out[t] = e; });
  return out;
}
std::map<Tid, VcEntry> Writers(const Cell& c, const SparseVcPool& pool) {
  std::map<Tid, VcEntry> out;
  ForEachWriter(c, pool, [&](Tid t, const VcEntry& e) { out[t] = e; });
  return out;
}
}  // namespace

TEST_CASE("reads stay an epoch until a second thread reads concurrently") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  const uint64_t baseline = acct.Bytes(MemoryCategory::kVectorClocks);
  OwnedCells c_cells;
  const Cell c = c_cells.cell();
  AddReader(c, pool, {3, 5}, 30);  // bottom -> epoch
  CHECK_FALSE(c.read_shared());
  AddReader(c, pool, {3, 6}, 31);  // same thread -> still an epoch
  CHECK_FALSE(c.read_shared());
  CHECK(c.read_epoch() == Epoch{3, 6});
  CHECK(pool.live() == 0);

  AddReader(c, pool, {9, 2}, 90);  // READINFLATE
  REQUIRE(c.read_shared());
  CHECK(pool.live() == 1);
  auto r = Readers(c, pool);
  CHECK(r.size() == 2);
  CHECK(r[3] == VcEntry{6, 31, false});
  CHECK(r[9] == VcEntry{2, 90, false});
  CHECK(c.read_site() == 90);

  AddReader(c, pool, {4, 8}, 40);  // READSHARED
  AddReader(c, pool, {3, 7}, 32);
  r = Readers(c, pool);
  CHECK(r.size() == 3);
  CHECK(r[3] == VcEntry{7, 32, false});
  // Three readers with three clocks are three runs: past the two inline runs
  // (SparseVc::kInline), in the heap array.
  CHECK(pool.Get(c.read_vc()).runs() == 3);
  CHECK(acct.Bytes(MemoryCategory::kVectorClocks) > baseline);
  CHECK(acct.Events(ShadowEvent::kVcInflations) == 1);

  ClearReads(c, pool);  // a write deflates: R := bottom
  CHECK_FALSE(c.read_shared());
  CHECK(c.read_epoch().IsBottom());
  CHECK(pool.live() == 0);
}

TEST_CASE("readers that share a clock and a site are one run whatever their number") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  const uint64_t baseline = acct.Bytes(MemoryCategory::kVectorClocks);
  OwnedCells cells;
  const Cell c = cells.cell();
  // A tile word read by the 16 lanes of a row, then by one thread per block
  // of a grid row (256 threads apart), all at clock 4 of one load.
  // Both runs stay in the cells' read halves: no clock at all.
  for (Tid t = 32; t < 48; ++t) AddReader(c, pool, {t, 4}, 7);
  REQUIRE(c.read_run());
  CHECK_FALSE(c.read_shared());
  CHECK(c.read_run_info().first == 32);
  CHECK(c.read_run_info().stride() == 1);
  CHECK(c.read_run_info().size() == 16);
  CHECK(c.read_run_info().clock == 4);
  OwnedCells g_cells;
  const Cell g = g_cells.cell();
  for (Tid b = 32; b-- > 0;) AddReader(g, pool, {5 + 256 * b, 4}, 8);  // grows at its front too
  REQUIRE(g.read_run());
  CHECK(g.read_run_info().first == 5);
  CHECK(g.read_run_info().stride() == 256);
  CHECK(g.read_run_info().size() == 32);
  CHECK(pool.live() == 0);
  CHECK(acct.Bytes(MemoryCategory::kVectorClocks) == baseline);
  auto r = Readers(g, pool);
  CHECK(r.size() == 32);
  for (Tid b = 0; b < 32; ++b) CHECK(r[5 + 256 * b] == VcEntry{4, 8, false});
  // A reader already in the run changes nothing.
  AddReader(g, pool, {5 + 256 * 7, 4}, 8);
  CHECK(g.read_run_info().size() == 32);
  // Out of order (two workers analyse neighbouring blocks, warps of a block
  // in any order): positions within 16 of the first stay inline.
  OwnedCells o_cells;
  const Cell o = o_cells.cell();
  for (Tid b : {1u, 0u, 2u, 3u, 5u, 4u}) AddReader(o, pool, {5 + 256 * b, 4}, 8);
  REQUIRE(o.read_run());
  CHECK(o.read_run_info().size() == 6);
  CHECK_FALSE(o.read_run_info().bitmap());  // contiguous again: the count form
  r = Readers(o, pool);
  CHECK(r.size() == 6);
  for (Tid b = 0; b < 6; ++b) CHECK(r[5 + 256 * b] == VcEntry{4, 8, false});
  // A tile word's readers 16 threads apart, warps out of order, then past 16
  // positions with a gap: out of line, still as runs.
  OwnedCells w_cells;
  const Cell w = w_cells.cell();
  for (Tid t : {32u, 48u, 0u, 16u, 96u, 112u, 64u}) AddReader(w, pool, {t, 4}, 8);
  REQUIRE(w.read_run());
  CHECK(w.read_run_info().bitmap());
  CHECK(w.read_run_info().stride() == 16);
  CHECK(w.read_run_info().size() == 7);
  AddReader(w, pool, {80, 4}, 8);
  CHECK_FALSE(w.read_run_info().bitmap());
  CHECK(w.read_run_info().size() == 8);
  AddReader(w, pool, {16 * 20, 4}, 8);
  REQUIRE(w.read_shared());
  CHECK(pool.Get(w.read_vc()).size() == 9);
  CHECK(pool.Get(w.read_vc()).runs() <= 2);
  ClearReads(w, pool);
  // A newer read of a thread inside a run splits it, losing nobody (the run
  // goes out of line).
  AddReader(c, pool, {40, 9}, 7);
  REQUIRE(c.read_shared());
  r = Readers(c, pool);
  CHECK(r.size() == 16);
  for (Tid t = 32; t < 48; ++t) CHECK(r[t] == VcEntry{t == 40 ? 9u : 4u, 7, false});
  CHECK(pool.Get(c.read_vc()).runs() == 3);
  ClearReads(c, pool);
  ClearReads(g, pool);
  ClearReads(o, pool);
  CHECK(pool.live() == 0);
}

TEST_CASE("inline runs of readers match a map model under random readers") {
  // Readers of few clocks and sites at strides of powers of two and not: runs
  // form, grow at either end, and go out of line; the recorded set must stay
  // exactly the model's, and only cells with a read VC hold a clock.
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  constexpr int kCells = 4;
  OwnedCells cells_cells(kCells);
  const CellSpan cells = cells_cells.span();
  std::map<Tid, VcEntry> model[kCells];
  std::mt19937 rng(777);
  int runs_seen = 0, longest = 0;
  Tid last[kCells] = {};
  for (int step = 0; step < 40000; ++step) {
    const int i = static_cast<int>(rng() % kCells);
    const Cell c = cells[i];
    const uint32_t stride = (rng() % 4 == 0) ? 3 : 1u << (rng() % 17);  // 2^16 is too far for a run
    // Mostly the next or previous reader of a row, else anywhere near.
    const uint32_t how = rng() % 4;
    const Tid t = how == 0   ? static_cast<Tid>(stride * (rng() % 12))
                  : how == 1 ? last[i] - std::min<Tid>(last[i], 1u << (rng() % 3))
                             : last[i] + (1u << (rng() % 3));
    last[i] = t;
    const Epoch e{t, 1 + rng() % 2};
    const SiteId site = 1 + (rng() % 8 == 0);
    switch (rng() % 12) {
      case 0:
        ClearReads(c, pool);
        model[i].clear();
        break;
      case 1:
        SetReadEpoch(c, pool, e, site);
        model[i] = {{e.tid, {e.clock, site, false}}};
        break;
      default:
        AddReader(c, pool, e, site);
        model[i][e.tid] = {e.clock, site, false};
        break;
    }
    REQUIRE(Readers(c, pool) == model[i]);
    REQUIRE((c.read_shared() || c.read_run()) == (model[i].size() > 1));
    if (c.read_run()) {
      ++runs_seen;
      longest = std::max<int>(longest, static_cast<int>(c.read_run_info().size()));
      // A run is exactly one entry repeated at positions of one stride.
      const Cell::ReadRun run = c.read_run_info();
      REQUIRE(run.size() == model[i].size());
      for (const auto& [tid, entry] : model[i]) {
        REQUIRE(run.Holds(tid));
        REQUIRE(entry.clock == run.clock);
      }
    }
    uint64_t live = 0;
    for (const Cell x : cells) live += x.read_shared();
    REQUIRE(pool.live() == live);
  }
  CHECK(runs_seen > 1000);
  CHECK(longest >= 4);
  for (const Cell c : cells) ClearReads(c, pool);
  CHECK(pool.live() == 0);
}

TEST_CASE("AppendPlainReader and PairPlainReader store what AddReader stores wherever they accept") {
  // The same random plain reads on two cells: one through AppendPlainReader,
  // then PairPlainReader, then AddReader where they refuse (memory_access.cpp's
  // order), one through
  // AddReader alone. Readers at a power-of-two stride from a base, in random
  // order (warps arriving out of order), some off the stride, below the base,
  // past position 15, or of another clock or site.
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  OwnedCells owned(2);
  const Cell fast = owned[0], plain = owned[1];
  std::mt19937 rng(4242);
  int accepted_bitmap = 0, accepted_count = 0, paired = 0, refused = 0, back_to_count = 0;
  for (int round = 0; round < 3000; ++round) {
    ClearReads(fast, pool);
    ClearReads(plain, pool);
    const unsigned stride_log2 = rng() % 6;
    const Tid base = 64 + rng() % 64;
    std::vector<Tid> readers;
    for (Tid j = 0; j < 16; ++j) readers.push_back(base + (j << stride_log2));
    if (round % 2 == 0) {
      std::shuffle(readers.begin(), readers.end(), rng);  // warps out of order
    } else {
      std::rotate(readers.begin(), readers.begin() + rng() % 3, readers.end());  // nearly in order
    }
    readers.resize(2 + rng() % 15);
    for (int extra = rng() % 3; extra > 0; --extra) {
      const Tid odd = rng() % 2 ? base + (static_cast<Tid>(16 + rng() % 4) << stride_log2) : base - 1 - rng() % 4;
      readers.insert(readers.begin() + static_cast<long>(rng() % readers.size()), odd);
    }
    for (const Tid t : readers) {
      const Epoch e{t, rng() % 16 == 0 ? 8u : 7u};
      const SiteId site = rng() % 16 == 0 ? 4 : 3;
      const bool was_bitmap = fast.read_run() && fast.read_run_info().bitmap();
      const Cell::Bits before = fast.bits();
      if (fast.AppendPlainReader(e.tid, e.clock, site)) {
        (was_bitmap ? accepted_bitmap : accepted_count)++;
        if (was_bitmap && fast.read_run() && !fast.read_run_info().bitmap()) ++back_to_count;
      } else if (fast.bits() == before && fast.PairPlainReader(e.tid, e.clock, site)) {
        ++paired;
        REQUIRE(fast.read_run());
      } else {
        REQUIRE(fast.bits() == before);  // refused by both: nothing changed
        ++refused;
        AddReader(fast, pool, e, site);
      }
      AddReader(plain, pool, e, site);
      REQUIRE(Readers(fast, pool) == Readers(plain, pool));
      if (!fast.read_shared()) REQUIRE(fast.MetadataEquals(plain));
    }
  }
  CHECK(accepted_bitmap > 1000);
  CHECK(accepted_count > 1000);
  CHECK(back_to_count > 10);
  CHECK(paired > 1000);
  CHECK(refused > 1000);
  ClearReads(fast, pool);
  ClearReads(plain, pool);
  CHECK(pool.live() == 0);
}

TEST_CASE("an inline run keeps kinds and strengths apart and is copied whole when a granule splits") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  OwnedCells g_cells(5);
  const Cell g = g_cells[0];
  // Atomic loads of one strength at one clock and site form a run too.
  const Strength s = MakeStrength(4, ScopeLevel::kGpu);
  AddReader(g, pool, {0, 3}, 9, ReadKind::kAtomicRead, s);
  AddReader(g, pool, {2, 3}, 9, ReadKind::kAtomicRead, s);
  REQUIRE(g.read_run());
  CHECK(g.read_kind() == ReadKind::kAtomicRead);
  CHECK(g.read_strength() == s);
  // A plain read of the next thread does not carry the run's entry.
  AddReader(g, pool, {4, 3}, 9);
  REQUIRE(g.read_shared());
  auto r = Readers(g, pool);
  CHECK(r.size() == 3);
  CHECK(r[0].read_kind == ReadKind::kAtomicRead);
  CHECK(r[4].read_kind == ReadKind::kRead);
  ClearReads(g, pool);
  CHECK_FALSE(g.read_run());
  CHECK(g.flags() == 0);
  // Clocks past 32 bits and readers 2^16 apart stay out of line.
  AddReader(g, pool, {0, Clock{1} << 33}, 9);
  AddReader(g, pool, {1, Clock{1} << 33}, 9);
  CHECK(g.read_shared());
  ClearReads(g, pool);
  AddReader(g, pool, {0, 3}, 9);
  AddReader(g, pool, {1u << 16, 3}, 9);
  CHECK(g.read_shared());
  ClearReads(g, pool);
  // A run at most kMaxCount long.
  for (Tid t = 0; t < Cell::ReadRun::kMaxCount; ++t) AddReader(g, pool, {t, 3}, 9);
  CHECK(g.read_run_info().size() == Cell::ReadRun::kMaxCount);
  AddReader(g, pool, {Cell::ReadRun::kMaxCount, 3}, 9);
  REQUIRE(g.read_shared());
  CHECK(pool.Get(g.read_vc()).size() == Cell::ReadRun::kMaxCount + 1);
  ClearReads(g, pool);
  // SetRead over a run leaves an epoch with no run bits.
  AddReader(g, pool, {0, 3}, 9);
  AddReader(g, pool, {8, 3}, 9);
  REQUIRE(g.read_run());
  SetReadEpoch(g, pool, {5, 4}, 2);
  CHECK_FALSE(g.read_run());
  CHECK(g.read_epoch() == Epoch{5, 4});
  // A split copies the run to every byte, beside a write VC.
  ClearReads(g, pool);
  AddReader(g, pool, {16, 4}, 2);
  AddReader(g, pool, {48, 4}, 2);
  AddReader(g, pool, {80, 4}, 2);
  REQUIRE(g.read_run());
  SetWriteEpoch(g, pool, {1, 1}, 1, true);
  AddWriter(g, pool, {2, 1}, 1, true);
  REQUIRE(g.write_shared());
  const CellSpan bytes = g_cells.span().subspan(1, 4);
  SplitGranule(g, bytes, pool);
  for (const Cell b : bytes) {
    REQUIRE(b.read_run());
    CHECK(Readers(b, pool) == std::map<Tid, VcEntry>{{16, {4, 2, false}}, {48, {4, 2, false}}, {80, {4, 2, false}}});
    CHECK(b.write_shared());
  }
  for (const Cell b : bytes) ResetCell(b, pool);
  CHECK(pool.live() == 0);
}

TEST_CASE("a granule keeps one reader per byte without byte cells and splits into their epochs") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  OwnedCells cells(5);
  const Cell g = cells[0];
  const CellSpan bytes = cells.span().subspan(1, 4);
  // A histogram's input word: byte j read by thread 100 + j, out of order.
  for (unsigned j : {2u, 0u, 3u, 1u}) REQUIRE(AddByteReader(g, j, 1, {100 + j, 7}, 5));
  REQUIRE(g.read_byte_run());
  CHECK_FALSE(g.read_shared());
  CHECK_FALSE(g.read_run());
  CHECK(g.read_byte_run_info().bytes == 0xf);
  CHECK(g.read_byte_run_info().first == 100);
  CHECK(g.write_half()->flags == 0);  // the write half untouched
  // The same read again changes nothing; anything else is refused.
  CHECK(AddByteReader(g, 1, 1, {101, 7}, 5));
  CHECK_FALSE(AddByteReader(g, 1, 1, {102, 7}, 5));  // another reader of a byte
  CHECK(g.read_byte_run_info().bytes == 0xf);
  SplitGranule(g, bytes, pool);
  CHECK(g.split());
  for (unsigned j = 0; j < 4; ++j) {
    CHECK(bytes[j].read_epoch() == Epoch{100 + j, 7});
    CHECK(bytes[j].read_site() == 5);
  }
  for (const Cell b : bytes) ResetCell(b, pool);
  g.StoreBits(Cell::Bits{});
  // Strides of powers of two, set by the second byte; bytes not read stay bottom.
  g.SetWrite({3, 2}, 9, false);
  REQUIRE(AddByteReader(g, 3, 1, {64 + 3 * 32, 1}, 5));
  REQUIRE(AddByteReader(g, 1, 1, {64 + 32, 1}, 5));
  CHECK(g.read_byte_run_info().stride_log2 == 5);
  CHECK_FALSE(AddByteReader(g, 0, 1, {65, 1}, 5));      // not first + 0 * 32
  CHECK_FALSE(AddByteReader(g, 0, 1, {64, 2}, 5));      // another clock
  CHECK_FALSE(AddByteReader(g, 0, 1, {64, 1}, 6));      // another site
  SplitGranule(g, bytes, pool);
  CHECK(bytes[0].read_epoch().IsBottom());
  CHECK(bytes[1].read_epoch() == Epoch{96, 1});
  CHECK(bytes[2].read_epoch().IsBottom());
  CHECK(bytes[3].read_epoch() == Epoch{160, 1});
  for (const Cell b : bytes) CHECK(b.write_epoch() == Epoch{3, 2});
  for (const Cell b : bytes) ResetCell(b, pool);
  g.StoreBits(Cell::Bits{});
  // Readers that no stride relates, a granule with a reader, or a long clock.
  REQUIRE(AddByteReader(g, 0, 1, {10, 1}, 5));
  CHECK_FALSE(AddByteReader(g, 2, 1, {13, 1}, 5));  // 3 / 2 threads a byte
  CHECK_FALSE(AddByteReader(g, 1, 1, {9, 1}, 5));   // readers decrease with bytes
  g.ClearRead();
  CHECK(g.read_half()->flags == 0);
  g.SetRead({4, 4}, 1);
  CHECK_FALSE(AddByteReader(g, 0, 1, {10, 1}, 5));
  g.ClearRead();
  CHECK_FALSE(AddByteReader(g, 0, 1, {10, Clock{1} << 32}, 5));
  CHECK_FALSE(AddByteReader(g, 3, 1, {2, 1}, 5));  // byte 0's reader would be below thread 0
  g.ClearRead();
  // Halves of a granule (2-byte reads, an fp16 input): threads 40 and 41,
  // in either order; a byte read of the same granule does not mix in.
  REQUIRE(AddByteReader(g, 2, 2, {41, 3}, 5));
  REQUIRE(AddByteReader(g, 0, 2, {40, 3}, 5));
  CHECK(g.read_byte_run_info().bytes == 0xf);
  CHECK(g.read_byte_run_info().elem_log2 == 1);
  CHECK(AddByteReader(g, 2, 2, {41, 3}, 5));        // the same read again
  CHECK_FALSE(AddByteReader(g, 2, 1, {41, 3}, 5));  // a byte of it: not this form
  SplitGranule(g, bytes, pool);
  CHECK(bytes[0].read_epoch() == Epoch{40, 3});
  CHECK(bytes[1].read_epoch() == Epoch{40, 3});
  CHECK(bytes[2].read_epoch() == Epoch{41, 3});
  CHECK(bytes[3].read_epoch() == Epoch{41, 3});
  for (const Cell b : bytes) ResetCell(b, pool);
  g.StoreBits(Cell::Bits{});
  REQUIRE(AddByteReader(g, 0, 2, {7, 3}, 5));
  REQUIRE(AddByteReader(g, 2, 2, {9, 3}, 5));  // two threads apart: a stride of 2
  CHECK(g.read_byte_run_info().stride_log2 == 1);
  CHECK(g.read_byte_run_info().ReaderOf(3) == 9);
  g.ClearRead();
  REQUIRE(AddByteReader(g, 0, 2, {7, 3}, 5));
  CHECK_FALSE(AddByteReader(g, 2, 2, {10, 3}, 5));  // three apart: no power of two
  CHECK(pool.live() == 0);
}

TEST_CASE("SetReadEpoch replaces a read vector clock") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  OwnedCells c_cells;
  const Cell c = c_cells.cell();
  AddReader(c, pool, {1, 1}, 1);
  AddReader(c, pool, {2, 1}, 2);
  REQUIRE(c.read_shared());
  SetReadEpoch(c, pool, {5, 9}, 7);
  CHECK_FALSE(c.read_shared());
  CHECK(c.read_epoch() == Epoch{5, 9});
  CHECK(pool.live() == 0);
}

TEST_CASE("concurrent non-racing writers inflate W and deflate at the next ordered write") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  OwnedCells c_cells;
  const Cell c = c_cells.cell();
  SetWriteEpoch(c, pool, {1, 4}, 10, true);
  AddWriter(c, pool, {1, 5}, 11, true);  // same thread: epoch
  CHECK_FALSE(c.write_shared());
  AddWriter(c, pool, {2, 3}, 20, true);  // atomic after atomic
  REQUIRE(c.write_shared());
  AddWriter(c, pool, {7, 1}, 70, true);
  auto w = Writers(c, pool);
  CHECK(w.size() == 3);
  CHECK(w[1] == VcEntry{5, 11, true});
  CHECK(w[2] == VcEntry{3, 20, true});
  CHECK(w[7] == VcEntry{1, 70, true});
  CHECK(c.write_atomic());
  CHECK(c.write_site() == 70);

  SetWriteEpoch(c, pool, {9, 9}, 99, false);  // ordered after all of them
  CHECK_FALSE(c.write_shared());
  CHECK_FALSE(c.write_atomic());
  CHECK(c.write_epoch() == Epoch{9, 9});
  CHECK(pool.live() == 0);
  CHECK(Writers(c, pool).size() == 1);
}

TEST_CASE("a plain same-value pair keeps each writer's atomic bit") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  OwnedCells c_cells;
  const Cell c = c_cells.cell();
  SetWriteEpoch(c, pool, {1, 2}, 10, false);
  AddWriter(c, pool, {2, 2}, 10, false);
  auto w = Writers(c, pool);
  CHECK_FALSE(w[1].atomic);
  CHECK_FALSE(w[2].atomic);
  CHECK_FALSE(c.write_atomic());
}

TEST_CASE("ResetCell frees both clocks and keeps attributes") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  OwnedCells c_cells;
  const Cell c = c_cells.cell();
  c.SetFlag(kCellSyncLocation);
  AddReader(c, pool, {1, 1}, 1);
  AddReader(c, pool, {2, 2}, 1);  // another clock: no run, a read VC
  SetWriteEpoch(c, pool, {1, 1}, 1, true);
  AddWriter(c, pool, {2, 1}, 1, true);
  CHECK(pool.live() == 2);
  ResetCell(c, pool);
  CHECK(pool.live() == 0);
  CHECK(c.read_epoch().IsBottom());
  CHECK(c.write_epoch().IsBottom());
  CHECK(c.Has(kCellSyncLocation));
  CHECK_FALSE(c.write_atomic());
}

TEST_CASE("SparseVc stores only non-zero entries and merges by clock") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  VcHandle h = pool.Allocate();
  SparseVc& vc = pool.Get(h);
  CHECK(vc.empty());
  CHECK(vc.Get(123) == 0);
  CHECK(vc.Find(123) == nullptr);
  vc.Merge(5, {3, 1, false});
  vc.Merge(5, {2, 2, false});  // older: ignored
  CHECK(vc.Get(5) == 3);
  CHECK(vc.Find(5)->site == 1);
  vc.Merge(5, {4, 3, true});
  CHECK(*vc.Find(5) == VcEntry{4, 3, true});
  for (Tid t = 0; t < 1000; ++t) vc.Set(t * 1000003u, {t + 1, t, false});
  CHECK(vc.size() == 1001);  // 1000 new tids plus tid 5
  CHECK(vc.HeapBytes() >= 1001 * sizeof(VcEntry));
  pool.Free(h);
  CHECK(pool.live() == 0);
}

TEST_CASE("SparseVc keeps a few runs inline and moves them to a heap array past kInline then to the map past kMid") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  SparseVc& vc = pool.Get(pool.Allocate());
  const uint64_t clocks_before = acct.Bytes(MemoryCategory::kVectorClocks);
  for (Tid t = 1; t <= SparseVc::kInline; ++t) vc.Merge(t, {t * 10, t, false});
  vc.Merge(2, {5, 99, false});   // older: ignored
  vc.Merge(2, {31, 77, true});   // newer: replaces
  vc.Set(1, {1, 55, false});     // Set overwrites even with a smaller clock
  CHECK(vc.size() == SparseVc::kInline);
  CHECK(vc.HeapBytes() == 0);
  CHECK(acct.Bytes(MemoryCategory::kVectorClocks) == clocks_before);
  CHECK(*vc.Find(2) == VcEntry{31, 77, true});
  CHECK(*vc.Find(1) == VcEntry{1, 55, false});
  SparseVc& copy = pool.Get(pool.Allocate());
  copy.CopyFrom(vc);
  CHECK(copy.size() == SparseVc::kInline);
  CHECK(copy.Get(2) == 31);
  // One more thread with its own entry: the runs move to the heap array,
  // none lost or changed.
  vc.Merge(1000, {7, 7, false});
  CHECK(vc.size() == SparseVc::kInline + 1);
  CHECK(vc.HeapBytes() > 0);
  CHECK(acct.Bytes(MemoryCategory::kVectorClocks) == clocks_before + vc.HeapBytes());
  std::map<Tid, VcEntry> seen;
  vc.ForEach([&](Tid t, const VcEntry& e) { CHECK(seen.emplace(t, e).second); });
  CHECK(seen.size() == SparseVc::kInline + 1);
  CHECK(seen[2] == VcEntry{31, 77, true});
  CHECK(seen[1000] == VcEntry{7, 7, false});
  vc.Merge(2, {30, 1, false});  // older, in array mode: ignored
  CHECK(vc.Get(2) == 31);
  // Past kMid runs every entry goes to the map.
  for (Tid t = 2000; t < 2000 + SparseVc::kMid; ++t) vc.Set(t, {t, 1, false});
  CHECK(vc.size() == SparseVc::kInline + 1 + SparseVc::kMid);
  CHECK(vc.runs() == vc.size());
  CHECK(vc.Get(1000) == 7);
  CHECK(vc.Get(2000 + SparseVc::kMid - 1) == 2000 + SparseVc::kMid - 1);
  CHECK(acct.Bytes(MemoryCategory::kVectorClocks) == clocks_before + vc.HeapBytes());
  vc.Merge(2, {30, 1, false});  // older, in map mode: ignored
  CHECK(vc.Get(2) == 31);
  // A copy of a map-mode clock has its own map; an inline copy drops it again.
  copy.CopyFrom(vc);
  CHECK(copy.size() == vc.size());
  CHECK(copy.Get(1000) == 7);
  SparseVc& small = pool.Get(pool.Allocate());
  small.Set(9, {9, 9, false});
  copy.CopyFrom(small);
  CHECK(copy.size() == 1);
  CHECK(copy.HeapBytes() == 0);
  CHECK(copy.Get(1000) == 0);
  vc.Clear();
  CHECK(vc.empty());
  CHECK(vc.Find(2) == nullptr);
  CHECK(acct.Bytes(MemoryCategory::kVectorClocks) == clocks_before);
}

TEST_CASE("SparseVc keeps entries in a heap array past kInline runs and in the map past kMid runs without losing one") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  SparseVc& vc = pool.Get(pool.Allocate());
  const uint64_t clocks_before = acct.Bytes(MemoryCategory::kVectorClocks);
  std::map<Tid, Clock> model;
  auto matches_model = [&] {
    std::map<Tid, Clock> seen;
    vc.ForEach([&](Tid t, const VcEntry& e) { seen[t] = e.clock; });
    bool found_all = true;
    for (const auto& [t, c] : model) found_all &= vc.Get(t) == c;
    return seen == model && found_all && vc.size() == model.size() &&
           acct.Bytes(MemoryCategory::kVectorClocks) == clocks_before + vc.HeapBytes();
  };
  for (Tid t = 1; t <= SparseVc::kMid + 8; ++t) {
    vc.Merge(t * 7, {t, t, false});
    model[t * 7] = t;
    vc.Merge(7, {t + 100, 1, false});  // the first entry moves with every tier change
    model[7] = t + 100;
    INFO(t << " entries");
    REQUIRE(matches_model());
    // Every key its own entry: one run each, in the array until kMid runs.
    if (t + 1 < SparseVc::kMid) CHECK(vc.runs() == vc.size());
    if (t > SparseVc::kInline && t + 1 < SparseVc::kMid) CHECK(vc.HeapBytes() <= SparseVc::kMid * 32);
  }
  // Erasing in the array tier keeps the rest.
  SparseVc& mid = pool.Get(pool.Allocate());
  for (Tid t = 1; t <= 20; ++t) mid.Set(t, {t, t, t % 2 == 0});
  mid.EraseIf([](Tid t, const VcEntry&) { return t % 3 == 0; });
  CHECK(mid.size() == 14);
  CHECK(mid.Get(3) == 0);
  CHECK(mid.Get(20) == 20);
  SparseVc& copy = pool.Get(pool.Allocate());
  copy.CopyFrom(mid);
  CHECK(copy.size() == 14);
  CHECK(copy.Get(19) == 19);
  CHECK(copy.Find(20)->atomic);
  vc.Clear();
  mid.Clear();
  copy.Clear();
  CHECK(acct.Bytes(MemoryCategory::kVectorClocks) == clocks_before);
}

TEST_CASE("the pool reuses freed handles, never hands out kNoVc, and resets") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  std::set<VcHandle> handles;
  for (int i = 0; i < 5000; ++i) {  // crosses a chunk boundary
    VcHandle h = pool.Allocate();
    CHECK(h != kNoVc);
    handles.insert(h);
    // Past the inline entries for some, so that Reset has heap to give back.
    const Tid entries = i % 100 == 0 ? SparseVc::kInline + 1 : 1;
    for (Tid t = 1; t <= entries; ++t) pool.Get(h).Set(t, {t, 0, false});  // a run each
  }
  CHECK(handles.size() == 5000);
  CHECK(pool.live() == 5000);
  VcHandle some = *handles.begin();
  pool.Free(some);
  CHECK(pool.Allocate() == some);
  CHECK(pool.Get(some).empty());
  const uint64_t before_reset = acct.Bytes(MemoryCategory::kVectorClocks);
  pool.Reset();
  CHECK(pool.live() == 0);
  CHECK(acct.Bytes(MemoryCategory::kVectorClocks) < before_reset);
  VcHandle again = pool.Allocate();
  CHECK(again == 1);
  CHECK(pool.Get(again).empty());
}

TEST_CASE("the pool allocates and frees from several threads, with and without thread caches") {
  const bool cached = GENERATE(false, true);
  CAPTURE(cached);
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  const uint64_t baseline_chunks = acct.Bytes(MemoryCategory::kVectorClocks);
  constexpr int kThreads = 4, kIters = 3000;
  std::vector<std::thread> threads;
  std::vector<std::vector<VcHandle>> kept(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::optional<SparseVcPool::ThreadCache> cache;
      if (cached) cache.emplace(pool);
      for (int i = 0; i < kIters; ++i) {
        VcHandle h = pool.Allocate();
        SparseVc& vc = pool.Get(h);
        REQUIRE(vc.empty());
        vc.Set(static_cast<Tid>(t), {static_cast<Clock>(i + 1), 0, false});
        if (i % 3 == 0) {
          kept[t].push_back(h);
        } else {
          pool.Free(h);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  std::set<VcHandle> all;
  for (int t = 0; t < kThreads; ++t) {
    for (VcHandle h : kept[t]) {
      CHECK(pool.Get(h).size() == 1);
      CHECK(pool.Get(h).Find(static_cast<Tid>(t)) != nullptr);
      all.insert(h);
    }
  }
  CHECK(all.size() == pool.live());  // no handle given to two owners
  CHECK(acct.Events(ShadowEvent::kVcInflations) == uint64_t{kThreads} * kIters);
  {
    // Clocks freed by another thread than their allocator, through its cache.
    std::optional<SparseVcPool::ThreadCache> cache;
    if (cached) cache.emplace(pool);
    for (VcHandle h : kept[0]) pool.Free(h);
  }
  CHECK(pool.live() == all.size() - kept[0].size());
  const VcHandle reused = pool.Allocate();
  CHECK(std::find(kept[0].begin(), kept[0].end(), reused) != kept[0].end());
  CHECK(pool.Get(reused).empty());
  pool.Reset();
  CHECK(acct.Bytes(MemoryCategory::kVectorClocks) >= baseline_chunks);
}

TEST_CASE("SparseVc runs match a map model under random sets merges erasures and copies") {
  // Keys come in strided groups with few distinct entries, so that runs form,
  // grow at both ends, split, fragment into the map and come back empty.
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  const uint64_t baseline = acct.Bytes(MemoryCategory::kVectorClocks);
  std::mt19937 rng(777);
  for (int round = 0; round < 200; ++round) {
    const VcHandle h = pool.Allocate();
    SparseVc& vc = pool.Get(h);
    std::map<VcKey, VcEntry> model;
    const uint32_t stride = 1 + rng() % 300;
    const int steps = 1 + static_cast<int>(rng() % 400);
    for (int step = 0; step < steps; ++step) {
      const VcKey key = VcKey{stride} * (rng() % 64) + (rng() % 8 == 0 ? VcKey{1} << 32 : 0);
      const VcEntry e{1 + rng() % 3, static_cast<SiteId>(rng() % 2), false,
                      rng() % 4 == 0 ? ReadKind::kKeptWrite : ReadKind::kRead};
      switch (rng() % 8) {
        case 0: {
          const Clock bound = 1 + rng() % 3;
          vc.EraseIf([&](Tid t, const VcEntry& x) { return x.clock == bound && t % 3 == 0; });
          std::erase_if(model, [&](const auto& kv) {
            return kv.second.clock == bound && static_cast<Tid>(kv.first) % 3 == 0;
          });
          break;
        }
        case 1: {
          vc.Merge(key, e);
          auto [it, inserted] = model.try_emplace(key, e);
          if (!inserted && it->second.clock < e.clock) it->second = e;
          break;
        }
        default:
          vc.Set(key, e);
          model[key] = e;
      }
      std::map<VcKey, VcEntry> seen;
      // ForEach gives the low 32 bits; the model's keys differ in bit 32 at most.
      uint32_t kept = 0;
      for (const auto& [k, x] : model) {
        const VcEntry* f = vc.Find(k);
        REQUIRE(f != nullptr);
        REQUIRE(*f == x);
        kept += x.read_kind == ReadKind::kKeptWrite;
      }
      size_t n = 0;
      vc.ForEach([&](Tid, const VcEntry&) { ++n; });
      REQUIRE(n == model.size());
      REQUIRE(vc.size() == model.size());
      REQUIRE(vc.Find(VcKey{stride} * 64 + 5) == nullptr);
      REQUIRE(vc.kept_writes() == kept);
    }
    if (round % 5 == 0) {
      SparseVc& copy = pool.Get(pool.Allocate());
      copy.CopyFrom(vc);
      for (const auto& [k, x] : model) REQUIRE(copy.Get(k) == x.clock);
      REQUIRE(copy.size() == model.size());
      copy.Clear();
    }
    pool.Free(h);
  }
  pool.Reset();
  CHECK(pool.live() == 0);
  CHECK(acct.Bytes(MemoryCategory::kVectorClocks) == baseline);
}

TEST_CASE("a hot word of thousands of threads in random order with one entry costs bits not slots") {
  // A histogram bin: relaxed atomics of 14,000 of 65,536 threads in random
  // order, all at clock 1 of one site, plus a few other entries.
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  SparseVc& vc = pool.Get(pool.Allocate());
  std::mt19937 rng(99);
  std::map<VcKey, VcEntry> model;
  const VcEntry hot{1, 5, true, ReadKind::kRead, kWeak};
  for (int i = 0; i < 14000; ++i) {
    const VcKey t = rng() % 65536;
    const VcEntry e = i % 1000 == 0 ? VcEntry{2, 6, true} : hot;
    vc.Set(t, e);
    model[t] = e;
  }
  REQUIRE(vc.in_map_tier());
  CHECK(vc.size() == model.size());
  for (const auto& [t, e] : model) REQUIRE(*vc.Find(t) == e);
  CHECK(vc.Find(70000) == nullptr);
  // 256 pages of 32 bytes (in a hash map of 40-byte slots) and a few
  // slots: under 2 bytes per key, where ~12,600 24-byte slots took > 25.
  CHECK(vc.HeapBytes() < 2 * model.size());
  // A thread's newer entry leaves the pages; the pages keep the rest.
  const VcKey moved = model.begin()->first;
  vc.Set(moved, {3, 5, true});
  model[moved] = {3, 5, true};
  vc.EraseIf([](Tid t, const VcEntry&) { return t % 2 == 0; });
  std::erase_if(model, [](const auto& kv) { return kv.first % 2 == 0; });
  size_t n = 0;
  vc.ForEach([&](Tid t, const VcEntry& e) {
    ++n;
    CHECK(model.at(t) == e);
  });
  CHECK(n == model.size());
  CHECK(vc.size() == model.size());
  vc.Clear();
}

TEST_CASE("random transitions match a map model and never leak a clock") {
  // Model: the set of recorded readers / writers of each cell, as the rules
  // define them; the shadow must return exactly that set, and the pool must
  // hold exactly one clock per cell that has more than one reader / writer.
  struct Model {
    std::map<Tid, VcEntry> readers, writers;
  };
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  const uint64_t vc_baseline = acct.Bytes(MemoryCategory::kVectorClocks);
  constexpr int kCells = 8;
  OwnedCells cells_cells(kCells);
  const CellSpan cells = cells_cells.span();
  Model model[kCells];
  std::mt19937 rng(12345);
  Clock next_clock = 1;
  for (int step = 0; step < 20000; ++step) {
    const int i = static_cast<int>(rng() % kCells);
    const Cell c = cells[i];
    Model& m = model[i];
    const Epoch e{static_cast<Tid>(rng() % 5), next_clock++};
    const SiteId site = static_cast<SiteId>(rng() % 100);
    const bool atomic = rng() % 2 == 0;
    switch (rng() % 6) {
      case 0:
        SetReadEpoch(c, pool, e, site);
        m.readers = {{e.tid, {e.clock, site, false}}};
        break;
      case 1:
        AddReader(c, pool, e, site);
        m.readers[e.tid] = {e.clock, site, false};
        break;
      case 2:
        ClearReads(c, pool);
        m.readers.clear();
        break;
      case 3:
        SetWriteEpoch(c, pool, e, site, atomic);
        m.writers = {{e.tid, {e.clock, site, atomic}}};
        break;
      case 4:
        AddWriter(c, pool, e, site, atomic);
        m.writers[e.tid] = {e.clock, site, atomic};
        break;
      case 5:
        ResetCell(c, pool);
        m = Model{};
        break;
    }
    REQUIRE(Readers(c, pool) == m.readers);
    REQUIRE(Writers(c, pool) == m.writers);
    // A clock is out of line exactly while a second thread is recorded, and
    // the pool holds nothing else.
    REQUIRE(c.read_shared() == (m.readers.size() > 1));
    REQUIRE(c.write_shared() == (m.writers.size() > 1));
    uint64_t expected_live = 0;
    for (int j = 0; j < kCells; ++j) expected_live += cells[j].read_shared() + cells[j].write_shared();
    REQUIRE(pool.live() == expected_live);
  }
  for (const Cell c : cells) ResetCell(c, pool);
  CHECK(pool.live() == 0);
  // Freed clocks keep their array tier's storage for the handle's next life
  // (at most kMid entries each); the launch's Reset gives it back.
  CHECK(acct.Bytes(MemoryCategory::kVectorClocks) - vc_baseline <=
        2 * kCells * SparseVc::kMid * (sizeof(VcEntry) + sizeof(uint64_t)));
  pool.Reset();
  CHECK(acct.Bytes(MemoryCategory::kVectorClocks) == vc_baseline);
}

TEST_CASE("a granule splits into byte cells with copies of its clocks, and merges back when they agree") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  OwnedCells granule_cells;
  const Cell granule = granule_cells.cell();
  OwnedCells bytes_cells(4);
  const CellSpan bytes = bytes_cells.span();
  SetWriteEpoch(granule, pool, {3, 9}, 5, true);
  AddReader(granule, pool, {1, 2}, 6);
  AddReader(granule, pool, {2, 4}, 7);  // a read VC: every byte needs its own
  granule.SetFlag(kCellRaced);
  REQUIRE(granule.read_shared());
  SplitGranule(granule, bytes, pool);
  CHECK(granule.split());
  CHECK_FALSE(granule.read_shared());
  CHECK(pool.live() == 4);
  for (const Cell b : bytes) {
    CHECK(b.write_epoch() == Epoch{3, 9});
    CHECK(b.write_atomic());
    CHECK(b.write_site() == 5);
    CHECK(b.Has(kCellRaced));
    CHECK(Readers(b, pool) == std::map<Tid, VcEntry>{{1, {2, 6}}, {2, {4, 7}}});
  }
  CHECK(bytes[0].read_vc() != bytes[1].read_vc());
  // Clocks are independent now: one byte's new reader is not another's.
  AddReader(bytes[2], pool, {8, 1}, 9);
  CHECK(Readers(bytes[1], pool).count(8) == 0);
  // Out-of-line clocks never merge; equal epochs do.
  CHECK_FALSE(MergeGranule(granule, bytes));
  for (const Cell b : bytes) SetWriteEpoch(b, pool, {4, 1}, 8, false), ClearReads(b, pool);
  CHECK(pool.live() == 0);
  bytes[3].SetRead({4, 1}, 8);
  CHECK_FALSE(MergeGranule(granule, bytes));  // byte 3 differs
  bytes[3].ClearRead();
  bytes[3].SetRead({}, 0);
  for (const Cell b : bytes) b.SetRead({}, 0);
  REQUIRE(MergeGranule(granule, bytes));
  CHECK_FALSE(granule.split());
  CHECK(granule.write_epoch() == Epoch{4, 1});
  CHECK(granule.Has(kCellRaced));
  for (const Cell b : bytes) CHECK(b.IsPristine());  // ready for the next split
}

TEST_CASE("SetWriteKeeping equals SetWriteEpoch then AddWriter of the kept, in place") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  // 10 concurrent atomic writers (past the inline entries: a hash map), then an
  // atomic by thread 3 that is ordered after threads 0..4 only.
  for (int round = 0; round < 2; ++round) {
    OwnedCells two(2);
    const Cell in_place = two[0], rebuilt = two[1];
    for (Tid t = 0; t < 10; ++t) {
      AddWriter(in_place, pool, {t, 2}, 100 + t, true, 5);
      AddWriter(rebuilt, pool, {t, 2}, 100 + t, true, 5);
    }
    auto keep = [](Tid t, const VcEntry& e) { return e.atomic && t >= 5; };
    SetWriteKeeping(in_place, pool, {3, 4}, 7, true, 5, keep);
    std::map<Tid, VcEntry> kept;
    for (const auto& [t, e] : Writers(rebuilt, pool)) {
      if (t != 3 && keep(t, e)) kept[t] = e;
    }
    SetWriteEpoch(rebuilt, pool, {3, 4}, 7, true, 5);
    for (const auto& [t, e] : kept) AddWriter(rebuilt, pool, {t, e.clock}, e.site, e.atomic, e.strength);
    CHECK(Writers(in_place, pool) == Writers(rebuilt, pool));
    CHECK(Writers(in_place, pool).size() == 6);
    CHECK(in_place.write_shared());
    // Keeping none deflates to the epoch, as SetWriteEpoch does.
    SetWriteKeeping(in_place, pool, {8, 9}, 8, true, 5, [](Tid, const VcEntry&) { return false; });
    CHECK_FALSE(in_place.write_shared());
    CHECK(in_place.write_epoch() == Epoch{8, 9});
    // From an epoch: the old writer is kept beside the new one when asked.
    SetWriteKeeping(in_place, pool, {1, 3}, 9, true, 5, [](Tid, const VcEntry&) { return true; });
    CHECK(Writers(in_place, pool).size() == 2);
    ResetCell(in_place, pool);
    ResetCell(rebuilt, pool);
  }
  CHECK(pool.live() == 0);
}

TEST_CASE("CollapseOrdered keeps the highest thread's write and no reader") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  OwnedCells c_cells;
  const Cell c = c_cells.cell();
  for (Tid t : {7, 2, 30, 11, 5, 19}) {
    AddReader(c, pool, {t, 3}, 200 + t);
    AddWriter(c, pool, {t, 4}, 300 + t, true, 6);
  }
  AddReader(c, pool, {12, 9}, 55, ReadKind::kKeptWrite);
  REQUIRE(c.read_shared());
  REQUIRE(c.write_shared());
  CHECK(pool.Get(c.read_vc()).kept_writes() == 1);
  CollapseOrdered(c, pool);
  CHECK_FALSE(c.read_shared());
  CHECK_FALSE(c.write_shared());
  CHECK(pool.live() == 0);
  CHECK(c.read_epoch().IsBottom());
  CHECK(c.write_epoch() == Epoch{30, 4});
  CHECK(c.write_site() == 330);
  CHECK(c.write_atomic());
  CHECK(c.write_strength() == 6);
  CollapseOrdered(c, pool);  // idempotent on epochs
  CHECK(c.write_epoch() == Epoch{30, 4});
}

TEST_CASE("a read VC counts its kept writes through every update") {
  MemoryAccounting acct;
  SparseVcPool pool(&acct);
  OwnedCells c_cells;
  const Cell c = c_cells.cell();
  for (Tid t = 0; t < 12; ++t) AddReader(c, pool, {t, 1}, 1, t % 3 == 0 ? ReadKind::kKeptWrite : ReadKind::kRead);
  REQUIRE(c.read_shared());
  SparseVc& vc = pool.Get(c.read_vc());
  auto count = [&] {
    uint32_t n = 0;
    vc.ForEach([&](Tid, const VcEntry& e) { n += e.read_kind == ReadKind::kKeptWrite; });
    return n;
  };
  CHECK(vc.kept_writes() == 4);
  AddReader(c, pool, {3, 5}, 1, ReadKind::kKeptWrite);  // overwrite: same key
  CHECK(vc.kept_writes() == count());
  vc.EraseIf([](Tid t, const VcEntry&) { return t < 4; });
  CHECK(vc.kept_writes() == count());
  CHECK(vc.kept_writes() == 2);
  ClearReads(c, pool);
  CHECK(pool.live() == 0);
}
