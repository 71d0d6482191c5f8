#include "host_detector/reference/tests/detector_adapter.h"

#include "host_detector/detector/detector.h"
#include "host_detector/reference/trace_generator.h"

namespace barracuda::reference::testing {

namespace {

detector::DetectorOptions OptionsFor(WarpModel model) {
  detector::DetectorOptions options;
  options.warp_model = model == WarpModel::kLockstep ? detector::WarpModel::kLockstep : detector::WarpModel::kIts;
  return options;
}

void Listen(detector::Detector& d, std::vector<DetectorEvent>& events) {
  d.SetRaceListener([&events](const detector::RaceEvent& e) {
    // Same-value warnings classify pairs the reference (like the paper) does
    // not count as races: lanes of one same-value store (SEMANTICS.md).
    if (e.kind == detector::RaceKind::kSameValue) return;
    DetectorEvent out;
    out.record_index = e.later.record_index;
    out.lane = e.later.lane;
    out.space = e.space;
    out.address = e.address;
    out.barrier_divergence = e.kind == detector::RaceKind::kBarrierDivergence;
    out.site = e.later.site;
    out.earlier_record = e.earlier.record_index;
    out.earlier_lane = e.earlier.lane;
    events.push_back(out);
  });
}

// Deterministic drain order for AnalyzeLaunchParallel.
class SeededSchedule final : public detector::RingSchedule {
 public:
  explicit SeededSchedule(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  size_t PickRing(std::span<const uint32_t> runnable) override { return runnable[Next() % runnable.size()]; }
  size_t Burst() override { return 1 + Next() % 4; }

 private:
  uint64_t Next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }
  uint64_t state_;
};

}  // namespace

DetectorRun RunOptimisedDetector(std::span<const protocol::Record> records, WarpModel model) {
  DetectorRun run;
  detector::Detector d(OptionsFor(model));
  Listen(d, run.events);
  for (const protocol::Record& r : records) d.Process(r);
  run.status = d.status();
  return run;
}

DetectorRun RunOptimisedDetectorOnRings(std::span<const protocol::Record> records, WarpModel model,
                                        uint32_t rings, uint64_t seed) {
  DetectorRun run;
  detector::Detector d(OptionsFor(model));
  Listen(d, run.events);
  SeededSchedule schedule(seed);
  detector::ParallelOptions options;
  options.schedule = &schedule;
  size_t begin = 0;
  while (begin < records.size()) {
    size_t end = begin + 1;
    while (end < records.size() && protocol::OpOf(records[end - 1].header) != protocol::Op::kKernelEnd) ++end;
    const auto split = SplitIntoRings(records.subspan(begin, end - begin), rings);
    std::vector<std::vector<protocol::Record>> ring_records(split.size());
    std::vector<std::vector<uint64_t>> ring_indices(split.size());
    std::vector<detector::RingInput> inputs(split.size());
    for (size_t k = 0; k < split.size(); ++k) {
      for (const RingRecord& rr : split[k]) {
        const protocol::Op op = protocol::OpOf(rr.record.header);
        if (op == protocol::Op::kKernelBegin || op == protocol::Op::kKernelEnd) continue;
        ring_records[k].push_back(rr.record);
        ring_indices[k].push_back(begin + rr.stream_index);
      }
      inputs[k].records = ring_records[k];
      inputs[k].record_indices = ring_indices[k];
    }
    const absl::Status s = detector::AnalyzeLaunchParallel(d, records[begin], inputs, options);
    if (!s.ok() && run.status.ok()) run.status = s;
    begin = end;
  }
  if (run.status.ok()) run.status = d.status();
  return run;
}

}  // namespace barracuda::reference::testing
