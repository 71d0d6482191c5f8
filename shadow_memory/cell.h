// One shadow cell: the BARRACUDA/FastTrack metadata of one byte of device
// memory (paper §4.3.3, Figure 8), packed into 32 bytes like ThreadSanitizer's
// shadow words (compiler-rt/lib/tsan/rtl/tsan_shadow.h). In global memory one
// cell stands for an aligned 4-byte granule whose bytes all carry the same
// metadata, and splits into four byte cells when they come to differ
// (global_shadow.h): 1-byte precision at a quarter of the memory.
//
//  byte  0      2      4              8             12             16
//        +------+------+--------------+--------------+--------------+
//  w0/w1 |ctrl  |wclkhi| write tid    | write clk lo | write site   |   write half
//        +------+------+--------------+--------------+--------------+
//  w2/w3 |ws|rs |rclkhi| read tid     | read clk lo  | read site    |   read half
//        +------+------+--------------+--------------+--------------+
//       16     18     20             24             28             32
//
//  ctrl (16 bits): bit 0 spin lock, then the CellFlag bits below.
//  write epoch = (write tid, wclkhi:wclklo) - 48-bit clock, see epoch.h;
//    when kCellWriteShared is set, "write tid" holds a VcHandle instead (the
//    writers are in an out-of-line SparseVc) and the clock is unused.
//  read epoch  = (read tid, rclkhi:rclklo); when kCellReadShared is set,
//    "read tid" holds a VcHandle of the concurrent readers.
//  write/read site: static site id of the last write/read, for reports (an
//    epoch only gives thread and clock). Inside a SparseVc every entry has its own.
//  ws / rs: Strength (epoch.h) of the inline write / read epoch: size and scope
//    of a strong access, for the morally-strong test; 0 for weak ones.
// An all-zero cell is the initial state: bottom write and read epochs, no flags.
//
// Thread safety: a Cell is plain data. Global-memory cells can be reached by
// several detector workers at once (different blocks): hold the cell's lock
// around every read-check-update. The detector locks cells in stripes
// (CellSpanLock below: one lock bit per 4 aligned cells). Shared-memory cells
// of a block are only touched by the one worker that processes that block,
// unless the launch has clusters of more than one CTA: a neighbour block of the
// cluster (distributed shared memory) may then reach them from another worker,
// so the detector locks shared cells too in such launches
// (host_detector/detector/SEMANTICS.md, "Thread-block clusters").
// Flag setters are plain stores of the control word, not atomic RMWs: call
// them under the lock, or where only one worker can reach the cell.
#ifndef BARRACUDA_SHADOW_MEMORY_CELL_H_
#define BARRACUDA_SHADOW_MEMORY_CELL_H_

#include <atomic>
#include <cassert>
#include <cstddef>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>

#include "shadow_memory/epoch.h"

namespace barracuda::shadow {

// Index of an out-of-line SparseVc in a SparseVcPool (vc_pool.h). 0 is never
// handed out, so a stray zero cannot alias a live clock.
using VcHandle = uint32_t;
inline constexpr VcHandle kNoVc = 0;

enum CellFlag : uint16_t {
  kCellLocked = 1u << 0,       // spin lock bit (CellLockGuard); not a metadata flag
  kCellWriteAtomic = 1u << 1,  // the last write was an atomic (paper's atomic bit)
  kCellReadShared = 1u << 2,   // concurrently read: read metadata is a SparseVc
  kCellWriteShared = 1u << 3,  // concurrent non-racing writers (atomic/atomic or a
                               // same-value pair): write metadata is a SparseVc
  kCellSharedSpace = 1u << 4,  // shadows shared memory (set by MarkSpace)
  kCellSyncLocation = 1u << 5,  // used by an acquire/release (its clocks live in
                                // SyncLocationMap, not here)
  kCellRaced = 1u << 6,        // a race on this byte was reported (detector's use)
  // Kind of the inline read epoch (ReadKind, epoch.h; a read VC keeps it per entry).
  kCellReadAtomic = 1u << 7,     // the reader was an atomic load (ld.relaxed)
  kCellReadKeptWrite = 1u << 8,  // a plain write kept among the readers
  // A global granule cell whose bytes differ: their metadata live in the
  // page's byte cells (global_shadow.h) and this cell holds nothing else.
  kCellSplit = 1u << 9,
};

class alignas(32) Cell {
 public:
  // --- flags (relaxed atomics on the control word; see Lock) ---------------
  uint16_t flags() const { return Control().load(std::memory_order_relaxed); }
  bool Has(CellFlag f) const { return (flags() & f) != 0; }
  void SetFlag(CellFlag f) { StoreControl(flags() | f); }
  void ClearFlag(CellFlag f) { StoreControl(flags() & ~f); }
  void MarkSpace(Space s) {
    if (s == Space::kShared) SetFlag(kCellSharedSpace);
  }
  Space space() const { return Has(kCellSharedSpace) ? Space::kShared : Space::kGlobal; }
  bool split() const { return Has(kCellSplit); }

  // --- write metadata -------------------------------------------------------
  bool write_shared() const { return Has(kCellWriteShared); }
  bool write_atomic() const { return Has(kCellWriteAtomic); }
  // Precondition: !write_shared().
  Epoch write_epoch() const {
    assert(!write_shared());
    return {write_tid_, Join48(write_clock_hi_, write_clock_lo_)};
  }
  SiteId write_site() const { return write_site_; }
  Strength write_strength() const { return write_strength_; }
  // Precondition: write_shared().
  VcHandle write_vc() const {
    assert(write_shared());
    return write_tid_;
  }
  // W := (e, atomic). The caller must have released a write VC first (cell_vc.h
  // does both); asserting keeps a leaked VC from going unnoticed.
  void SetWrite(Epoch e, SiteId site, bool atomic, Strength strength = kWeak) {
    assert(!write_shared() && FitsClock(e.clock));
    write_strength_ = strength;
    write_tid_ = e.tid;
    write_clock_lo_ = static_cast<uint32_t>(e.clock);
    write_clock_hi_ = static_cast<uint16_t>(e.clock >> 32);
    write_site_ = site;
    uint16_t f = flags() & ~kCellWriteAtomic;
    StoreControl(atomic ? (f | kCellWriteAtomic) : f);
  }
  // W := writers in SparseVc h (write_site() keeps the latest writer's site).
  void SetWriteVc(VcHandle h, SiteId latest_site, bool atomic) {
    assert(h != kNoVc);
    write_strength_ = kWeak;  // the VC's entries carry their strengths
    write_tid_ = h;
    write_clock_lo_ = 0;
    write_clock_hi_ = 0;
    write_site_ = latest_site;
    uint16_t f = (flags() & ~kCellWriteAtomic) | kCellWriteShared;
    StoreControl(atomic ? (f | kCellWriteAtomic) : f);
  }
  // Drop the write VC reference (the pool frees it); W becomes bottom.
  void ClearWriteVc() {
    write_tid_ = 0;
    ClearFlag(kCellWriteShared);
  }

  // --- read metadata --------------------------------------------------------
  bool read_shared() const { return Has(kCellReadShared); }
  // Precondition: !read_shared().
  Epoch read_epoch() const {
    assert(!read_shared());
    return {read_tid_, Join48(read_clock_hi_, read_clock_lo_)};
  }
  SiteId read_site() const { return read_site_; }
  Strength read_strength() const { return read_strength_; }
  // Precondition: read_shared().
  VcHandle read_vc() const {
    assert(read_shared());
    return read_tid_;
  }
  ReadKind read_kind() const {
    return Has(kCellReadKeptWrite) ? ReadKind::kKeptWrite
                                   : Has(kCellReadAtomic) ? ReadKind::kAtomicRead : ReadKind::kRead;
  }
  void SetRead(Epoch e, SiteId site, ReadKind kind = ReadKind::kRead, Strength strength = kWeak) {
    assert(!read_shared() && FitsClock(e.clock));
    read_strength_ = strength;
    read_tid_ = e.tid;
    read_clock_lo_ = static_cast<uint32_t>(e.clock);
    read_clock_hi_ = static_cast<uint16_t>(e.clock >> 32);
    read_site_ = site;
    SetReadKindFlags(kind);
  }
  void SetReadVc(VcHandle h, SiteId latest_site) {
    assert(h != kNoVc);
    read_strength_ = kWeak;
    read_tid_ = h;
    read_clock_lo_ = 0;
    read_clock_hi_ = 0;
    read_site_ = latest_site;
    SetReadKindFlags(ReadKind::kRead);  // the VC's entries carry their kinds
    SetFlag(kCellReadShared);
  }
  // R := bottom epoch (after a write; WRITEEXCL/WRITESHARED). With a read VC,
  // free it first (cell_vc.h: DeflateReads).
  void ClearRead() {
    assert(!read_shared());
    read_strength_ = kWeak;
    read_tid_ = 0;
    read_clock_lo_ = 0;
    read_clock_hi_ = 0;
    SetReadKindFlags(ReadKind::kRead);
  }
  void ClearReadVc() {
    read_tid_ = 0;
    ClearFlag(kCellReadShared);
  }

  // True for a cell in its initial state (nothing recorded, no flags; the
  // lock bit does not count).
  bool IsPristine() const {
    return (flags() & ~kCellLocked) == 0 && write_tid_ == 0 && write_clock_lo_ == 0 && write_clock_hi_ == 0 &&
           read_tid_ == 0 && read_clock_lo_ == 0 && read_clock_hi_ == 0 && write_strength_ == kWeak &&
           read_strength_ == kWeak;
  }

  // --- whole-cell metadata (fast paths that decide a word at once) --------
  // The cell as four words in layout order (little-endian: control word in
  // the low 16 bits of w[0]), lock bit cleared. Built from the fields (the
  // control word through its atomic load), so compares are 4 word compares.
  struct Bits {
    uint64_t w[4];
    // Branch-free, on registers (an element-wise loop over a stack copy cost
    // a store-forwarding stall per compare on the streaming benchmark).
    friend bool operator==(const Bits& x, const Bits& y) {
      return ((x.w[0] ^ y.w[0]) | (x.w[1] ^ y.w[1]) | (x.w[2] ^ y.w[2]) | (x.w[3] ^ y.w[3])) == 0;
    }
    uint16_t flags() const { return static_cast<uint16_t>(w[0]); }
  };
  Bits bits() const {
    const char* raw = reinterpret_cast<const char*>(this);
    uint16_t clock_hi;
    uint32_t tid;
    Bits b;
    std::memcpy(&clock_hi, raw + 2, 2);
    std::memcpy(&tid, raw + 4, 4);
    b.w[0] = uint64_t{static_cast<uint16_t>(flags() & ~kCellLocked)} | uint64_t{clock_hi} << 16 | uint64_t{tid} << 32;
    std::memcpy(&b.w[1], raw + 8, 8);
    std::memcpy(&b.w[2], raw + 16, 8);
    std::memcpy(&b.w[3], raw + 24, 8);
    return b;
  }
  // Everything but the lock bit := b. Only between cells without out-of-line
  // clocks (a handle must have one owner).
  void StoreBits(const Bits& b) {
    assert(!read_shared() && !write_shared() && (b.flags() & (kCellReadShared | kCellWriteShared)) == 0);
    char* raw = reinterpret_cast<char*>(this);
    const uint16_t clock_hi = static_cast<uint16_t>(b.w[0] >> 16);
    const uint32_t tid = static_cast<uint32_t>(b.w[0] >> 32);
    std::memcpy(raw + 2, &clock_hi, 2);
    std::memcpy(raw + 4, &tid, 4);
    std::memcpy(raw + 8, &b.w[1], 8);
    std::memcpy(raw + 16, &b.w[2], 8);
    std::memcpy(raw + 24, &b.w[3], 8);
    StoreControl((b.flags() & ~kCellLocked) | (flags() & kCellLocked));
  }
  // Same flags (lock bit aside), epochs or handles, and sites.
  bool MetadataEquals(const Cell& o) const { return bits() == o.bits(); }
  // Everything but the lock bit := o's (cells without out-of-line clocks).
  void CopyMetadataFrom(const Cell& o) { StoreBits(o.bits()); }
  // Bits with the write half := (e, site), plain (weak), and the read half
  // cleared (R := bottom, kind kRead, weak; the read site stays, as ClearRead).
  static Bits WithPlainWrite(const Bits& b, Epoch e, SiteId site) {
    assert(FitsClock(e.clock));
    const uint64_t f = b.flags() & ~(kCellWriteAtomic | kCellReadAtomic | kCellReadKeptWrite);
    return {{f | (e.clock >> 32) << 16 | uint64_t{e.tid} << 32, (e.clock & 0xffffffffu) | uint64_t{site} << 32,
             0, b.w[3] & ~uint64_t{0xffffffffu}}};
  }
  // Bits with the read half := (e, site), kind kRead, weak.
  static Bits WithPlainRead(const Bits& b, Epoch e, SiteId site) {
    assert(FitsClock(e.clock));
    const uint64_t f = b.flags() & ~(kCellReadAtomic | kCellReadKeptWrite);
    return {{(b.w[0] & ~uint64_t{0xffff}) | f, b.w[1],
             (b.w[2] & 0xff) | (e.clock >> 32) << 16 | uint64_t{e.tid} << 32,
             (e.clock & 0xffffffffu) | uint64_t{site} << 32}};
  }
  // An atomic no-op write to the cell (value unchanged, safe while others lock
  // it): on a fresh anonymous mapping this faults the page in writable at
  // once, instead of mapping the zero page on the first read and copying it on
  // the first write (two faults).
  void TouchForWrite() { Control().fetch_or(0, std::memory_order_relaxed); }

  // --- per-cell spin lock (paper: "a spinlock" in each location) ------------
  // Acquire/release ordering on the control word publishes the other fields.
  // While held, only the holder writes the control word (flag updates above go
  // through StoreControl and keep the lock bit).
  bool TryLock() {
    uint16_t v = Control().load(std::memory_order_relaxed);
    return (v & kCellLocked) == 0 &&
           Control().compare_exchange_weak(v, static_cast<uint16_t>(v | kCellLocked),
                                           std::memory_order_acquire, std::memory_order_relaxed);
  }
  void Lock() {
    if (TryLock()) return;
    LockSlow();
  }
  void Unlock() {
    assert(Has(kCellLocked));
    Control().store(static_cast<uint16_t>(flags() & ~kCellLocked), std::memory_order_release);
  }

 private:
  static Clock Join48(uint16_t hi, uint32_t lo) { return (Clock{hi} << 32) | lo; }
  std::atomic_ref<uint16_t> Control() const {
    return std::atomic_ref<uint16_t>(const_cast<uint16_t&>(control_));
  }
  void StoreControl(unsigned v) {
    Control().store(static_cast<uint16_t>(v), std::memory_order_relaxed);
  }
  void LockSlow();  // cell.cpp: spin with pause, then yield
  void SetReadKindFlags(ReadKind kind) {
    unsigned f = flags() & ~(kCellReadAtomic | kCellReadKeptWrite);
    if (kind == ReadKind::kAtomicRead) f |= kCellReadAtomic;
    if (kind == ReadKind::kKeptWrite) f |= kCellReadKeptWrite;
    StoreControl(f);
  }

  // Write half (bytes 0..15).
  uint16_t control_ = 0;
  uint16_t write_clock_hi_ = 0;
  uint32_t write_tid_ = 0;  // or VcHandle (kCellWriteShared)
  uint32_t write_clock_lo_ = 0;
  uint32_t write_site_ = 0;
  // Read half (bytes 16..31); the write epoch's strength sits here too (the
  // write half has no room left).
  Strength write_strength_ = kWeak;
  Strength read_strength_ = kWeak;
  uint16_t read_clock_hi_ = 0;
  uint32_t read_tid_ = 0;  // or VcHandle (kCellReadShared)
  uint32_t read_clock_lo_ = 0;
  uint32_t read_site_ = 0;

  friend struct CellLayoutCheck;
};

// The paper's cell is 28 bytes padded to 32; ours uses all 32 and must not grow:
// page sizes, the memory limit and the benchmarks assume it.
inline constexpr size_t kCellSize = 32;
static_assert(sizeof(Cell) == kCellSize, "a shadow cell is 32 bytes");
static_assert(alignof(Cell) == kCellSize, "cells never straddle cache lines");
static_assert(std::atomic_ref<uint16_t>::required_alignment <= alignof(uint16_t),
              "the control word can be used atomically in place");
static_assert(std::atomic_ref<uint16_t>::is_always_lock_free, "the cell lock must not allocate");

static_assert(std::endian::native == std::endian::little, "Cell::Bits packs the layout little-endian");

struct CellLayoutCheck {
  static_assert(offsetof(Cell, control_) == 0);
  static_assert(offsetof(Cell, write_clock_hi_) == 2);  // Cell::Bits relies on these
  static_assert(offsetof(Cell, write_clock_lo_) == 8);
  static_assert(offsetof(Cell, write_strength_) == 16);
  static_assert(offsetof(Cell, read_strength_) == 17);
  static_assert(offsetof(Cell, read_clock_hi_) == 18);
  static_assert(offsetof(Cell, read_clock_lo_) == 24);
  static_assert(offsetof(Cell, write_tid_) == 4);
  static_assert(offsetof(Cell, write_site_) == 12);
  static_assert(offsetof(Cell, read_tid_) == 20);
  static_assert(offsetof(Cell, read_site_) == 28);
};

// RAII lock of one cell. Hold it for the whole check-and-update of the cell.
class CellLockGuard {
 public:
  explicit CellLockGuard(Cell& c) : cell_(c) { cell_.Lock(); }
  ~CellLockGuard() { cell_.Unlock(); }
  CellLockGuard(const CellLockGuard&) = delete;
  CellLockGuard& operator=(const CellLockGuard&) = delete;

 private:
  Cell& cell_;
};

// Striped cell locks (the detector's protocol): the lock of a cell is the
// lock bit of the first cell of its aligned group of kCellsPerLock cells (1
// KiB: 128 bytes of global memory in granule cells, one coalesced warp access
// of words; 32 bytes of shared memory), so a coalesced warp record takes one
// or two locks instead of one per lane. The byte cells of a split granule are
// guarded by the granule's stripe. Every holder of a stripe's lock may update
// all cells of the stripe. Precondition: cells live in arrays aligned to
// kCellLockStripeBytes (global pages and shared windows are mmap'ed); the
// stripe of a cell never leaves its array because array sizes are multiples
// of the stripe (page cell arrays: 8 or 32 MiB; windows: whole OS pages).
// Measured (detector_bench RunParallel/a_streaming, quiet 2-core machine,
// medians of 5): 4 cells per stripe gave 39.9 M accesses per CPU-second with 2
// workers (wall speed-up 1.52x over 1 worker); 32 cells give 46.6 M (1.85x).
// The stripe is 4 KiB-region aligned, so locking never touches a region the
// access does not (GlobalShadow's touched bitmap stays exact).
inline constexpr size_t kCellsPerLock = 32;
inline constexpr size_t kCellLockStripeBytes = kCellsPerLock * kCellSize;
static_assert(kCellLockStripeBytes <= 4096, "a stripe never leaves an mmap'ed array");

inline Cell& StripeLockCell(Cell& c) {
  return *reinterpret_cast<Cell*>(reinterpret_cast<uintptr_t>(&c) & ~uintptr_t{kCellLockStripeBytes - 1});
}

// Locks the stripes of a span of cells (ascending, so two holders never wait
// on each other in a cycle); a no-op when `enabled` is false (one worker).
class CellSpanLock {
 public:
  CellSpanLock(std::span<Cell> cells, bool enabled) {
    if (!enabled || cells.empty()) return;
    first_ = &StripeLockCell(cells.front());
    last_ = &StripeLockCell(cells.back());
    for (Cell* c = first_; c <= last_; c += kCellsPerLock) c->Lock();
  }
  ~CellSpanLock() {
    if (first_ == nullptr) return;
    for (Cell* c = first_; c <= last_; c += kCellsPerLock) c->Unlock();
  }
  CellSpanLock(const CellSpanLock&) = delete;
  CellSpanLock& operator=(const CellSpanLock&) = delete;

 private:
  Cell* first_ = nullptr;
  Cell* last_ = nullptr;
};

}  // namespace barracuda::shadow

#endif  // BARRACUDA_SHADOW_MEMORY_CELL_H_
