#include "shadow_memory/cell_vc.h"

namespace barracuda::shadow {

void ClearReads(Cell& cell, SparseVcPool& pool) {
  if (cell.read_shared()) {
    pool.Free(cell.read_vc());
    cell.ClearReadVc();
  }
  cell.ClearRead();
}

void SetReadEpoch(Cell& cell, SparseVcPool& pool, Epoch reader, SiteId site, ReadKind kind) {
  if (cell.read_shared()) {
    pool.Free(cell.read_vc());
    cell.ClearReadVc();
  }
  cell.SetRead(reader, site, kind);
}

void AddReader(Cell& cell, SparseVcPool& pool, Epoch reader, SiteId site, ReadKind kind) {
  if (cell.read_shared()) {  // READSHARED
    pool.Get(cell.read_vc()).Set(ReaderKey(reader.tid, kind), {reader.clock, site, false, kind});
    cell.SetReadVc(cell.read_vc(), site);
    return;
  }
  Epoch old = cell.read_epoch();
  // The same thread's newer reader subsumes the older one unless it is of a weaker kind.
  if (old.IsBottom() || (old.tid == reader.tid && kind >= cell.read_kind())) {
    cell.SetRead(reader, site, kind);
    return;
  }
  VcHandle h = pool.Allocate();  // READINFLATE
  if (h == kNoVc) {
    cell.SetRead(reader, site, kind);
    return;
  }
  SparseVc& vc = pool.Get(h);
  vc.Set(ReaderKey(old.tid, cell.read_kind()), {old.clock, cell.read_site(), false, cell.read_kind()});
  vc.Set(ReaderKey(reader.tid, kind), {reader.clock, site, false, kind});
  cell.SetReadVc(h, site);
}

void SetWriteEpoch(Cell& cell, SparseVcPool& pool, Epoch writer, SiteId site, bool atomic) {
  if (cell.write_shared()) {
    pool.Free(cell.write_vc());
    cell.ClearWriteVc();
  }
  cell.SetWrite(writer, site, atomic);
}

void AddWriter(Cell& cell, SparseVcPool& pool, Epoch writer, SiteId site, bool atomic) {
  if (cell.write_shared()) {
    pool.Get(cell.write_vc()).Set(writer.tid, {writer.clock, site, atomic});
    cell.SetWriteVc(cell.write_vc(), site, atomic);
    return;
  }
  Epoch old = cell.write_epoch();
  if (old.IsBottom() || old.tid == writer.tid) {
    cell.SetWrite(writer, site, atomic);
    return;
  }
  VcHandle h = pool.Allocate();
  if (h == kNoVc) {
    cell.SetWrite(writer, site, atomic);
    return;
  }
  SparseVc& vc = pool.Get(h);
  vc.Set(old.tid, {old.clock, cell.write_site(), cell.write_atomic()});
  vc.Set(writer.tid, {writer.clock, site, atomic});
  cell.SetWriteVc(h, site, atomic);
}

void ResetCell(Cell& cell, SparseVcPool& pool) {
  ClearReads(cell, pool);
  SetWriteEpoch(cell, pool, Epoch{}, 0, false);
  cell.ClearFlag(kCellRaced);
  cell.SetRead(Epoch{}, 0);
}

}  // namespace barracuda::shadow
