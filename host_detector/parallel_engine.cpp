// Parallel analysis of one launch whose records arrive on several rings.
//
// Correctness argument: records of one block are all on one ring, in order, so
// per-block state (clocks, barriers, shared shadow) is only touched by the
// worker holding that ring. Across rings, happens-before only arises through
// release -> acquire on a synchronisation location; those records carry
// stamps (dense per launch; a release stamps before it publishes, an acquire
// after it observes), and a stamped record is processed only when every
// smaller stamp has been processed. So a release is always analysed before
// the acquire that observed it, and everything before the release in its ring
// before everything after the acquire in the other ring: the analysis order is
// a linearisation of happens-before, on which the detector's verdicts (the
// first race on every byte) are the same as on the producer's total order.
//
// A ring is claimed by one worker at a time (busy flag); a worker takes up to
// `burst` records and stops early at a stamped record that must wait. A stamp
// that never shows up (a gap) is skipped once no ring can make progress.
#include <algorithm>
#include <atomic>
#include <limits>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "host_detector/detector.h"
#include "host_detector/detector_impl.h"
#include "tbb/parallel_for.h"
#include "tbb/task_arena.h"

namespace barracuda::detector {
namespace {

using protocol::Op;

// One cache line per ring: the draining worker bumps `pos` per record while
// the others poll every ring's position (Runnable).
struct alignas(64) RingCursor {
  size_t pos = 0;
  std::atomic<bool> busy{false};
};

class Engine {
 public:
  Engine(Detector::Impl& impl, std::span<const RingInput> rings)
      : impl_(impl), rings_(rings), cursors_(rings.size()) {
    uint64_t min_stamp = std::numeric_limits<uint64_t>::max();
    for (const RingInput& r : rings) {
      remaining_ += r.records.size();
      for (const protocol::Record& rec : r.records) {
        if (const uint64_t st = protocol::SequenceStamp(rec); st != 0) min_stamp = std::min(min_stamp, st);
      }
    }
    next_stamp_.store(min_stamp == std::numeric_limits<uint64_t>::max() ? 1 : min_stamp);
  }

  // Whether ring k's next record may be processed now (k claimed or not).
  bool Runnable(size_t k) const {
    const RingCursor& c = cursors_[k];
    if (c.pos >= rings_[k].records.size()) return false;
    const uint64_t stamp = protocol::SequenceStamp(rings_[k].records[c.pos]);
    return stamp == 0 || stamp <= next_stamp_.load(std::memory_order_acquire);
  }
  bool Done(size_t k) const { return cursors_[k].pos >= rings_[k].records.size(); }

  // Processes up to `burst` records of ring k (claimed by the caller).
  size_t Drain(size_t k, size_t burst, WorkerCounters& c) {
    size_t n = 0;
    RingCursor& cur = cursors_[k];
    const RingInput& ring = rings_[k];
    while (n < burst && Runnable(k)) {
      const protocol::Record& rec = ring.records[cur.pos];
      const uint64_t index = cur.pos < ring.record_indices.size() ? ring.record_indices[cur.pos]
                                                                  : (uint64_t{k} << 40 | cur.pos);
      const Op op = protocol::OpOf(rec.header);
      if (op != Op::kKernelBegin && op != Op::kKernelEnd) {
        c.records++;
        impl_.ProcessWarpRecord(rec, index, c);
      }
      ++cur.pos;
      ++n;
      if (const uint64_t stamp = protocol::SequenceStamp(rec); stamp != 0) {
        // Publishes this record's effects to whoever processes the next stamp.
        uint64_t expected = stamp;
        next_stamp_.compare_exchange_strong(expected, stamp + 1, std::memory_order_acq_rel);
      }
    }
    remaining_.fetch_sub(n, std::memory_order_acq_rel);
    return n;
  }

  // No ring can move: skip the missing stamp(s). Callers make sure nobody is
  // draining (serial mode, or every ring is unclaimed).
  bool SkipGap() {
    uint64_t lowest = std::numeric_limits<uint64_t>::max();
    for (size_t k = 0; k < rings_.size(); ++k) {
      if (cursors_[k].busy.load(std::memory_order_acquire)) return false;
      if (Done(k)) continue;
      if (Runnable(k)) return false;
      lowest = std::min(lowest, protocol::SequenceStamp(rings_[k].records[cursors_[k].pos]));
    }
    if (lowest == std::numeric_limits<uint64_t>::max()) return false;
    uint64_t now = next_stamp_.load(std::memory_order_acquire);
    if (now < lowest && next_stamp_.compare_exchange_strong(now, lowest)) gaps_++;
    return true;
  }

  void RunScheduled(RingSchedule& schedule, WorkerCounters& c) {
    std::vector<uint32_t> runnable;
    while (remaining_.load() > 0) {
      runnable.clear();
      for (size_t k = 0; k < rings_.size(); ++k) {
        if (Runnable(k)) runnable.push_back(static_cast<uint32_t>(k));
      }
      if (runnable.empty()) {
        SkipGap();
        continue;
      }
      size_t k = schedule.PickRing(runnable);
      if (k >= rings_.size() || !Runnable(k)) k = runnable[0];
      Drain(k, std::max<size_t>(1, schedule.Burst()), c);
    }
  }

  void RunWorker(unsigned id, size_t burst, WorkerCounters& c) {
    // Out-of-line clocks come and go per worker without meeting the others on
    // the pool's lock (vc_pool.h).
    shadow::SparseVcPool::ThreadCache vc_cache(impl_.shadow.vcs());
    const size_t n = rings_.size();
    size_t idle_rounds = 0;
    while (remaining_.load(std::memory_order_acquire) > 0) {
      bool progress = false;
      for (size_t i = 0; i < n; ++i) {
        const size_t k = (i + id) % n;
        if (!Runnable(k)) continue;
        bool expected = false;
        if (!cursors_[k].busy.compare_exchange_strong(expected, true, std::memory_order_acquire)) continue;
        progress |= Drain(k, burst, c) > 0;
        cursors_[k].busy.store(false, std::memory_order_release);
      }
      if (progress) {
        idle_rounds = 0;
        continue;
      }
      if (++idle_rounds > 64) SkipGap();
      std::this_thread::yield();
    }
  }

  uint64_t gaps() const { return gaps_; }

 private:
  Detector::Impl& impl_;
  std::span<const RingInput> rings_;
  std::vector<RingCursor> cursors_;
  std::atomic<uint64_t> next_stamp_{1};
  std::atomic<uint64_t> remaining_{0};
  std::atomic<uint64_t> gaps_{0};
};

}  // namespace

absl::Status AnalyzeLaunchParallel(Detector& detector, const protocol::Record& kernel_begin,
                                   std::span<const RingInput> rings, const ParallelOptions& options) {
  Detector::Impl& impl = *detector.impl_;
  if (protocol::OpOf(kernel_begin.header) != Op::kKernelBegin) {
    return absl::InvalidArgumentError("AnalyzeLaunchParallel needs the launch's kKernelBegin record");
  }
  impl.totals.records++;
  impl.BeginLaunch(kernel_begin, impl.totals);
  if (!impl.launch.active) return impl.status;
  Engine engine(impl, rings);
  if (options.schedule != nullptr) {
    engine.RunScheduled(*options.schedule, impl.totals);
  } else {
    const unsigned workers = std::max(1u, options.workers);
    std::vector<WorkerCounters> counters(workers);
    const size_t burst = std::max<size_t>(1, options.burst);
    impl.concurrent = workers > 1;
    tbb::task_arena arena(static_cast<int>(workers));
    arena.execute([&] {
      tbb::parallel_for(0u, workers, [&](unsigned w) { engine.RunWorker(w, burst, counters[w]); });
    });
    impl.concurrent = false;
    for (const WorkerCounters& c : counters) c.MergeInto(impl.totals);
  }
  impl.EndLaunch();
  return absl::OkStatus();
}

}  // namespace barracuda::detector
