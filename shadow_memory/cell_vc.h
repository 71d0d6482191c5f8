// Transitions of a cell's read and write metadata between an epoch and an
// out-of-line SparseVc (inflation, deflation), with the clock bookkeeping in
// one place. Race checks (is R_x ⊑ C_t?) stay in the detector: these only
// store what the FastTrack rules decided to store.
//
// For a global cell the caller holds the cell's stripe lock (CellSpanLock).
#ifndef BARRACUDA_SHADOW_MEMORY_CELL_VC_H_
#define BARRACUDA_SHADOW_MEMORY_CELL_VC_H_

#include "shadow_memory/cell.h"
#include "shadow_memory/vc_pool.h"

namespace barracuda::shadow {

// V[key] := e in a live clock, unless that would add a key over the memory
// limit: then nothing changes, the refusal is counted, and false is returned.
// Dropping an entry can only hide races (a later access is checked against
// fewer earlier ones), so the degraded shadow stays free of false alarms.
inline bool SetEntry(SparseVcPool& pool, SparseVc& vc, VcKey key, const VcEntry& e) {
  if (!pool.MayGrow() && vc.Find(key) == nullptr) {
    pool.Refused();
    return false;
  }
  vc.Set(key, e);
  return true;
}

// READEXCL: R := E(t) (an epoch; a read VC, if any, is freed). The caller
// checked that the new reader covers what it replaces, kinds included (see
// ReadKind: a reader may only replace one of a weaker or equal kind).
void SetReadEpoch(Cell cell, SparseVcPool& pool, Epoch reader, SiteId site,
                  ReadKind kind = ReadKind::kRead, Strength strength = kWeak);

// READINFLATE / READSHARED: the read is concurrent with the recorded reads, so
// R keeps them all. R bottom or an epoch of the same thread: R := E(t).
// R an epoch of another thread: inflates to {that reader, t}, inline as a run
// (Cell::ReadRun) when both read with one clock, site, kind and strength and
// their distance is a power of two (<= 2^15) times at most 15; a run grows by
// such readers (at either end of a count, or anywhere within 16 positions)
// and goes out of line with any other. R a VC: R[t] := c.
// If the pool is exhausted or over the memory limit the cell keeps only the
// newer epoch (counted as kVcAllocFailures: a later write may then miss a race
// with the older read, never report one that did not happen); over the limit a
// read VC takes no new thread (kVcEntriesRefused; the same reasoning).
// A thread's newer reader replaces its older one when it stands for it
// (ReaderSubsumes, epoch.h: kinds and strengths); otherwise both are kept
// (VcKey: thread, kind, strength).
void AddReader(Cell cell, SparseVcPool& pool, Epoch reader, SiteId site,
               ReadKind kind = ReadKind::kRead, Strength strength = kWeak);

// A plain read of bytes [byte, byte + size) of an unsplit granule by
// `reader` (size 1, or 2 at an even byte), which the caller found ordered
// after the granule's writes, recorded without byte cells when the granule
// has no reader yet or only such readers of elements of that size
// (Cell::read_byte_run: element e read by first + e * 2^s, one clock and site);
// returns false, changing nothing, in every other case (the caller splits the
// granule and applies the rules to the byte). Exact: each byte keeps its one
// reader, as its byte cell would.
bool AddByteReader(Cell granule, unsigned byte, unsigned size, Epoch reader, SiteId site);

// After a write (WRITEEXCL, WRITESHARED, INITATOM*, ATOM*): R := bottom.
void ClearReads(Cell cell, SparseVcPool& pool);

// W := (E(t), atomic): the write is ordered after every recorded writer, so a
// write VC deflates back to an epoch.
void SetWriteEpoch(Cell cell, SparseVcPool& pool, Epoch writer, SiteId site, bool atomic,
                   Strength strength = kWeak);

// A write concurrent with the recorded writer(s) but not racing with them
// (atomic after atomic, or a same-value pair within one record): W keeps all
// of them (host_detector/detector/SEMANTICS.md, "past the paper"). W bottom or an epoch of
// the same thread: W := (E(t), atomic). Pool exhausted or over the limit: as AddReader.
void AddWriter(Cell cell, SparseVcPool& pool, Epoch writer, SiteId site, bool atomic,
               Strength strength = kWeak);

// W := (E(t), atomic) plus the recorded writers for which keep(Tid, const
// VcEntry&) holds (concurrent atomics an atomic does not race with), as
// SetWriteEpoch then AddWriter for each kept one, but in place: an atomic on a
// hot word does not rebuild the word's write VC (measured: rebuilding was a
// third of the analysis of host_detector/bench/scaling/hot_histogram).
template <class K>
void SetWriteKeeping(Cell cell, SparseVcPool& pool, Epoch writer, SiteId site, bool atomic, Strength strength,
                     K&& keep) {
  if (cell.write_shared()) {
    SparseVc& vc = pool.Get(cell.write_vc());
    vc.EraseIf([&](Tid t, const VcEntry& e) { return t == writer.tid || !keep(t, e); });
    if (!vc.empty()) {
      if (SetEntry(pool, vc, writer.tid, {writer.clock, site, atomic, ReadKind::kRead, strength}))
        cell.SetWriteVc(cell.write_vc(), site, atomic);
      return;
    }
  } else if (Epoch old = cell.write_epoch(); !old.IsBottom() && old.tid != writer.tid) {
    const VcEntry e{old.clock, cell.write_site(), cell.write_atomic(), ReadKind::kRead, cell.write_strength()};
    if (keep(old.tid, e)) {
      SetWriteEpoch(cell, pool, writer, site, atomic, strength);
      AddWriter(cell, pool, old, e.site, e.atomic, e.strength);
      return;
    }
  }
  SetWriteEpoch(cell, pool, writer, site, atomic, strength);
}

// Every access the cell records is ordered before every later access to it (a
// whole-block barrier over the block's own shared memory): a write VC becomes
// the epoch of its highest thread id (any entry would do; this one is
// deterministic), the reads bottom. No later check can tell the difference,
// since every entry is covered, and a hot word then stops costing a scan of
// all its earlier readers and atomic writers on every access. (A read epoch
// kept could be a kept write, which no plain read stands for: every later
// read would inflate a VC that holds it, and each scan it.)
void CollapseOrdered(Cell cell, SparseVcPool& pool);

// Frees both clocks (if any) and returns the metadata to bottom, keeping the
// kCellSharedSpace / kCellSyncLocation attributes.
void ResetCell(Cell cell, SparseVcPool& pool);

// Global granules (global_shadow.h). SplitGranule: every byte cell := the
// granule's metadata (out-of-line clocks copied, one per byte; when the pool
// is exhausted a byte keeps bottom there, counted as kVcAllocFailures), and
// the granule := split. MergeGranule: when the four byte cells hold the same
// metadata without out-of-line clocks, the granule takes it back and the byte
// cells return to zero; returns whether it did. Callers hold the granule's
// stripe lock.
void SplitGranule(Cell granule, const CellSpan& bytes, SparseVcPool& pool);
bool MergeGranule(Cell granule, const CellSpan& bytes);

// For reports and tests: f(Tid, const VcEntry&) for every recorded reader /
// writer, whether the cell holds an epoch (one call, none if bottom) or a VC.
template <class F>
void ForEachReader(const Cell cell, const SparseVcPool& pool, F&& f) {
  assert(!cell.read_byte_run());
  if (cell.read_shared()) {
    pool.Get(cell.read_vc()).ForEach(f);
  } else if (cell.read_run()) {
    const Cell::ReadRun run = cell.read_run_info();
    const VcEntry e{run.clock, cell.read_site(), false, cell.read_kind(), cell.read_strength()};
    run.ForEach([&](Tid t) { f(t, e); });
  } else if (Epoch e = cell.read_epoch(); !e.IsBottom()) {
    f(e.tid, VcEntry{e.clock, cell.read_site(), false, cell.read_kind(), cell.read_strength()});
  }
}
template <class F>
void ForEachWriter(const Cell cell, const SparseVcPool& pool, F&& f) {
  if (cell.write_shared()) {
    pool.Get(cell.write_vc()).ForEach(f);
  } else if (Epoch e = cell.write_epoch(); !e.IsBottom()) {
    f(e.tid, VcEntry{e.clock, cell.write_site(), cell.write_atomic(), ReadKind::kRead, cell.write_strength()});
  }
}

}  // namespace barracuda::shadow

#endif  // BARRACUDA_SHADOW_MEMORY_CELL_VC_H_
