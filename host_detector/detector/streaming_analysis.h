// Streaming analysis (issue 16): a launch is analysed while its records
// arrive, on a pool of workers that serves every open launch (of every
// process a daemon drains), so the consumer holds only what it has received
// and not yet analysed, never a copy of the launch.
//
//   AnalysisPool pool(2);                                   // one per daemon
//   auto launch = StreamingLaunch::Begin(detector, pool, kernel_begin, rings);
//   (*launch)->Append(ring, records);   // as they arrive (one thread)
//   (*launch)->EndRing(ring);           // the ring's end marker arrived
//   if ((*launch)->Analysed()) (*launch)->Finish();   // ends the launch
//
// Same processing-order contract as AnalyzeLaunchParallel (parallel_engine.h):
// per ring in order, stamped records in stamp order across rings. The
// launch's stamps start at kernel_begin.stamp + 1 (producers put the last
// stamp handed out before the launch there); a stamp that never arrives holds
// the rings that wait for it until every ring has ended (then it is skipped,
// as AnalyzeLaunchParallel does), so a producer that leaves gaps costs memory,
// never verdicts. stuck() tells the appender so, so that it does not hold
// records back (the missing stamp may be behind them).
#ifndef BARRACUDA_HOST_DETECTOR_STREAMING_ANALYSIS_H_
#define BARRACUDA_HOST_DETECTOR_STREAMING_ANALYSIS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "absl/status/statusor.h"
#include "device_logger/protocol.h"
#include "host_detector/detector/detector.h"

namespace barracuda::detector {

class Engine;

// Worker threads shared by every open StreamingLaunch. They sleep when no
// launch has records that may be analysed (no spinning between appends).
class AnalysisPool {
 public:
  explicit AnalysisPool(unsigned workers, size_t burst = 256);
  ~AnalysisPool();
  AnalysisPool(const AnalysisPool&) = delete;
  AnalysisPool& operator=(const AnalysisPool&) = delete;
  unsigned workers() const;

  struct State;

 private:
  friend class StreamingLaunch;
  std::unique_ptr<State> state_;
};

class StreamingLaunch {
 public:
  // Begins the launch on `detector` (its kKernelBegin record) and hands it to
  // the pool. Fails like the detector on a malformed kKernelBegin. The
  // detector must not be used otherwise until Finish() returns.
  static absl::StatusOr<std::unique_ptr<StreamingLaunch>> Begin(Detector& detector, AnalysisPool& pool,
                                                                 const protocol::Record& kernel_begin,
                                                                 uint32_t rings);
  ~StreamingLaunch();  // Finish()es a launch that was not finished
  StreamingLaunch(const StreamingLaunch&) = delete;
  StreamingLaunch& operator=(const StreamingLaunch&) = delete;

  // Appender side (one thread). Records of `ring`, in the ring's order.
  void Append(uint32_t ring, std::span<const protocol::Record> records);
  void EndRing(uint32_t ring);

  uint32_t rings() const;
  // Records of `ring` received and not yet analysed.
  uint64_t backlog(uint32_t ring) const;
  size_t held_bytes() const;  // record storage held now, all rings
  bool stuck() const;         // see above
  // Every ring ended and every record analysed.
  bool Analysed() const;

  // Ends every ring that has not ended (the producer died: what arrived is
  // analysed), waits until everything is analysed, takes the launch off the
  // pool and ends it on the detector (as kKernelEnd). Idempotent.
  void Finish();
  uint64_t gaps() const;  // stamps skipped because they never arrived
  uint64_t worker_ns() const;  // time the pool's workers spent analysing it

 private:
  StreamingLaunch(Detector& detector, AnalysisPool& pool, std::shared_ptr<Engine> engine);
  Detector& detector_;
  AnalysisPool& pool_;
  std::shared_ptr<Engine> engine_;
  bool finished_ = false;
};

}  // namespace barracuda::detector

#endif  // BARRACUDA_HOST_DETECTOR_STREAMING_ANALYSIS_H_
