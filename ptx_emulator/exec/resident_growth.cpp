// Deterministic rounds keep ScheduleOptions::resident_slots (32) blocks
// resident, fewer than a GPU holds. A kernel that sizes its grid to what the
// GPU holds at once (the occupancy API times the SM count: persistent kernels,
// hand-written grid barriers, producer/consumer blocks) may have every
// resident block spin on a block that has not started, which would never
// start. The watch: a round is stalled when blocks wait for a slot, every
// resident warp is done, at a block barrier or stopped at a serial operation
// (no slot ended its turn with runnable warps), nothing retired and the serial
// phase held nothing back. Stalled rounds in a row score kStillWeight when no
// serial operation changed device memory (a spin), 1 when one did (atomics
// that may still be progress, or the GPU logger's queue writes around a spin
// when the emulator stands in for a GPU); at kGrowScore the launch puts more
// slots to use (doubling, up to what the emulated GPU holds of this kernel,
// max_slots_).
// Growth depends only on the rounds, so a run stays deterministic. A grid
// larger than that still hangs, as it would on a GPU; the timeout says why.
#include <algorithm>
#include <cstring>

#include "ptx_emulator/exec/launch_runner.h"

namespace barracuda::emu {
namespace {

// A spin loop re-reads in every round: 64 rounds without a change cost a few
// milliseconds. 1024 rounds of atomics with no block finishing are rare in a
// launch that progresses, and more slots then cost only memory.
constexpr uint32_t kStillWeight = 16;
constexpr uint32_t kGrowScore = 1024;

}  // namespace

void SerialWriteProbe::Take(const Warp& w, const Inst& in, uint64_t lo, uint64_t hi) {
  const std::optional<PendingAccess> pending = PendingMemoryAccess(w, in);
  // printf, malloc and free, or a local address: not a spin on device memory.
  if (!pending || pending->address.frame) {
    unknown_ = true;
    return;
  }
  for (uint32_t m = pending->exec; m != 0; m &= m - 1) {
    const uint64_t a = pending->address.At(static_cast<uint32_t>(__builtin_ctz(m)));
    if (a < lo || a >= hi) {
      unknown_ = true;
      return;
    }
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(kBytes, hi - a));
    address_[lanes_] = a;
    size_[lanes_] = static_cast<uint8_t>(n);
    std::memcpy(bytes_[lanes_].data(), reinterpret_cast<const void*>(a), n);
    ++lanes_;
  }
}

bool SerialWriteProbe::Changed() const {
  if (unknown_) return true;
  for (uint32_t i = 0; i < lanes_; ++i)
    if (std::memcmp(bytes_[i].data(), reinterpret_cast<const void*>(address_[i]), size_[i]) != 0) return true;
  return false;
}

bool LaunchRunner::SpinStalled(std::span<const Worker> active, uint64_t next_unit) const {
  if (next_unit >= total_units_) return false;
  for (const Worker& s : active)
    if (s.busy || s.resident.empty() || s.admit != kNoUnit) return false;
  return true;
}

void LaunchRunner::CountStall(bool stalled) {
  // Only while stalled does the serial phase probe writes (serial_changed_memory_).
  spin_stall_score_ = !stalled ? 0 : spin_stall_score_ + (serial_changed_memory_ ? 1 : kStillWeight);
}

void LaunchRunner::Grow(std::vector<Worker>& slots, RecordSink* sink, uint64_t& next_unit) {
  // At max_slots_ the score goes on: the timeout message reads it.
  if (spin_stall_score_ < kGrowScore || num_slots_ >= max_slots_) return;
  spin_stall_score_ = 0;
  const uint32_t grown = std::min(max_slots_, std::max(num_slots_ * 2, num_slots_ + 1));
  for (uint32_t i = num_slots_; i < grown; ++i) {
    InitSlot(slots[i], i, sink);
    if (next_unit < total_units_) slots[i].admit = next_unit++;
  }
  num_slots_ = grown;
}

}  // namespace barracuda::emu
