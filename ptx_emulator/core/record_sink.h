// Where the emulator's records go.
//
// The interpreter emits one protocol::Record per warp-level event (memory
// access, atomic, fence, barrier, divergence/reconvergence, warp sync, exit)
// plus kKernelBegin/kKernelEnd per launch. Records are produced on the worker
// threads that run blocks; each worker writes through its own Tracer, so a sink
// sees one ordered stream per worker ("ring"), as the detector's
// AnalyzeLaunchParallel expects. Synchronisation records carry a global
// sequence stamp (DESIGN.md "Processing order across queues"): a release takes
// its stamp before its store becomes visible, an acquire after its load.
//
// The in-process CollectingSink (below) keeps everything in memory for tests;
// the daemon transport (shared-memory rings) implements the same interface.
#ifndef BARRACUDA_PTX_EMULATOR_CORE_RECORD_SINK_H_
#define BARRACUDA_PTX_EMULATOR_CORE_RECORD_SINK_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "device_logger/protocol.h"

namespace barracuda::ptx { struct SiteTable; }

namespace barracuda::emu {

class RecordSink {
 public:
  virtual ~RecordSink() = default;
  // A module was loaded: its sites are numbered site_base + local id
  // (ptx_rewriter BuildSiteTable on the module as loaded). `ptx` is its text.
  virtual void OnModule(uint32_t module_id, uint32_t site_base, const ptx::SiteTable& sites,
                        std::string_view ptx_name) {
    (void)module_id, (void)site_base, (void)sites, (void)ptx_name;
  }
  // Kernel name table for KernelPayload::name_id.
  virtual void OnKernelName(uint32_t name_id, std::string_view mangled_name) { (void)name_id, (void)mangled_name; }
  // A launch starts: `begin` is its kKernelBegin record; `workers` rings follow.
  virtual void OnLaunchBegin(const protocol::Record& begin, uint32_t workers) = 0;
  // One record from worker `worker` (0 <= worker < workers), in that worker's order.
  virtual void Emit(uint32_t worker, const protocol::Record& record) = 0;
  // Every worker is done; `end` is the kKernelEnd record.
  virtual void OnLaunchEnd(const protocol::Record& end) = 0;
};

// Per-worker emission handle used by handlers (WarpCtx::tracer).
//
// Buffered (deterministic rounds, exec/deterministic_rounds.cpp): records are
// kept in order and Stamp() hands out local numbers 1, 2, ...; Flush(base)
// turns them into global stamps base, base + 1, ... and emits everything, so
// the stamps of a round follow the slot order, not the host threads' timing.
class Tracer {
 public:
  Tracer(RecordSink* sink, uint32_t worker, std::atomic<uint64_t>* stamps)
      : sink_(sink), worker_(worker), stamps_(stamps) {}
  void Emit(const protocol::Record& r) {
    if (buffered_) {
      buffer_.push_back(r);
    } else {
      sink_->Emit(worker_, r);
    }
  }
  // Next sequence stamp: global (from 1), or local to the buffer when buffered.
  uint64_t Stamp() {
    if (buffered_) return ++local_stamps_;
    return stamps_->fetch_add(1, std::memory_order_seq_cst) + 1;
  }
  uint32_t worker() const { return worker_; }

  // Buffering may change only while the buffer is empty (after Flush).
  void SetBuffered(bool on) { buffered_ = on; }
  // Local stamps handed out since the last flush.
  uint64_t local_stamps() const { return local_stamps_; }
  // Emits the buffer in order; a local stamp s becomes base + s - 1.
  void Flush(uint64_t base) {
    for (protocol::Record& r : buffer_) {
      if (protocol::SequenceStamp(r) != 0) r.stamp = base + r.stamp - 1;
      sink_->Emit(worker_, r);
    }
    buffer_.clear();
    local_stamps_ = 0;
  }

 private:
  RecordSink* sink_;
  uint32_t worker_;
  std::atomic<uint64_t>* stamps_;
  bool buffered_ = false;
  uint64_t local_stamps_ = 0;
  std::vector<protocol::Record> buffer_;
};

// Keeps every record in memory: for tests and small runs.
class CollectingSink : public RecordSink {
 public:
  struct Launch {
    protocol::Record begin{};
    protocol::Record end{};
    std::vector<std::vector<protocol::Record>> rings;  // per worker
  };
  void OnKernelName(uint32_t id, std::string_view name) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (names.size() <= id) names.resize(id + 1);
    names[id] = std::string(name);
  }
  void OnLaunchBegin(const protocol::Record& begin, uint32_t workers) override {
    std::lock_guard<std::mutex> lock(mu_);
    launches.emplace_back();
    launches.back().begin = begin;
    launches.back().rings.resize(workers);
  }
  void Emit(uint32_t worker, const protocol::Record& r) override {
    // Each worker appends only to its own ring; the vector of rings is sized
    // at OnLaunchBegin and not resized until OnLaunchEnd.
    launches.back().rings[worker].push_back(r);
  }
  void OnLaunchEnd(const protocol::Record& end) override {
    std::lock_guard<std::mutex> lock(mu_);
    launches.back().end = end;
  }
  // Every record of launch `i` (all rings concatenated, ring order kept).
  std::vector<protocol::Record> Flatten(size_t i) const {
    std::vector<protocol::Record> out;
    for (const auto& ring : launches[i].rings) out.insert(out.end(), ring.begin(), ring.end());
    return out;
  }
  std::vector<Launch> launches;
  std::vector<std::string> names;

 private:
  std::mutex mu_;
};

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_CORE_RECORD_SINK_H_
