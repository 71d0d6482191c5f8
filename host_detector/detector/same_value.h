// Same-value writes across records (SEMANTICS.md, "Same-value writes").
//
// A plain write record carries its stored value only when all its lanes
// stored one value (protocol kFlagValue); the shadow cell has no room for the
// value of the write it remembers. So the class of a write-write race between
// two records is decided from the sites instead: if every execution of the
// earlier write's site in this launch stored one value v, of the same size,
// and the later write stored v, the pair is a same-value write (a warning);
// otherwise a data race. Deciding at the end of the launch, over every
// execution, makes the class independent of the order the records were
// analysed in (the table only grows toward "varies").
#ifndef BARRACUDA_HOST_DETECTOR_SAME_VALUE_H_
#define BARRACUDA_HOST_DETECTOR_SAME_VALUE_H_

#include <cstdint>
#include <mutex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "device_logger/protocol.h"
#include "host_detector/detector/report_model.h"

namespace barracuda::detector {

// What one store site stored in the current launch.
struct SiteValue {
  uint64_t value = 0;
  uint8_t size = 0;
  bool varies = false;  // two executions stored different values (or one had no single value)
  bool Same(uint64_t v, uint8_t s) const { return !varies && size == s && value == v; }
};

// The launch's table, shared by the analysis workers.
class SiteValueTable {
 public:
  // Folds one execution of `site` into the table; returns the site's state after it.
  SiteValue Note(uint32_t site, bool has_value, uint64_t value, uint8_t size);
  // Did every execution of `site` in the launch store `value` of `size` bytes?
  bool ConstantWith(uint32_t site, uint64_t value, uint8_t size) const;
  void Clear();

 private:
  mutable std::mutex mu_;
  absl::flat_hash_map<uint32_t, SiteValue> sites_;
};

// A worker's view of the table: a site's state as this worker last left it.
// The shared table is touched only when a site is new to the worker or an
// execution disagrees with what the worker saw, so the hot path is one
// lookup in a private map.
class SiteValueCache {
 public:
  void Note(SiteValueTable& table, uint64_t launch_id, const protocol::Record& r);

 private:
  uint64_t launch_id_ = ~uint64_t{0};
  absl::flat_hash_map<uint32_t, SiteValue> seen_;
};

// A write-write race whose class waits for the end of the launch: the later
// write stored `value` (size bytes) in every lane.
struct PendingSameValue {
  RaceEvent event;
  uint64_t value;
  uint8_t size;
};

// Value of a record's stores, masked to its access size.
inline uint64_t MaskedValue(uint64_t v, uint32_t size) {
  return size >= 8 ? v : v & ((uint64_t{1} << (8 * size)) - 1);
}

}  // namespace barracuda::detector

#endif  // BARRACUDA_HOST_DETECTOR_SAME_VALUE_H_
