// The BARRACUDA host detector: warp-level records in, races out.
//
// Semantics: host_detector/detector/SEMANTICS.md (paper Fig. 2-3 plus the extensions:
// cluster/system scope, explicit acquire/release, named barriers, warp-sync,
// both warp models, write-VC inflation, same-value filter).
//
//   Detector d(options);
//   for (const Record& r : stream) d.Process(r);      // one total order
//   d.Report();                                       // de-duplicated races
//
// Several rings (one per group of blocks) are analysed in parallel with
// AnalyzeLaunchParallel (below), or while they arrive with a StreamingLaunch
// (streaming_analysis.h): workers honour the sequence stamps of
// synchronisation records, so verdicts equal those of one total order.
#ifndef BARRACUDA_HOST_DETECTOR_DETECTOR_H_
#define BARRACUDA_HOST_DETECTOR_DETECTOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "absl/status/status.h"
#include "device_logger/protocol.h"
#include "host_detector/detector/report_model.h"
#include "vc_compression/vector_clock.h"

namespace barracuda::detector {

enum class WarpModel {
  kIts,       // Volta+ independent thread scheduling (default): lanes ordered only by
              // warp-sync, barriers and acquire/release
  kLockstep,  // the paper: ENDINSN after every memory instruction, branches join/fork
};

struct DetectorOptions {
  WarpModel warp_model = WarpModel::kIts;
  // Upper bound on shadow memory (cells, out-of-line clocks, sync locations;
  // 0: none). Past it, global pages made later are not checked and clocks
  // take no new threads: races may be missed there, none is invented
  // (Statistics::MemoryLimited; SEMANTICS.md, "Memory limit").
  size_t shadow_limit_bytes = size_t{8} << 30;
  // Honour protocol::kFlagSameValue (paper §3.3.1). Off only for experiments.
  bool same_value_filter = true;
  // The producer logs a block-wide barrier for the lanes that reach it together
  // (the GPU backend on sm_70+: lanes a loop or barrier split may arrive in
  // several groups at one bar.sync). A warp's partial arrival is then barrier
  // divergence only when its lanes arrive at different barrier instructions in
  // one generation (SEMANTICS.md, "Barriers").
  bool barrier_arrivals_in_groups = false;
};

struct Statistics {
  uint64_t records = 0;
  uint64_t launches = 0;
  uint64_t warp_accesses = 0;    // memory records analysed
  uint64_t thread_accesses = 0;  // active lanes of memory records
  uint64_t sync_ops = 0;         // thread-level acquire/release/acq_rel
  uint64_t barriers_completed = 0;
  uint64_t barrier_generations_dropped = 0;  // incomplete at kKernelEnd
  uint64_t racy_accesses = 0;                // dynamic races (listener calls)
  uint64_t malformed_records = 0;            // rejected (see Detector::status)
  uint64_t shadow_dropped_accesses = 0;  // unmappable address, outside the shared window
  // What the memory limit (DetectorOptions::shadow_limit_bytes) left out:
  uint64_t limit_unchecked_accesses = 0;  // thread accesses to untracked pages
  uint64_t limit_untracked_pages = 0;     // 1 MiB pages of global memory left untracked
  uint64_t limit_dropped_clock_entries = 0;  // earlier accesses not kept (clock or entry refused)
  size_t shadow_limit_bytes = 0;
  // The host ran out of memory during the analysis (std::bad_alloc): the
  // record that hit it and every later one were skipped, counted here.
  bool out_of_memory = false;
  uint64_t oom_skipped_records = 0;
  // Races may have been missed because of the limit (never invented).
  bool MemoryLimited() const {
    return limit_unchecked_accesses + limit_untracked_pages + limit_dropped_clock_entries != 0;
  }
  uint64_t threads = 0;              // threads of the current/last launch
  size_t clock_state_bytes = 0;      // compressed per-thread clocks (current launch)
  size_t peak_clock_state_bytes = 0;
  size_t shadow_bytes = 0;           // shadow memory (as accounted by shadow_memory)
  size_t peak_shadow_bytes = 0;      // ... at its highest so far
  size_t shadow_spare_bytes = 0;     // ... of which zeroed and kept for the next launches
  size_t sync_location_bytes = 0;
};

// Controls the order in which AnalyzeLaunchParallel drains rings, for tests.
// With a schedule, one thread drains the rings in exactly the order the
// schedule picks (deterministic); without, TBB workers drain them concurrently.
class RingSchedule {
 public:
  virtual ~RingSchedule() = default;
  // Picks one of `runnable` (ring indices whose next record may be processed now).
  virtual size_t PickRing(std::span<const uint32_t> runnable) = 0;
  // How many records to take from the picked ring before picking again (>= 1;
  // the engine stops early at a synchronisation record that must wait).
  virtual size_t Burst() = 0;
};

struct RingInput {
  std::span<const protocol::Record> records;
  // Optional: the record index to report for records[i] (e.g. its position in
  // the producer's total order). Empty: ring_index << 40 | i.
  std::span<const uint64_t> record_indices;
};

struct ParallelOptions {
  unsigned workers = 2;             // TBB workers (ignored with a schedule)
  size_t burst = 256;               // records a worker takes from a ring at once
  RingSchedule* schedule = nullptr;  // deterministic interleaving (tests)
};

class Detector {
 public:
  explicit Detector(DetectorOptions options = {});
  ~Detector();
  Detector(const Detector&) = delete;
  Detector& operator=(const Detector&) = delete;

  // Single stream in total order. record_index = number of records processed
  // before this one. Malformed records (bad op, warp outside the launch, record
  // outside a launch) are counted and remembered in status(); they never crash.
  void Process(const protocol::Record& record);

  // Called for every racy dynamic access (and barrier divergence), in
  // detection order; under AnalyzeLaunchParallel calls are serialised.
  void SetRaceListener(std::function<void(const RaceEvent&)> listener);

  const RaceReport& Report() const;
  // Distinct races so far; safe while a StreamingLaunch of this detector runs
  // (Report() is not).
  size_t RaceCount() const;
  Statistics Stats() const;
  // First malformed record seen (OkStatus when none).
  absl::Status status() const;

  // The full vector clock of thread `tid` of the current launch (expanded from
  // the compressed form). For tests; bottom when there is no such thread or
  // its block finished (every thread exited: its state is released).
  vc::VectorClock ThreadClock(uint64_t tid) const;
  // Bytes of global-memory cells the OS holds resident for this detector
  // (mincore over every page: for tests and benchmarks, not for polling).
  // Cells that were only loaded count too, which is what tests check: an
  // access must not load halves it does not need (shadow::PageView::
  // HalvesUntouched).
  uint64_t ResidentGlobalCellBytes() const;

  const DetectorOptions& options() const;

  class Impl;

 private:
  friend class StreamingLaunch;  // streaming_analysis.h
  friend absl::Status AnalyzeLaunchParallel(Detector&, const protocol::Record&,
                                            std::span<const RingInput>, const ParallelOptions&);
  std::unique_ptr<Impl> impl_;
};

// Analyses one launch whose warp records arrive on several rings (one ring per
// group of blocks: all records of a block are on one ring, in that block's
// order). `kernel_begin` is the launch's kKernelBegin record; kKernelBegin /
// kKernelEnd records inside rings are ignored. Synchronisation records
// (protocol::IsSyncOp) carry dense stamps; a sync record with stamp s is
// processed only after every sync record with a smaller stamp. Ends the launch
// (as kKernelEnd) before returning.
absl::Status AnalyzeLaunchParallel(Detector& detector, const protocol::Record& kernel_begin,
                                   std::span<const RingInput> rings,
                                   const ParallelOptions& options = {});

}  // namespace barracuda::detector

#endif  // BARRACUDA_HOST_DETECTOR_DETECTOR_H_
