// Shadow of shared memory: one window of cells per block, covering the
// launch's static + dynamic shared bytes (paper §4.3.3: known at launch, so
// not paged) with granule cells that split into byte cells, as global pages
// do (global_shadow.h): word data costs a quarter of byte cells, and a word
// read by many threads keeps one clock of readers instead of four. Windows are allocated lazily at a block's
// first access so that a large grid costs only the blocks that touch shared
// memory, and can be released as soon as a block finishes (ReleaseBlock);
// EndLaunch releases the rest in O(windows allocated). A released window is
// zeroed where it was touched and kept for the next block (a few, see
// kMaxSpareBytes), because mapping and unmapping one per block cost page
// faults and, with two workers, TLB-shootdown interrupts on every munmap.
//
// Addresses are protocol.h shared addresses: block << 32 | offset.
//
// Concurrency: without clusters a block's cells are touched only by the worker
// that processes that block, so they need no cell lock. With thread-block
// clusters (distributed shared memory) another block of the cluster reaches
// this block's window through Cells(SharedAddress(this block, offset)) from
// its own worker: the detector then locks shared cells (CellSpanLock). Creating
// the window is safe from any thread (CAS): the first of the owner and a
// neighbour creates it, the other sees the same cells. ReleaseBlock of distinct
// blocks is safe too, but a block of a multi-CTA cluster must not be released
// before the whole cluster finished (a neighbour may still reach its window).
#ifndef BARRACUDA_SHADOW_MEMORY_SHARED_SHADOW_H_
#define BARRACUDA_SHADOW_MEMORY_SHARED_SHADOW_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "shadow_memory/cell.h"
#include "shadow_memory/global_shadow.h"
#include "shadow_memory/memory_accounting.h"
#include "shadow_memory/vc_pool.h"

namespace barracuda::shadow {

class SharedShadow {
 public:
  // pool: where cells' out-of-line clocks live (ReleaseBlock frees them).
  SharedShadow(MemoryAccounting* accounting, SparseVcPool* pool);
  ~SharedShadow();
  SharedShadow(const SharedShadow&) = delete;
  SharedShadow& operator=(const SharedShadow&) = delete;

  // Ends any previous launch, then sizes windows for this one.
  // window_bytes = KernelPayload::static_shared_bytes + dynamic_shared_bytes.
  void BeginLaunch(uint64_t num_blocks, uint32_t window_bytes);
  // Frees every window (and nothing else: the pool is reset by its owner).
  void EndLaunch();

  uint64_t num_blocks() const { return num_blocks_; }
  uint32_t window_bytes() const { return window_bytes_; }

  // The window of the block of a shared address, created on first use: a
  // PageView over window_bytes() bytes from (block << 32), granule cells
  // with byte cells for split granules, like a global page (the detector
  // runs the same granule rules on both). Invalid when block >=
  // num_blocks(), the window is 0 bytes, or mmap failed; Contains() says
  // whether an access lies inside the window.
  PageView View(uint64_t shared_address);
  // The granule cells of [offset, offset + size) in the block of a shared
  // address; empty when any byte lies outside the window.
  CellSpan Cells(uint64_t shared_address, uint32_t size);
  // No cell (false) where Cells() is empty.
  Cell CellFor(uint64_t shared_address) {
    CellSpan s = Cells(shared_address, 1);
    return s.empty() ? Cell() : s.front();
  }
  // Every cell of a block's window (granule cells, then byte cells), for
  // tests; empty where View() is invalid.
  CellSpan Window(uint64_t block) {
    char* w = WindowOf(block);
    return w == nullptr ? CellSpan() : WindowCells(w);
  }
  // The block has finished: frees its window and the clocks its cells hold.
  // Only the block's own worker may call it (no access may follow).
  void ReleaseBlock(uint64_t block);

  uint64_t live_windows() const { return live_windows_.load(std::memory_order_relaxed); }
  uint64_t spare_windows() const {
    std::lock_guard<std::mutex> lock(mu_);
    return spares_.size();
  }

  // Zeroed windows kept for reuse (accounted as kSpareCells), at most; and
  // within MemoryAccounting::SpareFits (an eighth of the limit with spare
  // global cells).
  static constexpr uint64_t kMaxSpareBytes = uint64_t{64} << 20;

 private:
  char* WindowOf(uint64_t block);
  char* AllocateWindow(uint64_t block);
  void FreeWindow(uint64_t block, char* window, bool free_clocks);
  PageView WindowView(uint64_t block, char* window);
  uint64_t GranuleCount() const { return (uint64_t{window_bytes_} + kGranuleBytes - 1) >> kGranuleShift; }
  uint64_t CellCount() const { return GranuleCount() * (1 + kGranuleBytes); }
  int64_t GranuleCharge() const;
  int64_t ByteCharge() const;
  uint64_t WriteSideBytes() const;
  uint64_t ReadSideBytes() const;
  uint64_t WindowMappingBytes() const;    // virtual: read halves at kReadHalfOffset
  uint64_t WindowAccountedBytes() const;  // what a window can make resident
  CellSpan WindowCells(char* window) const;
  void DropSparesLocked();

  MemoryAccounting* accounting_;
  SparseVcPool* pool_;
  uint64_t num_blocks_ = 0;
  uint32_t window_bytes_ = 0;
  char** windows_ = nullptr;  // num_blocks_ slots, mmap'ed NORESERVE, atomic_ref access
  std::atomic<uint8_t>* byte_flags_ = nullptr;  // per block: its byte cells are charged (after windows_)
  uint64_t windows_mapping_bytes_ = 0;
  mutable std::mutex mu_;
  std::vector<uint64_t> allocated_;  // guarded by mu_: blocks that got a window
  std::vector<char*> spares_;        // guarded by mu_: zeroed windows of spare_bytes_
  uint64_t spare_bytes_ = 0;         // guarded by mu_: mapping size of each spare
  uint64_t spare_accounted_ = 0;     // guarded by mu_: its WindowAccountedBytes
  std::atomic<uint64_t> live_windows_{0};
};

}  // namespace barracuda::shadow

#endif  // BARRACUDA_SHADOW_MEMORY_SHARED_SHADOW_H_
