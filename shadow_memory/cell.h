// One shadow cell: the BARRACUDA/FastTrack metadata of one byte of device
// memory (paper §4.3.3, Figure 8), packed into 32 bytes like ThreadSanitizer's
// shadow words (compiler-rt/lib/tsan/rtl/tsan_shadow.h). In global memory one
// cell stands for an aligned 4-byte granule whose bytes all carry the same
// metadata, and splits into four byte cells when they come to differ
// (global_shadow.h): 1-byte precision at a quarter of the memory.
//
// A cell is stored as two 16-byte halves in two parallel arrays, the write
// half and the read half (issue 16): data a launch only reads touches only
// read halves, data it only writes only write halves (a write stores its read
// half only when that changes: R := bottom over a bottom R stores nothing), so
// such data costs 4 bytes of shadow per device byte instead of 8, and untouched
// halves of the NORESERVE arrays cost nothing.
//
//  write half  byte 0      2      4              8             12             16
//              +------+------+--------------+--------------+--------------+
//   w0/w1      |wf|ws |wclkhi| write tid    | write clk lo | write site   |
//              +------+------+--------------+--------------+--------------+
//  read half
//   w2/w3      |rf|rs |rclkhi| read tid     | read clk lo  | read site    |
//              +------+------+--------------+--------------+--------------+
//
//  wf / rf: the write / read flags (CellFlag: write flags in the low byte of
//    flags(), read flags in the high byte). ws / rs: Strength (epoch.h) of the
//    inline write / read epoch: size and scope of a strong access, for the
//    morally-strong test; 0 for weak ones.
//  write epoch = (write tid, wclkhi:wclklo) - 48-bit clock, see epoch.h;
//    when kCellWriteShared is set, "write tid" holds a VcHandle instead (the
//    writers are in an out-of-line SparseVc) and the clock is unused.
//  read epoch  = (read tid, rclkhi:rclklo); when kCellReadShared is set,
//    "read tid" holds a VcHandle of the concurrent readers; when kCellReadRun
//    is set, a run of readers inline: "read tid" is the first thread, rclklo
//    the clock they share (< 2^32), rclkhi which positions (a count, or a
//    bitmap of positions 1..15), and the flag byte's high nibble log2 of the
//    stride between positions (Cell::ReadRun).
//  write/read site: static site id of the last write/read, for reports (an
//    epoch only gives thread and clock). Inside a SparseVc every entry has its own.
// All-zero halves are the initial state: bottom write and read epochs, no flags.
//
// `Cell` is a handle to the two halves (two pointers, passed by value); a
// `CellSpan` names consecutive cells of one array together with the array's
// stripe locks.
//
// Thread safety: cells are plain data. Global-memory cells can be reached by
// several detector workers at once (different blocks): hold the cell's stripe
// lock around every read-check-update (CellSpanLock below: one lock byte per
// 32 cells, in an array of its own so that locking touches no half). Shared-
// memory cells of a block are only touched by the one worker that processes
// that block, unless the launch has clusters of more than one CTA: a neighbour
// block of the cluster (distributed shared memory) may then reach them from
// another worker, so the detector locks shared cells too in such launches
// (host_detector/detector/SEMANTICS.md, "Thread-block clusters").
#ifndef BARRACUDA_SHADOW_MEMORY_CELL_H_
#define BARRACUDA_SHADOW_MEMORY_CELL_H_

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstddef>
#include <bit>
#include <cstdint>
#include <cstring>
#include <iterator>

#include "shadow_memory/epoch.h"

namespace barracuda::shadow {

// Index of an out-of-line SparseVc in a SparseVcPool (vc_pool.h). 0 is never
// handed out, so a stray zero cannot alias a live clock.
using VcHandle = uint32_t;
inline constexpr VcHandle kNoVc = 0;

// Flags as Cell::flags() shows them: write-half flags in the low byte, read-
// half flags in the high byte (each stored in its own half).
enum CellFlag : uint16_t {
  kCellWriteAtomic = 1u << 0,  // the last write was an atomic (paper's atomic bit)
  kCellWriteShared = 1u << 1,  // concurrent non-racing writers (atomic/atomic or a
                               // same-value pair): write metadata is a SparseVc
  kCellSharedSpace = 1u << 2,  // shadows shared memory (set by MarkSpace)
  kCellSyncLocation = 1u << 3,  // used by an acquire/release (its clocks live in
                                // SyncLocationMap, not here)
  kCellRaced = 1u << 4,        // a race on this byte was reported (detector's use)
  // A global granule cell whose bytes differ: their metadata live in the
  // page's byte cells (global_shadow.h) and this cell holds nothing else.
  kCellSplit = 1u << 5,
  // The observation chain of the strong writes held (PTX observation order,
  // host_detector/detector/SEMANTICS.md "Observation order"): set when a strong
  // write other than the first since the last weak write was a store (not a
  // read-modify-write) or not morally strong with the write before it. While
  // it is set, no strong read observed every strong write held.
  kCellChainBroken = 1u << 6,
  // The latest write was a strong read-modify-write (it observed its
  // predecessors through the chain).
  kCellLastRmw = 1u << 7,
  kCellReadShared = 1u << 8,  // concurrently read: read metadata is a SparseVc
  // Kind of the inline read epoch (ReadKind, epoch.h; a read VC keeps it per entry).
  kCellReadAtomic = 1u << 9,     // the reader was an atomic load (ld.relaxed)
  kCellReadKeptWrite = 1u << 10,  // a plain write kept among the readers
  // The read half holds a run of readers inline (Cell::read_run): threads
  // first, first + stride, ... that read at one clock and site with one kind
  // and strength, with no out-of-line clock. Bits 12-15 hold log2(stride).
  // With kCellReadShared also set (a pair that means nothing else): a granule
  // whose bytes were each read by one thread (Cell::read_byte_run).
  kCellReadRun = 1u << 11,
};
inline constexpr uint16_t kCellReadRunStrideShift = 12;
inline constexpr uint16_t kCellReadRunBits = 0xf000 | kCellReadRun;
inline constexpr uint16_t kCellWriteFlags = 0x00ff;
inline constexpr uint16_t kCellReadFlags = 0xff00;

struct alignas(16) CellWriteHalf {
  uint8_t flags = 0;  // CellFlag & kCellWriteFlags
  Strength strength = kWeak;
  uint16_t clock_hi = 0;
  uint32_t tid = 0;  // or VcHandle (kCellWriteShared)
  uint32_t clock_lo = 0;
  uint32_t site = 0;
};
struct alignas(16) CellReadHalf {
  uint8_t flags = 0;  // (CellFlag & kCellReadFlags) >> 8
  Strength strength = kWeak;
  uint16_t clock_hi = 0;
  uint32_t tid = 0;  // or VcHandle (kCellReadShared)
  uint32_t clock_lo = 0;
  uint32_t site = 0;
};

// A cell is 32 bytes of metadata and must not grow: page sizes, the memory
// limit and the benchmarks assume it.
inline constexpr size_t kCellHalfSize = 16;
inline constexpr size_t kCellSize = 2 * kCellHalfSize;
// Every cell array keeps its read halves this many bytes after its write
// halves (so an array holds at most 1 Mi cells; the space between is
// NORESERVE mapping that costs nothing), which makes a Cell one pointer.
inline constexpr size_t kReadHalfOffset = size_t{16} << 20;
inline constexpr size_t kMaxCellsPerArray = kReadHalfOffset / kCellHalfSize;
static_assert(sizeof(CellWriteHalf) == kCellHalfSize && sizeof(CellReadHalf) == kCellHalfSize);
static_assert(std::endian::native == std::endian::little, "Cell::Bits packs the layout little-endian");
static_assert(offsetof(CellWriteHalf, strength) == 1 && offsetof(CellWriteHalf, clock_hi) == 2 &&
              offsetof(CellWriteHalf, tid) == 4 && offsetof(CellWriteHalf, clock_lo) == 8 &&
              offsetof(CellWriteHalf, site) == 12, "Cell::Bits relies on the write half's layout");
static_assert(offsetof(CellReadHalf, strength) == 1 && offsetof(CellReadHalf, clock_hi) == 2 &&
              offsetof(CellReadHalf, tid) == 4 && offsetof(CellReadHalf, clock_lo) == 8 &&
              offsetof(CellReadHalf, site) == 12, "Cell::Bits relies on the read half's layout");

class Cell {
 public:
  Cell() = default;  // no cell (explicit operator bool is false)
  explicit Cell(CellWriteHalf* w) : w_(w) {}
  explicit operator bool() const { return w_ != nullptr; }
  // The same cell (not the same metadata).
  friend bool operator==(const Cell& x, const Cell& y) { return x.w_ == y.w_; }
  CellWriteHalf* write_half() const { return w_; }
  // The read half lies kReadHalfOffset bytes after the write half in every
  // cell array (global_shadow.h, shared_shadow.h, OwnedCells): a cell is one
  // pointer, as it was when it was 32 contiguous bytes.
  CellReadHalf* read_half() const {
    return reinterpret_cast<CellReadHalf*>(reinterpret_cast<char*>(w_) + kReadHalfOffset);
  }

  // --- flags -----------------------------------------------------------------
  uint16_t flags() const { return static_cast<uint16_t>(w_->flags | read_half()->flags << 8); }
  [[gnu::always_inline]] bool Has(CellFlag f) const {
    return (f & kCellWriteFlags) != 0 ? (w_->flags & f) != 0 : (read_half()->flags & (f >> 8)) != 0;
  }
  // Stores only into the half the flag lives in, and only when it changes.
  void SetFlag(CellFlag f) const {
    if ((f & kCellWriteFlags) != 0) {
      if ((w_->flags & f) != f) w_->flags = static_cast<uint8_t>(w_->flags | f);
    } else if ((read_half()->flags & (f >> 8)) != (f >> 8)) {
      read_half()->flags = static_cast<uint8_t>(read_half()->flags | f >> 8);
    }
  }
  void ClearFlag(CellFlag f) const {
    if ((f & kCellWriteFlags) != 0) {
      if ((w_->flags & f) != 0) w_->flags = static_cast<uint8_t>(w_->flags & ~f);
    } else if ((read_half()->flags & (f >> 8)) != 0) {
      read_half()->flags = static_cast<uint8_t>(read_half()->flags & ~(f >> 8));
    }
  }
  void MarkSpace(Space s) const {
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
    return {w_->tid, Join48(w_->clock_hi, w_->clock_lo)};
  }
  SiteId write_site() const { return w_->site; }
  Strength write_strength() const { return w_->strength; }
  // Precondition: write_shared().
  VcHandle write_vc() const {
    assert(write_shared());
    return w_->tid;
  }
  // W := (e, atomic). The caller must have released a write VC first (cell_vc.h
  // does both); asserting keeps a leaked VC from going unnoticed.
  void SetWrite(Epoch e, SiteId site, bool atomic, Strength strength = kWeak) const {
    assert(!write_shared() && FitsClock(e.clock));
    w_->strength = strength;
    w_->tid = e.tid;
    w_->clock_lo = static_cast<uint32_t>(e.clock);
    w_->clock_hi = static_cast<uint16_t>(e.clock >> 32);
    w_->site = site;
    const uint8_t f = w_->flags & ~kCellWriteAtomic;
    w_->flags = static_cast<uint8_t>(atomic ? (f | kCellWriteAtomic) : f);
  }
  // W := writers in SparseVc h (write_site() keeps the latest writer's site).
  void SetWriteVc(VcHandle h, SiteId latest_site, bool atomic) const {
    assert(h != kNoVc);
    w_->strength = kWeak;  // the VC's entries carry their strengths
    w_->tid = h;
    w_->clock_lo = 0;
    w_->clock_hi = 0;
    w_->site = latest_site;
    const uint8_t f = (w_->flags & ~kCellWriteAtomic) | kCellWriteShared;
    w_->flags = static_cast<uint8_t>(atomic ? (f | kCellWriteAtomic) : f);
  }
  // The observation chain state (kCellChainBroken, kCellLastRmw) after a write;
  // for a write VC also its latest writer, kept in the clock field that a VC
  // leaves unused. Stores only when something changes.
  void SetChain(bool broken, bool last_rmw, Tid latest_writer) const {
    const uint8_t f = static_cast<uint8_t>((w_->flags & ~(kCellChainBroken | kCellLastRmw)) |
                                           (broken ? kCellChainBroken : 0) | (last_rmw ? kCellLastRmw : 0));
    if (f != w_->flags) w_->flags = f;
    if (write_shared() && w_->clock_lo != latest_writer + 1) w_->clock_lo = latest_writer + 1;
  }
  // Precondition: write_shared(). The latest writer SetChain recorded; false
  // if none was (SetWriteVc forgets it).
  bool write_vc_latest(Tid* t) const {
    assert(write_shared());
    if (w_->clock_lo == 0) return false;
    *t = w_->clock_lo - 1;
    return true;
  }
  // Drop the write VC reference (the pool frees it); W becomes bottom.
  void ClearWriteVc() const {
    w_->tid = 0;
    ClearFlag(kCellWriteShared);
  }

  // --- read metadata --------------------------------------------------------
  // The read half's form: an epoch (no flag), a VC (kCellReadShared), a run
  // (kCellReadRun) or a granule's byte readers (both).
  bool read_shared() const { return ReadForm() == (kCellReadShared >> 8); }
  // An inline run of readers (kCellReadRun): no out-of-line clock, but more
  // than one reader, so neither read_epoch() nor read_vc() applies.
  bool read_run() const { return ReadForm() == (kCellReadRun >> 8); }
  // A granule (never a byte cell) whose bytes were read each by one thread,
  // byte j by first + j * stride (or 2-byte halves, one thread each), at one
  // clock and site, plain reads: a byte-input kernel's word (a histogram's
  // input, 4 threads per word; an fp16 input, 2) with no byte cells. The granule's write half holds all four bytes' writes as
  // usual. Every access that is not one more such read splits the granule
  // first (SplitGranule gives each byte its epoch), so the rules never see
  // this form.
  bool read_byte_run() const { return ReadForm() == ((kCellReadShared | kCellReadRun) >> 8); }
  // The granule's elements are its bytes (elem_log2 0) or its two halves
  // (elem_log2 1: 2-byte reads, an fp16 input); element e is read by
  // first + e * 2^stride_log2.
  struct ByteRun {
    Tid first = 0;            // the reader element 0 has or would have
    uint8_t stride_log2 = 0;  // 0 while one element is read (no stride yet)
    uint8_t bytes = 0;        // bit j: byte j was read
    Clock clock = 0;
    uint8_t elem_log2 = 0;
    Tid ReaderOf(unsigned byte) const {
      return static_cast<Tid>(first + (uint64_t{byte >> elem_log2} << stride_log2));
    }
  };
  // Precondition: read_byte_run().
  ByteRun read_byte_run_info() const {
    assert(read_byte_run());
    const CellReadHalf* r = read_half();
    return {r->tid, static_cast<uint8_t>(r->flags >> (kCellReadRunStrideShift - 8)),
            static_cast<uint8_t>(r->clock_hi & 0xf), r->clock_lo, static_cast<uint8_t>(r->clock_hi >> 4 & 1)};
  }
  // R := byte readers (plain, weak) at `site`. The caller released a read VC.
  void SetReadByteRun(const ByteRun& run, SiteId site) const {
    assert(!read_shared() && run.bytes != 0 && run.bytes < 16 && run.stride_log2 <= 15 && run.clock <= 0xffffffffu &&
           run.elem_log2 <= 1);
    StoreRunHalf(run.first, run.clock, static_cast<uint16_t>(run.bytes | run.elem_log2 << 4), run.stride_log2, site,
                 kWeak, kCellReadRun | kCellReadShared);
    SetReadKindFlags(ReadKind::kRead);
  }
  // Readers at positions of a stride from the first, each with `clock` (and
  // the cell's read site, kind and strength): positions [0, count) ("count"
  // form), or 0 and any of 1..15 ("bitmap" form: warps of a block that arrive
  // out of order, a tile word's 16 readers 16 threads apart). A tiled
  // matmul's input word is read by one thread per block of a grid row at one
  // point of the code: one run, inline, instead of an out-of-line clock of
  // 120 bytes per 4-byte word.
  struct ReadRun {
    static constexpr uint16_t kBitmap = 0x8000;
    static constexpr uint32_t kMaxCount = 0x7fff;
    static constexpr unsigned kMaxStrideLog2 = 15;
    static constexpr uint64_t kMaxBitmapPosition = 15;
    Tid first = 0;
    uint8_t stride_log2 = 0;  // stride = 2^stride_log2
    // count (form "count", < kBitmap), or kBitmap | bit p-1 for position p.
    uint16_t members = 0;
    Clock clock = 0;

    uint32_t stride() const { return 1u << stride_log2; }
    bool bitmap() const { return (members & kBitmap) != 0; }
    // Bitmap-form members with position p (1..15) added: back to the count
    // form when the positions held become contiguous (0..k).
    static uint16_t WithBitmapPosition(uint16_t members, uint64_t p) {
      const auto m = static_cast<uint16_t>(members | 1u << (p - 1));
      const auto bits = static_cast<uint16_t>(m & ~kBitmap);
      return (bits & (bits + 1)) == 0 ? static_cast<uint16_t>(1 + std::popcount(bits)) : m;
    }
    uint32_t size() const { return bitmap() ? 1 + std::popcount(static_cast<uint16_t>(members & ~kBitmap)) : members; }
    // The highest position held.
    uint64_t last_position() const {
      return bitmap() ? 16 - std::countl_zero(static_cast<uint16_t>(members & ~kBitmap)) : members - 1;
    }
    bool HoldsPosition(uint64_t p) const {
      if (!bitmap()) return p < members;
      return p == 0 || (p <= kMaxBitmapPosition && ((members >> (p - 1)) & 1) != 0);
    }
    bool Holds(Tid t) const {
      if (t < first) return false;
      const uint64_t d = t - first;
      return (d & (stride() - 1)) == 0 && HoldsPosition(d >> stride_log2);
    }
    // f(Tid) for every reader, in increasing order.
    template <class F>
    void ForEach(F&& f) const {
      if (!bitmap()) {
        Tid t = first;
        for (uint32_t j = 0; j < members; ++j, t += stride()) f(t);
        return;
      }
      f(first);
      for (uint32_t m = members & ~kBitmap; m != 0; m &= m - 1)
        f(static_cast<Tid>(first + (uint64_t{static_cast<uint32_t>(std::countr_zero(m)) + 1} << stride_log2)));
    }
  };
  // Precondition: read_run().
  ReadRun read_run_info() const {
    assert(read_run());
    const CellReadHalf* r = read_half();
    return {r->tid, static_cast<uint8_t>(r->flags >> (kCellReadRunStrideShift - 8)), r->clock_hi, r->clock_lo};
  }
  // AddReader's commonest steps on the half itself, without decoding the run:
  // a plain read (kRead, kWeak) by t at `clock` and `site`, of a run of that
  // clock, site, kind and strength, that already holds t, or has t as its
  // next position in count form (the count grows by one), or at a position
  // 1..15 in bitmap form (one more bit; back to count form when the bits
  // become contiguous, as AddToRun does). Returns false, changing nothing, in
  // every other case. (detector_bench e_matmul: the general AddReader cost
  // 140 instructions per reader joining a run. The bitmap step is a tiled
  // matmul's B-tile word, read by 16 threads 16 apart from 8 warps that
  // arrive in any order.)
  [[gnu::always_inline]] bool AppendPlainReader(Tid t, Clock clock, SiteId site) const {
    CellReadHalf* r = read_half();
    if ((r->flags & 0x0f) != (kCellReadRun >> 8) || r->strength != kWeak || r->clock_lo != clock ||
        r->site != site || t < r->tid) {
      return false;
    }
    const unsigned stride_log2 = r->flags >> (kCellReadRunStrideShift - 8);
    const uint64_t d = uint64_t{t} - r->tid;
    if ((d & ((uint64_t{1} << stride_log2) - 1)) != 0) return false;
    const uint64_t position = d >> stride_log2, members = r->clock_hi;
    if ((members & ReadRun::kBitmap) == 0) {
      if (position < members) return true;  // recorded already
      if (position != members || members >= ReadRun::kMaxCount) return false;
      r->clock_hi = static_cast<uint16_t>(members + 1);
      return true;
    }
    if (position == 0 || (position <= ReadRun::kMaxBitmapPosition && (members >> (position - 1) & 1) != 0))
      return true;  // recorded already
    if (position > ReadRun::kMaxBitmapPosition) return false;
    r->clock_hi = ReadRun::WithBitmapPosition(static_cast<uint16_t>(members), position);
    return true;
  }
  // AddReader's step from one reader to a run of two, on the half itself: a
  // plain read by t at `clock` and `site` over another thread's plain read
  // epoch of that clock (< 2^32) and site, a power of two <= 2^15 away.
  // Returns false, changing nothing, otherwise. The caller learns that the
  // cell inflated (a shared cell goes on the block's collapse list).
  // (callgrind, the daemon on matmul 128: every tile word's second reader in
  // every phase took AddReader's 120 instructions.)
  [[gnu::always_inline]] bool PairPlainReader(Tid t, Clock clock, SiteId site) const {
    CellReadHalf* r = read_half();
    if ((r->flags & 0x0f) != 0 || r->strength != kWeak || r->clock_lo != clock || r->clock_hi != 0 ||
        r->site != site || clock == 0 || t == r->tid) {
      return false;
    }
    const uint64_t d = t > r->tid ? uint64_t{t} - r->tid : uint64_t{r->tid} - t;
    if (!std::has_single_bit(d) || std::countr_zero(d) > static_cast<int>(ReadRun::kMaxStrideLog2)) return false;
    SetReadRun({std::min(t, r->tid), static_cast<uint8_t>(std::countr_zero(d)), 2, clock}, site, ReadKind::kRead,
               kWeak);
    return true;
  }
  // READEXCL over no reader (the read half in epoch form with kind kRead and
  // a bottom clock: a word's first read in the launch): R := (e, site), plain
  // and weak, as SetRead stores it, in one 16-byte store. Returns false,
  // changing nothing, otherwise. (vector add: the general RecordRead and
  // SetReadEpoch took ~95 instructions for such a read.)
  [[gnu::always_inline]] bool SetFirstPlainRead(Epoch e, SiteId site) const {
    assert(FitsClock(e.clock));
    CellReadHalf* r = read_half();
    if (r->flags != 0 || r->clock_hi != 0 || r->clock_lo != 0) return false;
    StoreReadHalf(WithPlainRead(Bits{}, e, site));
    return true;
  }
  // R := the run (two readers or more, clock < 2^32), read site, kind and
  // strength. The caller released a read VC first.
  void SetReadRun(const ReadRun& run, SiteId site, ReadKind kind, Strength strength) const {
    assert(!read_shared() && run.size() >= 2 && run.stride_log2 <= ReadRun::kMaxStrideLog2 &&
           run.clock <= 0xffffffffu && (run.bitmap() || run.members <= ReadRun::kMaxCount));
    StoreRunHalf(run.first, run.clock, run.members, run.stride_log2, site, strength, kCellReadRun);
    SetReadKindFlags(kind);
  }
  // Precondition: !read_shared() && !read_run().
  Epoch read_epoch() const {
    assert(ReadForm() == 0);
    return {read_half()->tid, Join48(read_half()->clock_hi, read_half()->clock_lo)};
  }
  SiteId read_site() const { return read_half()->site; }
  Strength read_strength() const { return read_half()->strength; }
  // Precondition: read_shared().
  VcHandle read_vc() const {
    assert(read_shared());
    return read_half()->tid;
  }
  ReadKind read_kind() const {
    return Has(kCellReadKeptWrite) ? ReadKind::kKeptWrite
                                   : Has(kCellReadAtomic) ? ReadKind::kAtomicRead : ReadKind::kRead;
  }
  void SetRead(Epoch e, SiteId site, ReadKind kind = ReadKind::kRead, Strength strength = kWeak) const {
    assert(!read_shared() && FitsClock(e.clock));
    ClearRunBits();
    read_half()->strength = strength;
    read_half()->tid = e.tid;
    read_half()->clock_lo = static_cast<uint32_t>(e.clock);
    read_half()->clock_hi = static_cast<uint16_t>(e.clock >> 32);
    read_half()->site = site;
    SetReadKindFlags(kind);
  }
  void SetReadVc(VcHandle h, SiteId latest_site) const {
    assert(h != kNoVc);
    ClearRunBits();
    read_half()->strength = kWeak;
    read_half()->tid = h;
    read_half()->clock_lo = 0;
    read_half()->clock_hi = 0;
    read_half()->site = latest_site;
    SetReadKindFlags(ReadKind::kRead);  // the VC's entries carry their kinds
    SetFlag(kCellReadShared);
  }
  // R := bottom epoch (after a write; WRITEEXCL/WRITESHARED). With a read VC,
  // free it first (cell_vc.h: DeflateReads). Stores nothing when R is bottom
  // already: data a launch only writes never touches its read halves.
  void ClearRead() const {
    assert(!read_shared());
    if (read_half()->tid == 0 && read_half()->clock_lo == 0 && read_half()->clock_hi == 0 && read_half()->strength == kWeak &&
        (read_half()->flags & ((kCellReadAtomic | kCellReadKeptWrite | kCellReadRunBits) >> 8)) == 0) {
      return;
    }
    ClearRunBits();
    read_half()->strength = kWeak;
    read_half()->tid = 0;
    read_half()->clock_lo = 0;
    read_half()->clock_hi = 0;
    SetReadKindFlags(ReadKind::kRead);
  }
  void ClearReadVc() const {
    read_half()->tid = 0;
    ClearFlag(kCellReadShared);
  }

  // True for a cell in its initial state (nothing recorded, no flags).
  bool IsPristine() const { return bits() == Bits{}; }

  // --- whole-cell metadata (fast paths that decide a word at once) --------
  // The cell as four words in layout order: the write half in w[0..1], the
  // read half in w[2..3] (little-endian: each half's flags in the low byte of
  // its first word). Compares are 4 word compares.
  struct Bits {
    uint64_t w[4] = {0, 0, 0, 0};
    // Branch-free, on registers (an element-wise loop over a stack copy cost
    // a store-forwarding stall per compare on the streaming benchmark).
    [[gnu::always_inline]] friend bool operator==(const Bits& x, const Bits& y) {
      return ((x.w[0] ^ y.w[0]) | (x.w[1] ^ y.w[1]) | (x.w[2] ^ y.w[2]) | (x.w[3] ^ y.w[3])) == 0;
    }
    uint16_t flags() const { return static_cast<uint16_t>((w[0] & 0xff) | (w[2] & 0xff) << 8); }
    // As Cell::write_epoch / read_epoch (same preconditions), from the bits.
    Epoch write_epoch() const {
      return {static_cast<Tid>(w[0] >> 32), Join48(static_cast<uint16_t>(w[0] >> 16), static_cast<uint32_t>(w[1]))};
    }
    Epoch read_epoch() const {
      return {static_cast<Tid>(w[2] >> 32), Join48(static_cast<uint16_t>(w[2] >> 16), static_cast<uint32_t>(w[3]))};
    }
  };
  Bits bits() const {
    Bits b;
    std::memcpy(&b.w[0], static_cast<const void*>(w_), kCellHalfSize);
    std::memcpy(&b.w[2], static_cast<const void*>(read_half()), kCellHalfSize);
    return b;
  }
  // The metadata := b, storing only the halves that change. Only between
  // cells without out-of-line clocks (a handle must have one owner).
  void StoreBits(const Bits& b) const {
    assert(!read_shared() && !write_shared() && (b.flags() & kCellWriteShared) == 0 &&
           (b.flags() & (kCellReadShared | kCellReadRun)) != kCellReadShared);
    const Bits now = bits();
    if (((now.w[0] ^ b.w[0]) | (now.w[1] ^ b.w[1])) != 0) StoreWriteHalf(b);
    if (((now.w[2] ^ b.w[2]) | (now.w[3] ^ b.w[3])) != 0) StoreReadHalf(b);
  }
  // One half := b's (the fast path, which knows which halves change).
  void StoreWriteHalf(const Bits& b) const { std::memcpy(static_cast<void*>(w_), &b.w[0], kCellHalfSize); }
  void StoreReadHalf(const Bits& b) const { std::memcpy(static_cast<void*>(read_half()), &b.w[2], kCellHalfSize); }
  // Same flags, epochs or handles, and sites.
  bool MetadataEquals(const Cell& o) const { return bits() == o.bits(); }
  // Everything := o's (cells without out-of-line clocks).
  void CopyMetadataFrom(const Cell& o) const { StoreBits(o.bits()); }
  // Bits with the write half := (e, site), plain (weak), and the read half
  // cleared (R := bottom, kind kRead, weak; the read site stays, as ClearRead).
  static Bits WithPlainWrite(const Bits& b, Epoch e, SiteId site) {
    assert(FitsClock(e.clock));
    const uint64_t wf = b.w[0] & 0xff & ~uint64_t{kCellWriteAtomic | kCellChainBroken | kCellLastRmw};
    const uint64_t rf = b.w[2] & 0xff & ~uint64_t{(kCellReadAtomic | kCellReadKeptWrite | kCellReadRunBits) >> 8};
    return {{wf | (e.clock >> 32) << 16 | uint64_t{e.tid} << 32, (e.clock & 0xffffffffu) | uint64_t{site} << 32,
             rf, b.w[3] & ~uint64_t{0xffffffffu}}};
  }
  // Bits with the read half := (e, site), kind kRead, weak.
  static Bits WithPlainRead(const Bits& b, Epoch e, SiteId site) {
    assert(FitsClock(e.clock));
    const uint64_t rf = b.w[2] & 0xff & ~uint64_t{(kCellReadAtomic | kCellReadKeptWrite | kCellReadRunBits) >> 8};
    return {{b.w[0], b.w[1], rf | (e.clock >> 32) << 16 | uint64_t{e.tid} << 32,
             (e.clock & 0xffffffffu) | uint64_t{site} << 32}};
  }

 private:
  static Clock Join48(uint16_t hi, uint32_t lo) { return (Clock{hi} << 32) | lo; }
  // The read half of a run or of byte readers: `form` (kCellReadRun, with
  // kCellReadShared for byte readers) and the stride in the flag byte.
  void StoreRunHalf(Tid first, Clock clock, uint16_t members, uint8_t stride_log2, SiteId site, Strength strength,
                    uint16_t form) const {
    CellReadHalf* r = read_half();
    r->strength = strength;
    r->tid = first;
    r->clock_lo = static_cast<uint32_t>(clock);
    r->clock_hi = members;
    r->site = site;
    const unsigned f = (r->flags & ~((kCellReadRunBits | kCellReadShared) >> 8)) | (form >> 8) |
                       unsigned{stride_log2} << (kCellReadRunStrideShift - 8);
    r->flags = static_cast<uint8_t>(f);
  }
  [[gnu::always_inline]] unsigned ReadForm() const {
    return read_half()->flags & ((kCellReadShared | kCellReadRun) >> 8);
  }
  // Clears a run's or byte readers' flags (a VC's kCellReadShared stays).
  void ClearRunBits() const {
    const uint8_t f = read_half()->flags;
    if ((f & (kCellReadRun >> 8)) != 0)
      read_half()->flags = static_cast<uint8_t>(f & ~((kCellReadRunBits | kCellReadShared) >> 8));
  }
  void SetReadKindFlags(ReadKind kind) const {
    unsigned f = read_half()->flags & ~((kCellReadAtomic | kCellReadKeptWrite) >> 8);
    if (kind == ReadKind::kAtomicRead) f |= kCellReadAtomic >> 8;
    if (kind == ReadKind::kKeptWrite) f |= kCellReadKeptWrite >> 8;
    if (f != read_half()->flags) read_half()->flags = static_cast<uint8_t>(f);
  }

  CellWriteHalf* w_ = nullptr;
};

// Striped cell locks (the detector's protocol): one lock byte per aligned
// group of kCellsPerLock cells of an array (128 bytes of global memory in
// granule cells, one coalesced warp access of words; 32 bytes of shared
// memory), in an array of its own beside the halves, so that locking touches
// neither half: data only read keeps its write halves untouched. A coalesced
// warp record takes one or two locks instead of one per lane. The byte cells
// of a split granule are guarded by the granule's stripe. Every holder of a
// stripe's lock may update all cells of the stripe.
// Measured (detector_bench RunParallel/a_streaming, quiet 2-core machine,
// medians of 5, lock bits in the cells then): 4 cells per stripe gave 39.9 M
// accesses per CPU-second with 2 workers (wall speed-up 1.52x over 1
// worker); 32 cells give 46.6 M (1.85x).
inline constexpr size_t kCellsPerLock = 32;
using StripeLock = uint8_t;

void LockStripe(StripeLock& lock);  // cell.cpp: spin with pause, then yield
inline bool TryLockStripe(StripeLock& lock) {
  std::atomic_ref<StripeLock> l(lock);
  StripeLock v = 0;
  return l.load(std::memory_order_relaxed) == 0 &&
         l.compare_exchange_strong(v, 1, std::memory_order_acquire, std::memory_order_relaxed);
}
inline void UnlockStripe(StripeLock& lock) {
  assert(lock == 1);
  std::atomic_ref<StripeLock>(lock).store(0, std::memory_order_release);
}
static_assert(std::atomic_ref<StripeLock>::is_always_lock_free, "the stripe lock must not allocate");

// Consecutive cells of one array (a page's granule or byte cells, a shared
// window), with the array's stripe locks: cell i of the span is cell
// index() + i of its array, guarded by locks()[(index() + i) / kCellsPerLock].
// Cheap to copy.
class CellSpan {
 public:
  class iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = Cell;
    using difference_type = std::ptrdiff_t;
    using reference = Cell;
    using pointer = void;
    iterator() = default;
    explicit iterator(CellWriteHalf* w) : w_(w) {}
    Cell operator*() const { return Cell(w_); }
    Cell operator[](difference_type n) const { return Cell(w_ + n); }
    iterator& operator++() { return ++w_, *this; }
    iterator operator++(int) { iterator t = *this; ++*this; return t; }
    iterator& operator--() { return --w_, *this; }
    iterator operator--(int) { iterator t = *this; --*this; return t; }
    iterator& operator+=(difference_type n) { return w_ += n, *this; }
    iterator& operator-=(difference_type n) { return w_ -= n, *this; }
    friend iterator operator+(iterator i, difference_type n) { return i += n; }
    friend iterator operator+(difference_type n, iterator i) { return i += n; }
    friend iterator operator-(iterator i, difference_type n) { return i -= n; }
    friend difference_type operator-(const iterator& a, const iterator& b) { return a.w_ - b.w_; }
    friend bool operator==(const iterator& a, const iterator& b) { return a.w_ == b.w_; }
    friend auto operator<=>(const iterator& a, const iterator& b) { return a.w_ <=> b.w_; }

   private:
    CellWriteHalf* w_ = nullptr;
  };

  CellSpan() = default;
  // `w`: the first cell's write half (its read half kReadHalfOffset after).
  CellSpan(CellWriteHalf* w, size_t size, StripeLock* locks, size_t index)
      : w_(w), size_(size), locks_(locks), index_(index) {}
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Cell operator[](size_t i) const {
    assert(i < size_);
    return Cell(w_ + i);
  }
  Cell front() const { return (*this)[0]; }
  Cell back() const { return (*this)[size_ - 1]; }
  iterator begin() const { return iterator(w_); }
  iterator end() const { return iterator(w_ + size_); }
  CellSpan subspan(size_t offset, size_t count) const {
    assert(offset + count <= size_);
    return {w_ + offset, count, locks_, index_ + offset};
  }
  StripeLock* locks() const { return locks_; }
  size_t index() const { return index_; }

 private:
  CellWriteHalf* w_ = nullptr;
  size_t size_ = 0;
  StripeLock* locks_ = nullptr;
  size_t index_ = 0;
};

// Locks the stripes of a span of cells (ascending, so two holders never wait
// on each other in a cycle); a no-op when `enabled` is false (one worker).
class CellSpanLock {
 public:
  CellSpanLock(const CellSpan& cells, bool enabled) {
    if (!enabled || cells.empty()) return;
    locks_ = cells.locks();
    first_ = cells.index() / kCellsPerLock;
    last_ = (cells.index() + cells.size() - 1) / kCellsPerLock;
    for (size_t i = first_; i <= last_; ++i) LockStripe(locks_[i]);
  }
  ~CellSpanLock() {
    if (locks_ == nullptr) return;
    for (size_t i = first_; i <= last_; ++i) UnlockStripe(locks_[i]);
  }
  CellSpanLock(const CellSpanLock&) = delete;
  CellSpanLock& operator=(const CellSpanLock&) = delete;

 private:
  StripeLock* locks_ = nullptr;
  size_t first_ = 0;
  size_t last_ = 0;
};

// Cells of their own mapping, zero-initialised (write halves, stripe locks,
// read halves kReadHalfOffset after the write halves): for tests, tools and
// the fuzzer; the shadow's cells live in its pages and windows.
class OwnedCells {
 public:
  explicit OwnedCells(size_t n = 1);  // n <= kMaxCellsPerArray / 2
  ~OwnedCells();
  OwnedCells(const OwnedCells&) = delete;
  OwnedCells& operator=(const OwnedCells&) = delete;
  CellSpan span() const { return {static_cast<CellWriteHalf*>(mapping_), n_, locks_, 0}; }
  Cell operator[](size_t i) const { return span()[i]; }
  Cell cell() const { return (*this)[0]; }
  size_t size() const { return n_; }

 private:
  size_t n_;
  size_t bytes_;
  void* mapping_;
  StripeLock* locks_;
};

}  // namespace barracuda::shadow

#endif  // BARRACUDA_SHADOW_MEMORY_CELL_H_
