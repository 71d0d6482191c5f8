// LaunchRunner: one kernel launch on the emulator (exec/launch.cpp), with the
// free-running workers (launch.cpp) or deterministic rounds
// (deterministic_rounds.cpp). Private to exec/.
#ifndef BARRACUDA_PTX_EMULATOR_EXEC_LAUNCH_RUNNER_H_
#define BARRACUDA_PTX_EMULATOR_EXEC_LAUNCH_RUNNER_H_

#include <sys/mman.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "ptx_emulator/core/device.h"
#include "ptx_emulator/core/phase_store_buffer.h"
#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/exec/cluster.h"
#include "ptx_emulator/exec/run_queue.h"
#include "ptx_emulator/exec/schedule_policy.h"
#include "ptx_emulator/exec/serial_phase.h"
#include "ptx_emulator/exec/warp.h"

namespace barracuda::emu {

// Anonymous mapping: pages cost nothing until touched.
struct Mapping {
  uint8_t* base = nullptr;
  size_t bytes = 0;
};

class LaunchRunner {
 public:
  LaunchRunner(Device& device, uint32_t kernel, const LaunchConfig& config, Dim3 cluster, void* const* args)
      : device_(device), kernel_index_(kernel), config_(config), launch_cluster_(cluster), args_(args) {}
  absl::Status Run();
  static uint32_t Install(Device& device, std::unique_ptr<Function> fn) {
    std::lock_guard<std::mutex> lock(device.load_mu_);
    device.functions_.push_back(std::move(fn));
    return static_cast<uint32_t>(device.functions_.size() - 1);
  }

 private:
  struct Worker;
  absl::Status Validate();
  void RunWorker(Worker& worker);
  // Deterministic rounds (deterministic_rounds.cpp); `sink` may be null.
  void RunRounds(RecordSink* sink);
  void RunFreeWorkers(RecordSink* sink);
  // Thread 0 between two rounds: stamps, faults, serial phase, admission.
  // False when the launch is over. `slots` holds max_slots_ workers, of which
  // the first num_slots_ are in use.
  bool BetweenRounds(std::vector<Worker>& slots, RecordSink* sink, uint64_t& next_unit);
  void InitSlot(Worker& slot, uint32_t index, RecordSink* sink);
  // Deterministic rounds (resident_growth.cpp): true when this round every
  // slot holds a block and no slot ended its turn with runnable warps, while
  // blocks wait for a slot. CountStall scores such rounds in a row; at its
  // threshold Grow puts more slots to use, up to max_slots_ (what the
  // emulated GPU holds of this kernel at once), so a grid that fits on the GPU
  // never waits on a block that is not resident.
  bool SpinStalled(std::span<const Worker> active, uint64_t next_unit) const;
  // After the serial phase: `stalled` when SpinStalled held and nothing retired.
  void CountStall(bool stalled);
  void Grow(std::vector<Worker>& slots, RecordSink* sink, uint64_t& next_unit);
  void RunSlotTurn(Worker& slot, uint32_t quantum);
  // Runs one stopped warp's serial instruction; false when the slot stopped.
  bool RunSerialOp(Worker& slot, Warp* w);
  // After a warp ran: retire its cluster when done; false when the slot or
  // worker must stop (fault or deadlock reported through `report`).
  bool AfterTurn(Worker& worker, Warp* w, bool report);
  // RunWarp, counted in `worker`'s statistics; returns the warp instructions run.
  static uint64_t RunCounted(Worker& worker, Warp& w, uint32_t budget);
  Block* Admit(Worker& worker, uint32_t linear);
  void AdmitCluster(Worker& worker, uint64_t unit);
  absl::Status ValidateCluster();
  void InitBlockObject(Worker& worker, Block& b);
  void Retire(Worker& worker, Block* b);
  void ReportFault(const Warp& w);
  void ReportDeadlock(const Block& b);
  void ReportTimeout(std::span<const Worker> active, double seconds, uint64_t next_unit);
  // Cooperative launches, before a serial phase (grid_barrier_watch.cpp):
  // false (and a deadlock fault) once every resident warp has been stuck on
  // the unchanged grid workspace word for a while and some block exited.
  bool WatchGridBarrier(std::span<Worker> active, uint64_t admitted);
  void SetError(absl::Status status);
  std::string Coordinates(const Block& b, const Warp* w, uint32_t lane) const;

  Device& device_;
  uint32_t kernel_index_;
  LaunchConfig config_;
  Dim3 launch_cluster_;  // from LaunchCluster ({1,1,1}: none given)
  void* const* args_;
  const Function* kernel_ = nullptr;
  uint32_t threads_per_block_ = 0;
  uint32_t warps_per_block_ = 0;
  uint32_t shared_bytes_ = 0;
  uint32_t local_stride_ = 0;  // 0: the kernel needs no local memory
  uint64_t total_blocks_ = 0;
  Dim3 cluster_;               // CTAs per cluster (1,1,1: none)
  Dim3 cluster_grid_;          // clusters per grid dimension
  uint64_t total_units_ = 0;   // clusters (= blocks without clusters)
  bool explicit_cluster_ = false;
  uint64_t launch_id_ = 0;
  std::vector<uint64_t> params_;  // 8-byte aligned parameter buffer
  uint64_t grid_workspace_ = 0;   // cooperative launch: the grid barrier word (device address)
  uint64_t grid_word_ = 0;        // its value at the last check (grid_barrier_watch.cpp)
  uint32_t grid_stall_rounds_ = 0;
  std::atomic<uint64_t> next_block_{0};
  std::atomic<bool> stop_{false};
  std::mutex error_mu_;
  absl::Status error_;
  uint32_t num_workers_ = 1;
  uint32_t num_slots_ = 1;     // deterministic rounds: resident slots in use
  uint32_t max_slots_ = 1;     // ... and how many the launch may grow to
  uint32_t spin_stall_score_ = 0;      // stalled rounds in a row, weighted (resident_growth.cpp)
  bool watch_serial_writes_ = false;   // this serial phase: tell whether an operation changes memory
  bool serial_changed_memory_ = false;  // ... and whether one did
  uint32_t num_rings_ = 1;     // record streams of the launch
  std::vector<std::pair<Worker*, Warp*>> serial_ops_;  // one serial phase
  std::vector<Warp*> serial_warps_;                     // the same warps, for the plan
  std::vector<uint32_t> serial_order_, serial_held_;    // the plan: run now (in order), hold a round
  std::unique_ptr<SerialPhase> serial_phase_;           // the schedule policy's serial-phase plan
  uint64_t serial_instructions_ = 0;
  bool deterministic_ = false;
};

inline constexpr uint64_t kNoUnit = ~uint64_t{0};

// The device-memory bytes a serial instruction addresses, taken before it
// runs, to tell whether it changed them (resident_growth.cpp). Addresses
// outside device memory (a shared or local window, host memory) count as
// changed: such a round scores as atomics that may be progress.
class SerialWriteProbe {
 public:
  void Take(const Warp& w, const Inst& in, uint64_t lo, uint64_t hi);
  bool Changed() const;

 private:
  static constexpr uint32_t kBytes = 16;  // the widest atomic (b128 cas)
  bool unknown_ = false;
  uint32_t lanes_ = 0;
  std::array<uint64_t, kLanes> address_{};
  std::array<uint8_t, kLanes> size_{};
  std::array<std::array<uint8_t, kBytes>, kLanes> bytes_{};
};

struct LaunchRunner::Worker {
  uint32_t index = 0;
  std::unique_ptr<SchedulePolicy> policy;
  std::unique_ptr<Tracer> tracer;
  RunQueue queue;
  std::vector<Block*> resident;
  std::vector<std::unique_ptr<Block>> blocks;  // owned, resident or free
  std::vector<Block*> free_blocks;
  std::vector<Mapping> mappings;
  std::vector<std::unique_ptr<Cluster>> clusters;  // owned, resident or free
  std::vector<Cluster*> free_clusters;
  uint64_t next_coop = 0;  // cooperative: next cluster (block) of this worker
  uint64_t warp_instructions = 0;    // statistics, summed into the Device after the launch
  uint64_t thread_instructions = 0;
  // Deterministic rounds: the slot's warps waiting for the serial phase, in
  // the order they stopped, and what ended its last turn.
  std::vector<Warp*> pending;
  uint64_t admit = kNoUnit;  // the unit the slot takes at the start of its next turn
  bool busy = false;         // its last turn ended with warps still runnable (budget spent)
  std::unique_ptr<PhaseStoreBuffer> stores;  // weak global stores of the parallel phase
  const Warp* fault = nullptr;
  const Block* deadlock = nullptr;
  ~Worker() {
    for (const Mapping& m : mappings) munmap(m.base, m.bytes);
  }
};

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_EXEC_LAUNCH_RUNNER_H_
