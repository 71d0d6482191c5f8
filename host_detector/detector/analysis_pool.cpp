// AnalysisPool and StreamingLaunch (streaming_analysis.h).
//
// Sleeping without losing a wake-up: a worker reads the epoch, looks for
// work, announces itself in `sleepers`, looks once more and only then waits
// for the epoch to move. Whoever makes work available (an append, a ring's
// end, a stamp that moved, a launch added or removed) bumps the epoch when
// someone sleeps; a seq_cst fence on both sides makes sure that either the
// worker's second look sees the work or the waker sees the sleeper.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "host_detector/detector/detector_impl.h"
#include "host_detector/detector/parallel_engine.h"
#include "host_detector/detector/streaming_analysis.h"

namespace barracuda::detector {

struct AnalysisPool::State {
  unsigned workers = 1;
  size_t burst = 256;
  std::mutex mu;  // guards engines
  std::vector<std::shared_ptr<Engine>> engines;
  std::atomic<uint64_t> version{0};  // bumped when `engines` changes
  std::atomic<uint32_t> epoch{0};
  std::atomic<int> sleepers{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;

  void Wake(bool always = false) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (always || sleepers.load(std::memory_order_seq_cst) > 0) {
      epoch.fetch_add(1, std::memory_order_seq_cst);
      epoch.notify_all();
    }
  }

  // Analyses what worker `w` can of `e` now; returns the records analysed
  // (or 1 for a skipped stamp gap: something moved).
  size_t Serve(Engine& e, unsigned w) {
    if (e.closed.load(std::memory_order_acquire) || e.Finished()) return 0;
    const bool ended = e.AllEnded();  // before the backlog: records appended before an end are counted
    if (!ended && e.Backlog() == 0) return 0;
    e.active.fetch_add(1, std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    size_t n = 0;
    const auto start = std::chrono::steady_clock::now();
    if (!e.closed.load(std::memory_order_seq_cst)) {
      // Out-of-line clocks come and go per worker without meeting the
      // others on the pool's lock (vc_pool.h).
      shadow::SparseVcPool::ThreadCache vc_cache(e.vcs());
      // A bounded turn, so that one busy launch does not starve another.
      for (size_t got; n < (size_t{1} << 16) && (got = e.Pass(w, burst)) > 0;) n += got;
      if (n == 0 && ended && !e.Finished() && e.SkipGap()) n = 1;
    }
    if (n > 0)
      e.worker_ns.fetch_add(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                      std::chrono::steady_clock::now() - start)
                                                      .count()),
                            std::memory_order_relaxed);
    e.active.fetch_sub(1, std::memory_order_release);
    return n;
  }

  void Run(unsigned w) {
    std::vector<std::shared_ptr<Engine>> mine;
    uint64_t have = ~uint64_t{0};
    unsigned idle = 0;
    auto serve_all = [&] {
      size_t n = 0;
      for (size_t i = 0; i < mine.size(); ++i) n += Serve(*mine[(i + w) % mine.size()], w);
      return n;
    };
    while (!stop.load(std::memory_order_acquire)) {
      const uint32_t seen = epoch.load(std::memory_order_seq_cst);
      if (version.load(std::memory_order_acquire) != have) {
        std::lock_guard<std::mutex> lock(mu);
        mine = engines;
        have = version.load(std::memory_order_acquire);
      }
      if (serve_all() > 0) {
        idle = 0;
        Wake();  // stamps moved: a sleeping worker may be able to go on
        continue;
      }
      // A few rounds of polling first: records usually come in a stream.
      if (++idle < 16) {
        std::this_thread::yield();
        continue;
      }
      sleepers.fetch_add(1, std::memory_order_seq_cst);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      const bool moved = stop.load() || version.load() != have || serve_all() > 0;
      if (!moved) epoch.wait(seen, std::memory_order_seq_cst);
      sleepers.fetch_sub(1, std::memory_order_seq_cst);
      idle = moved ? 0 : 8;
    }
  }
};

AnalysisPool::AnalysisPool(unsigned workers, size_t burst) : state_(std::make_unique<State>()) {
  state_->workers = std::max(1u, workers);
  state_->burst = std::max<size_t>(1, burst);
  for (unsigned w = 0; w < state_->workers; ++w) state_->threads.emplace_back([s = state_.get(), w] { s->Run(w); });
}

AnalysisPool::~AnalysisPool() {
  state_->stop.store(true, std::memory_order_release);
  state_->Wake(/*always=*/true);
  for (std::thread& t : state_->threads) t.join();
}

unsigned AnalysisPool::workers() const { return state_->workers; }

// ---------------------------------------------------------------------------

StreamingLaunch::StreamingLaunch(Detector& detector, AnalysisPool& pool, std::shared_ptr<Engine> engine)
    : detector_(detector), pool_(pool), engine_(std::move(engine)) {}

absl::StatusOr<std::unique_ptr<StreamingLaunch>> StreamingLaunch::Begin(Detector& detector, AnalysisPool& pool,
                                                                        const protocol::Record& kernel_begin,
                                                                        uint32_t rings) {
  Detector::Impl& impl = *detector.impl_;
  if (protocol::OpOf(kernel_begin.header) != protocol::Op::kKernelBegin)
    return absl::InvalidArgumentError("StreamingLaunch::Begin needs the launch's kKernelBegin record");
  if (rings == 0) return absl::InvalidArgumentError("a launch needs at least one ring");
  impl.totals.records++;
  impl.BeginLaunch(kernel_begin, impl.totals);
  if (!impl.launch.active) return impl.status.ok() ? absl::InternalError("launch not begun") : impl.status;
  AnalysisPool::State& s = *pool.state_;
  impl.concurrent = s.workers > 1;
  auto engine = std::make_shared<Engine>(impl, rings, protocol::LaunchFirstStamp(kernel_begin), s.workers);
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.engines.push_back(engine);
    s.version.fetch_add(1, std::memory_order_acq_rel);
  }
  s.Wake(/*always=*/true);
  return std::unique_ptr<StreamingLaunch>(new StreamingLaunch(detector, pool, std::move(engine)));
}

StreamingLaunch::~StreamingLaunch() { Finish(); }

void StreamingLaunch::Append(uint32_t ring, std::span<const protocol::Record> records) {
  if (records.empty()) return;
  engine_->feed(ring).Append(records);
  pool_.state_->Wake();
}

void StreamingLaunch::EndRing(uint32_t ring) {
  engine_->feed(ring).End();
  pool_.state_->Wake();
}

uint32_t StreamingLaunch::rings() const { return engine_->rings(); }
uint64_t StreamingLaunch::backlog(uint32_t ring) const { return engine_->feed(ring).backlog(); }
size_t StreamingLaunch::held_bytes() const {
  size_t n = 0;
  for (uint32_t k = 0; k < engine_->rings(); ++k) n += engine_->feed(k).held_bytes();
  return n;
}
bool StreamingLaunch::stuck() const { return engine_->stuck(); }
bool StreamingLaunch::Analysed() const { return engine_->Finished(); }
uint64_t StreamingLaunch::gaps() const { return engine_->gaps(); }
uint64_t StreamingLaunch::worker_ns() const { return engine_->worker_ns.load(std::memory_order_relaxed); }

void StreamingLaunch::Finish() {
  if (finished_) return;
  finished_ = true;
  AnalysisPool::State& s = *pool_.state_;
  for (uint32_t k = 0; k < engine_->rings(); ++k)
    if (!engine_->feed(k).ended()) engine_->feed(k).End();
  s.Wake(/*always=*/true);
  // The workers finish it; the appender only waits (short: what is left).
  while (!engine_->Finished()) std::this_thread::sleep_for(std::chrono::microseconds(50));
  engine_->closed.store(true, std::memory_order_seq_cst);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  while (engine_->active.load(std::memory_order_acquire) > 0) std::this_thread::yield();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    std::erase(s.engines, engine_);
    s.version.fetch_add(1, std::memory_order_acq_rel);
  }
  s.Wake(/*always=*/true);  // workers drop their reference to the engine
  Detector::Impl& impl = *detector_.impl_;
  for (const WorkerCounters& c : engine_->all_counters()) c.MergeInto(impl.totals);
  impl.concurrent = false;
  impl.EndLaunch();
}

}  // namespace barracuda::detector
