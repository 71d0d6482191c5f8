// RecordFeed: the records of one ring of one launch, on their way from the
// transport to the analysis. One thread appends (the daemon's polling thread),
// one thread at a time consumes (the parallel engine's worker that claimed the
// ring), concurrently. Memory is what was appended and not yet consumed, in
// chunks of kChunkRecords (1.1 MiB); a consumed chunk is recycled or freed, so
// a launch is never held whole (issue 16: streaming analysis).
//
//   feed.Append(records);          // producer, any number of times
//   feed.End();                    // producer: no more records
//   while (const Record* r = feed.Peek()) { use(*r); feed.Pop(); }   // consumer
//
// A feed can also wrap records that live elsewhere (AppendView, no copy): the
// complete rings that AnalyzeLaunchParallel takes.
#ifndef BARRACUDA_HOST_DETECTOR_RECORD_FEED_H_
#define BARRACUDA_HOST_DETECTOR_RECORD_FEED_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "device_logger/protocol.h"

namespace barracuda::detector {

class RecordFeed {
 public:
  static constexpr size_t kChunkRecords = 4096;

  RecordFeed() = default;
  ~RecordFeed();
  RecordFeed(const RecordFeed&) = delete;
  RecordFeed& operator=(const RecordFeed&) = delete;

  // --- producer (one thread) ---
  void Append(std::span<const protocol::Record> records);
  // `records` stay valid and unchanged until the feed is destroyed.
  void AppendView(std::span<const protocol::Record> records);
  void End() { ended_.store(true, std::memory_order_release); }

  // --- consumer (one thread at a time, serialised by the caller) ---
  // The next record, or nullptr when none has been appended yet (or the feed
  // ended and every record was consumed).
  const protocol::Record* Peek();
  void Pop();
  // Ended and everything consumed.
  bool Exhausted() {
    // Load `ended_` first: an append that came before End() is then visible.
    return ended_.load(std::memory_order_acquire) && Peek() == nullptr;
  }

  // --- either side ---
  bool ended() const { return ended_.load(std::memory_order_acquire); }
  uint64_t appended() const { return appended_.load(std::memory_order_acquire); }
  uint64_t consumed() const { return consumed_.load(std::memory_order_acquire); }
  uint64_t backlog() const { return appended() - consumed(); }
  // Bytes of record storage held now (owned chunks only).
  size_t held_bytes() const { return held_bytes_.load(std::memory_order_relaxed); }

 private:
  struct Chunk {
    std::unique_ptr<protocol::Record[]> storage;  // null for a view
    const protocol::Record* data = nullptr;
    // Records it will hold; lowered to `filled` when the producer moves on to
    // a view before filling it (the consumer then passes it).
    std::atomic<size_t> capacity{0};
    std::atomic<size_t> filled{0};  // written by the producer (release)
  };
  Chunk* NewChunkLocked();  // an owned chunk of kChunkRecords
  void RecycleLocked(Chunk* c);

  std::mutex mu_;             // guards chunks_, spare_ (taken at chunk boundaries only)
  std::deque<Chunk*> chunks_;  // front: the consumer's, back: the producer's
  std::vector<Chunk*> spare_;  // recycled owned chunks (at most 2)
  // Producer state.
  Chunk* tail_ = nullptr;
  size_t tail_capacity_ = 0;
  size_t tail_filled_ = 0;
  // Consumer state.
  Chunk* head_ = nullptr;
  size_t head_pos_ = 0;

  std::atomic<bool> ended_{false};
  std::atomic<uint64_t> appended_{0};
  std::atomic<uint64_t> consumed_{0};
  std::atomic<size_t> held_bytes_{0};
};

}  // namespace barracuda::detector

#endif  // BARRACUDA_HOST_DETECTOR_RECORD_FEED_H_
