// Byte and event counters for everything the shadow allocates, and the
// configurable memory limit beyond which new global pages are untracked and
// no new out-of-line clocks are made (global_shadow.h, vc_pool.h) instead of
// exhausting the host.
//
// Counters are relaxed atomics: components on several workers add to them;
// Stats() is a snapshot, exact once the workers are quiescent.
#ifndef BARRACUDA_SHADOW_MEMORY_MEMORY_ACCOUNTING_H_
#define BARRACUDA_SHADOW_MEMORY_MEMORY_ACCOUNTING_H_

#include <atomic>
#include <cstdint>

namespace barracuda::shadow {

enum class MemoryCategory : uint8_t {
  kGlobalCells,    // touched bytes of global cells (4 KiB granularity, see page_table.h)
  kPageTable,      // page descriptors and touched parts of the radix table
  kSharedCells,    // shared-memory windows (whole windows, allocated per block)
  kVectorClocks,   // out-of-line read/write SparseVcs and their pool
  kSyncLocations,  // SyncLocationMap entries and their per-block clocks
  kSpareCells,     // zeroed global cells kept resident for the next launch (global_shadow.h)
  kCount
};
inline constexpr int kMemoryCategoryCount = static_cast<int>(MemoryCategory::kCount);
const char* MemoryCategoryName(MemoryCategory c);

enum class ShadowEvent : uint8_t {
  kGlobalPagesMapped,   // global pages created (all launches)
  kUntrackedPages,      // pages made over the limit: accesses there are not checked
  kPageMapFailures,     // mmap refused a page's cells: accesses there are not checked
  kSharedWindows,       // shared windows allocated (all launches)
  kVcInflations,        // SparseVcs handed out (read or write inflation)
  kVcAllocFailures,     // over the limit or pool exhausted: a cell kept only its newest epoch
  kVcEntriesRefused,    // over the limit: an existing clock did not take a new thread
  kSyncLocations,       // live synchronisation locations
  kLaunchesReset,       // EndLaunch calls
  kGlobalPagesReused,   // global pages served from the spare list (no new mapping)
  kCount
};
inline constexpr int kShadowEventCount = static_cast<int>(ShadowEvent::kCount);

struct ShadowStats {
  uint64_t bytes[kMemoryCategoryCount] = {};
  uint64_t events[kShadowEventCount] = {};
  uint64_t total_bytes = 0;
  uint64_t peak_total_bytes = 0;
  uint64_t limit_bytes = 0;  // 0: unlimited
  uint64_t live_global_pages = 0;
  uint64_t live_vcs = 0;

  uint64_t Bytes(MemoryCategory c) const { return bytes[static_cast<int>(c)]; }
  uint64_t Events(ShadowEvent e) const { return events[static_cast<int>(e)]; }
  // True once the limit (or the host) made the shadow drop something: races
  // may be missed (never invented); the detector says so.
  bool degraded() const {
    return Events(ShadowEvent::kUntrackedPages) + Events(ShadowEvent::kPageMapFailures) +
               Events(ShadowEvent::kVcAllocFailures) + Events(ShadowEvent::kVcEntriesRefused) >
           0;
  }
};

class MemoryAccounting {
 public:
  explicit MemoryAccounting(uint64_t limit_bytes = 0) : limit_(limit_bytes) {}
  MemoryAccounting(const MemoryAccounting&) = delete;
  MemoryAccounting& operator=(const MemoryAccounting&) = delete;

  void Add(MemoryCategory c, int64_t delta) {
    bytes_[static_cast<int>(c)].fetch_add(delta, std::memory_order_relaxed);
    int64_t now = total_.fetch_add(delta, std::memory_order_relaxed) + delta;
    int64_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }
  void Count(ShadowEvent e, int64_t n = 1) {
    events_[static_cast<int>(e)].fetch_add(n, std::memory_order_relaxed);
  }

  uint64_t Total() const { return Clamp(total_.load(std::memory_order_relaxed)); }
  uint64_t Bytes(MemoryCategory c) const {
    return Clamp(bytes_[static_cast<int>(c)].load(std::memory_order_relaxed));
  }
  uint64_t Events(ShadowEvent e) const {
    return Clamp(events_[static_cast<int>(e)].load(std::memory_order_relaxed));
  }
  uint64_t limit() const { return limit_.load(std::memory_order_relaxed); }
  void set_limit(uint64_t limit_bytes) { limit_.store(limit_bytes, std::memory_order_relaxed); }
  // A soft limit: checked when a global page is created, so the total may
  // pass it by what pages already mapped go on to touch.
  bool OverLimit() const {
    uint64_t l = limit();
    return l != 0 && Total() >= l;
  }

  // Whether `bytes` more of kSpareCells (zeroed shadow kept for reuse: global
  // pages and shared windows alike) stay within `cap` and an eighth of the
  // limit. Spares are a cache: they must not push the total over the limit
  // and make new global pages degrade.
  bool SpareFits(uint64_t bytes, uint64_t cap) const {
    const uint64_t l = limit();
    const uint64_t budget = l != 0 && l / 8 < cap ? l / 8 : cap;
    return Bytes(MemoryCategory::kSpareCells) + bytes <= budget;
  }

  // Fills bytes, events, totals and limit (the live_* fields are the owner's).
  void Snapshot(ShadowStats* out) const;

 private:
  static uint64_t Clamp(int64_t v) { return v < 0 ? 0 : static_cast<uint64_t>(v); }

  std::atomic<uint64_t> limit_;
  std::atomic<int64_t> bytes_[kMemoryCategoryCount] = {};
  std::atomic<int64_t> events_[kShadowEventCount] = {};
  std::atomic<int64_t> total_{0};
  std::atomic<int64_t> peak_{0};
};

}  // namespace barracuda::shadow

#endif  // BARRACUDA_SHADOW_MEMORY_MEMORY_ACCOUNTING_H_
