// Epochs (FastTrack c@t): one clock value for one thread, packed in 64 bits.
//
// Thread ids are grid-linear within one launch (host_detector/detector/SEMANTICS.md), so 32
// bits suffice for every launch the detector accepts (it rejects grids with
// more than 2^32 threads). Clocks are 32-bit: a thread's clock grows by one per
// synchronisation it takes part in (and per instruction under the lockstep
// model), and all state is reset at launch boundaries.
#ifndef BARRACUDA_VC_COMPRESSION_EPOCH_H_
#define BARRACUDA_VC_COMPRESSION_EPOCH_H_

#include <cstdint>

namespace barracuda::vc {

using ThreadId = uint32_t;
using Clock = uint32_t;

inline constexpr Clock kMaxClock = 0xffffffffu;

// c@t. The minimal epoch (bottom) is 0@0: clock 0 is <= every clock value, so it
// is ordered before everything whichever thread it names.
class Epoch {
 public:
  constexpr Epoch() = default;
  constexpr Epoch(ThreadId tid, Clock clock)
      : bits_((static_cast<uint64_t>(tid) << 32) | clock) {}

  static constexpr Epoch Bottom() { return Epoch(); }
  static constexpr Epoch FromBits(uint64_t bits) {
    Epoch e;
    e.bits_ = bits;
    return e;
  }

  constexpr ThreadId tid() const { return static_cast<ThreadId>(bits_ >> 32); }
  constexpr Clock clock() const { return static_cast<Clock>(bits_); }
  constexpr uint64_t bits() const { return bits_; }
  constexpr bool IsBottom() const { return clock() == 0; }

  friend constexpr bool operator==(Epoch a, Epoch b) { return a.bits_ == b.bits_; }

 private:
  uint64_t bits_ = 0;
};
static_assert(sizeof(Epoch) == 8, "epochs are one word (shadow cells pack them)");

}  // namespace barracuda::vc

#endif  // BARRACUDA_VC_COMPRESSION_EPOCH_H_
