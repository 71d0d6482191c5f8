// Thread-block clusters (sm_90): the CTAs of one cluster, their shared windows
// as handlers see them (ClusterWindows), and the cluster barrier
// (barrier.cluster.arrive / barrier.cluster.wait).
//
// Every block belongs to a cluster (one CTA when the launch has none). A
// cluster's CTAs are admitted together by one worker (exec/launch.cpp), so
// they are co-resident, share the worker's run queue, and nothing here needs
// a lock.
//
// Barrier model (PTX ISA "barrier.cluster"): arrive and wait are split. A
// thread arrives once per phase, and its wait returns once every non-exited
// thread of the cluster has arrived in that phase. The phase completes when
// no live thread of the cluster is missing (re-checked when lanes exit).
// arrived[] holds the lanes that arrived in the current (incomplete) phase,
// owed[] the lanes that arrived and have not waited yet: a wait by a lane
// that owes nothing, or a second arrival before the wait, is undefined in PTX
// and faults here. A waiting warp blocks as a whole, like bar.sync.
// Records: protocol.h ("Thread-block clusters").
#ifndef BARRACUDA_PTX_EMULATOR_EXEC_CLUSTER_H_
#define BARRACUDA_PTX_EMULATOR_EXEC_CLUSTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ptx_emulator/core/warp_context.h"
#include "ptx_emulator/exec/warp.h"

namespace barracuda::emu {

// Warp::wait_barrier of a warp blocked in barrier.cluster.wait.
inline constexpr uint32_t kClusterBarrierWaitId = kMaxBarriers;

struct Cluster {
  ClusterWindows windows;                 // what handlers see (WarpCtx::cluster)
  Block* ctas[kMaxClusterCtas] = {};      // by rank
  uint32_t warps_per_block = 0;
  uint32_t done_ctas = 0;
  // barrier.cluster
  uint64_t phase = 0;            // phases completed so far
  std::vector<uint32_t> arrived;  // [rank * warps_per_block + warp]: lanes arrived in this phase
  std::vector<uint32_t> owed;     // lanes that arrived and have not waited yet
  struct Waiter {
    Warp* warp;
    uint32_t mask;
    uint32_t site;
  };
  std::vector<Waiter> waiters;

  uint32_t size() const { return windows.size; }
  // Empties the barrier for a new cluster of `size` CTAs.
  void Reset(uint32_t size, uint32_t warps_per_block);
  // Live threads of the cluster that have not arrived in the current phase.
  uint32_t MissingThreads() const;
  // Whether every live warp of every CTA waits (at any barrier) or is done.
  bool Stuck() const;
};

// Selects the handler of barrier.cluster.{arrive,wait}[...] (control_ops.cpp).
absl::StatusOr<bool> SelectClusterBarrierOp(const ptx::Instruction& ir, Inst& inst);

// The phase may complete when lanes exit (called from RecheckBarriers).
void RecheckClusterBarrier(Cluster& cluster);

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_EXEC_CLUSTER_H_
