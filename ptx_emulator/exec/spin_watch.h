// mbarrier deadlocks (deterministic rounds). try_wait does not suspend on the
// emulator: a warp waits for a phase by spinning on test_wait / try_wait
// (ops/mbarrier_ops.cpp). A phase that can never complete (an expected count
// or a transaction count off by one, an arrival skipped) would make the
// cluster's warps spin until --kernel-timeout. The watch: a warp's turn is a
// spin turn when at least one in kSpinRatio of its instructions was a failed
// wait and it did not stop at a serial operation (a poll of global memory,
// which another block may change); after kSpinTurns spin turns in a row the
// warp is spinning. When every warp of the cluster is done, waits at a
// barrier or is spinning, no phase can complete any more: no warp runs code
// that arrives, no asynchronous copy is in flight (bulk copies complete at
// issue, cp.async's arrive-on at its instruction), and only the cluster
// reaches its shared memory. The launch then fails as a deadlock naming each
// spinning warp's mbarrier and its state.
#ifndef BARRACUDA_PTX_EMULATOR_EXEC_SPIN_WATCH_H_
#define BARRACUDA_PTX_EMULATOR_EXEC_SPIN_WATCH_H_

#include <cstdint>
#include <string>

#include "ptx_emulator/exec/cluster.h"
#include "ptx_emulator/exec/warp.h"

namespace barracuda::emu {

inline constexpr uint64_t kSpinRatio = 32;
// ~1024 turns of a 256-instruction quantum: tens of thousands of failed waits
// in a row, a few milliseconds; a wait with an iteration bound gives up sooner
// only in programs that expect phases that never complete.
inline constexpr uint32_t kSpinTurns = 1024;

// After a turn of `w` that ran `ran` instructions, with `failed_before` the
// warp's failed-wait count before it.
void CountSpinTurn(Warp& w, uint64_t ran, uint64_t failed_before);

// Whether `w` is spinning on an mbarrier phase.
inline bool SpinsOnMbarrier(const Warp& w) {
  return w.spin_turns >= kSpinTurns && !w.serial_pending && w.state == WarpState::kRunnable;
}

// Whether every warp of `c` is done, waits at a barrier or spins on an mbarrier
// phase, and at least one spins.
bool ClusterSpinsForever(const Cluster& c);

// " spins on mbarrier.try_wait / test_wait (PTX line L) on the mbarrier at shared offset X of
// block (..): N of M arrivals and T transaction bytes still missing in its current phase".
std::string MbarrierSpinText(const Warp& w, const Cluster& c);

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_EXEC_SPIN_WATCH_H_
