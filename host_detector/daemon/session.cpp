#include "host_detector/daemon/session.h"
#include "ptx_rewriter/text_concat.h"

#include <cxxabi.h>
#include <signal.h>
#include <sys/resource.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

namespace barracuda::daemon {
namespace {

using protocol::Op;
using protocol::Record;
using transport::MessageType;

using ptx::Cat;

std::string Demangled(const std::string& mangled) {
  int status = 0;
  char* out = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return mangled;
  std::string s(out);
  std::free(out);
  return s;
}

// Alive and not a zombie (a crashed app that its parent has not reaped yet
// still has a pid; its records are all in the segment).
bool ProcessAlive(uint32_t pid) {
  std::ifstream in(Cat("/proc/", pid, "/stat"));
  if (!in) return false;
  std::string line;
  std::getline(in, line);
  const size_t paren = line.rfind(')');
  if (paren == std::string::npos || paren + 2 >= line.size()) return false;
  const char state = line[paren + 2];
  return state != 'Z' && state != 'X';
}

}  // namespace

// The values a launch that did not run, or faulted, returns (the daemon does
// not include the CUDA headers).
std::string CudaErrorName(int32_t e) {
  switch (e) {
    case 200: return "cudaErrorInvalidKernelImage";
    case 209: return "cudaErrorNoKernelImageForDevice";
    case 218: return "cudaErrorInvalidPtx";
    case 222: return "cudaErrorUnsupportedPtxVersion";
    case 700: return "cudaErrorIllegalAddress";
    case 702: return "cudaErrorLaunchTimeout";
    case 710: return "cudaErrorAssert";
    case 714: return "cudaErrorHardwareStackError";
    case 715: return "cudaErrorIllegalInstruction";
    case 716: return "cudaErrorMisalignedAddress";
    case 719: return "cudaErrorLaunchFailure";
    case 801: return "cudaErrorNotSupported";
    default: return Cat("CUDA error ", e);
  }
}

// Errors of a kernel that ran and faulted (trap, assert, illegal address,
// deadlock), as opposed to one the emulator could not run at all.
bool KernelFaulted(int32_t e) { return e >= 700 && e < 800; }

std::string AppEnd::Describe() const {
  switch (how) {
    case How::kExited: return Cat("exited with status ", code);
    case How::kSignaled: {
      const char* name = sigabbrev_np(code);
      return Cat("killed by signal ", code, name != nullptr ? Cat(" (SIG", name, ")") : std::string());
    }
    case How::kUnknown: break;
  }
  return "ended (status unknown)";
}

const ptx::Site* ProcessResult::FindSite(uint32_t site_id, const ModuleTable** module) const {
  for (const ModuleTable& m : modules) {
    if (site_id >= m.site_base && site_id - m.site_base < m.sites.sites.size()) {
      if (module != nullptr) *module = &m;
      return &m.sites.sites[site_id - m.site_base];
    }
  }
  return nullptr;
}

const std::string* ProcessResult::KernelName(uint32_t name_id) const {
  auto it = kernel_names.find(name_id);
  return it == kernel_names.end() ? nullptr : &it->second;
}

const AllocationEntry* ProcessResult::FindAllocation(uint64_t address) const {
  auto it = allocations.upper_bound(address);
  if (it == allocations.begin()) return nullptr;
  --it;
  return address - it->second.base < it->second.size ? &it->second : nullptr;
}

std::string PhaseSummary(const ProcessResult& p) {
  auto s = [](uint64_t ns) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f s", static_cast<double>(ns) / 1e9);
    return std::string(buf);
  };
  std::string out = Cat("process ", p.pid, ": ");
  if (p.producer_launch_ns != 0 || p.producer_waited_ns != 0)
    out += Cat("launches ", s(p.producer_launch_ns), " on the app's clock (its threads waited ",
               s(p.producer_waited_ns), " in all for room in full rings: the analysis behind), ");
  return out + Cat("draining ", s(p.drain_ns), ", analysis ", s(p.analysis_worker_ns), " of worker time (",
                   s(p.analysis_tail_ns), " after the last record of a launch arrived)");
}

std::string MemoryLimitSummary(const ProcessResult& p, const std::string& who) {
  const detector::Statistics& s = p.stats;
  if (!s.MemoryLimited()) return "";
  char limit[32];
  const double bytes = static_cast<double>(s.shadow_limit_bytes);
  if (bytes >= 1 << 30) {
    std::snprintf(limit, sizeof limit, "%.1f GiB", bytes / (1 << 30));
  } else if (bytes >= 1 << 20) {
    std::snprintf(limit, sizeof limit, "%.1f MiB", bytes / (1 << 20));
  } else {
    std::snprintf(limit, sizeof limit, "%.1f KiB", bytes / (1 << 10));
  }
  std::string out = Cat(who, ": the shadow memory limit (", limit, ", --memory-limit) was reached: ");
  if (s.limit_unchecked_accesses + s.limit_untracked_pages != 0)
    out += Cat(s.limit_unchecked_accesses, " thread accesses to ", s.limit_untracked_pages,
               " MiB of global memory were not checked");
  if (s.limit_dropped_clock_entries != 0)
    out += Cat(s.limit_unchecked_accesses + s.limit_untracked_pages != 0 ? " and " : "",
               s.limit_dropped_clock_entries, " earlier accesses by concurrent threads were not kept");
  return out + "; every race reported is real; rerun with a larger --memory-limit";
}

uint64_t SessionResult::memory_limited() const {
  uint64_t n = 0;
  for (const ProcessResult* p : processes) n += p->stats.MemoryLimited() || p->stats.out_of_memory;
  return n;
}

uint64_t SessionResult::races() const {
  uint64_t n = 0;
  for (const ProcessResult* p : processes) n += p->report != nullptr ? p->report->size() : 0;
  return n;
}

uint64_t SessionResult::dynamic_races() const {
  uint64_t n = 0;
  for (const ProcessResult* p : processes) n += p->report != nullptr ? p->report->total_dynamic() : 0;
  return n;
}

uint64_t SessionResult::memory_errors() const {
  uint64_t n = 0;
  for (const ProcessResult* p : processes) n += p->memory_errors.size() + p->memory_errors_dropped;
  return n;
}

uint64_t SessionResult::stream_order_races() const {
  uint64_t n = 0;
  for (const ProcessResult* p : processes) n += p->stream_order_races.size();
  return n;
}

uint64_t SessionResult::launches_not_run() const {
  uint64_t n = 0;
  for (const ProcessResult* p : processes)
    for (const NotRunKernel& k : p->not_run) n += k.launches;
  return n;
}

uint64_t SessionResult::launches_unchecked() const {
  uint64_t n = 0;
  for (const ProcessResult* p : processes)
    for (const UncheckedKernel& k : p->unchecked) n += k.launches;
  return n;
}

// ---------------------------------------------------------------------------

struct AnalysisSession::Process {
  explicit Process(detector::DetectorOptions o) : detector(std::make_unique<detector::Detector>(o)) {}
  struct OpenLaunch {
    Record begin{};
    Record end{};
    uint32_t rings = 0;
    bool selected = true;
    std::unique_ptr<detector::StreamingLaunch> stream;  // null: not analysed
    std::vector<uint64_t> received;  // per ring
    std::vector<bool> ended;  // end marker seen on ring r
    std::optional<std::chrono::steady_clock::time_point> all_in;  // every record received
    std::optional<std::vector<uint64_t>> expected;  // from kLaunchEnd
  };
  ProcessResult result;
  transport::MessageStream stream;
  // Null once the process is released: its report, statistics and status are
  // kept below and its shadow memory and clocks are gone (a session of many
  // processes, e.g. schedule exploration, holds one detector per live process).
  std::unique_ptr<detector::Detector> detector;
  detector::RaceReport kept_report;
  absl::Status kept_status;
  std::optional<OpenLaunch> open;
  StreamOrderCheck stream_order;  // operations of several streams (kStreamOp)
  bool exit_seen = false;
  bool gave_up = false;  // the stream is corrupt: stop reading it
  bool released = false;  // finished: rings checked, slot pages given back
};

AnalysisSession::AnalysisSession(transport::Segment segment, SessionOptions options)
    : segment_(std::move(segment)),
      options_(std::move(options)),
      pool_(std::make_unique<detector::AnalysisPool>(std::max(1u, options_.analysis_workers))) {
  segment_.header().daemon_pid.store(static_cast<uint32_t>(getpid()), std::memory_order_release);
}

AnalysisSession::~AnalysisSession() = default;

void AnalysisSession::Error(std::string message) { errors_.push_back(std::move(message)); }

bool AnalysisSession::KernelSelected(const Process& p, uint32_t name_id) const {
  if (!options_.kernel_include && !options_.kernel_exclude) return true;
  const std::string* mangled = p.result.KernelName(name_id);
  const std::string name = mangled != nullptr ? *mangled : Cat("kernel#", name_id);
  const std::string demangled = Demangled(name);
  auto matches = [&](const std::regex& re) {
    return std::regex_search(name, re) || std::regex_search(demangled, re);
  };
  if (options_.kernel_include && !matches(*options_.kernel_include)) return false;
  if (options_.kernel_exclude && matches(*options_.kernel_exclude)) return false;
  return true;
}

bool AnalysisSession::Poll() {
  bool progress = false;
  const uint32_t slots = segment_.layout().max_processes;
  for (uint32_t s = 0; s < slots; ++s) {
    if (by_slot_.contains(s)) continue;
    const auto state = static_cast<transport::SlotState>(segment_.slot(s).state.load(std::memory_order_acquire));
    if (state != transport::SlotState::kActive && state != transport::SlotState::kExited) continue;
    detector::DetectorOptions dopts;
    dopts.warp_model = options_.warp_model;
    dopts.barrier_arrivals_in_groups = options_.barrier_arrivals_in_groups;
    dopts.shadow_limit_bytes = options_.memory_limit_bytes;
    auto p = std::make_unique<Process>(dopts);
    p->result.slot = s;
    p->result.pid = segment_.slot(s).pid.load(std::memory_order_relaxed);
    p->result.report = &p->detector->Report();
    by_slot_[s] = p.get();
    processes_.push_back(std::move(p));
    progress = true;
  }
  for (auto& p : processes_) progress |= PollProcess(*p);
  return progress;
}

bool AnalysisSession::PollProcess(Process& p) {
  if (p.gave_up) return false;
  bool progress = false;
  // Bounded, so that one busy process cannot starve the others (or the control fd).
  for (int round = 0; round < 64; ++round) {
    // Channel before rings: a producer sends kLaunchEnd / kExit after its
    // pushes, so once those are read the ring pass sees every record.
    bool step = HandleMessages(p);
    step |= DrainOpenLaunch(p);
    if (p.open && p.open->expected &&
        std::all_of(p.open->ended.begin(), p.open->ended.end(), [](bool e) { return e; }) &&
        (p.open->stream == nullptr || p.open->stream->Analysed())) {
      AnalyseLaunch(p, /*complete=*/true);
      step = true;
    }
    if (!step || p.gave_up) break;
    progress = true;
  }
  // A process that exited and whose records are all analysed gives its slot's
  // pages and its detector's memory back (schedule exploration runs many
  // processes in one session: vector add 1M under 8 schedules held 815 MiB
  // before, 133 MiB after; one run: 122 MiB).
  if (!p.released && !p.gave_up && p.exit_seen && !p.open &&
      static_cast<transport::SlotState>(segment_.slot(p.result.slot).state.load(std::memory_order_acquire)) ==
          transport::SlotState::kExited) {
    CheckRingsDrained(p);
    segment_.ReleaseSlotData(p.result.slot);
    // Its analysis is over: keep what the report needs, drop the detector.
    p.kept_report = p.detector->Report();
    p.result.report = &p.kept_report;
    p.result.stats = p.detector->Stats();
    p.kept_status = p.detector->status();
    p.detector.reset();
    p.released = true;
  }
  return progress;
}

std::string AnalysisSession::Who(const Process& p) const {
  const ProcessResult& res = p.result;
  std::string who =
      Cat("process ", res.pid, res.command_line.empty() ? std::string() : Cat(" (", res.command_line[0], ")"));
  if (options_.explored_schedules > 1 && res.schedule)
    who += Cat(" under schedule ", res.schedule->policy, ", seed ", res.schedule->seed, " (replay: barracuda --seed ",
               res.schedule->seed, " --schedule-policy ", res.schedule->policy,
               res.schedule->arguments.empty() ? "" : " ", res.schedule->arguments, ")");
  return who;
}

// Nothing lost: every record produced on a ring was consumed.
void AnalysisSession::CheckRingsDrained(const Process& p) {
  const uint32_t rings = segment_.slot(p.result.slot).rings_used.load(std::memory_order_relaxed);
  for (uint32_t r = 0; r < rings; ++r) {
    transport::RecordRing ring = segment_.ring(p.result.slot, r);
    if (ring.produced() != ring.consumed())
      Error(Cat(Who(p), " ring ", r, ": ", ring.produced(), " records produced, ", ring.consumed(),
                " consumed (lost)"));
  }
}

bool AnalysisSession::HandleMessages(Process& p) {
  transport::ByteChannel channel = segment_.channel(p.result.slot);
  p.stream.Fill(channel);
  bool progress = false;
  transport::MessageStream::Message m;
  const uint32_t pid = p.result.pid;
  // Messages after a kLaunchEnd wait until that launch has been analysed.
  while (!(p.open && p.open->expected) && p.stream.Next(&m)) {
    progress = true;
    transport::PayloadReader r(m.payload);
    auto malformed = [&] { Error(Cat("process ", pid, ": malformed ", transport::MessageTypeName(m.type),
                                     " message (", m.payload.size(), " bytes)")); };
    switch (m.type) {
      case MessageType::kHello: {
        std::string_view rest = r.Rest();
        p.result.command_line.clear();
        size_t start = 0;
        for (size_t i = 0; i < rest.size(); ++i)
          if (rest[i] == '\0') p.result.command_line.emplace_back(rest.substr(start, i - start)), start = i + 1;
        break;
      }
      case MessageType::kModule: {
        ModuleTable mod;
        uint32_t name_len = 0;
        std::string_view name;
        if (!r.U32(&mod.module_id) || !r.U32(&mod.site_base) || !r.U32(&name_len) || !r.Bytes(name_len, &name)) {
          malformed();
          break;
        }
        mod.name = std::string(name);
        absl::StatusOr<ptx::SiteTable> sites = ptx::SiteTable::FromJsonText(r.Rest());
        if (!sites.ok()) {
          Error(Cat("process ", pid, ": site table of module ", mod.name, " unreadable: ", sites.status().message()));
          break;
        }
        mod.sites = std::move(*sites);
        p.result.modules.push_back(std::move(mod));
        break;
      }
      case MessageType::kKernelName: {
        uint32_t id = 0;
        if (!r.U32(&id)) {
          malformed();
          break;
        }
        p.result.kernel_names[id] = std::string(r.Rest());
        break;
      }
      case MessageType::kLaunchBegin: {
        Process::OpenLaunch launch;
        if (!r.Rec(&launch.begin) || !r.U32(&launch.rings) || launch.rings == 0 ||
            launch.rings > segment_.layout().rings_per_process ||
            protocol::OpOf(launch.begin.header) != Op::kKernelBegin) {
          malformed();
          p.gave_up = true;  // the rings cannot be attributed any more
          return true;
        }
        if (p.open) {
          Error(Cat("process ", pid, ": launch ", p.open->begin.kernel.launch_id, " never ended"));
          AnalyseLaunch(p, /*complete=*/false);
        }
        launch.selected = KernelSelected(p, launch.begin.kernel.name_id);
        launch.received.assign(launch.rings, 0);
        launch.ended.assign(launch.rings, false);
        if (launch.selected) {
          auto stream = detector::StreamingLaunch::Begin(*p.detector, *pool_, launch.begin, launch.rings);
          if (stream.ok())
            launch.stream = std::move(*stream);
          else
            Error(Cat("process ", pid, " launch ", launch.begin.kernel.launch_id,
                      ": analysis failed: ", stream.status().message()));
        }
        p.open = std::move(launch);
        segment_.header().launches_begun.fetch_add(1, std::memory_order_relaxed);
        break;
      }
      case MessageType::kLaunchEnd: {
        Record end{};
        uint32_t rings = 0;
        if (!r.Rec(&end) || !r.U32(&rings) || !p.open || rings != p.open->rings) {
          malformed();
          p.gave_up = true;
          return true;
        }
        std::vector<uint64_t> counts(rings);
        for (uint64_t& c : counts)
          if (!r.U64(&c)) {
            malformed();
            p.gave_up = true;
            return true;
          }
        p.open->end = end;
        p.open->expected = std::move(counts);
        break;
      }
      case MessageType::kAllocation: {
        AllocationEntry a;
        uint32_t kind = 0;
        if (!r.U64(&a.base) || !r.U64(&a.size) || !r.U32(&kind)) {
          malformed();
          break;
        }
        a.kind = static_cast<transport::AllocationKind>(kind);
        a.label = std::string(r.Rest());
        // A new allocation replaces those it overlaps (memory is reused).
        auto it = p.result.allocations.lower_bound(a.base);
        if (it != p.result.allocations.begin() && std::prev(it)->second.base + std::prev(it)->second.size > a.base)
          --it;
        while (it != p.result.allocations.end() && it->first < a.base + a.size) it = p.result.allocations.erase(it);
        p.result.allocations[a.base] = std::move(a);
        break;
      }
      case MessageType::kFree: {
        uint64_t base = 0;
        if (!r.U64(&base)) {
          malformed();
          break;
        }
        if (auto it = p.result.allocations.find(base); it != p.result.allocations.end()) it->second.freed = true;
        break;
      }
      case MessageType::kExit: {
        int32_t status = 0;
        (void)r.I32(&status);
        p.exit_seen = true;
        p.result.exited_normally = true;
        p.result.exit_status = status;
        break;
      }
      case MessageType::kDiagnostic:
        p.result.diagnostics.emplace_back(r.Rest());
        break;
      case MessageType::kSchedule: {
        ProcessSchedule schedule;
        uint32_t policy_len = 0;
        std::string_view policy;
        if (!r.U64(&schedule.seed) || !r.U32(&policy_len) || !r.Bytes(policy_len, &policy)) {
          malformed();
          break;
        }
        schedule.policy = std::string(policy);
        schedule.arguments = std::string(r.Rest());
        p.result.schedule = std::move(schedule);
        break;
      }
      case MessageType::kProducerStats: {
        uint64_t launches = 0;
        if (!r.U64(&p.result.producer_launch_ns) || !r.U64(&p.result.producer_waited_ns) || !r.U64(&launches))
          malformed();
        break;
      }
      case MessageType::kLaunchNotRun: {
        int32_t error = 0;
        uint32_t name_len = 0;
        std::string_view name;
        if (!r.I32(&error) || !r.U32(&name_len) || !r.Bytes(name_len, &name)) {
          malformed();
          break;
        }
        const std::string_view reason = r.Rest();
        // One entry per kernel and reason: a loop of failed launches is one line.
        auto it = std::find_if(p.result.not_run.begin(), p.result.not_run.end(), [&](const NotRunKernel& k) {
          return k.mangled == name && k.cuda_error == error && k.reason == reason;
        });
        if (it == p.result.not_run.end())
          it = p.result.not_run.insert(p.result.not_run.end(),
                                       NotRunKernel{std::string(name), error, std::string(reason), 0});
        ++it->launches;
        break;
      }
      case MessageType::kLaunchUnchecked: {
        uint32_t name_len = 0;
        std::string_view name;
        if (!r.U32(&name_len) || !r.Bytes(name_len, &name)) {
          malformed();
          break;
        }
        const std::string_view what = r.Rest();
        auto it = std::find_if(p.result.unchecked.begin(), p.result.unchecked.end(),
                               [&](const UncheckedKernel& k) { return k.mangled == name && k.what == what; });
        if (it == p.result.unchecked.end())
          it = p.result.unchecked.insert(p.result.unchecked.end(), UncheckedKernel{std::string(name), std::string(what), 0});
        ++it->launches;
        break;
      }
      case MessageType::kStreamOp: {
        std::optional<transport::StreamOpInfo> op = transport::StreamOpInfo::Decode(m.payload);
        if (!op) {
          malformed();
          break;
        }
        p.stream_order.OnOp(std::move(*op));
        break;
      }
      case MessageType::kMemoryError: {
        std::optional<transport::MemoryErrorInfo> error = transport::MemoryErrorInfo::Decode(m.payload);
        if (!error) {
          malformed();
          break;
        }
        if (p.result.memory_errors.size() < kMaxMemoryErrors) {
          p.result.memory_errors.push_back(std::move(*error));
        } else {
          ++p.result.memory_errors_dropped;
        }
        break;
      }
      default:
        Error(Cat("process ", pid, ": unknown message type ", static_cast<uint32_t>(m.type)));
        break;
    }
  }
  if (p.stream.error()) {
    Error(Cat("process ", pid, ": side-table channel corrupt (oversized frame); stopped reading it"));
    p.gave_up = true;
  }
  return progress;
}

bool AnalysisSession::DrainOpenLaunch(Process& p) {
  if (!p.open) return false;
  const auto start = std::chrono::steady_clock::now();
  bool progress = false;
  constexpr size_t kBatch = 256;
  Record scratch[kBatch];
  for (uint32_t r = 0; r < p.open->rings; ++r) {
    if (p.open->ended[r]) continue;
    detector::StreamingLaunch* stream = p.open->stream.get();
    // Backpressure: records beyond the backlog stay in the ring (the producer
    // waits when it is full), unless the analysis waits for a stamp that may
    // be behind them.
    if (stream != nullptr && stream->backlog(r) >= options_.backlog_records && !stream->stuck()) {
      p.result.held_back++;
      continue;
    }
    transport::RecordRing ring = segment_.ring(p.result.slot, r);
    for (int batch = 0; batch < 64; ++batch) {  // at most 16384 records per ring per call
      const size_t got = ring.PeekBatch(scratch);
      size_t take = got, keep = got;
      for (size_t i = 0; i < got; ++i) {
        if (protocol::OpOf(scratch[i].header) == Op::kKernelEnd) {  // this ring's end marker
          take = i + 1;
          keep = i;
          p.open->ended[r] = true;
          break;
        }
      }
      if (stream != nullptr) stream->Append(r, std::span<const Record>(scratch, keep));
      if (p.stream_order.Collecting(p.open->begin.kernel.launch_id))
        p.stream_order.Collect(std::span<const Record>(scratch, keep));
      ring.Consume(take);
      p.open->received[r] += keep;
      p.result.records_received += keep;
      progress |= take != 0;
      if (p.open->ended[r] && stream != nullptr) stream->EndRing(r);
      if (p.open->ended[r] || got < kBatch) break;
      if (stream != nullptr && stream->backlog(r) >= options_.backlog_records && !stream->stuck()) break;
    }
  }
  if (p.open->stream != nullptr) {
    uint64_t backlog = 0;
    for (uint32_t r = 0; r < p.open->rings; ++r) backlog += p.open->stream->backlog(r);
    p.result.peak_backlog_records = std::max(p.result.peak_backlog_records, backlog);
    p.result.peak_held_bytes = std::max(p.result.peak_held_bytes, p.open->stream->held_bytes());
  }
  const auto now = std::chrono::steady_clock::now();
  if (progress) p.result.drain_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(now - start).count();
  if (!p.open->all_in && p.open->expected &&
      std::all_of(p.open->ended.begin(), p.open->ended.end(), [](bool e) { return e; }))
    p.open->all_in = now;
  return progress;
}

// Whether the open launch will move without new records from the producer.
// For a process that ended: records still in its rings or not analysed yet.
// For one still running (it may go on sending for ever): only a launch whose
// rings all ended and whose analysis is finishing.
bool AnalysisSession::InFlight(const Process& p) {
  if (!p.open) return false;
  const auto state = static_cast<transport::SlotState>(segment_.slot(p.result.slot).state.load(std::memory_order_acquire));
  const bool ended_process = state == transport::SlotState::kExited || !ProcessAlive(p.result.pid);
  bool all_ended = true;
  for (uint32_t r = 0; r < p.open->rings; ++r) {
    if (p.open->ended[r]) continue;
    all_ended = false;
    transport::RecordRing ring = segment_.ring(p.result.slot, r);
    if (ended_process && ring.produced() != ring.consumed()) return true;
  }
  const detector::StreamingLaunch* stream = p.open->stream.get();
  if (stream == nullptr || stream->Analysed()) return false;
  if (all_ended) return true;
  // Stuck: it waits for a stamp the dead producer will not send (Finish() skips it).
  if (!ended_process || stream->stuck()) return false;
  for (uint32_t r = 0; r < p.open->rings; ++r)
    if (stream->backlog(r) != 0) return true;
  return false;
}

void AnalysisSession::AnalyseLaunch(Process& p, bool complete) {
  Process::OpenLaunch& launch = *p.open;
  const uint64_t launch_id = launch.begin.kernel.launch_id;
  const uint32_t pid = p.result.pid;
  uint64_t total = 0;
  for (uint32_t r = 0; r < launch.rings; ++r) {
    total += launch.received[r];
    if (complete && launch.expected && (*launch.expected)[r] != launch.received[r])
      Error(Cat("process ", pid, " launch ", launch_id, " ring ", r, ": ", (*launch.expected)[r],
                " records produced, ", launch.received[r], " received"));
  }
  LaunchSummary summary;
  summary.begin = launch.begin;
  summary.records = total;
  summary.complete = complete;
  summary.analysed = launch.selected;
  if (launch.selected) {
    // The detector counted the kKernelBegin record at Begin.
    const uint64_t before = p.detector->Stats().records - (launch.stream != nullptr ? 1 : 0);
    if (launch.stream != nullptr) {
      launch.stream->Finish();
      p.result.stamp_gaps += launch.stream->gaps();
      p.result.analysis_worker_ns += launch.stream->worker_ns();
      if (launch.all_in)
        p.result.analysis_tail_ns +=
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - *launch.all_in)
                .count();
    }
    const uint64_t analysed = p.detector->Stats().records - before;
    const uint64_t handed = total + 1;
    if (analysed != handed)
      Error(Cat("process ", pid, " launch ", launch_id, ": ", total, " records received, ",
                analysed > 0 ? analysed - 1 : 0, " analysed"));
    p.result.records_analysed += analysed > 0 ? analysed - 1 : 0;
  } else {
    p.result.records_skipped += total;
  }
  p.result.launches[launch_id] = summary;
  p.stream_order.EndLaunch(launch_id);
  p.open.reset();
  transport::SegmentHeader& h = segment_.header();
  h.launches_analysed.fetch_add(1, std::memory_order_relaxed);
  h.records_analysed.fetch_add(total, std::memory_order_relaxed);
  uint64_t races = 0;
  for (const auto& q : processes_) races += q->detector ? q->detector->RaceCount() : q->kept_report.size();
  h.races_found.store(races, std::memory_order_relaxed);
}

void AnalysisSession::Finish(const AppEnd& app_end) {
  const auto deadline = std::chrono::steady_clock::now() + options_.grace;
  // Wait until every attached process has exited (or died) and is drained.
  for (;;) {
    const bool progress = Poll();
    bool all_done = true;
    bool draining = false;  // a process that ended still has records on their way
    for (auto& p : processes_) {
      if (p->gave_up) continue;
      const auto state =
          static_cast<transport::SlotState>(segment_.slot(p->result.slot).state.load(std::memory_order_acquire));
      const bool alive = ProcessAlive(p->result.pid);
      const bool finished = (p->exit_seen && state == transport::SlotState::kExited && !p->open) || !alive;
      all_done &= finished;
      // What it sent is still being drained or analysed (no deadline for
      // that; a live process may still be sending, so only its analysis).
      if (InFlight(*p)) draining = true;
    }
    if (all_done && !progress && !draining) break;
    if (std::chrono::steady_clock::now() > deadline && !draining) break;
    if (!progress) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // What arrived: drained, and every launch whose analysis is under way finished.
  for (;;) {
    if (Poll()) continue;
    bool busy = false;
    for (auto& p : processes_) busy |= !p->gave_up && InFlight(*p);
    if (!busy) break;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  // A process whose pid attached again later (a higher slot: slots are taken
  // in order and never reused) was replaced by exec (a fork that re-executes
  // itself or runs another CUDA program): its image ended without an exit,
  // which is not an abnormal end.
  absl::flat_hash_map<uint32_t, uint32_t> last_slot_of_pid;
  for (const auto& p : processes_) {
    uint32_t& last = last_slot_of_pid[p->result.pid];
    last = std::max(last, p->result.slot);
  }
  for (auto& p : processes_) {
    ProcessResult& res = p->result;
    const bool replaced_by_exec = last_slot_of_pid[res.pid] != res.slot;
    if (auto it = process_ends_.find(res.pid); it != process_ends_.end()) res.end = it->second;
    const std::string who = Who(*p);
    const bool alive = ProcessAlive(res.pid);
    if (p->open) {
      const std::string* kernel = res.KernelName(p->open->begin.kernel.name_id);
      incomplete_.push_back(Cat(who, " ended during launch ", p->open->begin.kernel.launch_id, " of ",
                                kernel != nullptr ? Demangled(*kernel) : std::string("an unknown kernel"),
                                ": records after that point are missing"));
      AnalyseLaunch(*p, /*complete=*/false);
    }
    for (const NotRunKernel& k : res.not_run) {
      const bool faulted = KernelFaulted(k.cuda_error);
      if (k.cuda_error == 0) {
        // It ran, but nothing watched it (the GPU backend could not instrument it).
        incomplete_.push_back(Cat(who, ": kernel ", Demangled(k.mangled), " was not analysed (", k.launches,
                                  k.launches == 1 ? " launch" : " launches", "): ", k.reason));
        continue;
      }
      if (!faulted && k.mangled.size() > 2 && k.mangled.front() == '(' && k.mangled.back() == ')') {
        // Kernels the emulator learnt of outside a launch ("(the kernels of
        // libcublas.so.13)"): no launch count to give.
        incomplete_.push_back(Cat(who, ": ", k.mangled.substr(1, k.mangled.size() - 2), " did not run (",
                                  CudaErrorName(k.cuda_error), "): ", k.reason));
        continue;
      }
      incomplete_.push_back(Cat(who, ": kernel ", Demangled(k.mangled), faulted ? " faulted (" : " did not run (",
                                k.launches, k.launches == 1 ? " launch" : " launches", " failed with ",
                                CudaErrorName(k.cuda_error), "): ", k.reason,
                                faulted ? "; the rest of the launch and the process's later launches were not analysed"
                                        : ""));
    }
    for (const UncheckedKernel& k : res.unchecked)
      incomplete_.push_back(Cat(who, ": kernel ", Demangled(k.mangled), " was analysed in part (", k.launches,
                                k.launches == 1 ? " launch" : " launches", "): the GPU backend does not log ", k.what,
                                "; races through these instructions are not checked (--backend=emu checks them)"));
    for (const transport::MemoryErrorInfo& e : res.memory_errors)
      incomplete_.push_back(Cat(who, ": kernel ", Demangled(e.kernel), " stopped at a memory error (launch ",
                                e.launch_id, " failed with ", CudaErrorName(e.cuda_error),
                                "); the rest of the launch and the process's later launches were not analysed"));
    res.stream_order_races = p->stream_order.races();
    res.stream_order_truncated = p->stream_order.truncated_ops();
    if (res.memory_errors_dropped != 0)
      incomplete_.push_back(Cat(who, ": ", res.memory_errors_dropped, " more memory errors not kept (at most ",
                                kMaxMemoryErrors, " per process)"));
    if (!p->exit_seen && !replaced_by_exec) {
      if (alive)
        incomplete_.push_back(Cat(who, " was still running when the report was written"));
      else if (const AppEnd& end = res.end ? *res.end : app_end; end.how == AppEnd::How::kExited)
        // An exit status, but the runtime's exit handlers never ran: _exit(),
        // or an exec of a program without CUDA.
        incomplete_.push_back(Cat(who, " ended without the CUDA runtime's exit handlers running (_exit, or an exec "
                                  "of a program without CUDA; the app ", end.Describe(),
                                  "): work it had not handed over by then was not analysed"));
      else
        incomplete_.push_back(Cat(who, " did not exit normally (", end.Describe(), ")"));
    }
    if (!p->released) CheckRingsDrained(*p);
    if (res.records_received != res.records_analysed + res.records_skipped)
      Error(Cat(who, ": ", res.records_received, " records received, ", res.records_analysed, " analysed, ",
                res.records_skipped, " skipped by kernel filters"));
    if (p->detector) {
      res.stats = p->detector->Stats();
      p->kept_status = p->detector->status();
    }
    if (std::string why = MemoryLimitSummary(res, who); !why.empty()) incomplete_.push_back(std::move(why));
    if (res.stats.out_of_memory)
      incomplete_.push_back(Cat(who, ": the daemon ran out of memory during the analysis (an allocation failed): ",
                                res.stats.oom_skipped_records,
                                " records from that point on were not analysed; every race reported is real; "
                                "lower --memory-limit or give the daemon more memory"));
    if (res.stats.malformed_records != 0)
      Error(Cat(who, ": ", res.stats.malformed_records,
                " malformed records rejected by the detector: ", p->kept_status.message()));
  }
}

SessionResult AnalysisSession::result() const {
  SessionResult r;
  for (const auto& p : processes_) r.processes.push_back(&p->result);
  r.errors = errors_;
  r.incomplete_reasons = incomplete_;
  r.warp_model = options_.warp_model;
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) == 0) r.daemon_peak_rss_bytes = static_cast<size_t>(usage.ru_maxrss) * 1024;
  return r;
}

}  // namespace barracuda::daemon
