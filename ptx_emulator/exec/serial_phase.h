// The serial phase's plan (exec/deterministic_rounds.cpp): in which order the
// round's stopped cross-block operations (global atomics, strong accesses,
// printf/malloc/free) run, and which of them wait one round. Every schedule
// policy acts here, since these operations are where blocks meet:
//   round-robin  slot order (the default schedule);
//   random       a permutation drawn from the seed;
//   cd           conflict-directed delay bounding (GKLEE-CD style): slot
//                order, but the operations named in ScheduleOptions::delays
//                (launch, block, site: the first time that block reaches that
//                site in that launch) are held back hold_rounds rounds, so
//                every other block runs on, cross-block operations included;
//   pct          PCT-style (Burckhardt et al., ASPLOS'10): blocks get random
//                priorities and run their operations in priority order; at
//                depth-1 change points, serial steps drawn from
//                [1, horizon], the operation is held back hold_rounds rounds
//                and its block drops below every other.
// A hold is bounded, so a block that spins on the held operation's effect
// only spins longer: holds cannot deadlock a correct program.
// A run can also record its conflict points (ScheduleOptions::conflicts_out):
// the (launch, block, site) of each serial operation on an address that
// another block also accessed there, with a write among them. That list is
// what `barracuda --schedules N --schedule-policy cd` draws delays from.
#ifndef BARRACUDA_PTX_EMULATOR_EXEC_SERIAL_PHASE_H_
#define BARRACUDA_PTX_EMULATOR_EXEC_SERIAL_PHASE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ptx_emulator/core/device.h"
#include "ptx_emulator/exec/schedule_policy.h"
#include "ptx_emulator/ops/mem_access.h"

namespace barracuda::emu {

struct Warp;
struct Inst;

// The lanes and address operand of the serial memory instruction `w` is
// stopped before (`in`, at its pc); nullopt when it has no address operand
// or no lane executes it. Conflict recording and the grid-barrier watch
// (grid_barrier_watch.cpp) both look at it before it runs.
struct PendingAccess {
  uint32_t exec = 0;
  mem::AddressOperand address;
};
std::optional<PendingAccess> PendingMemoryAccess(const Warp& w, const Inst& in);

class SerialPhase {
 public:
  // `process_steps` counts serial operations over the process's launches (PCT
  // change points are steps of the whole run).
  SerialPhase(const ScheduleOptions& options, uint64_t launch_id, uint64_t& process_steps);

  // `ops` are the round's stopped warps, in slot order. Fills `order` with the
  // indices to run now, in order, and `held` with those that wait a round
  // (they are planned again next round, and run once held long enough).
  void Plan(std::span<Warp* const> ops, std::vector<uint32_t>& order, std::vector<uint32_t>& held);
  // Conflict recording: `w` is about to run its serial instruction `in`.
  void Observe(const Warp& w, const Inst& in);
  // End of the launch: appends the conflict points and the step count to
  // ScheduleOptions::conflicts_out (lines "conflict L B S", "steps N").
  void Finish();

 private:
  struct OpKey {
    uint32_t block = 0;
    uint32_t site = 0;
    friend bool operator==(const OpKey&, const OpKey&) = default;
    template <typename H>
    friend H AbslHashValue(H h, const OpKey& k) {
      return H::combine(std::move(h), k.block, k.site);
    }
  };
  uint64_t Priority(uint32_t block);

  const ScheduleOptions& options_;
  uint64_t launch_id_;
  uint64_t& process_steps_;
  SplitMix64 rng_;
  absl::flat_hash_map<const Warp*, uint32_t> held_;  // held warps: rounds held so far
  // cd: this launch's delay points not yet used.
  absl::flat_hash_set<OpKey> pending_delays_;
  // pct: change-point steps (sorted) and blocks lowered so far (rank).
  std::vector<uint64_t> change_points_;
  absl::flat_hash_map<uint32_t, uint64_t> lowered_;
  // Recording: per (block, site) in first-seen order, the addresses it
  // touched (a few), and per address who touched it.
  struct Touch {
    uint32_t first_block = 0;
    bool many_blocks = false;
    bool written = false;
  };
  std::vector<OpKey> seen_order_;
  absl::flat_hash_map<OpKey, std::vector<uint64_t>> seen_;
  absl::flat_hash_map<uint64_t, Touch> touches_;
};

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_EXEC_SERIAL_PHASE_H_
