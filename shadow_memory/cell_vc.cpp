#include "shadow_memory/cell_vc.h"

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

void AddReader(Cell cell, SparseVcPool& pool, Epoch reader, SiteId site, ReadKind kind, Strength strength) {
  if (cell.read_shared()) {  // READSHARED
    if (SetEntry(pool, pool.Get(cell.read_vc()), ReaderKey(reader.tid, kind, strength),
                 {reader.clock, site, false, kind, strength}))
      cell.SetReadVc(cell.read_vc(), site);
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
      c.SetRead(granule.read_epoch(), granule.read_site(), granule.read_kind(), granule.read_strength());
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
