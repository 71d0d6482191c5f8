#include "shadow_memory/shared_shadow.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
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
  for (char* w : spares_) munmap(w, spare_bytes_);
  accounting_->Add(MemoryCategory::kSpareCells, -static_cast<int64_t>(spares_.size() * spare_accounted_));
  spares_.clear();
}

// A window's mapping: the write halves of window_bytes_ cells and their
// stripe locks, then at kReadHalfOffset the read halves. Only these two parts
// (UsedRanges) are ever touched; the space between costs nothing.
uint64_t SharedShadow::WriteSideBytes() const {
  return RoundToOsPage(uint64_t{window_bytes_} * kCellHalfSize + (window_bytes_ + kCellsPerLock - 1) / kCellsPerLock);
}
uint64_t SharedShadow::ReadSideBytes() const { return RoundToOsPage(uint64_t{window_bytes_} * kCellHalfSize); }

uint64_t SharedShadow::WindowMappingBytes() const {
  return window_bytes_ == 0 ? 0 : kReadHalfOffset + ReadSideBytes();
}

uint64_t SharedShadow::WindowAccountedBytes() const {
  return window_bytes_ == 0 ? 0 : WriteSideBytes() + ReadSideBytes();
}

CellSpan SharedShadow::WindowCells(char* window) const {
  return {reinterpret_cast<CellWriteHalf*>(window), window_bytes_,
          reinterpret_cast<StripeLock*>(window + uint64_t{window_bytes_} * kCellHalfSize), 0};
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
      spare_accounted_ = WindowAccountedBytes();
    }
  }
  if (num_blocks == 0 || window_bytes == 0) return;
  // More shared memory per block than a cell array holds (no GPU has it):
  // untracked, as when the slots cannot be mapped.
  if (WriteSideBytes() > kReadHalfOffset) return;
  windows_mapping_bytes_ = RoundToOsPage(num_blocks * sizeof(char*));
  windows_ = static_cast<char**>(MapZeroed(windows_mapping_bytes_));
  num_blocks_ = windows_ != nullptr ? num_blocks : 0;  // no slots: every access untracked
}

void SharedShadow::EndLaunch() {
  std::vector<uint64_t> blocks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    blocks.swap(allocated_);
  }
  for (uint64_t block : blocks) {
    if (char* w = std::atomic_ref<char*>(windows_[block]).exchange(nullptr)) {
      FreeWindow(w, /*free_clocks=*/false);  // the pool's owner resets it wholesale
    }
  }
  if (windows_ != nullptr) munmap(windows_, windows_mapping_bytes_);
  windows_ = nullptr;
  windows_mapping_bytes_ = 0;
  num_blocks_ = 0;
  window_bytes_ = 0;
}

CellSpan SharedShadow::Window(uint64_t block) {
  if (block >= num_blocks_) return {};
  char* w = std::atomic_ref<char*>(windows_[block]).load(std::memory_order_acquire);
  if (w == nullptr) w = AllocateWindow(block);
  if (w == nullptr) return {};
  return WindowCells(w);
}

CellSpan SharedShadow::Cells(uint64_t shared_address, uint32_t size) {
  uint64_t offset = static_cast<uint32_t>(shared_address);
  if (size == 0 || offset + size > window_bytes_) return {};
  CellSpan w = Window(shared_address >> 32);
  if (w.empty()) return {};
  return w.subspan(offset, size);
}

char* SharedShadow::AllocateWindow(uint64_t block) {
  const uint64_t bytes = WindowMappingBytes();
  const int64_t accounted = static_cast<int64_t>(WindowAccountedBytes());
  char* fresh = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!spares_.empty() && spare_bytes_ == bytes) {
      fresh = spares_.back();
      spares_.pop_back();
      accounting_->Add(MemoryCategory::kSpareCells, -accounted);
    }
  }
  if (fresh == nullptr) fresh = static_cast<char*>(MapZeroed(bytes));
  if (fresh == nullptr) return nullptr;
  char* expected = nullptr;
  if (!std::atomic_ref<char*>(windows_[block])
           .compare_exchange_strong(expected, fresh, std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
    munmap(fresh, bytes);  // zeroed either way; racing creators are rare
    return expected;
  }
  accounting_->Add(MemoryCategory::kSharedCells, accounted + kSlotPageCharge);
  accounting_->Count(ShadowEvent::kSharedWindows);
  live_windows_.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(mu_);
  allocated_.push_back(block);
  return fresh;
}

void SharedShadow::ReleaseBlock(uint64_t block) {
  if (block >= num_blocks_) return;
  if (char* w = std::atomic_ref<char*>(windows_[block]).exchange(nullptr)) {
    FreeWindow(w, /*free_clocks=*/true);
  }
}

void SharedShadow::FreeWindow(char* window, bool free_clocks) {
  const uint64_t bytes = WindowMappingBytes();
  const uint64_t accounted = WindowAccountedBytes();
  // Only resident pages can hold anything but pristine halves: scanning and
  // zeroing just those keeps the release O(touched) and faults nothing in.
  // The two parts: write halves and locks at 0, read halves at kReadHalfOffset.
  const uint64_t os_page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t part_bytes[2] = {WriteSideBytes(), ReadSideBytes()};
  char* const part[2] = {window, window + kReadHalfOffset};
  std::vector<unsigned char> resident[2];
  bool known[2];
  for (int k = 0; k < 2; ++k) {
    resident[k].resize(part_bytes[k] / os_page);
    known[k] = mincore(part[k], part_bytes[k], resident[k].data()) == 0;
  }
  auto is_resident = [&](int k, uint64_t offset) { return !known[k] || (resident[k][offset / os_page] & 1) != 0; };
  if (free_clocks) {
    // A handle lives in the half whose flag says so: a read VC in a read
    // half, a write VC in a write half.
    const CellSpan cells = WindowCells(window);
    const uint64_t per_page = os_page / kCellHalfSize;
    for (uint64_t first = 0; first < window_bytes_; first += per_page) {
      const bool w = is_resident(0, first * kCellHalfSize), r = is_resident(1, first * kCellHalfSize);
      if (!w && !r) continue;
      for (uint64_t i = first; i < std::min<uint64_t>(window_bytes_, first + per_page); ++i) {
        if (r && cells[i].read_shared()) pool_->Free(cells[i].read_vc());
        if (w && cells[i].write_shared()) pool_->Free(cells[i].write_vc());
      }
    }
  }
  for (int k = 0; k < 2; ++k) {
    for (uint64_t p = 0; p < resident[k].size(); ++p) {
      if (is_resident(k, p * os_page)) std::memset(part[k] + p * os_page, 0, os_page);
    }
  }
  accounting_->Add(MemoryCategory::kSharedCells, -(static_cast<int64_t>(accounted) + kSlotPageCharge));
  live_windows_.fetch_sub(1, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (bytes == spare_bytes_ && (spares_.size() + 1) * accounted <= kMaxSpareBytes &&
        accounting_->SpareFits(accounted, kMaxSpareBytes)) {
      spares_.push_back(window);
      accounting_->Add(MemoryCategory::kSpareCells, static_cast<int64_t>(accounted));
      return;
    }
  }
  munmap(window, bytes);
}

}  // namespace barracuda::shadow
