// The parallel engine (parallel_engine.h) and AnalyzeLaunchParallel, its use
// on complete rings (tests, tools); the daemon streams through an
// AnalysisPool (analysis_pool.cpp).
#include "host_detector/detector/parallel_engine.h"

#include <algorithm>
#include <limits>
#include <thread>

#include "tbb/parallel_for.h"
#include "tbb/task_arena.h"

namespace barracuda::detector {

using protocol::Op;

Engine::Engine(Detector::Impl& impl, uint32_t rings, uint64_t first_stamp, unsigned workers)
    : impl_(impl), cursors_(rings), counters_(std::max(1u, workers)), next_stamp_(first_stamp) {}

bool Engine::AllEnded() const {
  for (const Cursor& c : cursors_)
    if (!c.feed.ended()) return false;
  return true;
}

uint64_t Engine::Backlog() const {
  uint64_t n = 0;
  for (const Cursor& c : cursors_) n += c.feed.backlog();
  return n;
}

const protocol::Record* Engine::Runnable(uint32_t k) {
  const protocol::Record* rec = cursors_[k].feed.Peek();
  if (rec == nullptr) return nullptr;
  const uint64_t stamp = protocol::SequenceStamp(*rec);
  return stamp == 0 || stamp <= next_stamp_.load(std::memory_order_acquire) ? rec : nullptr;
}

void Engine::MarkDoneIfExhausted(uint32_t k) {
  Cursor& c = cursors_[k];
  if (!c.done.load(std::memory_order_relaxed) && c.feed.Exhausted()) {
    c.done.store(true, std::memory_order_relaxed);
    done_rings_.fetch_add(1, std::memory_order_acq_rel);
  }
}

size_t Engine::Drain(uint32_t k, size_t burst, WorkerCounters& c) {
  Cursor& cur = cursors_[k];
  size_t n = 0;
  while (n < burst) {
    const protocol::Record* rec = Runnable(k);
    if (rec == nullptr) break;
    const uint64_t pos = cur.feed.consumed();
    const uint64_t index = pos < cur.indices.size() ? cur.indices[pos] : (uint64_t{k} << 40 | pos);
    const Op op = protocol::OpOf(rec->header);
    if (op != Op::kKernelBegin && op != Op::kKernelEnd) {
      c.records++;
      impl_.AnalyseWarpRecord(*rec, index, c);
    }
    const uint64_t stamp = protocol::SequenceStamp(*rec);
    cur.feed.Pop();
    ++n;
    if (stamp != 0) {
      // Publishes this record's effects to whoever processes the next stamp.
      uint64_t expected = stamp;
      next_stamp_.compare_exchange_strong(expected, stamp + 1, std::memory_order_acq_rel);
    }
  }
  MarkDoneIfExhausted(k);
  return n;
}

size_t Engine::Pass(unsigned w, size_t burst) {
  const uint32_t n = rings();
  WorkerCounters& c = counters_[w];
  size_t total = 0;
  bool all_blocked = true;  // every ring claimed here, none could move
  bool waiting = false;     // ... and one of them has records that wait for a stamp
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t k = (i + w) % n;
    if (cursors_[k].done.load(std::memory_order_relaxed)) continue;
    if (!Claim(k)) {
      all_blocked = false;
      continue;
    }
    const size_t got = Drain(k, burst, c);
    if (got == 0 && !cursors_[k].done.load(std::memory_order_relaxed) && cursors_[k].feed.Peek() != nullptr) waiting = true;
    Release(k);
    total += got;
  }
  stuck_.store(total == 0 && all_blocked && waiting, std::memory_order_relaxed);
  return total;
}

bool Engine::SkipGap() {
  if (!AllEnded()) return false;
  const uint32_t n = rings();
  uint32_t claimed = 0;
  for (; claimed < n; ++claimed)
    if (!Claim(claimed)) break;
  bool skipped = false;
  if (claimed == n) {
    uint64_t lowest = std::numeric_limits<uint64_t>::max();
    bool movable = false;
    for (uint32_t k = 0; k < n && !movable; ++k) {
      MarkDoneIfExhausted(k);
      if (cursors_[k].done.load(std::memory_order_relaxed)) continue;
      if (Runnable(k) != nullptr) movable = true;
      else lowest = std::min(lowest, protocol::SequenceStamp(*cursors_[k].feed.Peek()));
    }
    uint64_t now = next_stamp_.load(std::memory_order_acquire);
    if (!movable && lowest != std::numeric_limits<uint64_t>::max() && now < lowest &&
        next_stamp_.compare_exchange_strong(now, lowest)) {
      gaps_++;
      skipped = true;
    }
  }
  for (uint32_t k = 0; k < claimed; ++k) Release(k);
  return skipped;
}

void Engine::RunScheduled(RingSchedule& schedule) {
  std::vector<uint32_t> runnable;
  while (!Finished()) {
    runnable.clear();
    for (uint32_t k = 0; k < rings(); ++k) {
      MarkDoneIfExhausted(k);
      if (!cursors_[k].done.load(std::memory_order_relaxed) && Runnable(k) != nullptr) runnable.push_back(k);
    }
    if (runnable.empty()) {
      if (!SkipGap() && !Finished() && !AllEnded()) std::this_thread::yield();  // records still to come
      continue;
    }
    size_t k = schedule.PickRing(runnable);
    if (k >= rings() || Runnable(static_cast<uint32_t>(k)) == nullptr) k = runnable[0];
    Drain(static_cast<uint32_t>(k), std::max<size_t>(1, schedule.Burst()), counters_[0]);
  }
}

absl::Status AnalyzeLaunchParallel(Detector& detector, const protocol::Record& kernel_begin,
                                   std::span<const RingInput> rings, const ParallelOptions& options) {
  Detector::Impl& impl = *detector.impl_;
  if (protocol::OpOf(kernel_begin.header) != Op::kKernelBegin) {
    return absl::InvalidArgumentError("AnalyzeLaunchParallel needs the launch's kKernelBegin record");
  }
  impl.totals.records++;
  impl.BeginLaunch(kernel_begin, impl.totals);
  if (!impl.launch.active) return impl.status;
  // The rings are complete: the launch's stamps start at the smallest one.
  uint64_t first_stamp = std::numeric_limits<uint64_t>::max();
  for (const RingInput& r : rings)
    for (const protocol::Record& rec : r.records)
      if (const uint64_t st = protocol::SequenceStamp(rec); st != 0) first_stamp = std::min(first_stamp, st);
  if (first_stamp == std::numeric_limits<uint64_t>::max()) first_stamp = 1;
  const unsigned workers = options.schedule != nullptr ? 1 : std::max(1u, options.workers);
  Engine engine(impl, static_cast<uint32_t>(rings.size()), first_stamp, workers);
  for (uint32_t k = 0; k < rings.size(); ++k) {
    engine.feed(k).AppendView(rings[k].records);
    engine.feed(k).End();
    engine.SetRecordIndices(k, rings[k].record_indices);
  }
  if (options.schedule != nullptr) {
    engine.RunScheduled(*options.schedule);
  } else {
    const size_t burst = std::max<size_t>(1, options.burst);
    impl.concurrent = workers > 1;
    tbb::task_arena arena(static_cast<int>(workers));
    arena.execute([&] {
      tbb::parallel_for(0u, workers, [&](unsigned w) {
        // Out-of-line clocks come and go per worker without meeting the
        // others on the pool's lock (vc_pool.h).
        shadow::SparseVcPool::ThreadCache vc_cache(engine.vcs());
        size_t idle_rounds = 0;
        while (!engine.Finished()) {
          if (engine.Pass(w, burst) > 0) {
            idle_rounds = 0;
            continue;
          }
          if (++idle_rounds > 64) engine.SkipGap();
          std::this_thread::yield();
        }
      });
    });
    impl.concurrent = false;
  }
  for (const WorkerCounters& c : engine.all_counters()) c.MergeInto(impl.totals);
  impl.EndLaunch();
  return absl::OkStatus();
}

}  // namespace barracuda::detector
