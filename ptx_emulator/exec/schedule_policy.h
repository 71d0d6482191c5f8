// Which runnable warp of a worker runs next, and for how long.
//
// The worker asks its policy once per turn; a turn ends after the quantum, at
// a barrier, at nanosleep, or when the warp finishes. Policies are per worker
// and must be deterministic functions of their seed and the calls they see, so
// that a run with one worker is reproducible. Schedule exploration installs its
// own through ScheduleOptions::policy_factory.
#ifndef BARRACUDA_PTX_EMULATOR_EXEC_SCHEDULE_POLICY_H_
#define BARRACUDA_PTX_EMULATOR_EXEC_SCHEDULE_POLICY_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "ptx_emulator/core/device.h"

namespace barracuda::emu {

struct Warp;

class SchedulePolicy {
 public:
  virtual ~SchedulePolicy() = default;
  // Index into `runnable` (never empty) of the warp to run next. The order of
  // `runnable` is stable except that added warps go last and a removed warp's
  // slot is taken by the last one.
  virtual size_t PickWarp(std::span<Warp* const> runnable) = 0;
  // Warp instructions the picked warp may run in this turn (>= 1).
  virtual uint32_t Quantum(uint32_t default_quantum) { return default_quantum; }
};

// A seeded SplitMix64 stream (no global state).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

// Cycles through the runnable warps.
class RoundRobinPolicy : public SchedulePolicy {
 public:
  size_t PickWarp(std::span<Warp* const> runnable) override {
    if (++next_ >= runnable.size()) next_ = 0;
    return next_;
  }

 private:
  size_t next_ = static_cast<size_t>(-1);
};

// Uniformly random warp and quantum in [1, default], from a seeded
// SplitMix64 stream.
class RandomPolicy : public SchedulePolicy {
 public:
  explicit RandomPolicy(uint64_t seed) : rng_(seed) {}
  size_t PickWarp(std::span<Warp* const> runnable) override { return rng_.Next() % runnable.size(); }
  uint32_t Quantum(uint32_t default_quantum) override {
    return 1 + static_cast<uint32_t>(rng_.Next() % std::max<uint32_t>(default_quantum, 1));
  }

 private:
  SplitMix64 rng_;
};

// The policy of worker `worker` for these options (policy_factory if set).
std::unique_ptr<SchedulePolicy> MakeSchedulePolicy(const ScheduleOptions& options, uint32_t worker);

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_EXEC_SCHEDULE_POLICY_H_
