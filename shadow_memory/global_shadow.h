// Shadow of global memory: a two-level radix page table over a 57-bit device
// address space, filled on demand (paper §4.3.3). Each page shadows 1 MiB of
// device memory with one 32-byte granule Cell per 4 bytes (8 MiB: 4 of write
// halves, 4 of read halves), and one byte Cell per byte (32 MiB) for granules
// whose bytes differ (PageView), plus a stripe lock per 32 cells, all in one
// mmap(MAP_NORESERVE | MAP_ANONYMOUS) of 52 MiB (read halves kReadHalfOffset
// after their write halves): halves never touched cost no memory, so words a
// launch only reads (or only writes) cost 4 bytes per byte.
//
//   address bits  56 ........ 39 | 38 ........ 20 | 19 ........ 0
//                 root (2^18)    | leaf (2^19)    | byte in page
//
// Lookups are lock-free (two acquire loads). A page is inserted with a CAS on
// its leaf slot (leaves likewise on the root slot); a loser unmaps its copy.
//
// Memory accounting is honest and O(1): each half array keeps one bit per
// 4 KiB of its halves (1 KiB of device memory in granules, 256 bytes in byte
// cells); the first lookup that hands out a cell in such a region for the
// halves the access may store (Touch) sets the bit and counts 4 KiB. The
// stripe locks (8 KiB per page) are counted with the page.
//
// Limit: when MemoryAccounting is over its limit (after the resident spares
// are given back), a NEW page is untracked: a descriptor without cells
// (PageView::tracked() false), so that the lookup stays one load and the
// detector skips the accesses there and counts them. Races there are missed,
// none is invented: an earlier design mapped such pages coarse (one cell per
// 8+ device bytes), which reported races between accesses to distinct bytes
// of a cell (host_detector/detector/tests/memory_limit_test.cpp). ShadowStats
// counts untracked pages (kUntrackedPages; kPageMapFailures when mmap refused).
//
// Reset() (between launches, callers quiescent) releases every page in
// O(4 KiB regions touched in this launch), and keeps up to kMaxSparePages
// mappings for the next launch instead of unmapping them (saving the
// mmap/munmap churn and, under ASan, the shadow poisoning of 32 MiB per
// munmap). A kept page's touched regions are zeroed in place with memset while
// the zeroed memory kept resident stays under kMaxSpareResidentBytes and an
// eighth of the limit (accounted as kSpareCells until a later launch touches
// it again, and given back first when a new page would otherwise be mapped
// coarse); otherwise madvise(MADV_DONTNEED) drops the page's memory, which
// then reads as zeros. Zeroing in place is what makes repeated launches over
// the same buffers cheap: a dropped region costs a page fault and the
// kernel's zeroing on its next touch, which was ~30% of detector_bench
// RunSerial/a_streaming (one Detector per launch, 32 MiB of cells touched).
// Spare descriptors are accounted as page table.
#ifndef BARRACUDA_SHADOW_MEMORY_GLOBAL_SHADOW_H_
#define BARRACUDA_SHADOW_MEMORY_GLOBAL_SHADOW_H_

#include <atomic>
#include <cassert>
#include <cstdint>
#include <mutex>
#include <vector>

#include "shadow_memory/cell.h"
#include "shadow_memory/lazy_mapping.h"
#include "shadow_memory/memory_accounting.h"

namespace barracuda::shadow {

inline constexpr int kAddressBits = 57;
inline constexpr int kPageBits = 20;  // 1 MiB of device memory per page
inline constexpr uint64_t kPageBytes = uint64_t{1} << kPageBits;
inline constexpr int kLeafBits = 19;
inline constexpr int kRootBits = kAddressBits - kPageBits - kLeafBits;  // 18
inline constexpr uint64_t kMaxAddress = (uint64_t{1} << kAddressBits) - 1;
// One touched-bit per 4 KiB of cells.
inline constexpr int kTouchBits = 12;

// Device bytes per granule cell in a full-granularity page.
inline constexpr int kGranuleShift = 2;
inline constexpr uint64_t kGranuleBytes = uint64_t{1} << kGranuleShift;

// One mmap'ed array of cell halves and which of its 4 KiB regions are in use.
struct HalfArray {
  static constexpr uint32_t kMaxTouchWords = (kPageBytes * kCellHalfSize >> kTouchBits) / 64;  // 64
  char* base = nullptr;
  uint64_t mapped_bytes = 0;
  std::atomic<uint64_t> touched[kMaxTouchWords] = {};
  // Regions zeroed in place by an earlier Reset and still resident. Written
  // only while callers are quiescent (Reset), so workers read it plainly.
  uint64_t resident[kMaxTouchWords] = {};
};

// The cells of one granularity of a page: write halves, read halves, and the
// stripe locks of the cells (granules only: byte cells take their granule's).
struct CellArray {
  HalfArray w, r;
  StripeLock* locks = nullptr;
  // The read halves are kReadHalfOffset after these (r.base).
  CellWriteHalf* write_halves() const { return reinterpret_cast<CellWriteHalf*>(w.base); }
};

// A mapped page (internal layout; use PageView).
struct GlobalPage {
  CellArray granules;  // one cell per kGranuleBytes device bytes
  CellArray bytes;     // 4 byte cells per granule, used when split
  void* mapping = nullptr;  // all of the above
  uint64_t mapping_bytes = 0;
  uint64_t base = 0;   // first device address shadowed
  // No cells (over the limit, or mmap refused): accesses here are not
  // checked. Never kept as a spare.
  bool untracked = false;
  ShadowEvent untracked_why = ShadowEvent::kUntrackedPages;  // or kPageMapFailures
};

// Which halves of the cells an access may store into, for the accounting:
// a plain read stores only read halves, a plain write only write halves (its
// R := bottom stores nothing over a bottom R, and a nonzero read half was
// counted by the read that wrote it); anything else may store both. kNone:
// cells taken only for their stripe locks.
enum class Touch : uint8_t { kNone = 0, kRead = 1, kWrite = 2, kBoth = 3 };

// Cells of one page. Cheap to copy; valid until GlobalShadow::Reset().
// The warp fast path: take View(addr) for the first active lane, and keep
// using it while Contains() holds for the other lanes (one lookup per record
// when the record stays inside 1 MiB, as coalesced accesses do).
//
// A full-granularity page has one granule cell per aligned 4 device bytes.
// While the 4 bytes carry the same metadata the granule cell holds it; when an
// access covers part of a granule, the detector splits it (cell_vc.h:
// SplitGranule) and ByteCells() then hold one cell per byte, exactly as a
// byte-per-cell shadow would, until MergeGranule folds equal bytes back.
// Data accessed as whole words, the common case on GPUs, costs 8 bytes of
// shadow per device byte instead of 32 (4 when only read or only written),
// and a word access reads one cell.
// Measured (shadow_bench, coalesced 32 x 4 B record, resident cells, one core
// of the loaded dev box, byte cells before granules, 32-byte cells in one
// array then): 231 M cells/s with the cell lock, 334 M without; a lookup per
// lane instead: 205 M; first touch: 32 M (page faults).
class PageView {
 public:
  PageView() = default;
  explicit PageView(GlobalPage* page, MemoryAccounting* acct)
      : page_(page),
        acct_(acct),
        w_(page->granules.write_halves()),
        locks_(page->granules.locks),
        bytes_w_(page->bytes.write_halves()),
        base_(page->base),
        limit_(kPageBytes) {}
  // A block's shared-memory window (shared_shadow.h): granule and byte cells
  // laid out as a page's, `limit` bytes from `base` (a protocol.h shared
  // address), without per-region touch accounting: the window's granule
  // cells are charged when it is made, its byte cells at their first use
  // (*byte_flag 0 -> 1, `byte_charge` bytes of kSharedCells).
  PageView(CellWriteHalf* granules, StripeLock* locks, CellWriteHalf* bytes, uint64_t base, uint64_t limit,
           MemoryAccounting* acct, std::atomic<uint8_t>* byte_flag, int64_t byte_charge)
      : acct_(acct),
        w_(granules),
        locks_(locks),
        bytes_w_(bytes),
        base_(base),
        limit_(limit),
        byte_flag_(byte_flag),
        byte_charge_(byte_charge) {}
  bool valid() const { return page_ != nullptr || w_ != nullptr; }
  explicit operator bool() const { return valid(); }
  // [addr, addr + size) lies inside this page (or window).
  bool Contains(uint64_t addr, uint64_t size = 1) const {
    return valid() && addr - base_ < limit_ && size <= limit_ - (addr - base_);
  }
  uint64_t base() const { return base_; }
  // False for an untracked page (GlobalShadow: over the limit): it has no
  // cells, and every accessor below but Contains/base requires tracked().
  bool tracked() const { return w_ != nullptr; }
  // The granule cell covering addr. Precondition: Contains(addr).
  Cell CellAt(uint64_t addr, Touch touch = Touch::kBoth) const { return Cells(addr, 1, touch).front(); }
  // Where the granule cell of addr lies, for prefetching (both halves): not
  // counted as touched. Precondition: Contains(addr).
  void Prefetch(uint64_t addr) const {
    assert(Contains(addr) && tracked());
    const uint64_t index = (addr - base_) >> kGranuleShift;
    __builtin_prefetch(w_ + index, 1);
    __builtin_prefetch(Cell(w_ + index).read_half(), 1);
  }
  // The granule cells covering [addr, addr + size), counted as touched in the
  // halves `touch` names. Precondition: Contains(addr, size), size > 0.
  // Always inlined: every access calls it, and GCC's inliner drops it from the
  // detector's MemoryAccess when that grows (2026-11-29: 17% more instructions
  // on detector_bench a_streaming when it did).
  [[gnu::always_inline]] CellSpan Cells(uint64_t addr, uint64_t size, Touch touch = Touch::kBoth) const {
    assert(size > 0 && Contains(addr, size) && tracked());
    uint64_t first = (addr - base_) >> kGranuleShift;
    uint64_t last = (addr + size - 1 - base_) >> kGranuleShift;
    if (page_ != nullptr) MarkTouched(page_->granules, first, last, touch);
    return {w_ + first, static_cast<size_t>(last - first + 1), locks_, static_cast<size_t>(first)};
  }
  // True when no lookup since the page was made (or last Reset) named `half`
  // (Touch::kWrite or Touch::kRead) for a region holding those halves of the
  // granule cells covering [addr, addr + size): every store marks its halves
  // first, so these hold zeros. An access that stores only the other halves
  // then need not load them: where the kernel maps no shared zero page
  // (this dev VM's 6.18 kernel), loading never-written anonymous memory
  // allocates it, which made read-only and write-only data cost 8 bytes of
  // resident shadow per device byte instead of 4 (vector add 16 M floats:
  // daemon peak 1,549 MiB). False for a shared window (no touched bits).
  // Precondition: Contains(addr, size), size > 0, tracked().
  [[gnu::always_inline]] bool HalvesUntouched(uint64_t addr, uint64_t size, Touch half) const {
    if (page_ == nullptr) return false;
    const HalfArray& array = half == Touch::kWrite ? page_->granules.w : page_->granules.r;
    const uint64_t b0 = ((addr - base_) >> kGranuleShift) >> kHalvesPerBitLog;
    const uint64_t b1 = ((addr + size - 1 - base_) >> kGranuleShift) >> kHalvesPerBitLog;
    for (uint64_t b = b0; b <= b1; ++b) {
      if ((array.touched[b >> 6].load(std::memory_order_relaxed) >> (b & 63) & 1) != 0) return false;
    }
    return true;
  }
  // First device address covered by a granule cell of this page.
  uint64_t AddressOf(const Cell& granule) const {
    return base_ + (static_cast<uint64_t>(granule.write_half() - w_) << kGranuleShift);
  }
  // The 4 byte cells of a granule (all zero unless it is split), `touch`
  // saying which of their halves the caller's access may store (as for
  // Cells). A granule not split yet adds the halves its split stores: its
  // non-zero ones (shadow::SplitGranule). They have no stripe locks of their
  // own: the granule's stripe guards them.
  // Precondition: granule is one of this page's cells.
  CellSpan ByteCells(const Cell& granule, Touch touch = Touch::kBoth) const {
    assert(tracked());
    const uint64_t index = static_cast<uint64_t>(granule.write_half() - w_) << kGranuleShift;
    if (page_ == nullptr) {
      if (byte_flag_ != nullptr && byte_flag_->load(std::memory_order_relaxed) == 0) [[unlikely]] {
        ChargeByteCells();
      }
    } else {
      if (!granule.split()) {
        const Cell::Bits b = granule.bits();
        unsigned t = static_cast<unsigned>(touch);
        if ((b.w[0] | b.w[1]) != 0) t |= static_cast<unsigned>(Touch::kWrite);
        if ((b.w[2] | b.w[3]) != 0) t |= static_cast<unsigned>(Touch::kRead);
        touch = static_cast<Touch>(t);
      }
      MarkTouched(page_->bytes, index, index + kGranuleBytes - 1, touch);
    }
    return {bytes_w_ + index, kGranuleBytes, nullptr, static_cast<size_t>(index)};
  }

 private:
  [[gnu::always_inline]] void MarkTouched(CellArray& array, uint64_t first_cell, uint64_t last_cell,
                                          Touch touch) const {
    if ((static_cast<unsigned>(touch) & static_cast<unsigned>(Touch::kWrite)) != 0) {
      MarkHalves(array.w, first_cell, last_cell);
    }
    if ((static_cast<unsigned>(touch) & static_cast<unsigned>(Touch::kRead)) != 0) {
      MarkHalves(array.r, first_cell, last_cell);
    }
  }
  static constexpr int kHalvesPerBitLog = kTouchBits - 4;  // log2(4096 / 16)
  static_assert((1u << 4) == kCellHalfSize);
  [[gnu::always_inline]] void MarkHalves(HalfArray& array, uint64_t first_cell, uint64_t last_cell) const {
    uint64_t b0 = first_cell >> kHalvesPerBitLog, b1 = last_cell >> kHalvesPerBitLog;
    for (uint64_t b = b0; b <= b1; ++b) {
      std::atomic<uint64_t>& word = array.touched[b >> 6];
      uint64_t bit = uint64_t{1} << (b & 63);
      // Plain load first: after warm-up this is the only cost on the hot path.
      if ((word.load(std::memory_order_relaxed) & bit) == 0) [[unlikely]] {
        FirstTouch(array, b);
      }
    }
  }
  // Cold: sets region b's touched bit (once) and accounts for it.
  [[gnu::noinline]] void FirstTouch(HalfArray& array, uint64_t b) const {
    const uint64_t bit = uint64_t{1} << (b & 63);
    if ((array.touched[b >> 6].fetch_or(bit, std::memory_order_relaxed) & bit) != 0) return;
    if ((array.resident[b >> 6] & bit) != 0) {
      // Zeroed by the last Reset and still mapped: no fault to take.
      acct_->Add(MemoryCategory::kSpareCells, -(int64_t{1} << kTouchBits));
    } else if (!PopulateForWrite(array.base + (b << kTouchBits), size_t{1} << kTouchBits)) {
      // Backed now, as for a write, rather than by a zero-page read fault and
      // a copy-on-write fault later (the check reads the cells first): a
      // populate call costs a fifth of a fault on the dev VM (vector add 4 M:
      // 50 k regions, daemon system time 0.89 -> 0.60 s), else an
      // atomic no-op, safe while others use the region.
      std::atomic_ref<uint8_t>(*reinterpret_cast<uint8_t*>(array.base + (b << kTouchBits)))
          .fetch_or(0, std::memory_order_relaxed);
    }
    acct_->Add(MemoryCategory::kGlobalCells, int64_t{1} << kTouchBits);
  }

  [[gnu::noinline]] void ChargeByteCells() const {
    if (byte_flag_->exchange(1, std::memory_order_relaxed) == 0) acct_->Add(MemoryCategory::kSharedCells, byte_charge_);
  }

  GlobalPage* page_ = nullptr;  // null for a shared window
  MemoryAccounting* acct_ = nullptr;
  // The page's fixed fields, copied: the lane loop reads them per lane.
  CellWriteHalf* w_ = nullptr;
  StripeLock* locks_ = nullptr;
  CellWriteHalf* bytes_w_ = nullptr;
  uint64_t base_ = 0;
  uint64_t limit_ = 0;
  std::atomic<uint8_t>* byte_flag_ = nullptr;  // shared windows only
  int64_t byte_charge_ = 0;
};

class GlobalShadow {
 public:
  // Released mappings kept for reuse across launches (2 GiB of address space).
  static constexpr size_t kMaxSparePages = 64;
  // Zeroed cell memory kept resident across launches (kSpareCells), at most.
  static constexpr uint64_t kMaxSpareResidentBytes = uint64_t{256} << 20;

  explicit GlobalShadow(MemoryAccounting* accounting);
  ~GlobalShadow();
  GlobalShadow(const GlobalShadow&) = delete;
  GlobalShadow& operator=(const GlobalShadow&) = delete;

  // The page holding addr, created on demand (safe from any thread); an
  // untracked one over the limit or when mmap fails. An invalid view only
  // when addr > kMaxAddress or the page table itself could not grow (a
  // kPageMapFailures event).
  PageView View(uint64_t addr) {
    PageView v = Find(addr);
    return v.valid() ? v : ViewSlow(addr);
  }
  // The page holding addr if it exists; never creates one. Lock-free.
  PageView Find(uint64_t addr) const {
    if (addr > kMaxAddress) return {};
    Leaf* leaf = std::atomic_ref<Leaf*>(root_[addr >> (kPageBits + kLeafBits)])
                     .load(std::memory_order_acquire);
    if (leaf == nullptr) return {};
    GlobalPage* page =
        std::atomic_ref<GlobalPage*>(leaf->slots[(addr >> kPageBits) & ((1u << kLeafBits) - 1)])
            .load(std::memory_order_acquire);
    return page ? PageView(page, accounting_) : PageView();
  }
  // Convenience for single bytes; no cell where View() is invalid or untracked.
  Cell CellFor(uint64_t addr) {
    PageView v = View(addr);
    return v.valid() && v.tracked() ? v.CellAt(addr) : Cell();
  }

  // Unmaps every page (launch end). Callers must be quiescent.
  void Reset();

  uint64_t live_pages() const;
  // Resident bytes of all cell mappings according to mincore(2): the ground
  // truth the touched-bit accounting approximates from above (tests use it).
  uint64_t ResidentCellBytes() const;

 private:
  // A leaf: 2^kLeafBits page slots (4 MiB, mmap'ed NORESERVE) and which 4 KiB
  // of them are touched. Plain words accessed through std::atomic_ref, so
  // zero-filled mmap memory is a valid empty leaf without construction.
  struct Leaf {
    static constexpr uint32_t kTouchWords = (sizeof(void*) << kLeafBits >> 12) / 64;  // 16
    GlobalPage* slots[size_t{1} << kLeafBits];
    uint64_t touched[kTouchWords];
  };
  static constexpr uint32_t kRootTouchWords = (sizeof(void*) << kRootBits >> 12) / 64;  // 8

  PageView ViewSlow(uint64_t addr);
  GlobalPage* CreatePage(uint64_t base);
  GlobalPage* CreateUntrackedPage(uint64_t base, ShadowEvent why);
  // Keeps a released page for reuse, or unmaps it. Caller holds mu_.
  void RetirePage(GlobalPage* page);
  // Drops the zeroed memory of every spare page (madvise). Caller holds mu_.
  void ReleaseSpareResidency();
  // madvise both cell arrays of a page, accounting what was resident; false
  // if either failed (what is still resident stays counted).
  bool DropPageMemory(GlobalPage* page);
  void DestroyPage(GlobalPage* page);
  Leaf* GetOrCreateLeaf(uint64_t root_index);
  // Counts 4 KiB of table the first time a slot in it is used.
  void AccountTableSlot(uint64_t* touched_words, uint64_t slot_index);

  MemoryAccounting* accounting_;
  Leaf** root_;  // 2^kRootBits slots, mmap'ed NORESERVE, atomic_ref access
  uint64_t root_touched_[kRootTouchWords] = {};
  mutable std::mutex mu_;
  std::vector<GlobalPage*> pages_;  // guarded by mu_: every live page, for Reset
  std::vector<Leaf*> leaves_;       // guarded by mu_
  std::vector<GlobalPage*> spare_;  // guarded by mu_: released, zeroed pages
};

}  // namespace barracuda::shadow

#endif  // BARRACUDA_SHADOW_MEMORY_GLOBAL_SHADOW_H_
