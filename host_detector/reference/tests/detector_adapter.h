// The one place the reference tests touch the optimised detector
// (host_detector/detector/detector.h, public API only): run a stream, collect events.
#ifndef BARRACUDA_HOST_DETECTOR_REFERENCE_TESTS_DETECTOR_ADAPTER_H_
#define BARRACUDA_HOST_DETECTOR_REFERENCE_TESTS_DETECTOR_ADAPTER_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "device_logger/protocol.h"
#include "host_detector/reference/reference_detector.h"

namespace barracuda::reference::testing {

struct DetectorEvent {
  uint64_t record_index = 0;
  uint32_t lane = 0;
  protocol::Space space = protocol::Space::kGlobal;
  uint64_t address = 0;  // the first racing byte
  bool barrier_divergence = false;
  uint32_t site = 0;
  uint64_t earlier_record = 0;
  uint32_t earlier_lane = 0;
};

struct DetectorRun {
  absl::Status status;
  std::vector<DetectorEvent> events;
};

// Processes the stream in total order with the optimised detector.
DetectorRun RunOptimisedDetector(std::span<const protocol::Record> records, WarpModel model);

// Processes each launch of the stream through AnalyzeLaunchParallel on
// `rings` rings (SplitIntoRings) drained in an order chosen by `seed`.
DetectorRun RunOptimisedDetectorOnRings(std::span<const protocol::Record> records, WarpModel model,
                                        uint32_t rings, uint64_t seed);

}  // namespace barracuda::reference::testing

#endif  // BARRACUDA_HOST_DETECTOR_REFERENCE_TESTS_DETECTOR_ADAPTER_H_
