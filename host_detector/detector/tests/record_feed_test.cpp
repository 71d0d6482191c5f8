// RecordFeed: one appender and one consumer at once; every record comes out
// once, in order; consumed chunks are given back (memory is the backlog).
#include "host_detector/detector/record_feed.h"

#include <catch2/catch.hpp>

#include <random>
#include <thread>
#include <vector>

namespace barracuda::detector {
namespace {

protocol::Record Numbered(uint64_t i) {
  protocol::Record r{};
  r.stamp = i;
  r.addr[0] = ~i;
  return r;
}

TEST_CASE("record feed: a consumer running beside the appender sees every record once, in order", "[feed]") {
  RecordFeed feed;
  constexpr uint64_t kRecords = 100000;
  std::thread appender([&] {
    std::mt19937_64 rng(5);
    std::vector<protocol::Record> batch;
    for (uint64_t i = 0; i < kRecords;) {
      batch.clear();
      const uint64_t n = std::min<uint64_t>(kRecords - i, 1 + rng() % 700);
      for (uint64_t j = 0; j < n; ++j) batch.push_back(Numbered(i + j));
      // Backpressure as the daemon's: at most 8192 records waiting.
      while (feed.backlog() > 8192) std::this_thread::yield();
      feed.Append(batch);
      i += n;
      if (rng() % 64 == 0) std::this_thread::yield();
    }
    feed.End();
  });
  uint64_t next = 0;
  bool in_order = true;
  size_t most_held = 0;
  while (!feed.Exhausted()) {
    const protocol::Record* r = feed.Peek();
    if (r == nullptr) {
      std::this_thread::yield();
      continue;
    }
    in_order &= r->stamp == next && r->addr[0] == ~next;
    feed.Pop();
    ++next;
    most_held = std::max(most_held, feed.held_bytes());
  }
  appender.join();
  CHECK(in_order);
  CHECK(next == kRecords);
  CHECK(feed.consumed() == kRecords);
  CHECK(feed.backlog() == 0);
  // Never the whole stream: the chunks the backlog spans (8192 + 700
  // records: at most 4) plus two spares.
  INFO("held at most " << most_held << " bytes");
  CHECK(most_held <= 6 * RecordFeed::kChunkRecords * sizeof(protocol::Record));
}

TEST_CASE("record feed: memory held follows the backlog", "[feed]") {
  RecordFeed feed;
  std::vector<protocol::Record> batch(RecordFeed::kChunkRecords);
  for (int i = 0; i < 10; ++i) feed.Append(batch);
  const size_t chunk_bytes = RecordFeed::kChunkRecords * sizeof(protocol::Record);
  CHECK(feed.held_bytes() == 10 * chunk_bytes);
  for (size_t i = 0; i < 9 * RecordFeed::kChunkRecords; ++i) {
    REQUIRE(feed.Peek() != nullptr);
    feed.Pop();
  }
  REQUIRE(feed.Peek() != nullptr);  // moves past the ninth chunk
  CHECK(feed.backlog() == RecordFeed::kChunkRecords);
  CHECK(feed.held_bytes() == 3 * chunk_bytes);  // the last chunk and two spares
  feed.Append(batch);                          // reuses a spare
  CHECK(feed.held_bytes() == 3 * chunk_bytes);
}

TEST_CASE("record feed: views are consumed in place, between copied records", "[feed]") {
  std::vector<protocol::Record> outside = {Numbered(1), Numbered(2)};
  RecordFeed feed;
  const protocol::Record first = Numbered(0), last = Numbered(3);
  feed.Append(std::span<const protocol::Record>(&first, 1));
  feed.AppendView(outside);
  feed.Append(std::span<const protocol::Record>(&last, 1));
  feed.End();
  std::vector<uint64_t> seen;
  const protocol::Record* in_place = nullptr;
  while (const protocol::Record* r = feed.Peek()) {
    if (r->stamp == 1) in_place = r;
    seen.push_back(r->stamp);
    feed.Pop();
  }
  CHECK(seen == std::vector<uint64_t>{0, 1, 2, 3});
  CHECK(in_place == outside.data());
  CHECK(feed.Exhausted());
}

}  // namespace
}  // namespace barracuda::detector
