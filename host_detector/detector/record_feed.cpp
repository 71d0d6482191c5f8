#include "host_detector/detector/record_feed.h"

#include <algorithm>
#include <cstring>

namespace barracuda::detector {

// The producer never dereferences a chunk it has filled (the consumer may have
// recycled it): it keeps the tail's capacity and fill level itself.

RecordFeed::~RecordFeed() {
  for (Chunk* c : chunks_) delete c;
  for (Chunk* c : spare_) delete c;
}

RecordFeed::Chunk* RecordFeed::NewChunkLocked() {
  if (!spare_.empty()) {
    Chunk* c = spare_.back();
    spare_.pop_back();
    c->filled.store(0, std::memory_order_relaxed);
    return c;
  }
  auto* c = new Chunk;
  c->storage = std::make_unique_for_overwrite<protocol::Record[]>(kChunkRecords);
  c->data = c->storage.get();
  c->capacity.store(kChunkRecords, std::memory_order_relaxed);
  held_bytes_.fetch_add(kChunkRecords * sizeof(protocol::Record), std::memory_order_relaxed);
  return c;
}

void RecordFeed::RecycleLocked(Chunk* c) {
  if (c->storage != nullptr && spare_.size() < 2) {
    c->capacity.store(kChunkRecords, std::memory_order_relaxed);
    spare_.push_back(c);
    return;
  }
  if (c->storage != nullptr) held_bytes_.fetch_sub(kChunkRecords * sizeof(protocol::Record), std::memory_order_relaxed);
  delete c;
}

void RecordFeed::Append(std::span<const protocol::Record> records) {
  size_t i = 0;
  while (i < records.size()) {
    if (tail_ == nullptr || tail_filled_ == tail_capacity_) {
      std::lock_guard<std::mutex> lock(mu_);
      tail_ = NewChunkLocked();
      tail_capacity_ = kChunkRecords;
      tail_filled_ = 0;
      chunks_.push_back(tail_);
    }
    const size_t take = std::min(records.size() - i, tail_capacity_ - tail_filled_);
    std::memcpy(tail_->storage.get() + tail_filled_, records.data() + i, take * sizeof(protocol::Record));
    tail_filled_ += take;
    tail_->filled.store(tail_filled_, std::memory_order_release);
    appended_.fetch_add(take, std::memory_order_release);
    i += take;
  }
}

void RecordFeed::AppendView(std::span<const protocol::Record> records) {
  if (records.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  // A partly filled tail is sealed where it stands: the consumer moves on.
  if (tail_ != nullptr && tail_filled_ < tail_capacity_) tail_->capacity.store(tail_filled_, std::memory_order_release);
  auto* c = new Chunk;
  c->data = records.data();
  c->capacity.store(records.size(), std::memory_order_relaxed);
  c->filled.store(records.size(), std::memory_order_relaxed);
  chunks_.push_back(c);
  tail_ = c;
  tail_capacity_ = tail_filled_ = records.size();
  appended_.fetch_add(records.size(), std::memory_order_release);
}

const protocol::Record* RecordFeed::Peek() {
  // Nothing appended that is not consumed: no need to look (or lock). A pass
  // over a launch's rings visits the idle ones too (the GPU agent uses 32).
  if (consumed_.load(std::memory_order_relaxed) == appended_.load(std::memory_order_acquire)) return nullptr;
  for (;;) {
    if (head_ == nullptr) {
      std::lock_guard<std::mutex> lock(mu_);
      if (chunks_.empty()) return nullptr;
      head_ = chunks_.front();
      head_pos_ = 0;
    }
    if (head_pos_ < head_->filled.load(std::memory_order_acquire)) return head_->data + head_pos_;
    // Sealing stores the capacity after the last fill: re-read `filled` after it.
    if (head_pos_ < head_->capacity.load(std::memory_order_acquire)) return nullptr;  // still being filled
    if (head_pos_ < head_->filled.load(std::memory_order_acquire)) continue;
    std::lock_guard<std::mutex> lock(mu_);
    chunks_.pop_front();
    RecycleLocked(head_);
    head_ = nullptr;
  }
}

void RecordFeed::Pop() {
  ++head_pos_;
  consumed_.store(consumed_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

}  // namespace barracuda::detector
