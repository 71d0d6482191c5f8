// The parallel engine (internal): analyses one launch whose records arrive on
// several rings, each a RecordFeed that may still be growing.
//
// Correctness argument: records of one block are all on one ring, in order, so
// per-block state (clocks, barriers, shared shadow) is only touched by the
// worker holding that ring. Across rings, happens-before only arises through
// release -> acquire on a synchronisation location; those records carry
// stamps (dense per launch; a release stamps before it publishes, an acquire
// after it observes; the stamps of one ring grow), and a stamped record is
// processed only when every smaller stamp has been processed. So a release is
// always analysed before the acquire that observed it, and everything before
// the release in its ring before everything after the acquire in the other
// ring: the analysis order is a linearisation of happens-before, on which the
// detector's verdicts (the first race on every byte) are the same as on the
// producer's total order.
//
// A ring is claimed by one worker at a time (busy flag); a worker takes up to
// `burst` records and stops early at a stamped record that must wait or at
// the end of what has arrived. A stamp that never shows up (a gap) is skipped
// only once every feed has ended and no ring can make progress: while records
// may still arrive, the missing stamp may be among them.
#ifndef BARRACUDA_HOST_DETECTOR_PARALLEL_ENGINE_H_
#define BARRACUDA_HOST_DETECTOR_PARALLEL_ENGINE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "host_detector/detector/detector.h"
#include "host_detector/detector/detector_impl.h"
#include "host_detector/detector/record_feed.h"

namespace barracuda::detector {

class Engine {
 public:
  // Stamps of the launch start at `first_stamp`; `workers` sets of counters.
  Engine(Detector::Impl& impl, uint32_t rings, uint64_t first_stamp, unsigned workers);

  uint32_t rings() const { return static_cast<uint32_t>(cursors_.size()); }
  RecordFeed& feed(uint32_t k) { return cursors_[k].feed; }
  // For a feed given whole: the record index to report for its i-th record.
  void SetRecordIndices(uint32_t k, std::span<const uint64_t> indices) { cursors_[k].indices = indices; }

  // One pass of worker `w` over the rings: drains what may run now, up to
  // `burst` records per ring. Returns the records processed.
  size_t Pass(unsigned w, size_t burst);
  // Every feed ended and every record analysed.
  bool Finished() const { return done_rings_.load(std::memory_order_acquire) == cursors_.size(); }
  bool AllEnded() const;
  // Records appended and not yet analysed (any thread).
  uint64_t Backlog() const;
  // The last pass found every ring blocked (a stamp not arrived) with records
  // waiting: the feeds' producer should not hold records back.
  bool stuck() const { return stuck_.load(std::memory_order_relaxed); }
  // Every feed ended and no ring can move: skips the missing stamp(s). Claims
  // every ring; false if another worker holds one or there is no gap.
  bool SkipGap();
  // Single-threaded, in the order `schedule` picks (tests).
  void RunScheduled(RingSchedule& schedule);

  WorkerCounters& counters(unsigned w) { return counters_[w]; }
  std::span<const WorkerCounters> all_counters() const { return counters_; }
  uint64_t gaps() const { return gaps_.load(); }
  shadow::SparseVcPool& vcs() { return impl_.shadow.vcs(); }

  // Pool bookkeeping (analysis_pool.cpp): workers inside the engine now, and
  // whether it is closed to them (its launch is being ended).
  std::atomic<int> active{0};
  std::atomic<bool> closed{false};
  std::atomic<uint64_t> worker_ns{0};  // time of the pool's turns that analysed records

 private:
  // One cache line per ring: the draining worker updates its feed's consumer
  // state while the others try to claim it.
  struct alignas(64) Cursor {
    RecordFeed feed;
    std::span<const uint64_t> indices;
    std::atomic<bool> busy{false};
    std::atomic<bool> done{false};  // ended and exhausted (set by the claimer)
  };
  bool Claim(uint32_t k) {
    bool expected = false;
    return cursors_[k].busy.compare_exchange_strong(expected, true, std::memory_order_acquire);
  }
  void Release(uint32_t k) { cursors_[k].busy.store(false, std::memory_order_release); }
  // The claimed ring's next record if it may be processed now.
  const protocol::Record* Runnable(uint32_t k);
  size_t Drain(uint32_t k, size_t burst, WorkerCounters& c);
  void MarkDoneIfExhausted(uint32_t k);

  Detector::Impl& impl_;
  std::vector<Cursor> cursors_;
  std::vector<WorkerCounters> counters_;
  std::atomic<uint64_t> next_stamp_;
  std::atomic<size_t> done_rings_{0};
  std::atomic<uint64_t> gaps_{0};
  std::atomic<bool> stuck_{false};
};

}  // namespace barracuda::detector

#endif  // BARRACUDA_HOST_DETECTOR_PARALLEL_ENGINE_H_
