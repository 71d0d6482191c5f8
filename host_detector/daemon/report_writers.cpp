// WriteReports through the report writers (host_detector/report_*.h,
// suppressions.h): the session's side tables become a reports::ReportContext,
// each process's RaceReport a ProcessRaces entry. Compiled when CMake finds the
// barracuda_reports target (BARRACUDA_DAEMON_REPORT_WRITERS); otherwise
// report_output.cpp's minimal writers are used.
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "host_detector/daemon/host_symbols.h"
#include "host_detector/daemon/report_output.h"
#include "host_detector/reports/race_grouping.h"
#include "host_detector/reports/report_context.h"
#include "host_detector/reports/report_json.h"
#include "host_detector/reports/report_sarif.h"
#include "host_detector/reports/report_text.h"
#include "host_detector/reports/suppressions.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::daemon {
namespace {

std::string MiB(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

using ptx::Cat;

reports::AllocationKind KindOf(transport::AllocationKind k) {
  switch (k) {
    case transport::AllocationKind::kDevice: return reports::AllocationKind::kDevice;
    case transport::AllocationKind::kAsync: return reports::AllocationKind::kAsync;
    case transport::AllocationKind::kManaged: return reports::AllocationKind::kManaged;
    case transport::AllocationKind::kHostMapped: return reports::AllocationKind::kHostMapped;
    case transport::AllocationKind::kModuleGlobal: return reports::AllocationKind::kModuleGlobal;
    case transport::AllocationKind::kOther: break;
  }
  return reports::AllocationKind::kOther;
}

}  // namespace

absl::StatusOr<ReportOutcome> WriteReportsWithWriters(const SessionResult& result, const ReportRequest& request) {
  std::optional<reports::SuppressionSet> suppressions;
  for (const std::string& path : request.suppressions_paths) {
    absl::StatusOr<reports::SuppressionSet> loaded = reports::SuppressionSet::Load(path);
    if (!loaded.ok()) return loaded.status();
    if (suppressions) suppressions->Append(*loaded);
    else suppressions = std::move(*loaded);
  }
  reports::ReportContext ctx;
  ctx.SetBackend(result.backend);
  ctx.SetWarpModel(result.warp_model);
  ctx.SetCommandLine(request.command_line);
  if (request.schedule) ctx.SetSchedule(*request.schedule);
  ctx.SetExploredSchedules(request.explored_schedules);
  for (const std::string& reason : result.incomplete_reasons) ctx.MarkIncomplete(reason);
  for (const std::string& note : request.notes) ctx.AddNote(note);
  // What the GPU path does not check, said where the verdict is read (a user
  // of --backend=gpu would otherwise take "0 races" for these too).
  if (result.backend == "gpu")
    ctx.AddNote("GPU backend: stream-order races (kernels, async copies and host accesses of different streams) "
                "and texture and surface accesses are checked on the emulator backend only");
  for (const std::string& error : result.errors) ctx.AddNote(Cat("analysis error: ", error));
  std::vector<reports::ProcessRaces> races_of;
  for (const ProcessResult* p : result.processes) {
    ctx.Process(p->pid);
    ctx.SetProcessCommandLine(p->pid, p->command_line);
    if (p->schedule) ctx.SetProcessSchedule(p->pid, {p->schedule->policy, p->schedule->seed, p->schedule->arguments});
    if (const detector::Statistics& st = p->stats; st.MemoryLimited())
      ctx.Process(p->pid).memory_limit = reports::MemoryLimitUse{st.shadow_limit_bytes, st.limit_unchecked_accesses,
                                                                 st.limit_untracked_pages,
                                                                 st.limit_dropped_clock_entries};
    if (p->end && p->end->how != AppEnd::How::kUnknown)
      ctx.SetProcessEnd(p->pid, {p->end->how == AppEnd::How::kSignaled, p->end->code});
    for (const ModuleTable& m : p->modules) {
      absl::Status s = ctx.AddModule(p->pid, m.module_id, m.site_base, m.name, m.sites);
      if (!s.ok()) ctx.AddNote(Cat("process ", p->pid, ": module ", m.name, ": ", s.message()));
    }
    for (const auto& [id, name] : p->kernel_names) ctx.AddKernelName(p->pid, id, name);
    for (const auto& [id, launch] : p->launches) ctx.AddLaunch(launch.begin);
    for (const auto& [base, a] : p->allocations) {
      reports::Allocation alloc;
      alloc.base = a.base;
      alloc.size = a.size;
      alloc.kind = KindOf(a.kind);
      alloc.label = a.label;
      alloc.freed = a.freed;
      ctx.AddAllocation(p->pid, alloc);
    }
    for (const std::string& d : p->diagnostics) ctx.AddNote(Cat("process ", p->pid, ": ", d));
    for (const NotRunKernel& k : p->not_run)
      ctx.AddKernelNotRun({p->pid, reports::Demangle(k.mangled), CudaErrorName(k.cuda_error), k.reason, k.launches});
    for (const transport::MemoryErrorInfo& e : p->memory_errors)
      ctx.AddMemoryError(p->pid, e, CudaErrorName(e.cuda_error));
    for (const StreamOrderRace& r : p->stream_order_races) {
      auto side = [&](const StreamOrderRace::Side& s) {
        reports::ReportContext::StreamOpSide out;
        out.kernel = s.kind == transport::StreamOpKind::kKernel;
        const bool host_side = s.kind == transport::StreamOpKind::kHostAccess;
        out.host = host_side && s.stream_id == transport::kHostTimeline;
        out.host_function = host_side && !out.host;
        out.api = s.api;
        out.stream_id = s.stream_id;
        out.launch_id = s.launch_id;
        out.site = s.site;
        out.write = s.write;
        out.strong = s.strong;
        out.host_frames = s.host_location;
        std::string kernel;
        if (auto l = p->launches.find(s.launch_id); out.kernel && l != p->launches.end())
          if (const std::string* name = p->KernelName(l->second.begin.kernel.name_id)) kernel = reports::Demangle(*name);
        out.host_location = HostSourceLocation(s.host_location, kernel);
        if (!s.node_location.empty()) {
          out.node_location = HostSourceLocation(s.node_location, kernel);
          if (out.node_location.empty()) out.node_location = s.node_location;
        }
        return out;
      };
      ctx.AddStreamOrderRace({p->pid, side(r.earlier), side(r.later), r.address, r.occurrences});
    }
    if (p->stream_order_truncated != 0)
      ctx.AddNote(Cat("process ", p->pid, ": ", p->stream_order_truncated,
                      " stream operations touched more than 512 MiB; stream-order checks covered the first 512 MiB"));
    uint64_t device_bytes = 0;
    for (const auto& [base, a] : p->allocations) device_bytes += a.size;
    if (request.verbose)
      ctx.AddNote(Cat("process ", p->pid, ": ", MiB(device_bytes), " MiB of device memory allocated"));
    if (request.verbose)
      ctx.AddNote(Cat("process ", p->pid, ": ", p->launches.size(), " launches, ", p->records_analysed,
                      " records analysed, ", p->records_skipped, " skipped by kernel filters, ",
                      p->stats.warp_accesses, " warp accesses, ", p->stats.thread_accesses, " thread accesses; ",
                      "records held at most ", p->peak_backlog_records, " (",
                      MiB(p->peak_backlog_records * sizeof(protocol::Record)), " MiB; ", p->held_back,
                      " ring polls held back), shadow memory at most ", MiB(p->stats.peak_shadow_bytes), " MiB, ",
                      p->stamp_gaps, " stamp gaps"));
    if (request.verbose) ctx.AddNote(PhaseSummary(*p));
    if (p->report != nullptr) races_of.push_back({p->pid, p->report});
  }
  if (request.verbose) ctx.AddNote(Cat("daemon: peak resident memory ", MiB(result.daemon_peak_rss_bytes), " MiB"));
  std::vector<reports::ResolvedRace> resolved = reports::ResolveRaces(ctx, races_of);
  if (request.explored_schedules > 1) {
    resolved = reports::MergeAcrossSchedules(std::move(resolved));
    ctx.MergeStreamOrderRacesAcrossProcesses();
  }
  // Under schedule exploration every process is one run of the same program.
  resolved = reports::GroupBySource(std::move(resolved), /*across_processes=*/request.explored_schedules > 1);
  reports::ReportData data = reports::FilterRaces(std::move(resolved), suppressions ? &*suppressions : nullptr,
                                                  request.max_reports, request.ignore);
  ReportOutcome outcome;
  // Warning kinds (dependency-ordered, same-value) are reported but are not
  // races for the exit status.
  outcome.races_found = data.found.races - data.found_warnings.races;
  outcome.dynamic_found = data.found.dynamic;
  outcome.races_suppressed = data.suppressed.races - data.suppressed_warnings.races;
  outcome.races_shown = data.races.size();
  // Every file is tried; the first failure is returned, and then the text
  // report still goes to stderr (a full disk must not hide the findings).
  absl::Status file_error;
  auto keep = [&](absl::Status s) {
    if (file_error.ok()) file_error = std::move(s);
  };
  if (!request.json_path.empty()) keep(reports::WriteJsonFile(reports::JsonReport(data, ctx), request.json_path));
  if (!request.sarif_path.empty()) keep(reports::WriteJsonFile(reports::SarifReport(data, ctx), request.sarif_path));
  const std::string text = reports::TextReport(data, ctx);
  if (!request.text_path.empty()) keep(reports::WriteTextFile(text, request.text_path));
  if (!request.quiet && (request.text_path.empty() || !file_error.ok())) std::cerr << text << std::flush;
  if (!file_error.ok()) return file_error;
  return outcome;
}

}  // namespace barracuda::daemon
