#include "shadow_memory/shared_shadow.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "shadow_memory/lazy_mapping.h"

namespace barracuda::shadow {

namespace {

uint64_t RoundToOsPage(uint64_t bytes) {
  const uint64_t os_page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return (bytes + os_page - 1) / os_page * os_page;
}

// Each allocated window is charged the one OS page of window slots it may
// have made resident (an upper bound that needs no bitmap over the grid).
constexpr int64_t kSlotPageCharge = 4096;

}  // namespace

SharedShadow::SharedShadow(MemoryAccounting* accounting, SparseVcPool* pool)
    : accounting_(accounting), pool_(pool) {}

SharedShadow::~SharedShadow() {
  EndLaunch();
  std::lock_guard<std::mutex> lock(mu_);
  DropSparesLocked();
}

void SharedShadow::DropSparesLocked() {
  for (Cell* w : spares_) munmap(w, spare_bytes_);
  accounting_->Add(MemoryCategory::kSpareCells, -static_cast<int64_t>(spares_.size() * spare_bytes_));
  spares_.clear();
}

uint64_t SharedShadow::WindowMappingBytes() const {
  return RoundToOsPage(uint64_t{window_bytes_} * kCellSize);
}

void SharedShadow::BeginLaunch(uint64_t num_blocks, uint32_t window_bytes) {
  EndLaunch();
  window_bytes_ = window_bytes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Spares of another size are of no use to this launch; a launch without
    // shared memory keeps them for the next one that has some.
    if (const uint64_t bytes = WindowMappingBytes(); bytes != 0 && bytes != spare_bytes_) {
      DropSparesLocked();
      spare_bytes_ = bytes;
    }
  }
  if (num_blocks == 0 || window_bytes == 0) return;
  windows_mapping_bytes_ = RoundToOsPage(num_blocks * sizeof(Cell*));
  windows_ = static_cast<Cell**>(MapZeroed(windows_mapping_bytes_));
  num_blocks_ = windows_ != nullptr ? num_blocks : 0;  // no slots: every access untracked
}

void SharedShadow::EndLaunch() {
  std::vector<uint64_t> blocks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    blocks.swap(allocated_);
  }
  for (uint64_t block : blocks) {
    if (Cell* w = std::atomic_ref<Cell*>(windows_[block]).exchange(nullptr)) {
      FreeWindow(w, /*free_clocks=*/false);  // the pool's owner resets it wholesale
    }
  }
  if (windows_ != nullptr) munmap(windows_, windows_mapping_bytes_);
  windows_ = nullptr;
  windows_mapping_bytes_ = 0;
  num_blocks_ = 0;
  window_bytes_ = 0;
}

std::span<Cell> SharedShadow::Window(uint64_t block) {
  if (block >= num_blocks_) return {};
  Cell* w = std::atomic_ref<Cell*>(windows_[block]).load(std::memory_order_acquire);
  if (w == nullptr) w = AllocateWindow(block);
  if (w == nullptr) return {};
  return {w, window_bytes_};
}

std::span<Cell> SharedShadow::Cells(uint64_t shared_address, uint32_t size) {
  uint64_t offset = static_cast<uint32_t>(shared_address);
  if (size == 0 || offset + size > window_bytes_) return {};
  std::span<Cell> w = Window(shared_address >> 32);
  if (w.empty()) return {};
  return w.subspan(offset, size);
}

Cell* SharedShadow::AllocateWindow(uint64_t block) {
  const uint64_t bytes = WindowMappingBytes();
  Cell* fresh = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!spares_.empty() && spare_bytes_ == bytes) {
      fresh = spares_.back();
      spares_.pop_back();
      accounting_->Add(MemoryCategory::kSpareCells, -static_cast<int64_t>(bytes));
    }
  }
  if (fresh == nullptr) fresh = static_cast<Cell*>(MapZeroed(bytes));
  if (fresh == nullptr) return nullptr;
  Cell* expected = nullptr;
  if (!std::atomic_ref<Cell*>(windows_[block])
           .compare_exchange_strong(expected, fresh, std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
    munmap(fresh, bytes);  // zeroed either way; racing creators are rare
    return expected;
  }
  accounting_->Add(MemoryCategory::kSharedCells, static_cast<int64_t>(bytes) + kSlotPageCharge);
  accounting_->Count(ShadowEvent::kSharedWindows);
  live_windows_.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(mu_);
  allocated_.push_back(block);
  return fresh;
}

void SharedShadow::ReleaseBlock(uint64_t block) {
  if (block >= num_blocks_) return;
  if (Cell* w = std::atomic_ref<Cell*>(windows_[block]).exchange(nullptr)) {
    FreeWindow(w, /*free_clocks=*/true);
  }
}

void SharedShadow::FreeWindow(Cell* window, bool free_clocks) {
  const uint64_t bytes = WindowMappingBytes();
  // Only resident pages can hold anything but pristine cells: scanning and
  // zeroing just those keeps the release O(touched) and faults nothing in.
  const uint64_t os_page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t cells_per_page = os_page / kCellSize;
  std::vector<unsigned char> resident(bytes / os_page);
  const bool known = mincore(window, bytes, resident.data()) == 0;
  for (uint64_t p = 0; p < resident.size(); ++p) {
    if (known && (resident[p] & 1) == 0) continue;
    Cell* page = window + p * cells_per_page;
    if (free_clocks) {
      for (uint64_t i = 0; i < cells_per_page && p * cells_per_page + i < window_bytes_; ++i) {
        if (page[i].read_shared()) pool_->Free(page[i].read_vc());
        if (page[i].write_shared()) pool_->Free(page[i].write_vc());
      }
    }
    std::memset(static_cast<void*>(page), 0, os_page);
  }
  accounting_->Add(MemoryCategory::kSharedCells, -(static_cast<int64_t>(bytes) + kSlotPageCharge));
  live_windows_.fetch_sub(1, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (bytes == spare_bytes_ && (spares_.size() + 1) * bytes <= kMaxSpareBytes &&
        accounting_->SpareFits(bytes, kMaxSpareBytes)) {
      spares_.push_back(window);
      accounting_->Add(MemoryCategory::kSpareCells, static_cast<int64_t>(bytes));
      return;
    }
  }
  munmap(window, bytes);
}

}  // namespace barracuda::shadow
