#include "shadow_memory/global_shadow.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <new>

#include "shadow_memory/lazy_mapping.h"

namespace barracuda::shadow {

namespace {

int64_t CountBits(const uint64_t* words) {
  int64_t n = 0;
  for (uint32_t i = 0; i < HalfArray::kMaxTouchWords; ++i) n += std::popcount(words[i]);
  return n;
}

// The four half arrays of a page.
std::array<HalfArray*, 4> Halves(GlobalPage* page) {
  return {&page->granules.w, &page->granules.r, &page->bytes.w, &page->bytes.r};
}
std::array<const HalfArray*, 4> Halves(const GlobalPage* page) {
  return {&page->granules.w, &page->granules.r, &page->bytes.w, &page->bytes.r};
}

int64_t CountResident(const GlobalPage* page) {
  int64_t n = 0;
  for (const HalfArray* a : Halves(page)) n += CountBits(a->resident);
  return n;
}

int64_t CountTouched(const HalfArray& a) {
  int64_t n = 0;
  for (const auto& w : a.touched) n += std::popcount(w.load(std::memory_order_relaxed));
  return n;
}

void ClearTouched(HalfArray& a) {
  for (auto& w : a.touched) w.store(0, std::memory_order_relaxed);
}

// Regions touched in this launch moved from kSpareCells to kGlobalCells when
// first touched: from now on resident means "resident and counted as spare".
void SettleResident(HalfArray& a) {
  for (uint32_t i = 0; i < HalfArray::kMaxTouchWords; ++i) {
    a.resident[i] &= ~a.touched[i].load(std::memory_order_relaxed);
  }
}

// Gives back the resident spare regions of a that this launch did not touch
// (after SettleResident, resident holds only those): spares of a page reused
// for other addresses, or of buffers the program stopped using. Kept, they
// piled up to the spare cap across launches (CUB radix sort 1M: 57 MiB of
// spares beside 35 MiB of live cells). Returns how many regions went back.
int64_t DropStaleResident(HalfArray& a) {
  constexpr uint64_t kRegion = uint64_t{1} << kTouchBits;
  int64_t dropped = 0;
  uint64_t run_start = 0, run_len = 0;
  auto flush = [&] {
    if (run_len == 0) return;
    if (madvise(a.base + run_start * kRegion, run_len * kRegion, MADV_DONTNEED) == 0) {
      for (uint64_t r = run_start; r < run_start + run_len; ++r) a.resident[r >> 6] &= ~(uint64_t{1} << (r & 63));
      dropped += static_cast<int64_t>(run_len);
    }
    run_len = 0;
  };
  for (uint32_t i = 0; i < HalfArray::kMaxTouchWords; ++i) {
    for (uint64_t w = a.resident[i]; w != 0; w &= w - 1) {
      const uint64_t region = uint64_t{i} * 64 + static_cast<uint64_t>(std::countr_zero(w));
      if (run_len != 0 && region == run_start + run_len) {
        ++run_len;
      } else {
        flush();
        run_start = region;
        run_len = 1;
      }
    }
  }
  flush();
  return dropped;
}

// Zeroes the touched regions of a in place and marks them resident. O(touched).
void ZeroTouchedInPlace(HalfArray& a) {
  constexpr uint64_t kRegion = uint64_t{1} << kTouchBits;
  char* cells = a.base;
  for (uint32_t i = 0; i < HalfArray::kMaxTouchWords; ++i) {
    uint64_t w = a.touched[i].load(std::memory_order_relaxed);
    a.touched[i].store(0, std::memory_order_relaxed);
    a.resident[i] |= w;
    for (; w != 0; w &= w - 1) {
      const uint64_t region = uint64_t{i} * 64 + static_cast<uint64_t>(std::countr_zero(w));
      std::memset(cells + region * kRegion, 0, kRegion);
    }
  }
}

// Drops a's memory (it reads as zeros again) and returns the resident spare
// regions that gave back; -1 if madvise failed (nothing changed).
int64_t DropMemory(HalfArray& a) {
  if (a.base == nullptr) return 0;
  // MADV_DONTNEED on a private anonymous mapping frees the memory and makes
  // the range read as zeros.
  if (madvise(a.base, a.mapped_bytes, MADV_DONTNEED) != 0) return -1;
  const int64_t resident = CountBits(a.resident);
  for (uint64_t& w : a.resident) w = 0;
  return resident;
}

constexpr uint64_t kLeafMask = (uint64_t{1} << kLeafBits) - 1;

}  // namespace

GlobalShadow::GlobalShadow(MemoryAccounting* accounting) : accounting_(accounting) {
  root_ = static_cast<Leaf**>(MapZeroed(sizeof(Leaf*) << kRootBits));
  if (root_ == nullptr) throw std::bad_alloc();
}

GlobalShadow::~GlobalShadow() {
  Reset();
  for (GlobalPage* page : spare_) DestroyPage(page);
  spare_.clear();
  for (Leaf* leaf : leaves_) {
    int64_t touched = 0;
    for (uint64_t w : leaf->touched) touched += std::popcount(w);
    accounting_->Add(MemoryCategory::kPageTable, -(touched << 12));
    munmap(leaf, sizeof(Leaf));
  }
  int64_t touched = 0;
  for (uint64_t w : root_touched_) touched += std::popcount(w);
  accounting_->Add(MemoryCategory::kPageTable, -(touched << 12));
  munmap(root_, sizeof(Leaf*) << kRootBits);
}

void GlobalShadow::AccountTableSlot(uint64_t* touched_words, uint64_t slot_index) {
  uint64_t bit = (slot_index * sizeof(void*)) >> 12;
  uint64_t mask = uint64_t{1} << (bit & 63);
  if ((std::atomic_ref<uint64_t>(touched_words[bit >> 6]).fetch_or(mask, std::memory_order_relaxed) &
       mask) == 0) {
    accounting_->Add(MemoryCategory::kPageTable, 4096);
  }
}

GlobalShadow::Leaf* GlobalShadow::GetOrCreateLeaf(uint64_t root_index) {
  std::atomic_ref<Leaf*> slot(root_[root_index]);
  if (Leaf* leaf = slot.load(std::memory_order_acquire)) return leaf;
  Leaf* fresh = static_cast<Leaf*>(MapZeroed(sizeof(Leaf)));
  if (fresh == nullptr) return nullptr;
  Leaf* expected = nullptr;
  if (!slot.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
    munmap(fresh, sizeof(Leaf));  // another worker won
    return expected;
  }
  AccountTableSlot(root_touched_, root_index);
  std::lock_guard<std::mutex> lock(mu_);
  leaves_.push_back(fresh);
  return fresh;
}

bool GlobalShadow::DropPageMemory(GlobalPage* page) {
  bool ok = true;
  for (HalfArray* a : Halves(page)) {
    const int64_t given_back = DropMemory(*a);
    if (given_back < 0) {
      ok = false;
    } else {
      accounting_->Add(MemoryCategory::kSpareCells, -(given_back << kTouchBits));
    }
  }
  return ok;
}

void GlobalShadow::ReleaseSpareResidency() {
  for (GlobalPage* page : spare_) {
    if (CountResident(page) != 0) DropPageMemory(page);
  }
}

GlobalPage* GlobalShadow::CreatePage(uint64_t base) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (accounting_->OverLimit()) {
      // Zeroed spares kept resident are the first thing to give back.
      ReleaseSpareResidency();
      if (accounting_->OverLimit()) return CreateUntrackedPage(base, ShadowEvent::kUntrackedPages);
    }
    if (!spare_.empty()) {
      GlobalPage* page = spare_.back();
      spare_.pop_back();
      page->base = base;
      accounting_->Count(ShadowEvent::kGlobalPagesReused);
      return page;
    }
  }
  // One mapping, read halves kReadHalfOffset (16 MiB) after their write halves:
  //   [0, 16 MiB) byte write halves    [16, 32 MiB) byte read halves
  //   [32, 36 MiB) granule write halves, then the granule stripe locks (8 KiB)
  //   [48, 52 MiB) granule read halves
  constexpr uint64_t kGranuleHalves = (kPageBytes >> kGranuleShift) * kCellHalfSize;  // 4 MiB
  constexpr uint64_t kByteHalves = kPageBytes * kCellHalfSize;                       // 16 MiB
  constexpr uint64_t kLocks = (kPageBytes >> kGranuleShift) / kCellsPerLock;          // 8 KiB
  static_assert(kByteHalves <= kReadHalfOffset && kGranuleHalves + kLocks <= kReadHalfOffset);
  constexpr uint64_t kGranules = 2 * kReadHalfOffset;
  constexpr uint64_t kMapping = kGranules + kReadHalfOffset + kGranuleHalves;
  char* mapping = static_cast<char*>(MapZeroed(kMapping));
  if (mapping == nullptr) {
    // Out of address space or mappings: untracked rather than dead.
    return CreateUntrackedPage(base, ShadowEvent::kPageMapFailures);
  }
  auto* page = new GlobalPage;
  page->mapping = mapping;
  page->mapping_bytes = kMapping;
  page->bytes.w.base = mapping;
  page->bytes.w.mapped_bytes = kByteHalves;
  page->bytes.r.base = mapping + kReadHalfOffset;
  page->bytes.r.mapped_bytes = kByteHalves;
  page->granules.w.base = mapping + kGranules;
  page->granules.w.mapped_bytes = kGranuleHalves;
  page->granules.r.base = mapping + kGranules + kReadHalfOffset;
  page->granules.r.mapped_bytes = kGranuleHalves;
  char* at = mapping + kGranules + kGranuleHalves;
  page->granules.locks = reinterpret_cast<StripeLock*>(at);
  page->base = base;
  // The locks are counted whole with the page: 8 KiB, resident only where used.
  accounting_->Add(MemoryCategory::kPageTable, sizeof(GlobalPage) + kLocks);
  return page;
}

GlobalPage* GlobalShadow::CreateUntrackedPage(uint64_t base, ShadowEvent why) {
  auto* page = new GlobalPage;
  page->base = base;
  page->untracked = true;
  page->untracked_why = why;  // counted once the page is in the table
  accounting_->Add(MemoryCategory::kPageTable, sizeof(GlobalPage));
  return page;
}

void GlobalShadow::DestroyPage(GlobalPage* page) {
  const int64_t resident = CountResident(page);
  accounting_->Add(MemoryCategory::kSpareCells, -(resident << kTouchBits));
  int64_t locks = 0;
  if (page->mapping != nullptr) {
    munmap(page->mapping, page->mapping_bytes);
    locks = static_cast<int64_t>((kPageBytes >> kGranuleShift) / kCellsPerLock);
  }
  accounting_->Add(MemoryCategory::kPageTable, -static_cast<int64_t>(sizeof(GlobalPage)) - locks);
  delete page;
}

void GlobalShadow::RetirePage(GlobalPage* page) {
  int64_t touched = 0;
  int64_t stale = 0;
  for (HalfArray* a : Halves(page)) {
    touched += CountTouched(*a);
    SettleResident(*a);
    if (a->base != nullptr) stale += DropStaleResident(*a);
  }
  accounting_->Add(MemoryCategory::kGlobalCells, -(touched << kTouchBits));
  accounting_->Add(MemoryCategory::kSpareCells, -(stale << kTouchBits));
  if (page->untracked || spare_.size() >= kMaxSparePages) {
    for (HalfArray* a : Halves(page)) ClearTouched(*a);
    DestroyPage(page);
    return;
  }
  // Spare residency is a cache: at most kMaxSpareResidentBytes and an eighth
  // of the limit, and CreatePage reclaims it before degrading a page.
  const uint64_t touched_bytes = static_cast<uint64_t>(touched) << kTouchBits;
  if (accounting_->SpareFits(touched_bytes, kMaxSpareResidentBytes)) {
    for (HalfArray* a : Halves(page)) ZeroTouchedInPlace(*a);
    accounting_->Add(MemoryCategory::kSpareCells, static_cast<int64_t>(touched_bytes));
    spare_.push_back(page);
    return;
  }
  for (HalfArray* a : Halves(page)) ClearTouched(*a);
  if (DropPageMemory(page)) {
    spare_.push_back(page);
  } else {
    DestroyPage(page);  // accounts for what is still resident
  }
}

PageView GlobalShadow::ViewSlow(uint64_t addr) {
  if (addr > kMaxAddress) return {};
  uint64_t root_index = addr >> (kPageBits + kLeafBits);
  uint64_t leaf_index = (addr >> kPageBits) & kLeafMask;
  Leaf* leaf = GetOrCreateLeaf(root_index);
  if (leaf == nullptr) {
    accounting_->Count(ShadowEvent::kPageMapFailures);
    return {};
  }
  std::atomic_ref<GlobalPage*> slot(leaf->slots[leaf_index]);
  if (GlobalPage* page = slot.load(std::memory_order_acquire)) return PageView(page, accounting_);
  GlobalPage* fresh = CreatePage(addr & ~(kPageBytes - 1));
  GlobalPage* expected = nullptr;
  if (!slot.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(mu_);
    RetirePage(fresh);  // another worker won; nothing was touched
    return PageView(expected, accounting_);
  }
  AccountTableSlot(leaf->touched, leaf_index);
  accounting_->Count(fresh->untracked ? fresh->untracked_why : ShadowEvent::kGlobalPagesMapped);
  std::lock_guard<std::mutex> lock(mu_);
  pages_.push_back(fresh);
  return PageView(fresh, accounting_);
}

void GlobalShadow::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  for (GlobalPage* page : pages_) {
    Leaf* leaf = root_[page->base >> (kPageBits + kLeafBits)];
    std::atomic_ref<GlobalPage*>(leaf->slots[(page->base >> kPageBits) & kLeafMask])
        .store(nullptr, std::memory_order_release);
    RetirePage(page);
  }
  // Keep the vector's capacity only if modest: the next launch likely touches
  // as many pages, but one huge launch must not pin memory forever.
  if (pages_.capacity() > 4096) {
    std::vector<GlobalPage*>().swap(pages_);
  } else {
    pages_.clear();
  }
}

uint64_t GlobalShadow::live_pages() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pages_.size();
}

uint64_t GlobalShadow::ResidentCellBytes() const {
  const uint64_t os_page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t resident = 0;
  std::vector<unsigned char> vec;
  for (const GlobalPage* page : pages_) {
    for (const HalfArray* a : Halves(page)) {
      if (a->base == nullptr) continue;
      vec.assign((a->mapped_bytes + os_page - 1) / os_page, 0);
      if (mincore(a->base, a->mapped_bytes, vec.data()) != 0) continue;
      for (unsigned char v : vec) resident += (v & 1) ? os_page : 0;
    }
  }
  return resident;
}

}  // namespace barracuda::shadow
