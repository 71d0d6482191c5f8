// Plain and atomic accesses: the FastTrack rules of paper Fig. 2-3 on shadow
// cells (READEXCL, READSHARED, READINFLATE, WRITEEXCL, WRITESHARED,
// INITATOMEXCL/SHRD, ATOMEXCL/SHARED) plus write-VC inflation for concurrent
// non-racing writers and the same-value filter (host_detector/detector/SEMANTICS.md).
//
// Hot path: one shadow page lookup per record while lanes stay inside a 1 MiB
// page (coalesced accesses do), epoch checks are O(1) point queries on the
// warp's compressed clocks, a word access is decided once for all its bytes
// when they carry the same metadata, and nothing is allocated per access.
// Plain reads/writes whose word cells hold one simple, ordered epoch take
// FastPlainAccess (no race possible; nothing stored when nothing changes).
// Global memory has one cell per 4-byte granule, split into byte cells only
// where an access covers part of one (shadow_memory/global_shadow.h).
// Measured 2026-11-21 (detector_bench RunSerial/a_streaming, per CPU-second,
// shared 2-core machine): 10.5 M thread-level accesses/s before the fast path
// and striped locks, 15.6 M after (load ~2); quiet machine, medians of 5:
// 27.6 M with byte cells, 37.7 M zeroing released shadow in place, 52.4 M
// with granule cells, no prefetch for compact records and one lock pass per
// record.
#include <algorithm>
#include <array>
#include <bit>
#include <optional>

#include "absl/container/inlined_vector.h"

#include "host_detector/detector/detector_impl.h"
#include "shadow_memory/cell_vc.h"

namespace barracuda::detector {
namespace {

using protocol::Op;
using shadow::Cell;

// The conflicting earlier access reported for one byte. Out-of-line clocks are
// hash maps whose iteration order is not deterministic, so among several
// conflicts the one of the lowest thread id is kept (writes before reads):
// reports must not depend on hash seeds or on the analysis interleaving.
//
// Filled in place through a reference (never returned by value: copying a
// struct assembled from byte stores stalls store forwarding, which cost half
// of the streaming benchmark's time when these were returned by value).
struct Conflict {
  bool found = false;
  bool decided = false;    // an earlier byte of the access already had a data race
  bool candidate = false;  // a write-write race whose class waits for the launch end (same_value.h)
  bool proxy = false;      // ordered, but not across proxies (ProxyFences): class kProxy
  uint64_t tid = 0;
  uint32_t site = 0;
  Op op = Op::kRead;
  RaceKind kind = RaceKind::kReadAfterWrite;
  shadow::Clock clock = 0;  // a read's racing write: its clock (0: not noted)
  // Which conflict names the access: a data race before a candidate
  // same-value pair before a dependency-ordered warning before a same-value
  // warning, and the lowest thread id within a rank.
  static int Rank(RaceKind k, bool is_candidate) {
    if (k == RaceKind::kSameValue) return 0;
    if (IsWarningKind(k)) return 1;
    return is_candidate ? 2 : 3;
  }
  // Does the conflict name the access whatever later bytes show? Not a
  // same-value pair (known or candidate): a data race on a later byte wins.
  bool Decides() const { return kind != RaceKind::kSameValue && !candidate; }
  void Note(uint64_t t, uint32_t s, Op o, RaceKind k, bool is_candidate = false, bool is_proxy = false,
            shadow::Clock c = 0) {
    if (decided) return;
    if (found) {
      const int rank = Rank(k, is_candidate), held = Rank(kind, candidate);
      if (rank < held || (rank == held && t >= tid)) return;
    }
    found = true;
    candidate = is_candidate;
    proxy = is_proxy;
    tid = t;
    site = s;
    op = o;
    kind = k;
    clock = c;
  }
};

// What the lane doing the access looks like to the rules.
struct Accessor {
  const vc::WarpClocks* clocks;
  unsigned lane;
  vc::ThreadId tid;
  shadow::Epoch epoch;  // E(t)
  uint32_t site;
  // For the same-value filter: the record, its active lanes and access size.
  const protocol::Record* record;
  uint32_t mask;
  uint32_t size;
  bool same_value;
  // The record stored one value in every lane (kFlagValue): a write-write race
  // with another record may be a same-value pair, decided at the launch end.
  bool value_known;
  // Size and scope of this access when it is strong (kWeak for plain ones),
  // and the launch, for the morally-strong test.
  shadow::Strength strength;
  const LaunchGeometry* launch;
  // What the accessing block learnt through relaxed (unfenced) strong loads of
  // values published by strong stores (BlockState::dependency).
  const vc::VectorClock* dependency;
  // An async-proxy access (kFlagAsyncProxy): the launch's proxy fences; else null.
  const ProxyFences* proxy;
  // A strong read-modify-write (it reads what it overwrites).
  bool rmw;
  shadow::Space space;
  // The launch's strong loads that observed another thread's strong write.
  LoadObservers* observers;
  // The location whose observations this lane's write ends, forgotten once
  // every cell of the lane is checked (a later cell of a wide or split access
  // still asks for them).
  std::optional<shadow::SyncKey>* forget;

  bool Covers(shadow::Tid t, shadow::Clock c) const {
    return c <= clocks->Get(lane, static_cast<vc::ThreadId>(t));
  }
  // A plain write (t, c) that Covers: is it also ordered before this access
  // across proxies? Always for generic accesses and for writes of the async
  // proxy itself (another copy's).
  bool ProxyOrders(shadow::Tid t, shadow::Clock c) const {
    if (proxy == nullptr || launch->IsAsyncThread(t)) return true;
    const auto u = static_cast<vc::ThreadId>(t);
    return proxy->Orders(u, c, static_cast<vc::ThreadId>(tid), clocks->Get(lane, u));
  }
  // Was (t, c) a write of an earlier lane of this same record to `byte`?
  bool SameRecordWrite(shadow::Tid t, shadow::Clock c, uint64_t byte) const {
    uint32_t other = t - clocks->geometry().first_tid;
    if (t < clocks->geometry().first_tid || other >= lane || !(mask >> other & 1)) return false;
    if (c != clocks->Local(other)) return false;
    uint64_t a = record->addr[other];
    return byte >= a && byte - a < size;
  }
  // PTX "morally strong": both strong, complete overlap (strong accesses are
  // naturally aligned: same size), each thread in the other's scope (scope
  // membership is symmetric, so the narrower scope decides).
  // Is (t, c) ordered before this access through a relaxed publication chain
  // only (what a data or address dependency would order)?
  bool DependencyCovers(shadow::Tid t, shadow::Clock c) const {
    return dependency != nullptr && c <= dependency->Get(static_cast<vc::ThreadId>(t));
  }
  bool SameBlock(shadow::Tid t) const { return launch->BlockOfThread(t) == launch->BlockOfThread(tid); }
  bool MorallyStrongWith(shadow::Tid t, shadow::Strength other) const {
    if (strength == shadow::kWeak || other == shadow::kWeak) return false;
    if (shadow::StrengthSize(other) != shadow::StrengthSize(strength)) return false;
    return launch->InScope(tid, t, std::min(shadow::StrengthLevel(strength), shadow::StrengthLevel(other)));
  }
};

// --- Observation order (SEMANTICS.md "Observation order") -------------------
// The latest write a cell holds when it is strong (else strength kWeak).
struct LatestWrite {
  shadow::Epoch epoch;
  shadow::Strength strength = shadow::kWeak;
};
// Out of line, like the rest of this section: off the plain accesses' path,
// and MemoryAccess must stay small enough for the compiler to inline the page
// lookups into it (inlined, these cost detector_bench a_streaming 17% more
// instructions).
[[gnu::noinline]] LatestWrite LatestStrongWrite(const Cell cell, const shadow::SparseVcPool& pool) {
  if (!cell.write_atomic()) return {};
  if (!cell.write_shared()) return {cell.write_epoch(), cell.write_strength()};
  shadow::Tid t = 0;
  if (!cell.write_vc_latest(&t)) return {};
  const shadow::VcEntry* e = pool.Get(cell.write_vc()).Find(t);
  if (e == nullptr || !e->atomic) return {};
  return {{t, e->clock}, e->strength};
}

// The location a strong write of `written` strength to `byte` was made to:
// strong accesses are naturally aligned.
shadow::SyncKey LocationOf(const Accessor& a, uint64_t byte, shadow::Strength written) {
  return {a.space, byte & ~(uint64_t{shadow::StrengthSize(written)} - 1)};
}

// Is a strong write that the cell holds (in either half), and that does not
// happen before the access, ordered before it through observation order: a
// strong read that observed it happens before the access? PTX causality
// order, clause 2. Every strong write held belongs to the cell's chain (a weak
// write clears them), so with the chain unbroken, a read of the latest write
// observed them all: the latest write itself when it is a read-modify-write,
// or a strong load of it (LoadObservers). Asked only where a race would be
// noted.
[[gnu::noinline]] bool ObservedBefore(const Cell cell, const shadow::SparseVcPool& pool, const Accessor& a,
                                      uint64_t byte) {
  if (cell.Has(shadow::kCellChainBroken)) return false;
  const LatestWrite l = LatestStrongWrite(cell, pool);
  if (l.strength == shadow::kWeak) return false;
  if (cell.Has(shadow::kCellLastRmw) && a.Covers(l.epoch.tid, l.epoch.clock)) return true;
  return a.observers != nullptr &&
         a.observers->AnyBefore(LocationOf(a, byte, l.strength), l.epoch,
                                [&](shadow::Tid z, shadow::Clock c) { return a.Covers(z, c); });
}

// ObservedBefore for one check of one cell: the answer is the same for every
// held write, so a check that meets many concurrent ones (a hot word's atomics
// from other blocks) asks once. Used before the check changes the cell.
class Observed {
 public:
  Observed(const Cell cell, const shadow::SparseVcPool& pool, const Accessor& a, uint64_t byte)
      : cell_(cell), pool_(pool), a_(a), byte_(byte) {}
  bool Orders() {
    if (!known_) {
      orders_ = ObservedBefore(cell_, pool_, a_, byte_);
      known_ = true;
    }
    return orders_;
  }

 private:
  const Cell cell_;
  const shadow::SparseVcPool& pool_;
  const Accessor& a_;
  const uint64_t byte_;
  bool known_ = false, orders_ = false;
};

// A strong load of the cell: if it read another thread's strong write that it
// is not ordered after, morally strong with it, in an unbroken chain, later
// accesses ordered after the load are ordered after the chain's writes.
[[gnu::noinline]] void NoteObservation(const Cell cell, const shadow::SparseVcPool& pool, const Accessor& a,
                                      uint64_t byte) {
  if (a.observers == nullptr || cell.Has(shadow::kCellChainBroken)) return;
  const LatestWrite l = LatestStrongWrite(cell, pool);
  if (l.strength == shadow::kWeak || a.Covers(l.epoch.tid, l.epoch.clock) ||
      !a.MorallyStrongWith(l.epoch.tid, l.strength)) {
    return;
  }
  a.observers->Note(LocationOf(a, byte, l.strength), l.epoch, a.tid, a.epoch.clock);
}

// A write to the cell: the strong loads of its latest strong write read an
// older value from now on.
[[gnu::noinline]] void ForgetObservations(const Accessor& a, uint64_t byte, const LatestWrite& previous) {
  if (a.observers == nullptr || previous.strength == shadow::kWeak) return;
  const shadow::SyncKey x = LocationOf(a, byte, previous.strength);
  if (a.forget->has_value() && !(**a.forget == x)) a.observers->Forget(**a.forget);  // cells of two locations
  *a.forget = x;
}

// The chain state after a strong write by `a` (CheckAtomic), from the latest
// write before it: a new chain after a weak write (or none); else broken by a
// store or by a link that is not morally strong.
[[gnu::noinline]] void ContinueChain(const Cell cell, const Accessor& a, const LatestWrite& previous,
                                    bool was_broken) {
  const bool broken = previous.strength != shadow::kWeak &&
                      (was_broken || !a.rmw || !a.MorallyStrongWith(previous.epoch.tid, previous.strength));
  cell.SetChain(broken, a.rmw, a.tid);
}

// The reader half of a read's rule, once its checks are done: READEXCL when
// the cell's reader is ordered before this one and stands for no more than it
// (ReaderSubsumes), else READSHARED / READINFLATE. Callers of a plain read
// try the common READSHARED case first, joining an inline run in place
// (Cell::AppendPlainReader), before this.
void RecordRead(Cell cell, shadow::SparseVcPool& pool, const Accessor& a, shadow::ReadKind kind,
                shadow::Strength strength) {
  if (cell.read_shared() || cell.read_run()) {
    shadow::AddReader(cell, pool, a.epoch, a.site, kind, strength);  // READSHARED
    return;
  }
  const shadow::Epoch r = cell.read_epoch();
  if (r.IsBottom() ||
      (a.Covers(r.tid, r.clock) &&
       shadow::ReaderSubsumes(kind, strength, cell.read_kind(), cell.read_strength(), a.SameBlock(r.tid)))) {
    shadow::SetReadEpoch(cell, pool, a.epoch, a.site, kind, strength);  // READEXCL
  } else {
    shadow::AddReader(cell, pool, a.epoch, a.site, kind, strength);  // READINFLATE
  }
}

// A plain read of a whole granule that CheckRead would pass without noting
// anything: one writer (or none), ordered before the access, and no write kept
// among the readers; not split into byte cells nor read byte by byte. Only the
// reader half then changes (RecordRead). `writes_zero`: the write halves are
// known to be all zero (PageView::HalvesUntouched) and are not loaded.
[[gnu::always_inline]] inline bool PlainReadOrdered(const Cell g, const shadow::SparseVcPool& pool,
                                                    const Accessor& a, bool writes_zero) {
  if (g.read_byte_run()) return false;
  if (!writes_zero) {
    if (g.split() || g.write_shared()) return false;
    const shadow::Epoch w = g.write_epoch();
    if (!w.IsBottom() && !a.Covers(w.tid, w.clock)) return false;
  }
  return g.read_shared() ? pool.Get(g.read_vc()).kept_writes() == 0
                         : g.read_kind() != shadow::ReadKind::kKeptWrite;
}

// Plain read (READEXCL / READSHARED / READINFLATE) or atomic load (an
// ld.relaxed: it conflicts with plain writes only, and is recorded as a reader
// of kind kAtomicRead so that later atomics pass it and plain writes do not).
void CheckRead(Cell cell, shadow::SparseVcPool& pool, const Accessor& a, uint64_t byte, bool atomic_load,
               Conflict& k) {
  const shadow::ReadKind kind = atomic_load ? shadow::ReadKind::kAtomicRead : shadow::ReadKind::kRead;
  const RaceKind plain_kind = atomic_load ? RaceKind::kAtomicVsPlain : RaceKind::kReadAfterWrite;
  Observed observed(cell, pool, a, byte);
  shadow::ForEachWriter(cell, pool, [&](shadow::Tid t, const shadow::VcEntry& e) {
    if (a.Covers(t, e.clock)) {
      if (!e.atomic && !a.ProxyOrders(t, e.clock)) k.Note(t, e.site, Op::kWrite, plain_kind, false, true);
      return;
    }
    if (!e.atomic) {
      k.Note(t, e.site, Op::kWrite, plain_kind, false, false, e.clock);
    } else if (!atomic_load) {
      if (!observed.Orders()) k.Note(t, e.site, Op::kAtomic, RaceKind::kAtomicVsPlain, false, false, e.clock);
    } else if (!a.MorallyStrongWith(t, e.strength)) {
      if (!observed.Orders()) k.Note(t, e.site, Op::kAtomic, RaceKind::kNotMorallyStrong);
    }
  });
  // A write kept among the readers (see CheckAtomic) conflicts with reads too
  // (a read VC counts them: a hot word's many plain readers need no scan).
  const bool kept_writes = cell.read_shared() ? pool.Get(cell.read_vc()).kept_writes() != 0
                                              : cell.read_kind() == shadow::ReadKind::kKeptWrite;
  if (kept_writes) shadow::ForEachReader(cell, pool, [&](shadow::Tid t, const shadow::VcEntry& e) {
    if (e.read_kind != shadow::ReadKind::kKeptWrite) return;
    if (a.Covers(t, e.clock)) {
      if (e.strength == shadow::kWeak && !a.ProxyOrders(t, e.clock))
        k.Note(t, e.site, Op::kWrite, plain_kind, false, true);
      return;
    }
    if (e.strength == shadow::kWeak) {
      k.Note(t, e.site, Op::kWrite, plain_kind, false, false, e.clock);
    } else if (!atomic_load) {
      if (!observed.Orders()) k.Note(t, e.site, Op::kAtomic, RaceKind::kAtomicVsPlain, false, false, e.clock);
    } else if (!a.MorallyStrongWith(t, e.strength)) {
      if (!observed.Orders()) k.Note(t, e.site, Op::kAtomic, RaceKind::kNotMorallyStrong);
    }
  });
  if (atomic_load) {
    NoteObservation(cell, pool, a, byte);
    RecordRead(cell, pool, a, kind, a.strength);
  } else if (!cell.AppendPlainReader(a.epoch.tid, a.epoch.clock, a.site)) {  // READSHARED on an inline run
    RecordRead(cell, pool, a, kind, shadow::kWeak);
  }
}

// R[t] := max(R[t], c) as a kept write: records a write that later accesses
// must still check although another write took the write half: a plain one
// beside a concurrent non-racing write (an atomic, or another lane of a
// same-value store), or a strong one that a newer strong write does not stand
// for (Subsumes: a narrower scope or another size).
void KeepAsReader(Cell cell, shadow::SparseVcPool& pool, shadow::Epoch e, uint32_t site,
                  shadow::Strength strength = shadow::kWeak) {
  constexpr shadow::ReadKind kKept = shadow::ReadKind::kKeptWrite;
  if (cell.read_shared()) {
    const shadow::VcEntry* r = pool.Get(cell.read_vc()).Find(shadow::ReaderKey(e.tid, kKept, strength));
    if (r != nullptr && r->clock >= e.clock && shadow::ReaderSubsumes(kKept, r->strength, kKept, strength, true)) return;
  } else if (cell.read_run()) {
    const Cell::ReadRun run = cell.read_run_info();
    if (run.Holds(e.tid) && run.clock >= e.clock && cell.read_kind() == kKept &&
        shadow::ReaderSubsumes(kKept, cell.read_strength(), kKept, strength, true)) {
      return;
    }
  } else {
    shadow::Epoch r = cell.read_epoch();
    if (!r.IsBottom() && r.tid == e.tid && r.clock >= e.clock && cell.read_kind() == kKept &&
        shadow::ReaderSubsumes(kKept, cell.read_strength(), kKept, strength, true)) {
      return;
    }
  }
  shadow::AddReader(cell, pool, e, site, kKept, strength);
}

// Plain write: WRITEEXCL / WRITESHARED (+ same-value writers kept as a write VC).
void CheckPlainWrite(Cell cell, shadow::SparseVcPool& pool, const Accessor& a, uint64_t byte,
                     Conflict& k) {
  bool concurrent_writer_kept = false;
  bool write_race = false;
  bool data_write_race = false;  // write_race, not only candidate same-value pairs
  Observed observed(cell, pool, a, byte);
  shadow::ForEachWriter(cell, pool, [&](shadow::Tid t, const shadow::VcEntry& e) {
    if (a.Covers(t, e.clock)) {
      if (!e.atomic && !a.ProxyOrders(t, e.clock)) k.Note(t, e.site, Op::kWrite, RaceKind::kWriteAfterWrite, false, true);
      return;
    }
    if (e.atomic) {
      if (observed.Orders()) return;
      write_race = data_write_race = true;
      k.Note(t, e.site, Op::kAtomic, RaceKind::kAtomicVsPlain);
    } else if (a.same_value && a.SameRecordWrite(t, e.clock, byte)) {
      // Lanes of one record storing one value (paper §3.3.1): a race by the
      // PTX model, reported as a same-value warning; the rules treat the pair
      // as concurrent non-racing writers.
      concurrent_writer_kept = true;
      k.Note(t, e.site, Op::kWrite, RaceKind::kSameValue);
    } else {
      write_race = true;
      data_write_race |= !a.value_known;
      k.Note(t, e.site, Op::kWrite, RaceKind::kWriteAfterWrite, a.value_known);
    }
  });
  bool read_race = false;
  shadow::ForEachReader(cell, pool, [&](shadow::Tid t, const shadow::VcEntry& e) {
    if (!a.Covers(t, e.clock)) {
      if (e.read_kind == shadow::ReadKind::kKeptWrite && e.strength != shadow::kWeak && observed.Orders()) {
        return;
      }
      read_race = true;
      if (data_write_race) return;
      switch (e.read_kind) {
        case shadow::ReadKind::kKeptWrite:
          if (e.strength == shadow::kWeak) {
            k.Note(t, e.site, Op::kWrite, RaceKind::kWriteAfterWrite, a.value_known);
          } else {
            k.Note(t, e.site, Op::kAtomic, RaceKind::kAtomicVsPlain);
          }
          break;
        case shadow::ReadKind::kAtomicRead: k.Note(t, e.site, Op::kAtomic, RaceKind::kAtomicVsPlain); break;
        case shadow::ReadKind::kRead:
          k.Note(t, e.site, Op::kRead,
                 a.DependencyCovers(t, e.clock) ? RaceKind::kDependencyOrdered : RaceKind::kWriteAfterRead);
          break;
      }
    }
  });
  const bool raced = read_race || write_race;
  if (cell.write_atomic()) ForgetObservations(a, byte, LatestStrongWrite(cell, pool));
  if (a.same_value) {
    // Lanes of this record overlap: a later lane's write is not checked against
    // this one (same value), so it must still see what this write was ordered
    // after: keep the reads, and keep the previous writers as if they were reads
    // (see CheckAtomic for why that is exact).
    shadow::ForEachWriter(cell, pool, [&](shadow::Tid t, const shadow::VcEntry& e) {
      if (!a.SameRecordWrite(t, e.clock, byte)) KeepAsReader(cell, pool, {t, e.clock}, e.site, e.strength);
    });
  } else {
    shadow::ClearReads(cell, pool);
  }
  if (concurrent_writer_kept && !raced) {
    shadow::AddWriter(cell, pool, a.epoch, a.site, false);
  } else {
    shadow::SetWriteEpoch(cell, pool, a.epoch, a.site, false);
  }
  if (cell.Has(shadow::kCellChainBroken) || cell.Has(shadow::kCellLastRmw) || cell.write_shared())
    cell.SetChain(false, false, a.tid);  // a weak write ends the chain
}

// The readers' half of an atomic's check (CheckAtomic).
void CheckAtomicAgainstReaders(const Cell cell, const shadow::SparseVcPool& pool, const Accessor& a,
                               Observed& observed, Conflict& k) {
  shadow::ForEachReader(cell, pool, [&](shadow::Tid t, const shadow::VcEntry& e) {
    const bool strong = e.read_kind == shadow::ReadKind::kAtomicRead ||
                        (e.read_kind == shadow::ReadKind::kKeptWrite && e.strength != shadow::kWeak);
    // Morally strong pairs never race: decided without the clock query (a lock
    // word's many kept strong writers made Covers 37% of detector_bench d_locks).
    if (strong && a.MorallyStrongWith(t, e.strength)) return;
    if (a.Covers(t, e.clock)) return;
    if (strong) {
      // Strong readers are loads or kept writes; only a write can be observed.
      const bool kept_write = e.read_kind == shadow::ReadKind::kKeptWrite;
      if (!kept_write || !observed.Orders()) k.Note(t, e.site, Op::kAtomic, RaceKind::kNotMorallyStrong);
      return;
    }
    const bool read = e.read_kind != shadow::ReadKind::kKeptWrite;
    const bool dependency = read && a.DependencyCovers(t, e.clock);
    k.Note(t, e.site, read ? Op::kRead : Op::kWrite,
           dependency ? RaceKind::kDependencyOrdered : RaceKind::kAtomicVsPlain);
  });
}

// An atomic on a word whose writers are concurrent atomics of its own
// strength, none of them (but its own thread's) ordered before it: the
// writers' scan below would note nothing and keep them all, so the atomic
// only takes its thread's entry. Decided from summaries in O(warp): the VC's
// lowest clock against the largest clock the thread knows of any other, and
// its scope against where the accessors can be. Without it a hot word's
// atomics each scanned all the word's earlier atomics (hot_histogram:
// quadratic in the accesses per phase). Returns false, having changed
// nothing, when the full check must run.
bool AtomicAmongConcurrentAtomics(Cell cell, shadow::SparseVcPool& pool, const Accessor& a, uint64_t byte,
                                  Conflict& k) {
  if (!cell.write_shared()) return false;
  shadow::SparseVc& w = pool.Get(cell.write_vc());
  if (w.uniform_atomic_strength() != a.strength) return false;  // never kWeak: only atomics count
  // Every accessor of the word is in the atomic's scope: any at gpu scope;
  // in a block's shared memory, its block (or cluster with distributed
  // shared memory).
  const shadow::ScopeLevel level = shadow::StrengthLevel(a.strength);
  const bool all_in_scope = level == shadow::ScopeLevel::kGpu ||
                            (cell.Has(shadow::kCellSharedSpace) &&
                             (level == shadow::ScopeLevel::kCluster || a.launch->cluster_size <= 1));
  if (!all_in_scope) return false;
  vc::Clock known = 0;
  if (!a.clocks->KnownOthersBound(a.lane, &known) || w.min_clock() <= known) return false;
  Observed observed(cell, pool, a, byte);
  CheckAtomicAgainstReaders(cell, pool, a, observed, k);
  // Every writer is of the atomic's strength and in its scope, so the link
  // to the latest is morally strong: no lookup of the latest writer (a hot
  // word's clock is a hash map).
  const bool broken = cell.Has(shadow::kCellChainBroken) || !a.rmw;
  ForgetObservations(a, byte, LatestWrite{{}, a.strength});
  // The thread's own entry is ordered before (program order) and of the same
  // strength (Subsumes): dropped, as the full rule drops it.
  if (shadow::SetEntry(pool, w, a.tid, {a.epoch.clock, a.site, true, shadow::ReadKind::kRead, a.strength}))
    cell.SetWriteVc(cell.write_vc(), a.site, true);
  cell.SetChain(broken, a.rmw, a.tid);
  return true;
}

// Atomic: INITATOMEXCL / INITATOMSHRD / ATOMEXCL / ATOMSHARED.
//
// Past the paper (for exactness, host_detector/detector/SEMANTICS.md): an atomic does not
// race with a concurrent atomic, so a later atomic concurrent with this one
// must still be checked against the plain accesses this one was ordered
// after. The paper clears R and overwrites W here, which misses e.g.
//   block 0: read x; bar; atomic x        block 1: atomic x   (races with the read)
// So reads are kept, the plain writers are kept as if they were reads (every
// later access that conflicts with a plain write also conflicts with a read,
// except plain reads, which would race with this atomic anyway), and
// concurrent atomic writers stay in a write VC.
void CheckAtomic(Cell cell, shadow::SparseVcPool& pool, const Accessor& a, uint64_t byte, Conflict& k) {
  if (AtomicAmongConcurrentAtomics(cell, pool, a, byte, k)) return;
  const bool found_before = k.found;
  const LatestWrite previous = LatestStrongWrite(cell, pool);
  const bool was_broken = cell.Has(shadow::kCellChainBroken);
  ForgetObservations(a, byte, previous);
  Observed observed(cell, pool, a, byte);
  struct Kept {
    shadow::Epoch epoch;
    uint32_t site;
    shadow::Strength strength;
  };
  absl::InlinedVector<Kept, 2> plains;
  absl::InlinedVector<Kept, 2> superseded;  // ordered before, but excused less often
  shadow::ForEachWriter(cell, pool, [&](shadow::Tid t, const shadow::VcEntry& e) {
    const bool covered = a.Covers(t, e.clock);
    if (e.atomic) {
      if (covered) {
        if (!shadow::Subsumes(a.strength, e.strength, a.SameBlock(t))) superseded.push_back({{t, e.clock}, e.site, e.strength});
        return;
      }
      // Concurrent strong writers are kept (SetWriteKeeping below).
      if (!a.MorallyStrongWith(t, e.strength) && !observed.Orders())
        k.Note(t, e.site, Op::kAtomic, RaceKind::kNotMorallyStrong);
    } else {
      plains.push_back({{t, e.clock}, e.site, shadow::kWeak});
      if (!covered) k.Note(t, e.site, Op::kWrite, RaceKind::kAtomicVsPlain);
    }
  });
  const bool write_race = k.found != found_before;
  if (!write_race) CheckAtomicAgainstReaders(cell, pool, a, observed, k);
  for (const Kept& p : plains) KeepAsReader(cell, pool, p.epoch, p.site);
  for (const Kept& p : superseded) KeepAsReader(cell, pool, p.epoch, p.site, p.strength);
  shadow::SetWriteKeeping(cell, pool, a.epoch, a.site, true, a.strength,
                          [&](shadow::Tid t, const shadow::VcEntry& e) { return e.atomic && !a.Covers(t, e.clock); });
  ContinueChain(cell, a, previous, was_broken);
}

constexpr unsigned kPrefetchDistance = 4;
// Widest span of lane addresses (bytes) that a record locks as a whole: at
// most 32 stripes of 16 bytes, so never more locks than lanes.
constexpr uint64_t kCompactSpan = 512 - 16;

// Do all cells carry the same metadata (epochs, sites, flags; no out-of-line
// clocks)? Callers hold the cells' locks when cells are shared between workers.
bool SameMetadata(const shadow::CellSpan& cells) {
  const Cell c0 = cells[0];
  if (c0.read_shared() || c0.write_shared()) return false;
  for (size_t i = 1; i < cells.size(); ++i) {
    if (!cells[i].MetadataEquals(c0)) return false;
  }
  return true;
}

// cells[1..] := cells[0], skipping cells that already hold it (a store that
// changes nothing would still dirty the cache line).
void CopyFirstToRest(const shadow::CellSpan& cells) {
  for (size_t i = 1; i < cells.size(); ++i) {
    if (!cells[i].MetadataEquals(cells[0])) cells[i].CopyMetadataFrom(cells[0]);
  }
}

// The common case decided without the general rules: a plain read or plain
// write (no same-value filter) whose cells all hold the same epochs (no
// out-of-line clocks), every one of them ordered before this access. No race
// is possible, and the new metadata is what READEXCL / WRITEEXCL store; it is
// computed once and stored only into cells that differ, so re-reading or
// re-writing data with the same epoch (loops over the same array) dirties no
// cache line. Returns false, having changed nothing, in every other case: a
// write VC or read VC, a possible race, a read that would inflate.
// Callers hold the cells' locks when cells are shared between workers.
// Measured (detector_bench RunSerial/a_streaming, per CPU-second, loaded
// 2-core machine at load 6-7): general path 9.5 M, this path with per-field
// compares 13.2 M, with Cell::Bits word compares 18.0 M accesses/s.
// `zero`: halves known to hold zeros (PageView::HalvesUntouched), not loaded
// (shadow::Touch::kNone: none).
[[gnu::always_inline]] inline Cell::Bits LoadBits(const Cell c, shadow::Touch zero) {
  Cell::Bits b;
  if (zero != shadow::Touch::kWrite) std::memcpy(&b.w[0], static_cast<const void*>(c.write_half()), shadow::kCellHalfSize);
  if (zero != shadow::Touch::kRead) std::memcpy(&b.w[2], static_cast<const void*>(c.read_half()), shadow::kCellHalfSize);
  return b;
}

[[gnu::always_inline]] inline bool FastPlainAccess(const shadow::CellSpan& cells, const Accessor& a, bool write,
                                                   shadow::Touch zero) {
  const Cell::Bits b = LoadBits(cells[0], zero);
  if ((b.flags() & (shadow::kCellReadShared | shadow::kCellReadRun | shadow::kCellWriteShared)) != 0) return false;
  // A write over a strong write ends its observations (CheckPlainWrite).
  if (write && (b.flags() & shadow::kCellWriteAtomic) != 0) return false;
  const shadow::Epoch w = b.write_epoch(), r = b.read_epoch();
  if (!w.IsBottom() && !a.Covers(w.tid, w.clock)) return false;
  if (!r.IsBottom()) {
    if (!a.Covers(r.tid, r.clock)) return false;
    // A read replaces an earlier reader only of a weaker or equal kind (else READINFLATE).
    if (!write && (b.flags() & shadow::kCellReadKeptWrite) != 0) return false;
  }
  for (size_t i = 1; i < cells.size(); ++i) {
    if (!(LoadBits(cells[i], zero) == b)) return false;
  }
  // WRITEEXCL (R := bottom, W := E(t)) or READEXCL (R := E(t)).
  const Cell::Bits next = write ? Cell::WithPlainWrite(b, a.epoch, a.site) : Cell::WithPlainRead(b, a.epoch, a.site);
  if (next == b) return true;  // same epoch again: nothing to store
  // Every cell holds b: the halves to store are the same for all (a read
  // stores only read halves, a write over bottom reads only write halves).
  const bool write_half = ((next.w[0] ^ b.w[0]) | (next.w[1] ^ b.w[1])) != 0;
  const bool read_half = ((next.w[2] ^ b.w[2]) | (next.w[3] ^ b.w[3])) != 0;
  for (const Cell c : cells) {
    if (write_half) c.StoreWriteHalf(next);
    if (read_half) c.StoreReadHalf(next);
  }
  return true;
}

// The halves an access that stores only `touch`'s halves could skip loading
// (PageView::HalvesUntouched); kNone when it may store both.
inline shadow::Touch OtherHalf(shadow::Touch touch) {
  return touch == shadow::Touch::kWrite  ? shadow::Touch::kRead
         : touch == shadow::Touch::kRead ? shadow::Touch::kWrite
                                         : shadow::Touch::kNone;
}

// Do two active lanes of the record access overlapping bytes? (Only then can
// the same-value filter matter.)
bool LanesOverlap(const protocol::Record& r, uint32_t mask, uint32_t size) {
  std::array<uint64_t, 32> addrs;
  size_t n = 0;
  for (uint32_t m = mask; m != 0; m &= m - 1) addrs[n++] = r.addr[std::countr_zero(m)];
  std::sort(addrs.begin(), addrs.begin() + n);
  for (size_t i = 1; i < n; ++i) {
    if (addrs[i] - addrs[i - 1] < size) return true;
  }
  return false;
}

// A shared cell with out-of-line or run clocks, which the block's next
// whole-block barrier collapses (BlockState::inflated_shared).
inline bool Inflated(const Cell x) { return x.read_shared() || x.read_run() || x.write_shared(); }

// Without barriers cells inflate and deflate again and again: keep the list of
// inflated shared cells to those still inflated, each once (amortised O(1);
// bounded by the window, so the list never grows with the work).
void KeepInflatedBounded(std::vector<Cell>& list, uint64_t window_bytes) {
  if (list.size() <= std::max<size_t>(1024, 2 * window_bytes)) return;
  std::erase_if(list, [&](const Cell x) { return !Inflated(x); });
  std::sort(list.begin(), list.end(), [](const Cell x, const Cell y) { return x.write_half() < y.write_half(); });
  list.erase(std::unique(list.begin(), list.end()), list.end());
}

// Did a thread of the reading block observe, with a strong read, a release of
// thread t made after t's write at `clock` (PendingSync::acquire: observed, not
// yet acquired by a fence)? Then only the acquire is missing: the report says
// so (RaceEvent::unacquired_release). The block's threads, not the reader
// alone: the observer often passes the news on through shared memory and a
// barrier (the last-block reduction of CUDA's threadFenceReduction sample).
bool ObservedUnacquired(const BlockState& bs, uint64_t t, shadow::Clock clock) {
  if (clock == 0) return false;
  const auto u = static_cast<vc::ThreadId>(t);
  for (const auto& [thread, p] : bs.pending) {
    for (unsigned part = 0; part < p.acquire.size(); ++part)
      if ((p.acquire_parts >> part & 1) != 0 && p.acquire[part].Get(u) >= clock) return true;
  }
  return false;
}

// A plain read of granules PlainReadOrdered passed: the reader halves only,
// joining an inline run in place where it can; shared cells it inflates are
// listed for the block's next barrier.
[[gnu::always_inline]] inline void AppendOrderedRead(shadow::CellWriteHalf* cells, size_t count,
                                                    shadow::SparseVcPool& pool, const Accessor& a, bool global,
                                                    std::vector<Cell>& inflated_shared, uint64_t window_bytes) {
  bool pushed = false;
  for (size_t i = 0; i < count; ++i) {
    const Cell g(cells + i);
    if (g.SetFirstPlainRead(a.epoch, a.site)) continue;  // no reader yet
    if (g.AppendPlainReader(a.epoch.tid, a.epoch.clock, a.site)) continue;  // inflated already
    if (g.PairPlainReader(a.epoch.tid, a.epoch.clock, a.site)) {  // inflates
      if (!global) {
        inflated_shared.push_back(g);
        pushed = true;
      }
      continue;
    }
    const bool was_inflated = !global && Inflated(g);
    RecordRead(g, pool, a, shadow::ReadKind::kRead, shadow::kWeak);
    if (!global && !was_inflated && Inflated(g)) {
      inflated_shared.push_back(g);
      pushed = true;
    }
  }
  if (pushed) KeepInflatedBounded(inflated_shared, window_bytes);
}

}  // namespace

void Detector::Impl::MemoryAccess(const protocol::Record& r, uint64_t index, uint32_t block,
                                  unsigned warp, WorkerCounters& c) {
  BlockState& bs = Block(block);
  vc::WarpClocks& wc = bs.clocks.warp(warp);
  const Op op = protocol::OpOf(r.header);
  const protocol::Space space = protocol::SpaceOf(r.header);
  const uint32_t size = r.header.access_size;
  if (size == 0 || size > 16 || static_cast<uint8_t>(space) > 1) {
    Malformed(c, "memory record with bad access size or space", index);
    return;
  }
  const uint32_t mask = r.header.active_mask & bs.live[warp];
  c.warp_accesses++;
  c.thread_accesses += static_cast<uint64_t>(std::popcount(mask));

  Accessor a;
  a.clocks = &wc;
  a.record = &r;
  a.mask = mask;
  a.size = size;
  a.site = r.header.site_id;
  a.same_value = options.same_value_filter && op == Op::kWrite &&
                 (r.header.flags & protocol::kFlagSameValue) != 0 && LanesOverlap(r, mask, size);
  a.value_known = options.same_value_filter && protocol::HasStoredValue(r) && size <= 8 &&
                  r.header.site_id != protocol::kNoSite;
  if (op == Op::kWrite) c.site_values.Note(site_values, launches, r);
  // Every access but kRead/kWrite is strong (SEMANTICS.md): race-checked with
  // its size and scope, and it takes part in release/acquire patterns
  // (StrongBefore/StrongAfter around each lane's check).
  const bool strong = op != Op::kRead && op != Op::kWrite;
  a.strength = strong ? shadow::MakeStrength(size, launch.LevelOf(op, protocol::ScopeOf(r.header))) : shadow::kWeak;
  a.launch = &launch;
  a.dependency = bs.dependency.IsBottom() ? nullptr : &bs.dependency;
  a.space = static_cast<shadow::Space>(space);
  a.observers = &load_observers;
  // A strong access that only loads (ld.relaxed, ld.volatile, ld.acquire) is
  // checked as a read that passes morally strong accesses.
  const bool atomic_load = strong && StrongLoads(r.header) && !StrongStores(r.header);
  // Neither flag: an older producer's atom (SEMANTICS.md), a read-modify-write.
  a.rmw = strong && ((StrongLoads(r.header) && StrongStores(r.header)) ||
                     (r.header.flags & (protocol::kFlagLoad | protocol::kFlagStore)) == 0);
  shadow::SparseVcPool& pool = shadow.vcs();
  shadow::PageView view;
  const bool global = space == protocol::Space::kGlobal;
  // Which halves of the global cells this access may store (PageView::Cells):
  // a plain read only the read halves, a plain write only the write halves
  // (with the same-value filter it may keep earlier writers as readers).
  const shadow::Touch touch = op == Op::kRead && !atomic_load   ? shadow::Touch::kRead
                              : op == Op::kWrite && !a.same_value ? shadow::Touch::kWrite
                                                                  : shadow::Touch::kBoth;
  // Global cells are shared by the workers. Shared cells are this block's own
  // unless the launch has clusters of several CTAs: a neighbour of the cluster
  // may then update them (distributed shared memory) from another worker while
  // this block's worker accesses them, so both sides lock. A single analysis
  // thread needs no cell locks at all.
  bool lock = concurrent && (global || launch.cluster_size > 1);
  // A compact global record (all lanes within kCompactSpan bytes of one page,
  // as coalesced and broadcast accesses are) takes the stripe locks of its
  // span once, in ascending order like every holder, instead of one lock per
  // lane; and needs no software prefetch (the hardware prefetcher follows the
  // cells). Measured (detector_bench a_streaming, quiet 2-core machine, medians
  // of 3): prefetching coalesced lanes cost 50.4 -> 57.0 M accesses/s serial.
  bool compact = false;
  std::optional<shadow::CellSpanLock> record_lock;
  // A compact record inside one tracked page also marks its cells' halves
  // touched once (PageView::Cells over its span: the span, under 1 KiB, meets
  // only the touch regions of its first and last lanes' cells), and asks once
  // which halves nobody stored yet (`record_zero`, PageView::HalvesUntouched:
  // the record's own fast-path stores never reach them, and a lane that takes
  // the general path forgets it); its lanes look their cells up unmarked.
  // Measured (callgrind, the daemon on vector add 1M): 1,006 -> 883 M
  // instructions; matmul 128 unchanged (MemoryAccess 1,317 M: shared tiles).
  bool record_marked = false;
  bool record_zero_known = false;
  shadow::Touch record_zero = shadow::Touch::kNone;
  if (global && mask != 0) {
    uint64_t lo = ~uint64_t{0}, hi = 0;
    for (uint32_t m = mask; m != 0; m &= m - 1) {
      const uint64_t x = r.addr[std::countr_zero(m)];
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    compact = hi - lo <= kCompactSpan;
    if (compact) {
      view = shadow.global().View(lo);
      if (view.Contains(lo, hi - lo + size) && view.tracked()) {
        if (lock) {
          record_lock.emplace(view.Cells(lo, hi - lo + size, shadow::Touch::kNone), true);
          lock = false;
        }
        view.Cells(lo, hi - lo + size, touch);
        record_marked = true;
        const shadow::Touch other = OtherHalf(touch);
        if (other != shadow::Touch::kNone && view.HalvesUntouched(lo, hi - lo + size, other)) record_zero = other;
        record_zero_known = true;
      }
    }
  }
  // An asynchronous copy's access (cp.async): SEMANTICS.md "Asynchronous copies".
  const bool async = (r.header.flags & protocol::kFlagAsync) != 0 && (op == Op::kRead || op == Op::kWrite) &&
                     launch.HasAsyncThreads();
  // An async-proxy access (bulk copy, TMA): also checked across proxies.
  a.proxy = async && (r.header.flags & protocol::kFlagAsyncProxy) != 0 ? &proxy_fences : nullptr;
  const bool fast_op = !a.same_value && a.proxy == nullptr && (op == Op::kRead || op == Op::kWrite);
  // Plain reads a granule may record byte by byte without byte cells.
  const bool byte_reads = fast_op && op == Op::kRead && !atomic_load && !async;
  // Plain reads of whole granules that may skip the general rules when
  // nothing can race (PlainReadOrdered): cells this worker may change without
  // locks (a single worker, or a compact record's stripes held), and shared
  // memory of a block without cluster neighbours (their cells are shared).
  const bool granule_reads = byte_reads && !lock && (size & (shadow::kGranuleBytes - 1)) == 0 &&
                             (global || launch.cluster_size <= 1);
  bool lanes_granule_aligned = (size & (shadow::kGranuleBytes - 1)) == 0;
  if (a.same_value) {
    for (uint32_t m = mask; m != 0 && lanes_granule_aligned; m &= m - 1) {
      lanes_granule_aligned = (r.addr[std::countr_zero(m)] & (shadow::kGranuleBytes - 1)) == 0;
    }
  }

  shadow::PageView shared_view;  // the window of the last shared lane (one per record but DSMEM)
  // Granules an earlier lane of this record read on the fast path below, by
  // word (a slot per word modulo 32): a lane reading the same granules, with
  // the same view of their writers, needs neither the lookup nor the check
  // again: broadcast reads (a tiled matmul's A row read by 16 lanes, a B
  // column by lanes l and l + 16). Reads change no writer; the slots are
  // dropped when a lane takes the general path (it may split a granule).
  // Only where lanes may share words: the first and last lanes' span is
  // narrower than the lanes' bytes (else, in the common coalesced record,
  // keeping the slots cost vector_add's analysis 11% more instructions).
  // Measured (callgrind): detector_bench e_matmul/16384 665 -> 572 M
  // instructions; the daemon's MemoryAccess on `matmul 128` 1,515 -> 1,315 M.
  struct OrderedRead {  // trivial: no initialisation per record
    uint64_t addr;
    shadow::CellWriteHalf* cells;  // the granules' cells, consecutive
    uint32_t count;
    unsigned lane;
    bool any_lane;  // no writer at all: ordered for every lane
    bool lane_wrote;  // `lane` wrote one of them: another lane's view of it differs
  };
  std::array<OrderedRead, vc::kLanes> ordered_reads;
  uint32_t ordered_slots = 0;
  bool shared_words = false;
  if (granule_reads && std::popcount(mask) > 1) {
    const uint64_t x = r.addr[std::countr_zero(mask)], y = r.addr[31 - std::countl_zero(mask)];
    shared_words = (x > y ? x - y : y - x) + size < uint64_t{size} * static_cast<unsigned>(std::popcount(mask));
  }
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    const unsigned lane = static_cast<unsigned>(std::countr_zero(m));
    const uint64_t addr = r.addr[lane];
    if (strong) {
      StrongBefore(r, bs, block, warp, lane);
      // The synthetic cluster-barrier locations (protocol.h) are no memory.
      if (!global && protocol::IsClusterBarrierAddress(addr)) {
        StrongAfter(r, bs, block, warp, lane, c);
        continue;
      }
      // A complete-tx on another block's mbarrier: that block's release.
      if (!global && op == Op::kRelease && (r.header.flags & protocol::kFlagAsync) != 0 &&
          protocol::SharedBlock(addr) != block) {
        RemoteCompleteTx(r, bs, block, warp, lane, protocol::SharedBlock(addr), c);
        continue;
      }
    }
    a.lane = lane;
    a.tid = wc.tid(lane);
    a.epoch = shadow::Epoch{a.tid, wc.Local(lane)};
    if (async) {
      // The lane's copy does the access: checked with what the lane knows at
      // issue (the copy starts after it), recorded as the copies' thread at
      // its next clock, which nobody covers until the lane observes it.
      const uint32_t thread = warp * vc::kLanes + lane;
      if (bs.async_records.size() <= thread) bs.async_records.resize(launch.threads_per_block, 0);
      a.epoch = shadow::Epoch{static_cast<shadow::Tid>(launch.AsyncThreadOf(a.tid)), ++bs.async_records[thread]};
    }
    // Another cluster block's shared memory: must happen before that block
    // exits (distributed shared memory lifetime, shared_lifetime.h).
    if (const uint32_t owner = protocol::SharedBlock(addr);
        window_lifetimes && !global && owner != block && owner < launch.blocks) {
      NoteRemoteShared(owner, a.epoch.tid, a.site, op, a.epoch.clock, addr, static_cast<uint8_t>(size));
    }
    // A plain read of whole granules that no rule can find racy
    // (PlainReadOrdered): only the reader halves change, without the general
    // machinery below. Measured (callgrind, detector_bench e_matmul/16384,
    // with Cell::AppendPlainReader): 1,664 M -> 669 M instructions.
    if (granule_reads && (addr & (shadow::kGranuleBytes - 1)) == 0) {
      const unsigned slot = static_cast<unsigned>(addr / shadow::kGranuleBytes) % vc::kLanes;
      const OrderedRead& o = ordered_reads[slot];
      if (shared_words && (ordered_slots >> slot & 1) != 0 && o.addr == addr &&
          (o.any_lane || (!o.lane_wrote && wc.SameView(o.lane, lane)))) {
        AppendOrderedRead(o.cells, o.count, pool, a, global, bs.inflated_shared, shadow.shared().window_bytes());
        continue;
      }
      shadow::PageView& v = global ? view : shared_view;
      bool inside = v.Contains(addr, size);
      if (!inside) {
        v = global ? shadow.global().View(addr) : shadow.shared().View(addr);
        inside = v.Contains(addr, size);
      }
      if (inside && v.tracked()) {
        const shadow::CellSpan gs = v.Cells(addr, size, global && record_marked ? shadow::Touch::kNone : touch);
        // Data nobody wrote in this launch (a kernel's input): the write
        // halves stay unloaded, so they cost no memory (HalvesUntouched).
        const bool writes_zero = global && record_zero_known ? record_zero == shadow::Touch::kWrite
                                                             : v.HalvesUntouched(addr, size, shadow::Touch::kWrite);
        bool ordered = true;
        for (size_t i = 0; i < gs.size() && ordered; ++i) ordered = PlainReadOrdered(gs[i], pool, a, writes_zero);
        if (ordered) {
          // Reusable by a lane of the same view (WarpClocks::SameView: C(u)
          // alike for every u but the two lanes) unless this lane wrote a
          // granule: its own clock covers that write, the other lane's entry
          // for it may not. A write of the other lane its own clock covers.
          if (shared_words) {
            bool any_lane = true, lane_wrote = false;
            for (size_t i = 0; i < gs.size() && !writes_zero; ++i) {
              const shadow::Epoch w = gs[i].write_epoch();
              any_lane &= w.IsBottom();
              lane_wrote |= !w.IsBottom() && w.tid == a.epoch.tid;
            }
            ordered_reads[slot] = {addr, gs.front().write_half(), static_cast<uint32_t>(gs.size()), lane, any_lane,
                                   lane_wrote};
            ordered_slots |= 1u << slot;
          }
          AppendOrderedRead(gs.front().write_half(), gs.size(), pool, a, global, bs.inflated_shared, shadow.shared().window_bytes());
          continue;
        }
      }
    }
    ordered_slots = 0;  // the general path may split granules
    record_zero_known = false;
    Conflict first;
    uint64_t first_byte = 0;
    std::optional<shadow::SyncKey> forget;
    a.forget = &forget;
    // The cells of a lane a few lanes ahead, for scattered global records and
    // shared ones (the lanes' addresses are all known now). Measured with byte
    // cells on coalesced records (loaded 2-core machine): 9.3 -> 9.9 M
    // accesses/s; with granule cells it cost more than it saved there.
    if (const unsigned target = lane + kPrefetchDistance; !compact && target < 32 && (m >> target) != 0) {
      const uint64_t next = r.addr[target + static_cast<unsigned>(std::countr_zero(m >> target))];
      if (global) {
        // Both cache lines of a word's 4 cells.
        if (view.Contains(next, size) && view.tracked()) {
          view.Prefetch(next);
          view.Prefetch(next + size - 1);
        }
      } else if (shared_view.Contains(next, size)) {
        shared_view.Prefetch(next);  // the window of earlier lanes (a lookup per lane cost 9%)
      }
    }
    auto check = [&](Cell cell, uint64_t byte) {
      if (op == Op::kRead || atomic_load) {
        CheckRead(cell, pool, a, byte, atomic_load, first);
      } else if (op == Op::kWrite) {
        CheckPlainWrite(cell, pool, a, byte, first);
      } else {
        CheckAtomic(cell, pool, a, byte, first);
      }
    };
    // check() plus the race's first byte: the first racing byte names the race.
    // A same-value pair (known or candidate) does not decide: a race on a
    // later byte of the access still names it.
    auto check_noted = [&](Cell cell, uint64_t byte) {
      const int before = first.found ? Conflict::Rank(first.kind, first.candidate) : -1;
      check(cell, byte);
      if (first.found && !first.decided) {
        if (Conflict::Rank(first.kind, first.candidate) > before) first_byte = byte;
        first.decided = first.Decides();
      }
    };
    // A plain access over cells that each cover `step` bytes, decided at once
    // (callers hold the cells' stripes and exclude the same-value filter): the
    // fast path, or, when all cells carry the same metadata (the common case:
    // data accessed as whole words), the rules on the first cell with the
    // result copied to the others. Returns false, having changed nothing, when
    // the cells must be checked one by one.
    auto decide_at_once = [&](const shadow::CellSpan& cells, uint64_t first_addr, uint64_t step,
                              shadow::Touch zero) __attribute__((always_inline)) {
      if (fast_op && FastPlainAccess(cells, a, op == Op::kWrite, zero)) return true;
      record_zero_known = false;  // the general rules may store any half
      if (cells.size() < 2 || !SameMetadata(cells)) return false;
      check_noted(cells[0], first_addr);
      if (!cells[0].read_shared() && !cells[0].write_shared()) {
        CopyFirstToRest(cells);
      } else {
        for (size_t i = 1; i < cells.size(); ++i) check(cells[i], first_addr + i * step);
      }
      return true;
    };
    // Global and shared memory at full granularity: granule cells, split into
    // byte cells where an access covers part of a granule (global_shadow.h).
    // Bytes [lo, hi) of granule g, on its byte cells (split first if needed),
    // folded back into g when they end up equal. Caller holds g's stripe.
    auto check_bytes = [&](const shadow::PageView& v, Cell g, uint64_t lo, uint64_t hi) {
      // A plain byte (or aligned 2-byte) read that its granule's writes are
      // ordered before, of a granule read so far only element by element by
      // one thread each: recorded in the granule (shadow::AddByteReader), no
      // byte cells. It cannot race
      // (reads do not race with reads), so there is nothing to note.
      if (byte_reads && (hi - lo == 1 || (hi - lo == 2 && (lo & 1) == 0)) && !g.split() && !g.write_shared()) {
        const shadow::Epoch w = g.write_epoch();
        if ((w.IsBottom() || a.Covers(w.tid, w.clock)) &&
            shadow::AddByteReader(g, static_cast<unsigned>(lo - v.AddressOf(g)), static_cast<unsigned>(hi - lo), a.epoch,
                                  a.site)) {
          return;
        }
      }
      const shadow::CellSpan bytes = v.ByteCells(g, touch);  // counts what a split stores too
      if (!g.split()) {
        v.Cells(v.AddressOf(g), shadow::kGranuleBytes, shadow::Touch::kBoth);  // the split flag, the halves cleared
        shadow::SplitGranule(g, bytes, pool);
      }
      const uint64_t ga = v.AddressOf(g);
      for (uint64_t b = lo; b < hi; ++b) check_noted(bytes[b - ga], b);
      shadow::MergeGranule(g, bytes);
    };
    auto visit_granules = [&](const shadow::PageView& v, const shadow::CellSpan& gs, uint64_t first_addr, uint32_t bytes) __attribute__((always_inline)) {
      shadow::CellSpanLock guard(gs, lock);
      // Whole granules, none split: the word rules on granule cells. With the
      // same-value filter only if every lane is granule-aligned (the filter
      // asks which lanes wrote a byte; the granule's first byte then answers
      // for all four).
      const bool whole = ((first_addr | bytes) & (shadow::kGranuleBytes - 1)) == 0 &&
                         (!a.same_value || lanes_granule_aligned);
      // Halves nobody stored into in this launch, left unloaded (a kernel's
      // output before anyone reads it, its input before anyone writes it):
      // checked under the stripes, which a concurrent access to these cells
      // takes too (PageView::HalvesUntouched).
      shadow::Touch zero = shadow::Touch::kNone;
      if (global && record_zero_known) {
        zero = record_zero;
      } else if (const shadow::Touch other = OtherHalf(touch);
                 other != shadow::Touch::kNone && v.HalvesUntouched(first_addr, bytes, other)) {
        zero = other;
      }
      // A plain loop: std::none_of stayed a call here (2026-11-29, 5% of
      // detector_bench a_streaming's instructions).
      bool any_split = false;  // or byte readers in a granule: bytes too
      for (const Cell g : gs) {
        any_split |= (zero != shadow::Touch::kWrite && g.split()) || (zero != shadow::Touch::kRead && g.read_byte_run());
      }
      if (whole && !any_split) {
        if (!a.same_value && decide_at_once(gs, first_addr, shadow::kGranuleBytes, zero)) return;
        record_zero_known = false;
        for (size_t i = 0; i < gs.size(); ++i) check_noted(gs[i], first_addr + i * shadow::kGranuleBytes);
        return;
      }
      record_zero_known = false;
      const uint64_t end = first_addr + bytes;
      for (const Cell g : gs) {
        const uint64_t ga = v.AddressOf(g);
        const uint64_t lo = std::max(first_addr, ga), hi = std::min(end, ga + shadow::kGranuleBytes);
        if (!g.split() && !g.read_byte_run() && lo == ga && hi == ga + shadow::kGranuleBytes &&
            (!a.same_value || lanes_granule_aligned)) {
          check_noted(g, ga);
        } else {
          check_bytes(v, g, lo, hi);
        }
      }
    };
    if (global) {
      if (!view.Contains(addr, size)) view = shadow.global().View(addr);
      if (!view.Contains(addr, size)) {
        // Straddles a page boundary (or an unmappable address): byte by byte.
        bool dropped = false, untracked = false;
        for (uint32_t b = 0; b < size; ++b) {
          shadow::PageView bv = shadow.global().View(addr + b);
          if (!bv.valid() || !bv.tracked()) {
            (bv.valid() ? untracked : dropped) = true;
            continue;
          }
          const shadow::CellSpan g = bv.Cells(addr + b, 1, shadow::Touch::kBoth);
          shadow::CellSpanLock guard(g, lock);
          check_bytes(bv, g.front(), addr + b, addr + b + 1);
        }
        c.shadow_dropped += dropped;
        c.limit_unchecked += untracked;
      } else if (!view.tracked()) {
        c.limit_unchecked++;  // a page made over the memory limit: not checked
      } else {
        visit_granules(view, view.Cells(addr, size, record_marked ? shadow::Touch::kNone : touch), addr, size);
      }
    } else {
      // Shared memory: granule cells of the block's window, split into byte
      // cells where an access covers part of a granule, as for global.
      if (!shared_view.Contains(addr, size)) shared_view = shadow.shared().View(addr);
      if (!shared_view.Contains(addr, size)) {
        c.shadow_dropped++;  // outside the launch's shared window: not tracked
        if (strong) StrongAfter(r, bs, block, warp, lane, c);
        continue;
      }
      const shadow::CellSpan gs = shared_view.Cells(addr, size, touch);
      if (launch.cluster_size > 1) {
        visit_granules(shared_view, gs, addr, size);
      } else {
        // Cells that take out-of-line clocks here wait for the block's next
        // whole-block barrier to collapse them (BlockState::inflated_shared):
        // the granules and, of split ones, their byte cells.
        auto for_each_leaf = [&](auto&& f) {
          for (const Cell g : gs) {
            if (!g.split()) {
              f(g);
            } else {
              for (const Cell b : shared_view.ByteCells(g, shadow::Touch::kNone)) f(b);
            }
          }
        };
        std::array<const void*, 20> before;  // <= 5 granules of a 16-byte access, 4 bytes each
        size_t n_before = 0;
        for_each_leaf([&](const Cell x) {
          if (Inflated(x) && n_before < before.size()) before[n_before++] = x.write_half();
        });
        visit_granules(shared_view, gs, addr, size);
        for_each_leaf([&](const Cell x) {
          if (Inflated(x) && std::find(before.begin(), before.begin() + n_before, x.write_half()) ==
                                 before.begin() + n_before) {
            bs.inflated_shared.push_back(x);
          }
        });
        KeepInflatedBounded(bs.inflated_shared, shadow.shared().window_bytes());
      }
    }
    if (forget) load_observers.Forget(*forget);
    if (first.found) {
      RaceEvent e;
      e.kind = first.kind;
      e.cls = first.proxy                                  ? RaceClass::kProxy
              : async || launch.IsAsyncThread(first.tid) ? RaceClass::kAsyncCopy
                                                         : Classify(block, warp, lane, first.tid);
      e.space = space;
      e.address = first_byte;
      e.launch_id = launch.launch_id;
      e.kernel_name_id = launch.name_id;
      e.earlier = Describe(first.tid, first.site, first.op);
      e.later = Describe(async ? launch.AsyncThreadOf(a.tid) : a.tid, a.site, op);
      e.later.record_index = index;
      e.later.address = addr;
      e.later.access_size = static_cast<uint8_t>(size);
      e.unacquired_release = ObservedUnacquired(bs, first.tid, first.clock);
      if (first.candidate) {
        std::lock_guard<std::mutex> lock(report_mu);
        pending_same_value.push_back({e, MaskedValue(protocol::StoredValue(r), size), static_cast<uint8_t>(size)});
      } else {
        Emit(e);
      }
    }
    if (strong) StrongAfter(r, bs, block, warp, lane, c);
  }
  if (options.warp_model == WarpModel::kLockstep) bs.clocks.JoinIncrement(warp, mask);  // ENDINSN
}

AccessInfo Detector::Impl::Describe(uint64_t tid, uint32_t site, Op op) const {
  AccessInfo info;
  if (launch.IsAsyncThread(tid)) {  // a thread's asynchronous copy: named by the thread
    tid -= launch.threads;
    info.async = true;
  }
  info.tid = tid;
  info.site = site;
  info.op = op;
  if (launch.threads_per_block != 0) {
    info.block = static_cast<uint32_t>(tid / launch.threads_per_block);
    uint32_t in_block = static_cast<uint32_t>(tid % launch.threads_per_block);
    info.lane = in_block % vc::kLanes;
    info.warp = info.block * launch.warps_per_block + in_block / vc::kLanes;
  }
  return info;
}

RaceClass Detector::Impl::Classify(uint32_t block, unsigned warp, unsigned lane,
                                   uint64_t earlier_tid) const {
  AccessInfo e = Describe(earlier_tid, 0, Op::kRead);
  if (e.block != block) return RaceClass::kInterBlock;
  if (e.warp != block * launch.warps_per_block + warp) return RaceClass::kIntraBlock;
  const BlockState* bs = blocks[block].get();
  if (bs != nullptr && bs->clocks.warp(warp).stack().SplitApart(lane, e.lane)) {
    return RaceClass::kDivergence;
  }
  return RaceClass::kIntraWarp;
}

void Detector::Impl::ResolveSameValue() {
  std::vector<PendingSameValue> pending;
  {
    std::lock_guard<std::mutex> lock(report_mu);
    pending.swap(pending_same_value);
  }
  // Stream order: listeners see the same sequence whatever order workers found them in.
  std::sort(pending.begin(), pending.end(), [](const PendingSameValue& x, const PendingSameValue& y) {
    return std::pair(x.event.later.record_index, x.event.later.lane) <
           std::pair(y.event.later.record_index, y.event.later.lane);
  });
  for (PendingSameValue& p : pending) {
    if (site_values.ConstantWith(p.event.earlier.site, p.value, p.size)) p.event.kind = RaceKind::kSameValue;
    Emit(p.event);
  }
}

void Detector::Impl::Emit(const RaceEvent& e) {
  std::lock_guard<std::mutex> lock(report_mu);
  report.Add(e);
  racy_accesses++;
  if (listener) listener(e);
}

}  // namespace barracuda::detector
