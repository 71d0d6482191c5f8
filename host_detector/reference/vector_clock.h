// A plain, uncompressed vector clock: one entry per thread of the launch.
// The reference detector trades speed for obviousness, so there is no epoch,
// no sparse form and no sharing here (compare vc_compression/).
#ifndef BARRACUDA_HOST_DETECTOR_REFERENCE_VECTOR_CLOCK_H_
#define BARRACUDA_HOST_DETECTOR_REFERENCE_VECTOR_CLOCK_H_

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace barracuda::reference {

class VectorClock {
 public:
  VectorClock() = default;
  explicit VectorClock(size_t threads) : entries_(threads, 0) {}

  size_t size() const { return entries_.size(); }
  uint32_t Get(size_t thread) const { return entries_[thread]; }
  void Set(size_t thread, uint32_t value) { entries_[thread] = value; }
  // inc_t (paper §3.3).
  void Increment(size_t thread) { ++entries_[thread]; }

  // V := V ⊔ other (pointwise max). Both clocks belong to the same launch.
  void JoinWith(const VectorClock& other) {
    assert(other.entries_.size() == entries_.size());
    for (size_t i = 0; i < entries_.size(); ++i) {
      entries_[i] = std::max(entries_[i], other.entries_[i]);
    }
  }

  // V ⊑ other.
  bool LessOrEqual(const VectorClock& other) const {
    assert(other.entries_.size() == entries_.size());
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i] > other.entries_[i]) return false;
    }
    return true;
  }

  bool operator==(const VectorClock&) const = default;

 private:
  std::vector<uint32_t> entries_;
};

}  // namespace barracuda::reference

#endif  // BARRACUDA_HOST_DETECTOR_REFERENCE_VECTOR_CLOCK_H_
