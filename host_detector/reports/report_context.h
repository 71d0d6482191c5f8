// What the report writers need besides the detector's RaceReport: per-process
// site tables, kernel names, launches, device allocations and run facts
// (backend, warp model, command line, completeness). The daemon fills a
// ReportContext as side tables arrive; ResolveReport then turns RaceReports
// into ResolvedRaces (coordinates, demangled names, file:line, allocation),
// which the text, JSON and SARIF writers only format. See REPORTS.md.
//
// Contract with the daemon: launch ids, kernel name ids, site ids and addresses
// are per process (protocol.h), so every RaceReport handed to ResolveReport
// comes from analysing ONE process's records, and says which (ProcessRaces).
#ifndef BARRACUDA_HOST_DETECTOR_REPORT_CONTEXT_H_
#define BARRACUDA_HOST_DETECTOR_REPORT_CONTEXT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "device_logger/memory_error_message.h"
#include "device_logger/protocol.h"
#include "host_detector/detector/detector.h"
#include "host_detector/detector/report_model.h"
#include "ptx_rewriter/site_table.h"

namespace barracuda::reports {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t Volume() const { return uint64_t{x} * y * z; }
  friend bool operator==(const Dim3&, const Dim3&) = default;
};
// (x,y,z) of a linear index in a shape, x fastest (CUDA's order).
Dim3 Unlinearize(uint64_t linear, Dim3 shape);
// Its inverse: the linear index of (x,y,z) in a shape.
uint64_t Linearize(Dim3 index, Dim3 shape);

// Itanium demangling (abi::__cxa_demangle); the input unchanged when it is not
// a mangled name (extern "C" kernels).
std::string Demangle(std::string_view mangled);

struct ModuleInfo {
  uint32_t module_id = 0;
  uint32_t site_base = 0;  // program-wide id of the module's local site 0
  std::string name;        // PTX module name (file the PTX was extracted to / loaded from)
  ptx::SiteTable sites;
};

enum class AllocationKind : uint8_t {
  kDevice,        // cudaMalloc / cudaMallocPitch / cudaMalloc3D
  kAsync,         // cudaMallocAsync / cudaMallocFromPoolAsync
  kManaged,       // cudaMallocManaged
  kHostMapped,    // cudaHostAlloc / cudaHostRegister (mapped host memory)
  kModuleGlobal,  // a __device__ / __managed__ variable of a module
  kOther,
};
const char* AllocationKindName(AllocationKind kind);  // "device", "async", ... (REPORTS.md)

struct Allocation {
  uint64_t base = 0;
  uint64_t size = 0;
  AllocationKind kind = AllocationKind::kDevice;
  std::string label;   // variable name or "cudaMalloc #3"; may be empty
  bool freed = false;  // freed before the report was written
};

struct LaunchInfo {
  uint32_t process_id = 0;
  uint64_t launch_id = 0;
  uint32_t kernel_name_id = 0;
  Dim3 grid, block;
  uint64_t stream_id = 0;
  uint32_t static_shared_bytes = 0;
  uint32_t dynamic_shared_bytes = 0;
  static LaunchInfo FromKernelBegin(const protocol::Record& kernel_begin);
};

// The emulator schedule a run used (barracuda --seed / --schedule-policy):
// `barracuda --seed <seed> --schedule-policy <policy>` replays it.
struct Schedule {
  std::string policy;  // "round-robin", "random", "cd" or "pct"
  uint64_t seed = 0;
  std::string arguments;  // the other options that replay it ("--delays 1:0:17"; often empty)
  friend bool operator==(const Schedule&, const Schedule&) = default;
};
// "random, seed 3", "cd, --delays 1:0:17"; and the command line that replays it.
std::string ScheduleText(const Schedule& schedule);
std::string ReplayText(const Schedule& schedule);

// How an app process ended, as the CLI saw it (reported per schedule when
// barracuda explores schedules).
struct ProcessEnd {
  bool signaled = false;
  int code = 0;  // exit status or signal number
  friend bool operator==(const ProcessEnd&, const ProcessEnd&) = default;
  std::string Describe() const;  // "exited with status 1", "was killed by signal 6 (SIGABRT)"
};

// What the shadow memory limit left out of a process's analysis
// (detector::Statistics; races may be missed there, none is invented).
struct MemoryLimitUse {
  uint64_t limit_bytes = 0;
  uint64_t unchecked_accesses = 0;     // thread accesses to untracked global memory
  uint64_t untracked_mib = 0;          // 1 MiB pages of global memory left untracked
  uint64_t dropped_clock_entries = 0;  // earlier accesses of concurrent threads not kept
};

struct ProcessInfo {
  uint32_t pid = 0;
  std::vector<std::string> command_line;  // argv of the app process (may be empty)
  std::vector<ModuleInfo> modules;        // sorted by site_base, disjoint site ranges
  absl::flat_hash_map<uint32_t, std::string> kernel_names;  // name id -> mangled
  absl::flat_hash_map<uint64_t, LaunchInfo> launches;       // launch id -> launch
  std::map<uint64_t, Allocation> allocations;               // base -> allocation
  std::optional<Schedule> schedule;  // the emulator schedule it ran under (when it said)
  uint32_t schedule_number = 0;      // its 1-based number among the context's schedules; 0: none
  std::optional<ProcessEnd> end;     // how it ended (when the CLI said)
  std::optional<MemoryLimitUse> memory_limit;  // what the memory limit left out (only when it did)
};

class ReportContext {
 public:
  // Run facts.
  void SetBackend(std::string backend) { backend_ = std::move(backend); }
  void SetWarpModel(detector::WarpModel model) { warp_model_ = model; }
  void SetCommandLine(std::vector<std::string> argv) { command_line_ = std::move(argv); }
  void SetSchedule(Schedule schedule) { schedule_ = std::move(schedule); }
  // The analysis saw only part of the run (the app crashed or was killed and the
  // daemon drained what it could; records were lost). Reports say so.
  void MarkIncomplete(std::string reason);
  // A note printed with the summary (e.g. "1234 records lost: ring overflow").
  void AddNote(std::string note) { notes_.push_back(std::move(note)); }

  // Per-process side tables. Processes are listed in order of first mention.
  ProcessInfo& Process(uint32_t pid);
  void SetProcessCommandLine(uint32_t pid, std::vector<std::string> argv);
  // Numbers schedules in the order they are first set (the processes' order).
  void SetProcessSchedule(uint32_t pid, Schedule schedule);
  void SetProcessEnd(uint32_t pid, ProcessEnd end) { Process(pid).end = end; }
  // Schedule exploration (barracuda --schedules N): the run is N runs of the
  // program, one per schedule, each its own process.
  void SetExploredSchedules(uint32_t n) { explored_schedules_ = n; }
  uint32_t explored_schedules() const { return explored_schedules_; }
  // The distinct schedules of the processes, in process (= run) order; a
  // schedule's number in reports is its position here + 1.
  const std::vector<Schedule>& Schedules() const { return schedules_; }
  // 1-based number of the schedule `pid` ran under; 0 when it did not say.
  uint32_t ScheduleNumber(uint32_t pid) const;
  // Site ids site_base .. site_base+size-1 of `pid` map to `sites`. Fails when
  // the range overlaps a module already added (ids must be program-wide unique).
  absl::Status AddModule(uint32_t pid, uint32_t module_id, uint32_t site_base, std::string name,
                         ptx::SiteTable sites);
  void AddKernelName(uint32_t pid, uint32_t name_id, std::string mangled);
  // From the launch's kKernelBegin record (process id taken from its payload).
  void AddLaunch(const protocol::Record& kernel_begin);
  void AddLaunch(const LaunchInfo& launch);
  // A new allocation replaces the ones it overlaps (freed memory is reused).
  void AddAllocation(uint32_t pid, Allocation allocation);
  // Marks the allocation at `base` freed; it still names addresses in reports
  // (races are reported after the fact). False when there is none at `base`.
  bool FreeAllocation(uint32_t pid, uint64_t base);

  // Lookups (nullptr when unknown).
  const ProcessInfo* FindProcess(uint32_t pid) const;
  const ptx::Site* FindSite(uint32_t pid, uint32_t site_id, const ModuleInfo** module = nullptr) const;
  const LaunchInfo* FindLaunch(uint32_t pid, uint64_t launch_id) const;
  const Allocation* FindAllocation(uint32_t pid, uint64_t address) const;
  const std::string* KernelName(uint32_t pid, uint32_t name_id) const;

  const std::string& backend() const { return backend_; }
  detector::WarpModel warp_model() const { return warp_model_; }
  const std::vector<std::string>& command_line() const { return command_line_; }
  const std::optional<Schedule>& schedule() const { return schedule_; }
  // A kernel whose launches did not run (the emulator could not load or run
  // its code); also give the reason to MarkIncomplete. JSON: run.kernels_not_run.
  struct KernelNotRun {
    uint32_t pid = 0;
    std::string kernel;      // demangled
    std::string cuda_error;  // what the launches returned, e.g. "cudaErrorNotSupported"
    std::string reason;
    uint64_t launches = 0;
  };
  void AddKernelNotRun(KernelNotRun k) { kernels_not_run_.push_back(std::move(k)); }
  const std::vector<KernelNotRun>& kernels_not_run() const { return kernels_not_run_; }
  // A kernel's memory access fault (memory_errors.h resolves them).
  struct MemoryError {
    uint32_t pid = 0;
    transport::MemoryErrorInfo info;
    std::string cuda_error;  // the name of info.cuda_error ("cudaErrorIllegalAddress")
  };
  void AddMemoryError(uint32_t pid, transport::MemoryErrorInfo info, std::string cuda_error) {
    memory_errors_.push_back({pid, std::move(info), std::move(cuda_error)});
  }
  const std::vector<MemoryError>& memory_errors() const { return memory_errors_; }
  // Stream-order races (stream_order_races.h resolves them): two operations
  // of different streams that nothing orders, touching the same bytes.
  struct StreamOpSide {
    bool kernel = false;        // a kernel launch, else a copy, set or host access
    bool host = false;          // the host's own read or write (api "host access")
    bool host_function = false; // a host function's (api "host function"): work of its stream
    std::string api;            // "kernel launch", "cudaMemcpyAsync", "cudaMemsetAsync"
    uint64_t stream_id = 0;
    uint64_t launch_id = 0;     // kernels
    uint32_t site = protocol::kNoSite;  // kernels: the access
    bool write = false, strong = false;
    std::string host_location;  // where the program issued it ("main at app.cu:42"), may be empty
    std::string host_frames;    // the raw frames ("module+0xoffset ...")
    // A graph node's work: where the program added the node ("main at
    // app.cu:57", else its raw frames); a host function on a stream: where
    // it was enqueued; empty for other stream work.
    std::string node_location;
  };
  struct StreamOrderRace {
    uint32_t pid = 0;
    StreamOpSide earlier, later;
    uint64_t address = 0;
    uint64_t occurrences = 1;
  };
  void AddStreamOrderRace(StreamOrderRace race) { stream_order_races_.push_back(std::move(race)); }
  // Schedule exploration runs the program once per schedule, one process
  // each: the same two operations on the same bytes seen by several of them
  // are one entry (the first process's), their occurrences summed.
  void MergeStreamOrderRacesAcrossProcesses();
  const std::vector<StreamOrderRace>& stream_order_races() const { return stream_order_races_; }
  bool complete() const { return incomplete_reasons_.empty(); }
  const std::vector<std::string>& incomplete_reasons() const { return incomplete_reasons_; }
  const std::vector<std::string>& notes() const { return notes_; }
  const std::vector<ProcessInfo>& processes() const { return processes_; }

 private:
  std::string backend_;
  detector::WarpModel warp_model_ = detector::WarpModel::kIts;
  std::vector<std::string> command_line_;
  std::optional<Schedule> schedule_;
  uint32_t explored_schedules_ = 0;
  std::vector<Schedule> schedules_;  // distinct, in the order first set
  std::vector<std::string> incomplete_reasons_;
  std::vector<KernelNotRun> kernels_not_run_;
  std::vector<MemoryError> memory_errors_;
  std::vector<StreamOrderRace> stream_order_races_;
  std::vector<std::string> notes_;
  std::vector<ProcessInfo> processes_;
  absl::flat_hash_map<uint32_t, size_t> process_index_;
};

const char* WarpModelName(detector::WarpModel model);  // "its" / "lockstep"

// ---------------------------------------------------------------------------
// Resolved races: everything a writer prints, looked up once. Pointers point
// into the ReportContext: resolve after the last change to the context.

struct ResolvedAccess {
  protocol::Op op = protocol::Op::kRead;
  uint64_t thread_linear = 0;  // grid-linear thread id
  uint32_t block_linear = 0;
  std::optional<Dim3> thread;  // in-block coordinates; nullopt when the launch is unknown
  std::optional<Dim3> block;   // block coordinates; nullopt when the launch is unknown
  uint32_t warp = 0;           // warp within the block (grid-unique id when the launch is unknown)
  uint32_t lane = 0;
  uint8_t access_size = 0;     // 0: not known (the detector keeps no size for earlier accesses;
                               // then a plain ld/st/atom/red site gives it)
  bool async = false;          // done by the thread's asynchronous copy (cp.async)
  uint32_t site_id = protocol::kNoSite;
  const ptx::Site* site = nullptr;      // into the context; nullptr when unknown
  const ModuleInfo* module = nullptr;   // the site's module
};

struct ResolvedAllocation {
  uint64_t base = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  std::string kind;   // AllocationKindName, or "shared" for a block's shared window
  std::string label;
  bool freed = false;
};

// Schedule exploration (barracuda --schedules): one process (one schedule's
// run) that showed a reported race or memory error, and how often.
struct ScheduleSighting {
  uint32_t process_id = 0;
  uint64_t count = 0;
};

struct ResolvedRace {
  uint64_t ordinal = 0;  // 1-based position in the report, after filtering
  uint32_t process_id = 0;
  detector::RaceKey key;
  detector::RaceKind kind = detector::RaceKind::kReadAfterWrite;
  detector::RaceClass cls = detector::RaceClass::kInterBlock;
  protocol::Space space = protocol::Space::kGlobal;
  uint64_t count = 0;            // dynamic occurrences
  uint64_t address = 0;          // global: byte address; shared: offset in the block's window
  uint32_t shared_block = 0;     // shared: the window's grid-linear block id
  std::optional<ResolvedAllocation> allocation;
  uint64_t launch_id = 0;
  const LaunchInfo* launch = nullptr;  // into the context; nullptr when unknown
  std::string kernel_mangled;          // "" when unknown
  std::string kernel;                  // demangled; "kernel#<name id>" when unknown
  ResolvedAccess earlier;              // first access in the report ("first")
  ResolvedAccess later;                // the access that was being analysed ("second")
  // Schedule exploration: every process (schedule) whose run showed this race,
  // in run order, with its occurrences there; `process_id` is the first.
  using Sighting = ScheduleSighting;
  std::vector<Sighting> seen_in;
  // GroupBySource (race_grouping.h): the kinds and classes the entry's
  // members showed (RAW and WAR of one statement pair are one entry: which
  // comes first is the schedule's choice; so are classes), the PTX site
  // pairs, each with its occurrences, the example's first (all empty before
  // grouping), and the entry's fingerprint (race_fingerprint.h).
  struct Variant {
    detector::RaceKind kind = detector::RaceKind::kReadAfterWrite;
    detector::RaceClass cls = detector::RaceClass::kInterBlock;
    uint64_t count = 0;
  };
  std::vector<Variant> variants;  // sorted by kind, then class
  struct SitePair {
    ResolvedAccess earlier, later;  // a member's example accesses (their sites matter)
    uint64_t count = 0;
  };
  std::vector<SitePair> site_pairs;
  std::string fingerprint;
  // Some member's read raced with a write whose release the reading block
  // observed but never acquired (detector::RaceEvent::unacquired_release).
  bool unacquired_release = false;
};

// Resolves entries of several processes' reports, in code order: processes
// in the order given, then launch id, then the unordered pair of site ids
// (PTX order), then kind. Independent of the order races were detected in.
struct ProcessRaces {
  uint32_t process_id = 0;
  const detector::RaceReport* report = nullptr;
};
std::vector<ResolvedRace> ResolveRaces(const ReportContext& context,
                                       std::span<const ProcessRaces> reports);

// Schedule exploration: one entry per race over all schedules. Races of
// different processes are the same race when kernel (mangled name), site pair,
// kind and class agree (site ids are assigned in module load order, the same
// in every run of one program). The entry keeps the first schedule's example;
// `count` becomes the sum over schedules; `seen_in` lists each. Order: first
// sighting. Ordinals are renumbered.
std::vector<ResolvedRace> MergeAcrossSchedules(std::vector<ResolvedRace> races);
// Per schedule (index = number - 1): how many sightings of `races` it had.
std::vector<uint64_t> SightingsPerSchedule(const ReportContext& context, std::span<const ResolvedRace> races);

struct RaceCounts {
  uint64_t races = 0;    // distinct races (report entries)
  uint64_t dynamic = 0;  // their dynamic occurrences
  void Add(const ResolvedRace& race) { races++, dynamic += race.count; }
};

// One suppression rule that matched, for the summary.
struct SuppressionUse {
  std::string where;  // "file:line" of the rule
  std::string text;   // the rule as written
  RaceCounts counts;
};

// What the writers print: the races to show, and what happened to the others.
// Made by FilterRaces (suppressions.h), also when nothing is filtered.
struct ReportData {
  std::vector<ResolvedRace> races;  // shown, ordinals 1..n
  RaceCounts found;                 // every race, before suppressions and the limit
  RaceCounts suppressed;
  // Of `found` / `suppressed`, those of warning kinds (not counted in the exit status).
  RaceCounts found_warnings;
  RaceCounts suppressed_warnings;
  RaceCounts ignored;                      // dropped by an ignored kind (--ignore), not in `found`
  std::vector<detector::RaceKind> ignore;  // the ignored kinds
  std::vector<SuppressionUse> suppressions_used;  // rules that matched, in file order
  RaceCounts omitted;                  // not shown because of max_reports
  std::optional<uint64_t> max_reports;  // nullopt: no limit
};

// Shorthand for writers: "file:line" of the access's source location, else
// "module:ptx_line" (PTX), else "site N", else "unknown site".
std::string AccessLocationText(const ResolvedAccess& access);

}  // namespace barracuda::reports

#endif  // BARRACUDA_HOST_DETECTOR_REPORT_CONTEXT_H_
