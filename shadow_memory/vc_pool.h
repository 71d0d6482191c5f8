// Pool of SparseVcs addressed by 32-bit handles, so a cell can refer to one in
// place of an epoch. Handles are dense indices into chunks that never move:
// Get() is lock-free; Allocate()/Free() take a mutex (inflation is rare).
// Reset() frees every clock at the end of a launch in O(high-water mark).
#ifndef BARRACUDA_SHADOW_MEMORY_VC_POOL_H_
#define BARRACUDA_SHADOW_MEMORY_VC_POOL_H_

#include <atomic>
#include <cassert>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "shadow_memory/cell.h"
#include "shadow_memory/memory_accounting.h"
#include "shadow_memory/sparse_vc.h"

namespace barracuda::shadow {

class SparseVcPool {
 public:
  static constexpr int kChunkBits = 12;  // 4096 clocks per chunk
  static constexpr uint32_t kChunkSize = 1u << kChunkBits;
  static constexpr uint32_t kMaxChunks = 1u << 14;  // 2^26 live clocks at most
  static constexpr uint32_t kMaxHandles = kChunkSize * kMaxChunks;

  explicit SparseVcPool(MemoryAccounting* accounting);
  ~SparseVcPool();
  SparseVcPool(const SparseVcPool&) = delete;
  SparseVcPool& operator=(const SparseVcPool&) = delete;

  // An empty clock; kNoVc (and a kVcAllocFailures event) only when 2^26 are live.
  VcHandle Allocate();
  // Lock-free. h must be live.
  SparseVc& Get(VcHandle h) const {
    assert(h != kNoVc && h < kMaxHandles);
    Chunk* c = chunks_[h >> kChunkBits].load(std::memory_order_acquire);
    assert(c != nullptr);
    return c->vcs[h & (kChunkSize - 1)];
  }
  // Clears h (releasing its storage) and makes it reusable.
  void Free(VcHandle h);
  // Frees every clock. Callers must be quiescent (between launches).
  void Reset();

  uint64_t live() const { return live_.load(std::memory_order_relaxed); }

 private:
  struct Chunk {
    SparseVc vcs[kChunkSize];
  };

  MemoryAccounting* accounting_;
  std::unique_ptr<std::atomic<Chunk*>[]> chunks_;
  std::mutex mu_;
  std::vector<VcHandle> free_;  // guarded by mu_
  uint32_t next_ = 1;           // guarded by mu_; handle 0 is kNoVc
  std::atomic<uint64_t> live_{0};
};

}  // namespace barracuda::shadow

#endif  // BARRACUDA_SHADOW_MEMORY_VC_POOL_H_
