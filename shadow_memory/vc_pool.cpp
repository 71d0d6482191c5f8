#include "shadow_memory/vc_pool.h"

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

VcHandle SparseVcPool::Allocate() {
  VcHandle h;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      h = free_.back();
      free_.pop_back();
    } else if (next_ < kMaxHandles) {
      h = next_++;
      uint32_t chunk = h >> kChunkBits;
      if (chunks_[chunk].load(std::memory_order_relaxed) == nullptr) {
        Chunk* c = new Chunk;
        for (SparseVc& vc : c->vcs) vc.accounting_ = accounting_;
        accounting_->Add(MemoryCategory::kVectorClocks, sizeof(Chunk));
        chunks_[chunk].store(c, std::memory_order_release);
      }
    } else {
      accounting_->Count(ShadowEvent::kVcAllocFailures);
      return kNoVc;
    }
  }
  live_.fetch_add(1, std::memory_order_relaxed);
  accounting_->Count(ShadowEvent::kVcInflations);
  assert(Get(h).empty());
  return h;
}

void SparseVcPool::Free(VcHandle h) {
  Get(h).Clear();
  live_.fetch_sub(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(h);
}

void SparseVcPool::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  for (VcHandle h = 1; h < next_; ++h) Get(h).Clear();
  // Handles restart from 1, so the chunks already allocated are reused and the
  // pool's footprint is the largest launch's, not the sum over launches.
  std::vector<VcHandle>().swap(free_);
  next_ = 1;
  live_.store(0, std::memory_order_relaxed);
}

}  // namespace barracuda::shadow
