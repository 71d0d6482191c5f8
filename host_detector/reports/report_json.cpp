#include "host_detector/reports/report_json.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include "host_detector/reports/memory_errors.h"
#include "host_detector/reports/stream_order_races.h"
#include "host_detector/reports/race_fingerprint.h"
#include "host_detector/reports/report_text.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::reports {
namespace {

using nlohmann::json;

json DimJson(const std::optional<Dim3>& d) {
  if (!d) return nullptr;
  return json::array({d->x, d->y, d->z});
}

json LocJson(const std::optional<ptx::SourceLocation>& loc) {
  if (!loc || loc->file.empty() || loc->line == 0) return nullptr;
  return json{{"file", loc->file}, {"line", loc->line}, {"column", loc->column}};
}

json SiteJson(const ResolvedAccess& a) {
  if (a.site_id == protocol::kNoSite) return nullptr;
  json site = {{"id", a.site_id},     {"module", nullptr}, {"function", nullptr}, {"ptx_line", nullptr},
               {"opcode", nullptr},   {"source", nullptr}, {"inlined_at", nullptr}};
  if (a.site != nullptr) {
    if (a.module != nullptr) site["module"] = a.module->name;
    site["function"] = a.site->function;
    site["ptx_line"] = a.site->ptx_line;
    site["opcode"] = a.site->opcode;
    site["source"] = LocJson(a.site->source);
    site["inlined_at"] = LocJson(a.site->inlined_at);
  }
  return site;
}

json AccessJson(const ResolvedAccess& a) {
  return json{{"operation", OperationName(a)},
              {"thread", DimJson(a.thread)},
              {"block", DimJson(a.block)},
              {"thread_linear", a.thread_linear},
              {"block_linear", a.block_linear},
              {"warp", a.warp},
              {"lane", a.lane},
              {"size", a.access_size == 0 ? json(nullptr) : json(a.access_size)},
              {"site", SiteJson(a)}};
}

json CountsJson(const RaceCounts& c) { return json{{"races", c.races}, {"racy_accesses", c.dynamic}}; }

json StringsJson(const std::vector<std::string>& v) {
  json out = json::array();
  for (const std::string& s : v) out.push_back(s);
  return out;
}

json OneScheduleJson(const Schedule& s) {
  json j = {{"policy", s.policy}, {"seed", s.seed}};
  if (!s.arguments.empty()) j["arguments"] = s.arguments;
  return j;
}

json EndJson(const std::optional<ProcessEnd>& end) {
  if (!end) return nullptr;
  return end->signaled ? json{{"signal", end->code}} : json{{"exit_status", end->code}};
}

json MemoryErrorJson(const ResolvedMemoryError& e, const ReportContext& context) {
  const transport::MemoryErrorInfo& m = e.info;
  json nearest = nullptr;
  if (e.nearest) {
    nearest = {{"base", Hex(e.nearest->base)}, {"size", e.nearest->size},   {"offset", e.nearest->offset},
               {"kind", e.nearest->kind},      {"label", e.nearest->label}, {"freed", e.nearest->freed}};
  }
  json j{{"ordinal", e.ordinal},
         {"process_id", e.process_id},
         {"kind", transport::MemoryErrorKindName(m.kind)},
         {"description", MemoryErrorHeadline(e)},
         {"operation", m.write ? "write" : "read"},
         {"space", transport::MemorySpaceName(m.space)},
         {"size", m.size},
         {"address", Hex(m.address)},
         {"launch_id", m.launch_id},
         {"kernel", e.kernel},
         {"kernel_mangled", m.kernel},
         {"cuda_error", e.cuda_error},
         {"access", AccessJson(e.access)},
         {"nearest_allocation", std::move(nearest)},
         {"emulator_message", m.message}};
  if (context.explored_schedules() > 1) j["schedules"] = SightingsJson(e.seen_in, context);
  return j;
}

json StreamSideJson(const ResolvedStreamOrderRace::Side& s) {
  const ReportContext::StreamOpSide& op = s.op;
  const char* operation = op.kernel          ? "kernel"
                          : op.host          ? "host"
                          : op.host_function ? "host function"
                          : op.api == "cudaMemsetAsync" ? "set"
                                                        : "copy";
  return json{{"operation", operation},
              {"api", op.api},
              {"stream", op.stream_id},
              {"graph_node", IsGraphNode(op)},
              {"launch_id", op.kernel ? json(op.launch_id) : json(nullptr)},
              {"kernel", op.kernel ? json(s.kernel) : json(nullptr)},
              {"access", op.write ? "write" : "read"},
              {"strong", op.strong},
              {"site", op.kernel ? SiteJson(s.access) : json(nullptr)},
              {"host_location", op.host_location.empty() ? json(nullptr) : json(op.host_location)},
              {"host_frames", op.host_frames},
              {"node_location", op.node_location.empty() ? json(nullptr) : json(op.node_location)}};
}

json StreamOrderRaceJson(const ResolvedStreamOrderRace& r) {
  json allocation = nullptr;
  if (r.allocation)
    allocation = {{"base", Hex(r.allocation->base)}, {"offset", r.allocation->offset}, {"size", r.allocation->size},
                  {"kind", r.allocation->kind},      {"label", r.allocation->label},   {"freed", r.allocation->freed}};
  return json{{"ordinal", r.ordinal},           {"process_id", r.process_id}, {"address", Hex(r.address)},
              {"allocation", std::move(allocation)}, {"occurrences", r.occurrences},
              {"first", StreamSideJson(r.earlier)},  {"second", StreamSideJson(r.later)}};
}

}  // namespace

// Schedule exploration: the schedules that showed the race.
json SightingsJson(std::span<const ScheduleSighting> seen_in, const ReportContext& context) {
  json out = json::array();
  for (const ScheduleSighting& s : seen_in) {
    const ProcessInfo* p = context.FindProcess(s.process_id);
    if (p == nullptr || !p->schedule) continue;
    json j = OneScheduleJson(*p->schedule);
    j["number"] = context.ScheduleNumber(s.process_id);
    j["process_id"] = s.process_id;
    j["count"] = s.count;
    out.push_back(std::move(j));
  }
  return out;
}

// Schedule exploration: each schedule, its processes, how they ended and how
// many of the reported races it showed.
json ExplorationJson(const ReportData& data, const ReportContext& context) {
  json out = json::array();
  const std::vector<Schedule>& schedules = context.Schedules();
  const std::vector<uint64_t> sightings = SightingsPerSchedule(context, data.races);
  for (size_t i = 0; i < schedules.size(); ++i) {
    json j = OneScheduleJson(schedules[i]);
    j["number"] = i + 1;
    json pids = json::array(), ends = json::array();
    for (const ProcessInfo& p : context.processes()) {
      if (p.schedule != schedules[i]) continue;
      pids.push_back(p.pid);
      ends.push_back(EndJson(p.end));
    }
    j["processes"] = std::move(pids);
    j["ends"] = std::move(ends);
    j["races"] = sightings[i];
    out.push_back(std::move(j));
  }
  return json{{"requested", context.explored_schedules()}, {"schedules", std::move(out)}};
}

json VariantsJson(const ResolvedRace& r) {
  json variants = json::array();
  for (const ResolvedRace::Variant& v : r.variants)
    variants.push_back({{"kind", detector::RaceKindName(v.kind)}, {"class", detector::RaceClassName(v.cls)}, {"count", v.count}});
  if (r.variants.empty())
    variants.push_back({{"kind", detector::RaceKindName(r.kind)}, {"class", detector::RaceClassName(r.cls)}, {"count", r.count}});
  return variants;
}

namespace {

json RaceJson(const ResolvedRace& r, const ReportContext& context) {
  json kernel = {{"name", r.kernel},
                 {"mangled", r.kernel_mangled.empty() ? json(nullptr) : json(r.kernel_mangled)},
                 {"launch_id", r.launch_id},
                 {"stream", nullptr},
                 {"grid", nullptr},
                 {"block", nullptr}};
  if (r.launch != nullptr) {
    kernel["stream"] = r.launch->stream_id;
    kernel["grid"] = DimJson(r.launch->grid);
    kernel["block"] = DimJson(r.launch->block);
  }
  json allocation = nullptr;
  if (r.allocation) {
    const ResolvedAllocation& a = *r.allocation;
    allocation = {{"base", Hex(a.base)}, {"offset", a.offset}, {"size", a.size},
                  {"kind", a.kind},      {"label", a.label},   {"freed", a.freed}};
  }
  json race = {{"id", r.ordinal},
               {"kind", detector::RaceKindName(r.kind)},
               {"class", detector::RaceClassName(r.cls)},
               {"space", SpaceName(r.space)},
               {"count", r.count},
               {"process_id", r.process_id},
               {"kernel", std::move(kernel)},
               {"address", nullptr},
               {"shared_block", nullptr},
               {"allocation", std::move(allocation)},
               {"first", AccessJson(r.earlier)},
               {"second", AccessJson(r.later)}};
  // A barrier or warp-sync misuse is about an instruction, not memory: no
  // address and no space (the record's space field means nothing there).
  if (!detector::IsSyncMisuseKind(r.kind)) race["address"] = Hex(r.address);
  else race["space"] = nullptr;
  if (r.space == protocol::Space::kShared && !detector::IsSyncMisuseKind(r.kind)) {
    race["shared_block"] = r.shared_block;
  }
  if (context.explored_schedules() > 1) race["schedules"] = SightingsJson(r.seen_in, context);
  // Grouped entries (race_grouping.h) carry their fingerprint and every PTX
  // site pair; an entry not grouped (tools, tests) is its own single pair.
  race["fingerprint"] = FingerprintOf(r);
  json pairs = json::array();
  for (const ResolvedRace::SitePair& p : r.site_pairs)
    pairs.push_back({{"first", SiteJson(p.earlier)}, {"second", SiteJson(p.later)}, {"count", p.count}});
  if (r.site_pairs.empty())
    pairs.push_back({{"first", SiteJson(r.earlier)}, {"second", SiteJson(r.later)}, {"count", r.count}});
  race["site_pairs"] = std::move(pairs);
  race["variants"] = VariantsJson(r);
  race["unacquired_release"] = r.unacquired_release;
  return race;
}

}  // namespace

const char* ToolVersion() { return BARRACUDA_VERSION; }

json ScheduleJson(const ReportContext& context) {
  if (!context.schedule()) return nullptr;
  return OneScheduleJson(*context.schedule());
}

json JsonReport(const ReportData& data, const ReportContext& context) {
  json processes = json::array();
  for (const ProcessInfo& p : context.processes()) {
    json modules = json::array();
    for (const ModuleInfo& m : p.modules) {
      modules.push_back(
          {{"id", m.module_id}, {"name", m.name}, {"site_base", m.site_base}, {"sites", m.sites.sites.size()}});
    }
    json process = {{"pid", p.pid}, {"command_line", StringsJson(p.command_line)}, {"modules", modules}};
    if (p.schedule) process["schedule"] = OneScheduleJson(*p.schedule);
    if (p.end) process["end"] = EndJson(p.end);
    if (const auto& m = p.memory_limit) {
      process["memory_limit"] = {{"limit_bytes", m->limit_bytes},
                                 {"unchecked_accesses", m->unchecked_accesses},
                                 {"untracked_mib", m->untracked_mib},
                                 {"dropped_clock_entries", m->dropped_clock_entries}};
    }
    processes.push_back(std::move(process));
  }
  json by_kind = json::object();
  for (detector::RaceKind k : detector::kAllRaceKinds) {
    uint64_t n = 0;
    for (const ResolvedRace& r : data.races) n += r.kind == k;
    by_kind[detector::RaceKindName(k)] = n;
  }
  RaceCounts shown, warnings;
  for (const ResolvedRace& r : data.races) {
    shown.Add(r);
    if (detector::IsWarningKind(r.kind)) warnings.Add(r);
  }
  json rules = json::array();
  for (const SuppressionUse& use : data.suppressions_used) {
    rules.push_back({{"where", use.where}, {"rule", use.text}, {"races", use.counts.races},
                     {"racy_accesses", use.counts.dynamic}});
  }
  json suppressed = CountsJson(data.suppressed);
  suppressed["rules"] = std::move(rules);
  json summary = {{"races", shown.races},
                  {"racy_accesses", shown.dynamic},
                  {"warnings", CountsJson(warnings)},
                  {"by_kind", std::move(by_kind)},
                  {"found", CountsJson(data.found)},
                  {"suppressed", std::move(suppressed)},
                  {"omitted", CountsJson(data.omitted)},
                  {"ignored", CountsJson(data.ignored)},
                  {"max_reports", data.max_reports ? json(*data.max_reports) : json(nullptr)}};
  json races = json::array();
  for (const ResolvedRace& r : data.races) races.push_back(RaceJson(r, context));
  json memory_errors = json::array();
  for (const ResolvedMemoryError& e : ResolveMemoryErrors(context)) memory_errors.push_back(MemoryErrorJson(e, context));
  summary["memory_errors"] = memory_errors.size();
  json stream_order = json::array();
  for (const ResolvedStreamOrderRace& r : ResolveStreamOrderRaces(context)) stream_order.push_back(StreamOrderRaceJson(r));
  summary["stream_order_races"] = stream_order.size();
  json not_run = json::array();
  for (const ReportContext::KernelNotRun& k : context.kernels_not_run())
    not_run.push_back({{"process", k.pid}, {"kernel", k.kernel}, {"cuda_error", k.cuda_error},
                       {"reason", k.reason}, {"launches", k.launches}});
  json report{{"format", "barracuda-report"},
              {"version", kJsonReportVersion},
              {"tool", {{"name", kToolName}, {"version", ToolVersion()}}},
              {"run",
               {{"backend", context.backend().empty() ? json(nullptr) : json(context.backend())},
                {"warp_model", WarpModelName(context.warp_model())},
                {"command_line", StringsJson(context.command_line())},
                {"schedule", ScheduleJson(context)},
                {"complete", context.complete()},
                {"incomplete_reasons", StringsJson(context.incomplete_reasons())},
                {"kernels_not_run", std::move(not_run)},
                {"notes", StringsJson(context.notes())}}},
              {"processes", std::move(processes)},
              {"summary", std::move(summary)},
              {"races", std::move(races)},
              {"memory_errors", std::move(memory_errors)},
              {"stream_order_races", std::move(stream_order)}};
  if (context.explored_schedules() > 1) report["run"]["exploration"] = ExplorationJson(data, context);
  return report;
}

absl::Status WriteJsonFile(const json& value, const std::string& path) {
  // Replacement of invalid UTF-8 (file names come from the app's PTX) instead
  // of nlohmann's exception.
  return WriteTextFile(value.dump(2, ' ', false, json::error_handler_t::replace) + "\n", path);
}

absl::Status WriteTextFile(const std::string& text, const std::string& path) {
  if (path == "-") {
    std::cout << text;
    std::cout.flush();
    return std::cout ? absl::OkStatus() : absl::DataLossError("cannot write the report to stdout");
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return absl::PermissionDeniedError(ptx::Cat("cannot open '", path, "' for writing: ", std::strerror(errno)));
  out << text;
  out.close();
  if (!out) return absl::DataLossError(ptx::Cat("cannot write '", path, "': ", std::strerror(errno)));
  return absl::OkStatus();
}

}  // namespace barracuda::reports
