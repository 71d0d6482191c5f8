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

// A window's mapping: the write halves of its cells (GranuleCount() granule
// cells, then 4 byte cells per granule for split granules: the layout of a
// global page, global_shadow.h) and the granules' stripe locks, then at
// kReadHalfOffset the read halves. Only these two parts are ever touched;
// the space between costs nothing.
uint64_t SharedShadow::WriteSideBytes() const {
  return RoundToOsPage(CellCount() * kCellHalfSize + (GranuleCount() + kCellsPerLock - 1) / kCellsPerLock);
}
uint64_t SharedShadow::ReadSideBytes() const { return RoundToOsPage(CellCount() * kCellHalfSize); }

uint64_t SharedShadow::WindowMappingBytes() const {
  return window_bytes_ == 0 ? 0 : kReadHalfOffset + ReadSideBytes();
}

uint64_t SharedShadow::WindowAccountedBytes() const {
  return window_bytes_ == 0 ? 0 : WriteSideBytes() + ReadSideBytes();
}

// What a window is charged when made: its granule cells and locks. Its byte
// cells (4x as many) are charged at the first split (PageView::ByteCells):
// word data, the common case, never pays for them.
int64_t SharedShadow::GranuleCharge() const {
  return static_cast<int64_t>(GranuleCount() * 2 * kCellHalfSize + (GranuleCount() + kCellsPerLock - 1) / kCellsPerLock);
}
int64_t SharedShadow::ByteCharge() const {
  return static_cast<int64_t>(GranuleCount() * kGranuleBytes * 2 * kCellHalfSize);
}

CellSpan SharedShadow::WindowCells(char* window) const {
  return {reinterpret_cast<CellWriteHalf*>(window), CellCount(),
          reinterpret_cast<StripeLock*>(window + CellCount() * kCellHalfSize), 0};
}

PageView SharedShadow::WindowView(uint64_t block, char* window) {
  auto* cells = reinterpret_cast<CellWriteHalf*>(window);
  return PageView(cells, reinterpret_cast<StripeLock*>(window + CellCount() * kCellHalfSize), cells + GranuleCount(),
                  block << 32, window_bytes_, accounting_, &byte_flags_[block], ByteCharge());
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
  windows_mapping_bytes_ = RoundToOsPage(num_blocks * (sizeof(char*) + 1));
  windows_ = static_cast<char**>(MapZeroed(windows_mapping_bytes_));
  byte_flags_ = windows_ == nullptr ? nullptr : reinterpret_cast<std::atomic<uint8_t>*>(windows_ + num_blocks);
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
      FreeWindow(block, w, /*free_clocks=*/false);  // the pool's owner resets it wholesale
    }
  }
  if (windows_ != nullptr) munmap(windows_, windows_mapping_bytes_);
  windows_ = nullptr;
  byte_flags_ = nullptr;
  windows_mapping_bytes_ = 0;
  num_blocks_ = 0;
  window_bytes_ = 0;
}

char* SharedShadow::WindowOf(uint64_t block) {
  if (block >= num_blocks_) return nullptr;
  char* w = std::atomic_ref<char*>(windows_[block]).load(std::memory_order_acquire);
  return w != nullptr ? w : AllocateWindow(block);
}

PageView SharedShadow::View(uint64_t shared_address) {
  const uint64_t block = shared_address >> 32;
  char* w = WindowOf(block);
  return w == nullptr ? PageView() : WindowView(block, w);
}

CellSpan SharedShadow::Cells(uint64_t shared_address, uint32_t size) {
  const uint64_t offset = static_cast<uint32_t>(shared_address);
  if (size == 0 || offset + size > window_bytes_) return {};
  const PageView v = View(shared_address);
  return v.valid() ? v.Cells(shared_address, size) : CellSpan();
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
  accounting_->Add(MemoryCategory::kSharedCells, GranuleCharge() + kSlotPageCharge);
  accounting_->Count(ShadowEvent::kSharedWindows);
  live_windows_.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(mu_);
  allocated_.push_back(block);
  return fresh;
}

void SharedShadow::ReleaseBlock(uint64_t block) {
  if (block >= num_blocks_) return;
  if (char* w = std::atomic_ref<char*>(windows_[block]).exchange(nullptr)) {
    FreeWindow(block, w, /*free_clocks=*/true);
  }
}

void SharedShadow::FreeWindow(uint64_t block, char* window, bool free_clocks) {
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
    for (uint64_t first = 0; first < cells.size(); first += per_page) {
      const bool w = is_resident(0, first * kCellHalfSize), r = is_resident(1, first * kCellHalfSize);
      if (!w && !r) continue;
      for (uint64_t i = first; i < std::min<uint64_t>(cells.size(), first + per_page); ++i) {
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
  const bool bytes_charged = byte_flags_[block].exchange(0, std::memory_order_relaxed) != 0;
  accounting_->Add(MemoryCategory::kSharedCells,
                   -(GranuleCharge() + (bytes_charged ? ByteCharge() : 0) + kSlotPageCharge));
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
