// The emulated device: loaded programs, device memory, launches.
//
// This is the interface the replacement CUDA runtime (runtime/) programs
// against. Method definitions are split by concern:
//   decode/device_modules.cpp  LoadLinkUnit, FindKernel, FindVariable, FindFunctionByIndex
//   exec/launch.cpp            Launch (scheduler, workers, tracing)
//   core/device.cpp            construction, options
#ifndef BARRACUDA_PTX_EMULATOR_CORE_DEVICE_H_
#define BARRACUDA_PTX_EMULATOR_CORE_DEVICE_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ptx_emulator/core/device_memory.h"
#include "ptx_emulator/core/exec_form.h"
#include "ptx_emulator/core/device_launches.h"
#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/core/warp_context.h"
#include "ptx_rewriter/ir.h"
#include "ptx_rewriter/site_table.h"

namespace barracuda::emu {

class SchedulePolicy;  // exec/schedule_policy.h

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
};

// One PTX translation unit to load.
struct PtxSource {
  std::string text;
  std::string name;  // for diagnostics: "app.cu (sm_75 PTX)" or a file name
};

// A module-level variable after loading (.global, .const; managed ones too).
struct GlobalVariable {
  void* address = nullptr;   // device (= host) address
  uint64_t size = 0;
  ptx::StateSpace space = ptx::StateSpace::kGlobal;
  bool managed = false;
};

// One parsed + decoded module.
struct LoadedModule {
  uint32_t id = 0;
  uint32_t link_unit = 0;
  std::string name;
  std::unique_ptr<ptx::Module> ir;   // kept: Inst::source and Function::source point into it
  ptx::SiteTable sites;
  uint32_t site_base = 0;            // program-wide site id of local site 0
  uint32_t shared_bytes = 0;         // module-wide static .shared layout size
  uint32_t sm_target = 0;            // from `.target sm_XX`
};

struct LaunchConfig {
  Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;
  uint64_t stream_id = 0;
  bool cooperative = false;
};

// A cross-block operation that the cd policy holds back one round: the first
// time block `block` of launch `launch` (the process's launch counter,
// 1-based) reaches the instruction with site id `site` (exec/serial_phase.h).
struct DelayPoint {
  uint64_t launch = 0;
  uint32_t block = 0;
  uint32_t site = 0;
  friend bool operator==(const DelayPoint&, const DelayPoint&) = default;
};

// "1:0:17,1:3:17" <-> delay points (LAUNCH:BLOCK:SITE).
absl::StatusOr<std::vector<DelayPoint>> ParseDelays(std::string_view text);
std::string DelaysText(std::span<const DelayPoint> delays);

// How blocks and warps are interleaved (exec/scheduler.*). Deterministic for a
// seed with workers == 1; with several workers each block's schedule is still
// seeded but blocks on different cores interleave as the OS runs them.
struct ScheduleOptions {
  uint64_t seed = 0;
  uint32_t workers = 0;          // 0 = one per core
  uint32_t quantum = 256;        // warp instructions before the scheduler may switch
  // The serial phase's policy (exec/serial_phase.h); warps within a block are
  // picked round-robin except under kRandom.
  enum class Policy : uint8_t { kRoundRobin, kRandom, kConflictDelay, kPct } policy = Policy::kRoundRobin;
  std::vector<DelayPoint> delays;  // kConflictDelay (BARRACUDA_EMU_DELAYS)
  uint32_t pct_depth = 3;          // kPct: d (d-1 change points; BARRACUDA_EMU_PCT_DEPTH)
  uint64_t pct_horizon = 0;        // kPct: steps the change points are drawn from (BARRACUDA_EMU_PCT_HORIZON)
  // Deterministic rounds: a launch still running after this many seconds
  // fails with a timeout fault (cudaErrorLaunchTimeout, as a GPU's watchdog),
  // so a spin-wait that a schedule never releases ends the run instead of
  // hanging it. 0: no limit (BARRACUDA_EMU_KERNEL_TIMEOUT).
  double kernel_timeout_s = 0;
  uint32_t hold_rounds = 8;        // kConflictDelay, kPct: rounds a delayed operation waits (BARRACUDA_EMU_HOLD_ROUNDS)
  // Where to append the run's conflict points (BARRACUDA_EMU_CONFLICTS_OUT; "" = none).
  std::string conflicts_out;
  uint32_t max_resident_blocks_per_worker = 32;  // free-running workers only
  // Deterministic rounds (exec/deterministic_rounds.cpp): the same seed gives
  // the same execution and records with any number of workers.
  bool deterministic = true;
  // Deterministic rounds: blocks (clusters) resident at once, whatever the
  // number of workers (a cooperative launch makes every block resident).
  uint32_t resident_slots = 32;
  // Deterministic rounds: record streams per launch (slot s writes to stream
  // s % record_streams). 1 keeps the detector's processing order, and so the
  // report, fixed; more let the daemon analyse one launch in parallel, and
  // then which access of a racing pair it meets first may vary.
  uint32_t record_streams = 1;
  // Added by exec/: when set, replaces `policy` (schedule exploration); called
  // once per worker per launch.
  std::function<std::unique_ptr<SchedulePolicy>(uint32_t worker)> policy_factory;
};
// "round-robin", "random", "cd", "pct" (BARRACUDA_EMU_POLICY values).
const char* PolicyName(ScheduleOptions::Policy policy);
// The barracuda options besides --seed/--schedule-policy that replay the
// schedule ("--delays 1:0:17", "--pct-depth 3 --pct-horizon 120"; "" when none).
std::string ScheduleArguments(const ScheduleOptions& options);

// What the emulated GPU says about itself (cudaGetDeviceProperties & co.).
// The per-SM limits are those of the compute capability the program's PTX
// targets (SetComputeCapability; before it, the defaults below), as the CUDA Programming
// Guide's table of technical specifications gives them: a program built for
// sm_75 may not opt in to more than 64 KiB of shared memory per block, one
// built for sm_90 may use 227 KiB.
struct DeviceDescription {
  std::string name = "barracuda PTX emulator";
  uint32_t sm_count = 16;
  uint32_t warp_size = 32;
  uint32_t max_threads_per_block = 1024;
  uint32_t max_threads_per_sm = 2048;
  uint32_t max_blocks_per_sm = 32;
  uint32_t shared_per_block = 48 * 1024;
  uint32_t shared_per_block_optin = 99 * 1024;
  uint32_t shared_per_sm = 100 * 1024;
  // 0 for every compute capability (a GPU of sm_80+ reserves 1 KiB): a
  // block's shared window starts with the program's variables here, and the
  // GPU agent takes the program's window offsets to start after this many.
  uint32_t reserved_shared_per_block = 0;
  uint32_t regs_per_block = 65536;
  uint32_t regs_per_sm = 65536;
  uint32_t local_bytes_per_thread = 16 * 1024;  // local window per thread (stack + .local)
  uint64_t global_bytes = uint64_t{16} << 30;   // reported totalGlobalMem

  // Blocks of `block_threads` threads using `shared_bytes` of shared memory
  // (static and dynamic) that one SM holds at once: the occupancy API's
  // answer, and how many blocks the deterministic rounds keep resident when
  // the resident ones spin waiting for others (exec/deterministic_rounds.cpp).
  // 0 when such a block does not fit at all.
  uint32_t ResidentBlocksPerSm(uint32_t block_threads, uint64_t shared_bytes) const;
};

class Device {
 public:
  Device();
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // ---- loading (decode/)
  // Parses, links and decodes one link unit (one module without -rdc, every
  // module of the link with -rdc), allocates and initialises its globals.
  // Returns the link unit id. Errors name the module, PTX line and instruction.
  // fault_unsupported_when_reached: an instruction the emulator does not
  // implement fails the load (false: tests of the decoder) or faults the
  // launch that reaches it (true: the runtime, so that a module's other
  // kernels run; decode/function_decoder.h).
  absl::StatusOr<uint32_t> LoadLinkUnit(std::vector<PtxSource> sources, bool fault_unsupported_when_reached = false);
  // The .entry `name` of a link unit: its function index.
  absl::StatusOr<uint32_t> FindKernel(uint32_t link_unit, std::string_view name) const;
  absl::StatusOr<GlobalVariable> FindVariable(uint32_t link_unit, std::string_view name) const;

  const Function& function(uint32_t index) const { return *functions_[index]; }
  uint32_t function_count() const { return static_cast<uint32_t>(functions_.size()); }
  const LoadedModule& module(uint32_t id) const { return *modules_[id]; }
  uint32_t module_count() const { return static_cast<uint32_t>(modules_.size()); }

  // ---- running (exec/)
  // Runs the kernel to completion (the runtime orders streams itself). `args`
  // as in cudaLaunchKernel: args[i] points at parameter i, sized by the
  // kernel's Function::params. Errors: a fault (illegal address, trap, assert,
  // deadlock, unsupported instruction) with a message naming the instruction,
  // its PTX line and the thread.
  absl::Status Launch(uint32_t kernel, const LaunchConfig& config, void* const* args);
  // Added by exec/ (thread-block clusters): Launch with the launch's CTAs per
  // cluster (the runtime's cudaLaunchAttributeClusterDimension). {1,1,1}: none
  // given, the kernel's .reqnctapercluster (__cluster_dims__) applies if it has
  // one; both given must agree. (Not a LaunchConfig field: LaunchConfig is
  // brace-initialised positionally in many places.)
  absl::Status LaunchCluster(uint32_t kernel, const LaunchConfig& config, Dim3 cluster, void* const* args);

  // The fault that failed the last launch (nullopt after a launch that did
  // not fault): for memcheck-style reports of memory errors. Launches are
  // serialised, so the runtime reads it right after Launch returned.
  struct FaultReport {
    Fault fault;             // the first fault of the launch
    uint64_t launch_id = 0;  // as in the launch's kKernelBegin record
    Dim3 block, thread;      // coordinates of the faulting thread
  };
  const std::optional<FaultReport>& last_fault() const { return last_fault_; }

  DeviceMemory& memory() { return *memory_; }
  const DeviceDescription& description() const { return description_; }
  // The limits of compute capability `sm` (75 for sm_75; DeviceDescription).
  // Called when the program's first PTX is registered, before any launch.
  void SetComputeCapability(uint32_t sm);
  ScheduleOptions& schedule() { return schedule_; }
  // Tracing: nullptr (default) = off.
  void SetSink(RecordSink* sink) { sink_ = sink; }
  RecordSink* sink() const { return sink_; }
  uint64_t launches() const { return launch_counter_; }
  // Grids launched from device code (dynamic parallelism), for the runtime
  // to run after the launching grid (device_launches.h). Written by the
  // device-runtime builtins of running warps, which see the device as const.
  DeviceLaunches& device_launches() const { return device_launches_; }

  // Work done so far (all launches), for BARRACUDA_EMU_STATS and benchmarks.
  struct Statistics {
    uint64_t launches = 0;
    uint64_t warp_instructions = 0;
    uint64_t thread_instructions = 0;  // active lanes summed over warp instructions
    uint64_t rounds = 0;               // deterministic rounds
    uint64_t serial_instructions = 0;  // warp instructions run in their serial phases
  };
  Statistics statistics() const {
    return Statistics{launch_counter_.load(), warp_instructions_.load(), thread_instructions_.load(),
                      rounds_.load(), serial_instructions_.load()};
  }

 private:
  friend class ModuleLoader;   // decode/
  friend class LaunchRunner;   // exec/
  std::unique_ptr<DeviceMemory> memory_;
  DeviceDescription description_;
  ScheduleOptions schedule_;
  RecordSink* sink_ = nullptr;
  mutable DeviceLaunches device_launches_;
  mutable std::mutex load_mu_;
  std::deque<std::unique_ptr<LoadedModule>> modules_;
  std::deque<std::unique_ptr<Function>> functions_;
  // per link unit: name -> function index / variable
  std::vector<absl::flat_hash_map<std::string, uint32_t>> unit_functions_;
  std::vector<absl::flat_hash_map<std::string, GlobalVariable>> unit_variables_;
  uint32_t next_site_ = 0;
  uint32_t next_kernel_name_ = 0;
  absl::flat_hash_map<uint32_t, uint32_t> kernel_name_ids_;  // function index -> name id
  std::atomic<uint64_t> launch_counter_{0};
  std::atomic<uint64_t> stamps_{0};
  std::atomic<uint64_t> warp_instructions_{0};
  std::atomic<uint64_t> thread_instructions_{0};
  std::atomic<uint64_t> rounds_{0};
  std::atomic<uint64_t> serial_instructions_{0};
  std::optional<FaultReport> last_fault_;  // written by the launch's runner under its error lock
  uint64_t serial_steps_ = 0;  // serial operations planned, over launches (launches are serialised)
};

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_CORE_DEVICE_H_
