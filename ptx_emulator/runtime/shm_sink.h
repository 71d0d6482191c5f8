// The emulator's record sink for a barracuda session: forwards modules, kernel
// names, launches and every worker's records into the session's shared-memory
// segment (device_logger/shm_transport.h), where barracudad analyses them.
//
// Hook (runtime): when env BARRACUDA_SESSION names a segment,
//   static auto sink = ShmRecordSink::FromEnvironment();   // nullptr when unset
//   if (sink) device.SetSink(sink.get());
// and report allocations with OnAllocation / OnFree. The process detaches at
// exit (an atexit handler sends the exit marker), so the daemon can tell a
// normal end from a crash. A process that forks keeps tracing in the child,
// which claims its own slot (a separate process in the report).
//
// Worker w writes ring w. A launch with more workers than the segment has rings
// per process shares rings (worker w -> ring w % rings) under a per-ring lock;
// a block's records stay on one ring, in order. Launches are serialised: the
// sink holds a lock from OnLaunchBegin to OnLaunchEnd (both are called by the
// launching thread), so each ring carries one launch at a time.
#ifndef BARRACUDA_PTX_EMULATOR_RUNTIME_SHM_SINK_H_
#define BARRACUDA_PTX_EMULATOR_RUNTIME_SHM_SINK_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "device_logger/memory_error_message.h"
#include "device_logger/shm_transport.h"
#include "device_logger/stream_op_message.h"
#include "ptx_emulator/core/record_sink.h"

namespace barracuda::emu {

class ShmRecordSink : public RecordSink {
 public:
  // Attaches to the segment `session` (claims a process slot, sends argv).
  static absl::StatusOr<std::unique_ptr<ShmRecordSink>> Attach(std::string_view session);
  // Attach(getenv(BARRACUDA_SESSION)); nullptr when the variable is unset or the
  // attach fails (the failure is printed once on stderr: the app still runs,
  // untraced), and under BARRACUDA_BACKEND=gpu (the GPU agent traces).
  static std::unique_ptr<ShmRecordSink> FromEnvironment();
  ~ShmRecordSink() override;

  void OnModule(uint32_t module_id, uint32_t site_base, const ptx::SiteTable& sites,
                std::string_view ptx_name) override;
  void OnKernelName(uint32_t name_id, std::string_view mangled_name) override;
  void OnLaunchBegin(const protocol::Record& begin, uint32_t workers) override;
  void Emit(uint32_t worker, const protocol::Record& record) override;
  void OnLaunchEnd(const protocol::Record& end) override;

  // Device allocations for the report's attribution (cudaMalloc & co., module
  // variables); OnFree when freed.
  void OnAllocation(uint64_t base, uint64_t size, transport::AllocationKind kind, std::string_view label);
  void OnFree(uint64_t base);
  // The schedule this process runs under (sent again by a forked child);
  // `arguments`: the barracuda options besides --seed/--schedule-policy that
  // replay it.
  void OnSchedule(std::string_view policy, uint64_t seed, std::string_view arguments);
  // A message for the report (e.g. "launch of K failed: ...").
  void OnDiagnostic(std::string_view text);
  // A launch the emulator could not run (module not loadable, unimplemented
  // instruction): the daemon marks the analysis incomplete.
  void OnLaunchNotRun(int32_t cuda_error, std::string_view mangled_kernel, std::string_view reason);
  // A kernel stopped at a memory access fault (out of bounds, use after free,
  // misaligned, ...): the daemon reports it as a memory error.
  void OnMemoryError(const transport::MemoryErrorInfo& error);
  // A stream-ordered operation with its happens-before (stream_order.h).
  void OnStreamOp(const transport::StreamOpInfo& op);
  // Sends the exit marker and releases the slot; later calls are ignored.
  // Called by the atexit handler with status 0 when the runtime does not.
  void Detach(int32_t status);

  // In the child of a fork(): the inherited slot is the parent's, so the child
  // claims a slot of its own (called by the pthread_atfork child handler).
  void ReattachAfterFork();

  // False once the daemon went away (tracing stopped).
  bool healthy() const { return !failed_.load(std::memory_order_relaxed); }
  uint32_t slot() const { return producer_->slot(); }

 private:
  explicit ShmRecordSink(std::unique_ptr<transport::Producer> producer);
  void Fail();
  std::unique_ptr<transport::Producer> producer_;
  std::string session_;
  struct Schedule {
    std::string policy;
    uint64_t seed = 0;
    std::string arguments;
  };
  std::optional<Schedule> schedule_;
  std::mutex launch_mu_;   // held from OnLaunchBegin to OnLaunchEnd
  std::chrono::steady_clock::time_point launch_start_;  // under launch_mu_
  uint32_t rings_ = 0;     // rings of the current launch
  bool shared_rings_ = false;
  std::vector<uint64_t> produced_at_begin_;
  std::unique_ptr<std::mutex[]> ring_mu_;  // used only when rings are shared
  std::atomic<bool> failed_{false};
  std::atomic<bool> detached_{false};
};

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_RUNTIME_SHM_SINK_H_
