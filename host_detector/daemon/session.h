// The analysis session of barracudad: drains every attached process's rings
// and side-table channel (device_logger/shm_transport.h), analyses each launch
// with the detector once all of its records arrived, keeps the per-process side
// tables a report needs, and checks that every record produced was analysed.
//
//   AnalysisSession s(std::move(segment), options);
//   while (!done) s.Poll();              // drain + analyse what is there
//   s.Finish(app_end);                   // drain the rest, close open launches
//   WriteReports(s.result(), ...);       // report_output.h
//
// Single-threaded polling; the records of an open launch are analysed while
// they arrive (detector::StreamingLaunch on the session's AnalysisPool,
// stamp-ordered sync), so the session holds per ring at most
// `backlog_records` received and not yet analysed (more only while the
// analysis waits for a stamp that is behind them); the rest waits in the
// shared-memory rings, and the producer waits when they are full. While one
// process's launch is analysed, the others' rings keep being drained.
#ifndef BARRACUDA_HOST_DETECTOR_DAEMON_SESSION_H_
#define BARRACUDA_HOST_DETECTOR_DAEMON_SESSION_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "device_logger/memory_error_message.h"
#include "device_logger/shm_transport.h"
#include "host_detector/daemon/stream_order_check.h"
#include "host_detector/detector/detector.h"
#include "host_detector/detector/streaming_analysis.h"
#include "host_detector/detector/report_model.h"
#include "ptx_rewriter/site_table.h"

namespace barracuda::daemon {

struct SessionOptions {
  detector::WarpModel warp_model = detector::WarpModel::kIts;
  bool barrier_arrivals_in_groups = false;       // DetectorOptions: the GPU backend's records
  unsigned analysis_workers = 2;                 // analysis threads (shared by every process)
  uint64_t backlog_records = 8192;               // per ring: received, not yet analysed (2.2 MiB)
  std::optional<std::regex> kernel_include;      // analyse only kernels matching (mangled or demangled)
  std::optional<std::regex> kernel_exclude;      // skip kernels matching
  std::string kernel_include_text, kernel_exclude_text;
  // Shadow memory per analysed process (DetectorOptions::shadow_limit_bytes;
  // 0: none). Past it races may be missed, never invented; the report says so.
  uint64_t memory_limit_bytes = detector::DetectorOptions{}.shadow_limit_bytes;
  // After Finish() is called, how long to wait for other processes still alive.
  std::chrono::milliseconds grace{5000};
  // barracuda --schedules N: the session holds N runs of the program, one per
  // emulator schedule; messages about a process then name its schedule.
  uint32_t explored_schedules = 0;
};

// How the app ended, as the CLI saw it.
struct AppEnd {
  enum class How { kExited, kSignaled, kUnknown } how = How::kUnknown;
  int code = 0;  // exit status or signal number
  std::string Describe() const;
};

// The emulator schedule a process ran under (transport kSchedule).
struct ProcessSchedule {
  std::string policy;
  uint64_t seed = 0;
  std::string arguments;  // other options that replay it ("--delays 1:0:17")
};

struct ModuleTable {
  uint32_t module_id = 0;
  uint32_t site_base = 0;
  std::string name;
  ptx::SiteTable sites;
};

struct AllocationEntry {
  uint64_t base = 0, size = 0;
  transport::AllocationKind kind = transport::AllocationKind::kDevice;
  std::string label;
  bool freed = false;
};

// Launches of one kernel that the producer could not run, for one reason
// (transport::MessageType::kLaunchNotRun): the emulator could not load the
// kernel's module or does not implement an instruction it uses.
struct NotRunKernel {
  std::string mangled;  // the kernel
  int32_t cuda_error = 0;  // what the launch returned to the program
  std::string reason;
  uint64_t launches = 0;
};

// Launches of one kernel that ran and were traced, but whose kernel reaches
// instructions the producer does not log (transport kLaunchUnchecked: the GPU
// backend's logger: texture fetches, surface accesses, ...): races
// through them are not checked.
struct UncheckedKernel {
  std::string mangled;
  std::string what;  // the instructions, "2 instructions: cp.async.bulk.tensor... at x.cu:36; ..."
  uint64_t launches = 0;
};

// "cudaErrorNotSupported" for 801 and the other values of NotRunKernel::cuda_error.
std::string CudaErrorName(int32_t cuda_error);
bool KernelFaulted(int32_t cuda_error);

// Memory errors kept per process: a fault ends its launch and the error
// sticks, so more than a few means a program that resets the device in a loop.
inline constexpr size_t kMaxMemoryErrors = 256;

struct LaunchSummary {
  protocol::Record begin{};
  uint64_t records = 0;
  bool analysed = false;  // false: filtered out by --kernel-include/-exclude
  bool complete = true;   // false: the process died during the launch
};

// Everything known about one attached process.
struct ProcessResult {
  uint32_t pid = 0;
  uint32_t slot = 0;
  std::vector<std::string> command_line;
  std::vector<ModuleTable> modules;  // in arrival order
  absl::flat_hash_map<uint32_t, std::string> kernel_names;  // name id -> mangled
  std::map<uint64_t, AllocationEntry> allocations;           // base -> allocation
  std::map<uint64_t, LaunchSummary> launches;                // launch id -> launch
  std::vector<std::string> diagnostics;                      // from the producer
  std::vector<NotRunKernel> not_run;                         // launches that did not run, by kernel and reason
  std::vector<UncheckedKernel> unchecked;                     // launches analysed in part, by kernel
  std::vector<transport::MemoryErrorInfo> memory_errors;     // kernels' memory access faults (at most kMaxMemoryErrors)
  uint64_t memory_errors_dropped = 0;                        // beyond that bound
  std::vector<StreamOrderRace> stream_order_races;          // at the end (stream_order_check.h)
  uint64_t stream_order_truncated = 0;                       // operations whose footprint was cut
  bool exited_normally = false;  // sent kExit
  int32_t exit_status = 0;
  std::optional<ProcessSchedule> schedule;
  std::optional<AppEnd> end;     // how it ended, when the controller said (SetProcessEnd)
  uint64_t records_received = 0;   // consumed from the rings (markers excluded)
  uint64_t records_analysed = 0;   // handed to the detector
  uint64_t records_skipped = 0;    // of filtered-out launches
  uint64_t stamp_gaps = 0;         // stamps that never arrived (skipped at the launch's end)
  uint64_t peak_backlog_records = 0;  // received and not yet analysed, at most (all rings)
  size_t peak_held_bytes = 0;      // record storage allocated for them at most (whole chunks per ring;
                                   // pages never written are not resident)
  uint64_t held_back = 0;          // ring polls that left records in the ring (backpressure)
  // Phases (`-v`). From the producer's kProducerStats (0 when it sent none):
  uint64_t producer_launch_ns = 0;   // inside launches, on the producer's clock
  uint64_t producer_waited_ns = 0;   // of which waiting for room in full rings
  // Measured here:
  uint64_t drain_ns = 0;             // copying records out of the rings
  uint64_t analysis_worker_ns = 0;   // the pool's workers on this process's launches
  uint64_t analysis_tail_ns = 0;     // from a launch's last record to the end of its analysis
  detector::Statistics stats;
  const detector::RaceReport* report = nullptr;  // owned by the session

  const ptx::Site* FindSite(uint32_t site_id, const ModuleTable** module = nullptr) const;
  const std::string* KernelName(uint32_t name_id) const;
  const AllocationEntry* FindAllocation(uint64_t address) const;
};

// "process P: launches 0.69 s on the app's clock (0.12 s of it waiting for
// room in full rings), ..." (`-v`).
std::string PhaseSummary(const ProcessResult& p);
// What the memory limit left unchecked in a process ("" when nothing): an
// incompleteness reason of the report, naming the process as `who` does
// (AnalysisSession::Who: with its schedule), like the other reasons.
std::string MemoryLimitSummary(const ProcessResult& p, const std::string& who);

struct SessionResult {
  std::vector<const ProcessResult*> processes;  // in attach order
  std::vector<std::string> errors;              // lost records, malformed streams, ...
  std::vector<std::string> incomplete_reasons;  // empty: the analysis saw the whole run
  std::string backend = "emu";
  detector::WarpModel warp_model = detector::WarpModel::kIts;
  uint64_t races() const;          // distinct, over all processes
  uint64_t dynamic_races() const;
  uint64_t launches_not_run() const;  // over all processes: the CLI's "analysis incomplete" status
  uint64_t memory_errors() const;     // over all processes: errors, like races, for the exit status
  uint64_t stream_order_races() const;  // over all processes: races between stream operations
  uint64_t memory_limited() const;    // processes whose analysis the memory limit (or exhaustion) cut short
  uint64_t launches_unchecked() const;  // launches of kernels with instructions the producer does not log
  size_t daemon_peak_rss_bytes = 0;   // getrusage at result()
  bool complete() const { return incomplete_reasons.empty(); }
};

class AnalysisSession {
 public:
  AnalysisSession(transport::Segment segment, SessionOptions options);
  ~AnalysisSession();

  // One pass over every slot: read side tables, drain rings, analyse launches
  // whose records are all in. Returns true when it made progress.
  bool Poll();
  // The app ended: drain what reached the segment, wait (up to options.grace)
  // for other attached processes that are still alive, analyse open launches
  // as incomplete, check produced vs analysed counts.
  void Finish(const AppEnd& app_end);
  // The controller saw process `pid` end (a run of schedule exploration).
  // Before Finish.
  void SetProcessEnd(uint32_t pid, const AppEnd& end) { process_ends_[pid] = end; }

  SessionResult result() const;
  transport::Segment& segment() { return segment_; }
  size_t process_count() const { return processes_.size(); }

 private:
  struct Process;
  bool PollProcess(Process& p);
  bool HandleMessages(Process& p);
  bool DrainOpenLaunch(Process& p);
  bool InFlight(const Process& p);
  void AnalyseLaunch(Process& p, bool complete);
  bool KernelSelected(const Process& p, uint32_t name_id) const;
  std::string Who(const Process& p) const;  // "process 123 (./app)[ under schedule ...]"
  void CheckRingsDrained(const Process& p);
  void Error(std::string message);

  transport::Segment segment_;
  SessionOptions options_;
  std::unique_ptr<detector::AnalysisPool> pool_;
  std::vector<std::unique_ptr<Process>> processes_;
  absl::flat_hash_map<uint32_t, Process*> by_slot_;
  std::vector<std::string> errors_;
  std::vector<std::string> incomplete_;
  absl::flat_hash_map<uint32_t, AppEnd> process_ends_;
};

}  // namespace barracuda::daemon

#endif  // BARRACUDA_HOST_DETECTOR_DAEMON_SESSION_H_
