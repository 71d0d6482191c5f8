#include "shadow_memory/shared_shadow.h"

#include <sys/mman.h>
#include <unistd.h>

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

SharedShadow::~SharedShadow() { EndLaunch(); }

uint64_t SharedShadow::WindowMappingBytes() const {
  return RoundToOsPage(uint64_t{window_bytes_} * kCellSize);
}

void SharedShadow::BeginLaunch(uint64_t num_blocks, uint32_t window_bytes) {
  EndLaunch();
  window_bytes_ = window_bytes;
  if (num_blocks == 0 || window_bytes == 0) return;
  windows_mapping_bytes_ = RoundToOsPage(num_blocks * sizeof(Cell*));
  windows_ = static_cast<Cell**>(MapZeroed(windows_mapping_bytes_));
  num_blocks_ = windows_ != nullptr ? num_blocks : 0;  // no slots: every access untracked
}

void SharedShadow::EndLaunch() {
  std::lock_guard<std::mutex> lock(mu_);
  for (uint64_t block : allocated_) {
    if (Cell* w = std::atomic_ref<Cell*>(windows_[block]).exchange(nullptr)) {
      FreeWindow(w, /*free_clocks=*/false);  // the pool's owner resets it wholesale
    }
  }
  std::vector<uint64_t>().swap(allocated_);
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
  auto* fresh = static_cast<Cell*>(MapZeroed(WindowMappingBytes()));
  if (fresh == nullptr) return nullptr;
  Cell* expected = nullptr;
  if (!std::atomic_ref<Cell*>(windows_[block])
           .compare_exchange_strong(expected, fresh, std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
    munmap(fresh, WindowMappingBytes());
    return expected;
  }
  accounting_->Add(MemoryCategory::kSharedCells,
                   static_cast<int64_t>(WindowMappingBytes()) + kSlotPageCharge);
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
  if (free_clocks) {
    // Only resident pages can hold anything but pristine cells: scanning just
    // those keeps the release O(touched) and faults nothing in.
    const uint64_t os_page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    const uint64_t cells_per_page = os_page / kCellSize;
    std::vector<unsigned char> resident(bytes / os_page);
    bool known = mincore(window, bytes, resident.data()) == 0;
    for (uint64_t p = 0; p < resident.size(); ++p) {
      if (known && (resident[p] & 1) == 0) continue;
      for (uint64_t i = p * cells_per_page; i < (p + 1) * cells_per_page && i < window_bytes_; ++i) {
        Cell& c = window[i];
        if (c.read_shared()) pool_->Free(c.read_vc());
        if (c.write_shared()) pool_->Free(c.write_vc());
      }
    }
  }
  munmap(window, bytes);
  accounting_->Add(MemoryCategory::kSharedCells, -(static_cast<int64_t>(bytes) + kSlotPageCharge));
  live_windows_.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace barracuda::shadow
