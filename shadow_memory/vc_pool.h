// Pool of SparseVcs addressed by 32-bit handles, so a cell can refer to one in
// place of an epoch. Handles are dense indices into chunks that never move:
// Get() is lock-free; Allocate()/Free() take a mutex, unless the calling
// thread has bound a ThreadCache to the pool (the parallel engine's workers
// do): it then takes and returns handles in batches. Reset() frees every
// clock at the end of a launch in O(high-water mark).
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

  // Handles kept by one thread for one pool while it is in scope, so that
  // workers inflating and deflating cells do not meet on the pool's mutex and
  // counters (b_tiled with 2 workers: every shared byte inflates and deflates
  // once per tile). At most one per thread at a time. live() and the
  // kVcInflations count include a cache's work when it refills, spills or ends.
  class ThreadCache {
   public:
    explicit ThreadCache(SparseVcPool& pool);
    ~ThreadCache();
    ThreadCache(const ThreadCache&) = delete;
    ThreadCache& operator=(const ThreadCache&) = delete;

   private:
    friend class SparseVcPool;
    void Flush();  // returns handles and counts; caller holds pool_.mu_
    SparseVcPool& pool_;
    std::vector<VcHandle> free_;
    int64_t allocated_ = 0, freed_ = 0;  // not yet in pool_.live_
    int64_t vc_bytes_ = 0;               // not yet in pool_.accounting_ (DeferVcBytes)
  };

  // An empty clock; kNoVc (and a kVcAllocFailures event) when 2^26 are live
  // or the shadow is over its memory limit.
  VcHandle Allocate();
  // Whether a live clock may take a thread it does not hold yet: false over
  // the memory limit (the caller then drops the entry and calls Refused()).
  bool MayGrow() const { return !accounting_->OverLimit(); }
  void Refused() { accounting_->Count(ShadowEvent::kVcEntriesRefused); }
  // Lock-free. h must be live.
  SparseVc& Get(VcHandle h) const {
    assert(h != kNoVc && h < kMaxHandles);
    Chunk* c = chunks_[h >> kChunkBits].load(std::memory_order_acquire);
    assert(c != nullptr);
    return c->vcs[h & (kChunkSize - 1)];
  }
  // Clears h (releasing its storage) and makes it reusable.
  void Free(VcHandle h);
  // Frees every clock. Callers must be quiescent (between launches, no
  // ThreadCache bound).
  void Reset();

  // A SparseVc's heap bytes changed by `delta`: when this thread's bound
  // ThreadCache serves a pool with `accounting`, the bytes are kept there and
  // counted in batches (1 MiB, and when the cache is destroyed): two workers
  // adding to one atomic per clock built and cleared were 10% of a tiled
  // matmul's analysis. False: the caller counts them itself.
  static bool DeferVcBytes(MemoryAccounting* accounting, int64_t delta);

  // Exact when no ThreadCache is bound; while workers run it may lag (a clock
  // freed by another worker than its allocator can even make it dip).
  uint64_t live() const {
    const int64_t n = live_.load(std::memory_order_relaxed);
    return n > 0 ? static_cast<uint64_t>(n) : 0;
  }

 private:
  struct Chunk {
    SparseVc vcs[kChunkSize];
  };
  static constexpr size_t kCacheBatch = 64;
  // The next never-used handle, its chunk allocated; kNoVc when all are used.
  VcHandle FreshLocked();
  ThreadCache* BoundCache();

  MemoryAccounting* accounting_;
  std::unique_ptr<std::atomic<Chunk*>[]> chunks_;
  std::mutex mu_;
  std::vector<VcHandle> free_;  // guarded by mu_
  uint32_t next_ = 1;           // guarded by mu_; handle 0 is kNoVc
  std::atomic<int64_t> live_{0};
  std::atomic<int> bound_caches_{0};
};

}  // namespace barracuda::shadow

#endif  // BARRACUDA_SHADOW_MEMORY_VC_POOL_H_
