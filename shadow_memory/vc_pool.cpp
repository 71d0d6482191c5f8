#include "shadow_memory/vc_pool.h"

#include <cassert>

namespace barracuda::shadow {

SparseVcPool::SparseVcPool(MemoryAccounting* accounting)
    : accounting_(accounting), chunks_(new std::atomic<Chunk*>[kMaxChunks]) {
  for (uint32_t i = 0; i < kMaxChunks; ++i) chunks_[i].store(nullptr, std::memory_order_relaxed);
  accounting_->Add(MemoryCategory::kVectorClocks, sizeof(std::atomic<Chunk*>) * kMaxChunks);
  // The first chunk up front: the pool's footprint is then constant until a
  // launch needs more than kChunkSize clocks at once.
  Chunk* first = new Chunk;
  for (SparseVc& vc : first->vcs) vc.accounting_ = accounting_;
  accounting_->Add(MemoryCategory::kVectorClocks, sizeof(Chunk));
  chunks_[0].store(first, std::memory_order_release);
}

SparseVcPool::~SparseVcPool() {
  Reset();
  int64_t bytes = sizeof(std::atomic<Chunk*>) * kMaxChunks;
  for (uint32_t i = 0; i < kMaxChunks; ++i) {
    Chunk* c = chunks_[i].load(std::memory_order_relaxed);
    if (c == nullptr) continue;
    bytes += sizeof(Chunk);
    delete c;
  }
  accounting_->Add(MemoryCategory::kVectorClocks, -bytes);
}

namespace {
// The cache bound by this thread, whichever pool it serves.
thread_local SparseVcPool::ThreadCache* tl_cache = nullptr;
}  // namespace

SparseVcPool::ThreadCache::ThreadCache(SparseVcPool& pool) : pool_(pool) {
  assert(tl_cache == nullptr);
  tl_cache = this;
  pool_.bound_caches_.fetch_add(1, std::memory_order_relaxed);
  free_.reserve(2 * kCacheBatch);
}

SparseVcPool::ThreadCache::~ThreadCache() {
  {
    std::lock_guard<std::mutex> lock(pool_.mu_);
    pool_.free_.insert(pool_.free_.end(), free_.begin(), free_.end());
    free_.clear();
    Flush();
  }
  pool_.bound_caches_.fetch_sub(1, std::memory_order_relaxed);
  tl_cache = nullptr;
}

void SparseVcPool::ThreadCache::Flush() {
  pool_.live_.fetch_add(allocated_ - freed_, std::memory_order_relaxed);
  if (allocated_ != 0) pool_.accounting_->Count(ShadowEvent::kVcInflations, allocated_);
  if (vc_bytes_ != 0) pool_.accounting_->Add(MemoryCategory::kVectorClocks, vc_bytes_);
  allocated_ = freed_ = vc_bytes_ = 0;
}

bool SparseVcPool::DeferVcBytes(MemoryAccounting* accounting, int64_t delta) {
  ThreadCache* c = tl_cache;
  if (c == nullptr || c->pool_.accounting_ != accounting) return false;
  c->vc_bytes_ += delta;
  constexpr int64_t kBatch = int64_t{1} << 20;
  if (c->vc_bytes_ >= kBatch || c->vc_bytes_ <= -kBatch) {
    accounting->Add(MemoryCategory::kVectorClocks, c->vc_bytes_);
    c->vc_bytes_ = 0;
  }
  return true;
}

SparseVcPool::ThreadCache* SparseVcPool::BoundCache() {
  ThreadCache* c = tl_cache;
  return c != nullptr && &c->pool_ == this ? c : nullptr;
}

VcHandle SparseVcPool::FreshLocked() {
  if (next_ >= kMaxHandles) return kNoVc;
  const VcHandle h = next_++;
  const uint32_t chunk = h >> kChunkBits;
  if (chunks_[chunk].load(std::memory_order_relaxed) == nullptr) {
    Chunk* c = new Chunk;
    for (SparseVc& vc : c->vcs) vc.accounting_ = accounting_;
    accounting_->Add(MemoryCategory::kVectorClocks, sizeof(Chunk));
    chunks_[chunk].store(c, std::memory_order_release);
  }
  return h;
}

VcHandle SparseVcPool::Allocate() {
  if (accounting_->OverLimit()) {
    accounting_->Count(ShadowEvent::kVcAllocFailures);
    return kNoVc;
  }
  if (ThreadCache* c = BoundCache()) {
    if (c->free_.empty()) {
      std::lock_guard<std::mutex> lock(mu_);
      while (c->free_.size() < kCacheBatch && !free_.empty()) {
        c->free_.push_back(free_.back());
        free_.pop_back();
      }
      while (c->free_.size() < kCacheBatch) {
        const VcHandle h = FreshLocked();
        if (h == kNoVc) break;
        c->free_.push_back(h);
      }
      c->Flush();
      if (c->free_.empty()) {
        accounting_->Count(ShadowEvent::kVcAllocFailures);
        return kNoVc;
      }
    }
    const VcHandle h = c->free_.back();
    c->free_.pop_back();
    c->allocated_++;
    assert(Get(h).empty());
    return h;
  }
  VcHandle h;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      h = free_.back();
      free_.pop_back();
    } else {
      h = FreshLocked();
      if (h == kNoVc) {
        accounting_->Count(ShadowEvent::kVcAllocFailures);
        return kNoVc;
      }
    }
  }
  live_.fetch_add(1, std::memory_order_relaxed);
  accounting_->Count(ShadowEvent::kVcInflations);
  assert(Get(h).empty());
  return h;
}

void SparseVcPool::Free(VcHandle h) {
  Get(h).Clear();
  if (ThreadCache* c = BoundCache()) {
    c->free_.push_back(h);
    c->freed_++;
    if (c->free_.size() >= 2 * kCacheBatch) {
      // Spill half, so that a thread that only frees does not hoard handles.
      std::lock_guard<std::mutex> lock(mu_);
      free_.insert(free_.end(), c->free_.end() - kCacheBatch, c->free_.end());
      c->free_.resize(c->free_.size() - kCacheBatch);
      c->Flush();
    }
    return;
  }
  live_.fetch_sub(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(h);
}

void SparseVcPool::Reset() {
  assert(bound_caches_.load(std::memory_order_relaxed) == 0);
  std::lock_guard<std::mutex> lock(mu_);
  for (VcHandle h = 1; h < next_; ++h) Get(h).Clear();
  // Handles restart from 1, so the chunks already allocated are reused and the
  // pool's footprint is the largest launch's, not the sum over launches.
  std::vector<VcHandle>().swap(free_);
  next_ = 1;
  live_.store(0, std::memory_order_relaxed);
}

}  // namespace barracuda::shadow
