#include "shadow_memory/global_shadow.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>

#include "shadow_memory/lazy_mapping.h"

namespace barracuda::shadow {

namespace {

uint32_t ShiftFor(uint32_t bytes_per_cell) {
  if (bytes_per_cell < 2) bytes_per_cell = 2;
  if (bytes_per_cell > 256) bytes_per_cell = 256;
  return static_cast<uint32_t>(std::bit_width(bytes_per_cell) - 1);  // rounds down to 2^k
}

constexpr uint32_t kCoarsestShift = 8;
constexpr uint64_t kLeafMask = (uint64_t{1} << kLeafBits) - 1;

}  // namespace

GlobalShadow::GlobalShadow(MemoryAccounting* accounting, uint32_t degraded_bytes_per_cell)
    : accounting_(accounting), degraded_shift_(ShiftFor(degraded_bytes_per_cell)) {
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

void GlobalShadow::ReleaseSpareResidency() {
  for (GlobalPage* page : spare_) {
    int64_t resident = 0;
    for (uint64_t w : page->resident) resident += std::popcount(w);
    if (resident == 0 || madvise(page->cells, page->mapped_bytes, MADV_DONTNEED) != 0) continue;
    accounting_->Add(MemoryCategory::kSpareCells, -(resident << kTouchBits));
    for (uint64_t& w : page->resident) w = 0;
  }
}

GlobalPage* GlobalShadow::CreatePage(uint64_t base) {
  uint32_t shift = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (accounting_->OverLimit()) {
      // Zeroed spares kept resident are the first thing to give back.
      ReleaseSpareResidency();
      if (accounting_->OverLimit()) shift = degraded_shift_;
    }
    for (size_t i = spare_.size(); i-- > 0;) {
      if (spare_[i]->shift != shift) continue;
      GlobalPage* page = spare_[i];
      spare_[i] = spare_.back();
      spare_.pop_back();
      page->base = base;
      accounting_->Count(ShadowEvent::kGlobalPagesReused);
      return page;
    }
  }
  for (;;) {
    uint64_t bytes = (kPageBytes >> shift) * kCellSize;
    if (void* cells = MapZeroed(bytes)) {
      auto* page = new GlobalPage;
      page->cells = static_cast<Cell*>(cells);
      page->base = base;
      page->mapped_bytes = bytes;
      page->shift = shift;
      accounting_->Add(MemoryCategory::kPageTable, sizeof(GlobalPage));
      return page;
    }
    // Out of address space or mappings: degrade further rather than die.
    if (shift >= kCoarsestShift) return nullptr;
    shift = shift < degraded_shift_ ? degraded_shift_ : kCoarsestShift;
  }
}

void GlobalShadow::DestroyPage(GlobalPage* page) {
  int64_t resident = 0;
  for (uint64_t w : page->resident) resident += std::popcount(w);
  accounting_->Add(MemoryCategory::kSpareCells, -(resident << kTouchBits));
  munmap(page->cells, page->mapped_bytes);
  accounting_->Add(MemoryCategory::kPageTable, -static_cast<int64_t>(sizeof(GlobalPage)));
  delete page;
}

void GlobalShadow::RetirePage(GlobalPage* page) {
  int64_t touched = 0, resident = 0;
  for (uint32_t i = 0; i < GlobalPage::kMaxTouchWords; ++i) {
    touched += std::popcount(page->touched[i].load(std::memory_order_relaxed));
    resident += std::popcount(page->resident[i]);
  }
  // Touched regions that were resident spares moved to kGlobalCells on touch.
  accounting_->Add(MemoryCategory::kGlobalCells, -(touched << kTouchBits));
  if (spare_.size() >= kMaxSparePages) {
    for (auto& w : page->touched) w.store(0, std::memory_order_relaxed);
    DestroyPage(page);
    return;
  }
  const uint64_t touched_bytes = static_cast<uint64_t>(touched) << kTouchBits;
  // Spare residency is a cache: at most kMaxSpareResidentBytes and an eighth
  // of the limit, and CreatePage reclaims it before degrading a page.
  uint64_t budget = kMaxSpareResidentBytes;
  if (accounting_->limit() != 0) budget = std::min(budget, accounting_->limit() / 8);
  const bool zero_in_place = accounting_->Bytes(MemoryCategory::kSpareCells) + touched_bytes <= budget;
  if (zero_in_place) {
    // O(touched): only regions this launch handed out can be non-zero.
    constexpr uint64_t kRegion = uint64_t{1} << kTouchBits;
    char* cells = reinterpret_cast<char*>(page->cells);
    for (uint32_t i = 0; i < GlobalPage::kMaxTouchWords; ++i) {
      uint64_t w = page->touched[i].load(std::memory_order_relaxed);
      page->touched[i].store(0, std::memory_order_relaxed);
      page->resident[i] |= w;
      for (; w != 0; w &= w - 1) {
        const uint64_t region = uint64_t{i} * 64 + static_cast<uint64_t>(std::countr_zero(w));
        std::memset(cells + region * kRegion, 0, kRegion);
      }
    }
    accounting_->Add(MemoryCategory::kSpareCells, static_cast<int64_t>(touched_bytes));
    spare_.push_back(page);
    return;
  }
  for (auto& w : page->touched) w.store(0, std::memory_order_relaxed);
  // MADV_DONTNEED on a private anonymous mapping frees the memory and makes
  // the range read as zeros: the page is pristine for its next use.
  if (madvise(page->cells, page->mapped_bytes, MADV_DONTNEED) == 0) {
    accounting_->Add(MemoryCategory::kSpareCells, -(resident << kTouchBits));
    for (uint64_t& w : page->resident) w = 0;
    spare_.push_back(page);
  } else {
    DestroyPage(page);
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
  if (fresh == nullptr) {
    accounting_->Count(ShadowEvent::kPageMapFailures);
    return {};
  }
  GlobalPage* expected = nullptr;
  if (!slot.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(mu_);
    RetirePage(fresh);  // another worker won; nothing was touched
    return PageView(expected, accounting_);
  }
  AccountTableSlot(leaf->touched, leaf_index);
  accounting_->Count(ShadowEvent::kGlobalPagesMapped);
  if (fresh->shift != 0) accounting_->Count(ShadowEvent::kDegradedPages);
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
    vec.assign((page->mapped_bytes + os_page - 1) / os_page, 0);
    if (mincore(page->cells, page->mapped_bytes, vec.data()) != 0) continue;
    for (unsigned char v : vec) resident += (v & 1) ? os_page : 0;
  }
  return resident;
}

}  // namespace barracuda::shadow
