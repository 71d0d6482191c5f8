#include "shadow_memory/cell_vc.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <utility>

namespace barracuda::shadow {

void ClearReads(Cell cell, SparseVcPool& pool) {
  if (cell.read_shared()) {
    pool.Free(cell.read_vc());
    cell.ClearReadVc();
  }
  cell.ClearRead();
}

void SetReadEpoch(Cell cell, SparseVcPool& pool, Epoch reader, SiteId site, ReadKind kind, Strength strength) {
  if (cell.read_shared()) {
    pool.Free(cell.read_vc());
    cell.ClearReadVc();
  }
  cell.SetRead(reader, site, kind, strength);
}

namespace {

// Does the new reader carry the entry of the cell's inline reader(s): clock,
// site, kind and strength? Only such readers join a run.
bool SameReadEntry(const Cell cell, Clock clock, Clock held, SiteId site, ReadKind kind, Strength strength) {
  return clock == held && site == cell.read_site() && kind == cell.read_kind() && strength == cell.read_strength();
}

// The run with reader t added (t not in it; a run of one reader is a single
// epoch): at either end of the count form at its stride, else laid out again
// as positions over the largest power-of-two stride that divides every
// distance, when they all fit 0..15. False when t cannot join (the caller
// moves the readers out of line).
bool AddToRun(Cell::ReadRun* run, Tid t) {
  using Run = Cell::ReadRun;
  if (!run->bitmap() && run->members >= 2 && run->members < Run::kMaxCount) {
    if (uint64_t{t} == run->first + (uint64_t{run->members} << run->stride_log2)) {
      ++run->members;
      return true;
    }
    if (t < run->first && run->first - t == run->stride()) {
      run->first = t;
      ++run->members;
      return true;
    }
  }
  if (run->bitmap() && t > run->first) {  // a warp that arrived late: one bit
    const uint64_t d = t - run->first;
    if ((d & (run->stride() - 1)) == 0 && (d >> run->stride_log2) <= Run::kMaxBitmapPosition) {
      run->members = Run::WithBitmapPosition(run->members, d >> run->stride_log2);
      return true;
    }
  }
  const uint64_t lo = std::min(run->first, t);
  const uint64_t d = t > run->first ? t - run->first : run->first - t;
  unsigned log2 = static_cast<unsigned>(std::countr_zero(d));
  if (run->size() >= 2) log2 = std::min<unsigned>(log2, run->stride_log2);
  if (log2 > Run::kMaxStrideLog2) return false;
  const uint64_t hi = std::max<uint64_t>(run->first + (run->last_position() << run->stride_log2), t);
  if (((hi - lo) >> log2) > Run::kMaxBitmapPosition) return false;
  uint32_t bits = 0;  // bit p-1 for position p >= 1
  const auto put = [&](uint64_t reader) {
    if (const uint64_t p = (reader - lo) >> log2; p != 0) bits |= 1u << (p - 1);
  };
  run->ForEach(put);
  put(t);
  const bool contiguous = (bits & (bits + 1)) == 0;  // positions 0..k: the count form
  *run = Run{static_cast<Tid>(lo), static_cast<uint8_t>(log2),
             static_cast<uint16_t>(contiguous ? 1 + std::popcount(bits) : Run::kBitmap | bits), run->clock};
  return true;
}

}  // namespace

bool AddByteReader(Cell granule, unsigned byte, unsigned size, Epoch reader, SiteId site) {
  assert(!granule.split() && (size == 1 || size == 2) && byte % size == 0 && byte + size <= 4);
  if (reader.clock > 0xffffffffu) return false;
  const uint8_t elem_log2 = size == 2 ? 1 : 0;
  const unsigned pos = byte >> elem_log2;
  const auto mask = static_cast<uint8_t>(((1u << size) - 1) << byte);
  if (!granule.read_byte_run()) {
    // Only over no reader at all: the first element read.
    if (granule.read_shared() || granule.read_run() || !granule.read_epoch().IsBottom() ||
        granule.read_kind() != ReadKind::kRead || reader.tid < pos) {
      return false;
    }
    granule.SetReadByteRun({reader.tid - pos, 0, mask, reader.clock, elem_log2}, site);
    return true;
  }
  Cell::ByteRun run = granule.read_byte_run_info();
  if (run.clock != reader.clock || granule.read_site() != site || run.elem_log2 != elem_log2) return false;
  if ((run.bytes & mask) != 0) return (run.bytes & mask) == mask && run.ReaderOf(byte) == reader.tid;  // read again
  // Element positions read so far.
  unsigned positions = 0;
  for (unsigned b = 0; b < 4; ++b)
    if ((run.bytes >> b & 1) != 0) positions |= 1u << (b >> elem_log2);
  if (std::has_single_bit(positions)) {
    // The second element sets the stride: readers (t at position j, u at
    // position k) with u - t = (k - j) * 2^s.
    const unsigned j = static_cast<unsigned>(std::countr_zero(positions));
    const Tid t = run.ReaderOf(j << elem_log2);
    const int64_t dt = int64_t{reader.tid} - int64_t{t}, dp = int64_t{pos} - int64_t{j};
    if (dt == 0 || (dt < 0) != (dp < 0) || dt % dp != 0) return false;
    const uint64_t stride = static_cast<uint64_t>(dt / dp);
    if (!std::has_single_bit(stride) || std::countr_zero(stride) > 15 || uint64_t{t} < j * stride) return false;
    run.stride_log2 = static_cast<uint8_t>(std::countr_zero(stride));
    run.first = static_cast<Tid>(t - j * stride);
  } else if (run.ReaderOf(byte) != reader.tid) {
    return false;
  }
  run.bytes = static_cast<uint8_t>(run.bytes | mask);
  granule.SetReadByteRun(run, site);
  return true;
}

void AddReader(Cell cell, SparseVcPool& pool, Epoch reader, SiteId site, ReadKind kind, Strength strength) {
  assert(!cell.read_byte_run());
  if (cell.read_shared()) {  // READSHARED
    if (SetEntry(pool, pool.Get(cell.read_vc()), ReaderKey(reader.tid, kind, strength),
                 {reader.clock, site, false, kind, strength}))
      cell.SetReadVc(cell.read_vc(), site);
    return;
  }
  if (cell.read_run()) {
    Cell::ReadRun run = cell.read_run_info();
    if (SameReadEntry(cell, reader.clock, run.clock, site, kind, strength)) {
      if (run.Holds(reader.tid)) return;  // recorded already
      if (AddToRun(&run, reader.tid)) {
        cell.SetReadRun(run, site, kind, strength);
        return;
      }
    }
    VcHandle h = pool.Allocate();  // the run goes out of line with the new reader
    if (h == kNoVc) {
      cell.SetRead(reader, site, kind, strength);  // as for an epoch below: keeps only the newer
      return;
    }
    SparseVc& vc = pool.Get(h);
    const VcEntry held{run.clock, cell.read_site(), false, cell.read_kind(), cell.read_strength()};
    run.ForEach([&](Tid t) { vc.Set(ReaderKey(t, held.read_kind, held.strength), held); });
    vc.Set(ReaderKey(reader.tid, kind, strength), {reader.clock, site, false, kind, strength});
    cell.SetReadVc(h, site);
    return;
  }
  Epoch old = cell.read_epoch();
  if (old.IsBottom()) {
    cell.SetRead(reader, site, kind, strength);
    return;
  }
  // The same thread's newer reader replaces the older one when it stands for
  // it (ReaderSubsumes); else both stay.
  if (old.tid == reader.tid && ReaderSubsumes(kind, strength, cell.read_kind(), cell.read_strength(), true)) {
    cell.SetRead(reader, site, kind, strength);
    return;
  }
  // Another thread that read at the same point of the same code: a run of
  // two, inline (the common case: lanes of a row, blocks of a grid row).
  if (Cell::ReadRun run{old.tid, 0, 1, old.clock};
      old.tid != reader.tid && old.clock <= 0xffffffffu &&
      SameReadEntry(cell, reader.clock, old.clock, site, kind, strength) && AddToRun(&run, reader.tid)) {
    cell.SetReadRun(run, site, kind, strength);
    return;
  }
  VcHandle h = pool.Allocate();  // READINFLATE
  if (h == kNoVc) {
    cell.SetRead(reader, site, kind, strength);
    return;
  }
  SparseVc& vc = pool.Get(h);
  vc.Set(ReaderKey(old.tid, cell.read_kind(), cell.read_strength()),
         {old.clock, cell.read_site(), false, cell.read_kind(), cell.read_strength()});
  vc.Set(ReaderKey(reader.tid, kind, strength), {reader.clock, site, false, kind, strength});
  cell.SetReadVc(h, site);
}

void SetWriteEpoch(Cell cell, SparseVcPool& pool, Epoch writer, SiteId site, bool atomic, Strength strength) {
  if (cell.write_shared()) {
    pool.Free(cell.write_vc());
    cell.ClearWriteVc();
  }
  cell.SetWrite(writer, site, atomic, strength);
}

void AddWriter(Cell cell, SparseVcPool& pool, Epoch writer, SiteId site, bool atomic, Strength strength) {
  if (cell.write_shared()) {
    if (SetEntry(pool, pool.Get(cell.write_vc()), writer.tid, {writer.clock, site, atomic, ReadKind::kRead, strength}))
      cell.SetWriteVc(cell.write_vc(), site, atomic);
    return;
  }
  Epoch old = cell.write_epoch();
  if (old.IsBottom() || old.tid == writer.tid) {
    cell.SetWrite(writer, site, atomic, strength);
    return;
  }
  VcHandle h = pool.Allocate();
  if (h == kNoVc) {
    cell.SetWrite(writer, site, atomic, strength);
    return;
  }
  SparseVc& vc = pool.Get(h);
  vc.Set(old.tid, {old.clock, cell.write_site(), cell.write_atomic(), ReadKind::kRead, cell.write_strength()});
  vc.Set(writer.tid, {writer.clock, site, atomic, ReadKind::kRead, strength});
  cell.SetWriteVc(h, site, atomic);
}

namespace {

// The entry of the highest thread id of a write VC (one entry per thread).
std::pair<Tid, VcEntry> HighestEntry(const SparseVc& vc) {
  std::pair<Tid, VcEntry> best{0, VcEntry{}};
  vc.ForEach([&](Tid t, const VcEntry& e) {
    if (best.second.clock == 0 || t > best.first) {
      best = {t, e};
    }
  });
  return best;
}

}  // namespace

void CollapseOrdered(Cell cell, SparseVcPool& pool) {
  if (cell.write_shared()) {
    const auto [t, e] = HighestEntry(pool.Get(cell.write_vc()));
    SetWriteEpoch(cell, pool, Epoch{t, e.clock}, e.site, e.atomic, e.strength);
  }
  ClearReads(cell, pool);
}

void ResetCell(Cell cell, SparseVcPool& pool) {
  ClearReads(cell, pool);
  SetWriteEpoch(cell, pool, Epoch{}, 0, false);
  cell.ClearFlag(kCellRaced);
  cell.SetRead(Epoch{}, 0);
}

namespace {

// A copy of clock h for another owner; kNoVc when the pool is exhausted.
VcHandle CloneVc(SparseVcPool& pool, VcHandle h) {
  VcHandle copy = pool.Allocate();
  if (copy != kNoVc) pool.Get(copy).CopyFrom(pool.Get(h));
  return copy;
}

}  // namespace

void SplitGranule(Cell granule, const CellSpan& bytes, SparseVcPool& pool) {
  assert(!granule.split());
  constexpr uint16_t kAttributes = kCellSharedSpace | kCellSyncLocation | kCellRaced;
  if (granule.read_byte_run()) {
    // Each byte its reader's epoch; the write half as for any granule.
    const Cell::ByteRun run = granule.read_byte_run_info();
    const SiteId site = granule.read_site();
    granule.ClearRead();
    SplitGranule(granule, bytes, pool);
    for (unsigned j = 0; j < 4; ++j) {
      if ((run.bytes >> j & 1) != 0) bytes[j].SetRead({run.ReaderOf(j), run.clock}, site);
    }
    return;
  }
  if (!granule.write_shared() && !granule.read_shared()) {
    // Whole halves, each stored only where it is not all-zero: byte data a
    // launch only reads (a histogram's input) keeps its byte cells' write
    // halves untouched (16 bytes of shadow per device byte less).
    const Cell::Bits b = granule.bits();
    for (int j = 0; j < 4; ++j) {
      assert(bytes[j].IsPristine());
      bytes[j].StoreBits(b);
    }
    granule.StoreBits(Cell::Bits{{kCellSplit, 0, 0, 0}});
    return;
  }
  // With clocks: an all-zero half is not stored either (the caller counted
  // only the non-zero halves, PageView::ByteCells).
  const Cell::Bits gb = granule.bits();
  const bool write_zero = (gb.w[0] | gb.w[1]) == 0, read_zero = (gb.w[2] | gb.w[3]) == 0;
  for (int j = 0; j < 4; ++j) {
    Cell c = bytes[j];
    assert(c.IsPristine());
    if (write_zero) {
      // bottom, no flags: nothing to copy
    } else if (!granule.write_shared()) {
      c.SetWrite(granule.write_epoch(), granule.write_site(), granule.write_atomic(), granule.write_strength());
    } else if (VcHandle h = j == 0 ? granule.write_vc() : CloneVc(pool, granule.write_vc()); h != kNoVc) {
      c.SetWriteVc(h, granule.write_site(), granule.write_atomic());
      Tid latest = 0;
      if (granule.write_vc_latest(&latest)) {
        c.SetChain(granule.Has(kCellChainBroken), granule.Has(kCellLastRmw), latest);
      } else if (granule.Has(kCellChainBroken) || granule.Has(kCellLastRmw)) {
        c.SetChain(true, false, 0);  // no latest writer to stand for the chain: none covers
      }
    }
    if (read_zero) {
      // bottom, no flags
    } else if (!granule.read_shared()) {
      c.StoreReadHalf(gb);  // an epoch or an inline run of readers
    } else if (VcHandle h = j == 0 ? granule.read_vc() : CloneVc(pool, granule.read_vc()); h != kNoVc) {
      c.SetReadVc(h, granule.read_site());
    }
    for (uint16_t f = 1; f != 0 && f <= kAttributes; f <<= 1) {
      if ((kAttributes & f) != 0 && granule.Has(static_cast<CellFlag>(f))) c.SetFlag(static_cast<CellFlag>(f));
    }
  }
  // Byte 0 owns the granule's clocks now.
  if (granule.read_shared()) granule.ClearReadVc();
  if (granule.write_shared()) granule.ClearWriteVc();
  granule.StoreBits(Cell::Bits{{kCellSplit, 0, 0, 0}});
}

bool MergeGranule(Cell granule, const CellSpan& bytes) {
  assert(granule.split());
  const Cell::Bits b = bytes[0].bits();
  if ((b.flags() & (kCellReadShared | kCellWriteShared)) != 0) return false;
  for (int j = 1; j < 4; ++j) {
    if (!(bytes[j].bits() == b)) return false;
  }
  granule.StoreBits(b);
  for (int j = 0; j < 4; ++j) bytes[j].StoreBits(Cell::Bits{});
  return true;
}

}  // namespace barracuda::shadow
