#include "host_detector/daemon/report_output.h"
#include "ptx_rewriter/text_concat.h"

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

namespace barracuda::daemon {
namespace {

using ptx::Cat;

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string Demangle(const std::string& mangled) {
  int status = 0;
  char* out = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return mangled;
  std::string s(out);
  std::free(out);
  return s;
}

const char* SpaceName(protocol::Space s) { return s == protocol::Space::kShared ? "shared" : "global"; }

const char* AllocationKindName(transport::AllocationKind k) {
  switch (k) {
    case transport::AllocationKind::kDevice: return "device";
    case transport::AllocationKind::kAsync: return "async";
    case transport::AllocationKind::kManaged: return "managed";
    case transport::AllocationKind::kHostMapped: return "host-mapped";
    case transport::AllocationKind::kModuleGlobal: return "module-global";
    case transport::AllocationKind::kOther: break;
  }
  return "other";
}

// "file:line" (source, with -lineinfo), else "module:ptx_line", else "site N".
std::string Location(const ProcessResult& p, uint32_t site_id) {
  if (site_id == protocol::kNoSite) return "unknown site";
  const ModuleTable* module = nullptr;
  const ptx::Site* site = p.FindSite(site_id, &module);
  if (site == nullptr) return Cat("site ", site_id);
  const std::optional<ptx::SourceLocation>& src = site->inlined_at ? site->inlined_at : site->source;
  if (src && !src->file.empty() && src->line != 0) return Cat(src->file, ":", src->line);
  return Cat(module->name, ":", site->ptx_line);
}

std::string KernelOf(const ProcessResult& p, uint32_t name_id) {
  const std::string* name = p.KernelName(name_id);
  return name != nullptr ? Demangle(*name) : Cat("kernel#", name_id);
}

nlohmann::json AccessJson(const ProcessResult& p, const detector::AccessInfo& a) {
  nlohmann::json j;
  j["operation"] = protocol::OpName(a.op);
  j["thread"] = a.tid;
  j["block"] = a.block;
  j["warp"] = a.warp;
  j["lane"] = a.lane;
  j["site"] = a.site == protocol::kNoSite ? nlohmann::json(nullptr) : nlohmann::json(a.site);
  j["location"] = Location(p, a.site);
  const ptx::Site* site = a.site == protocol::kNoSite ? nullptr : p.FindSite(a.site);
  j["ptx_line"] = site != nullptr ? nlohmann::json(site->ptx_line) : nlohmann::json(nullptr);
  j["opcode"] = site != nullptr ? nlohmann::json(site->opcode) : nlohmann::json(nullptr);
  return j;
}

// Races of every process in order, up to the limit.
template <typename F>
uint64_t ForEachRace(const SessionResult& result, const ReportRequest& request, F f) {
  uint64_t shown = 0;
  for (const ProcessResult* p : result.processes) {
    if (p->report == nullptr) continue;
    for (const detector::RaceEntry& e : p->report->entries()) {
      if (request.max_reports && shown >= *request.max_reports) return shown;
      f(*p, e, ++shown);
    }
  }
  return shown;
}

absl::Status WriteFile(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text << std::flush;
    return absl::OkStatus();
  }
  std::ofstream out(path, std::ios::trunc);
  if (!out) return absl::PermissionDeniedError(Cat("cannot write report ", path));
  out << text;
  out.close();
  if (!out) return absl::DataLossError(Cat("error while writing report ", path));
  return absl::OkStatus();
}

}  // namespace

nlohmann::json MinimalJsonReport(const SessionResult& result, const ReportRequest& request) {
  nlohmann::json j;
  j["format"] = "barracuda-minimal-report";
  j["version"] = 0;
  j["backend"] = result.backend;
  j["warp_model"] = result.warp_model == detector::WarpModel::kIts ? "its" : "lockstep";
  j["command_line"] = request.command_line;
  j["complete"] = result.complete();
  j["incomplete_reasons"] = result.incomplete_reasons;
  j["errors"] = result.errors;
  nlohmann::json processes = nlohmann::json::array();
  for (const ProcessResult* p : result.processes) {
    nlohmann::json pj;
    pj["pid"] = p->pid;
    pj["command_line"] = p->command_line;
    pj["exited_normally"] = p->exited_normally;
    pj["launches"] = p->launches.size();
    pj["records_received"] = p->records_received;
    pj["records_analysed"] = p->records_analysed;
    pj["records_skipped"] = p->records_skipped;
    pj["diagnostics"] = p->diagnostics;
    processes.push_back(std::move(pj));
  }
  j["processes"] = std::move(processes);
  nlohmann::json races = nlohmann::json::array();
  const uint64_t shown = ForEachRace(result, request, [&](const ProcessResult& p, const detector::RaceEntry& e,
                                                          uint64_t ordinal) {
    const detector::RaceEvent& ev = e.first;
    nlohmann::json r;
    r["ordinal"] = ordinal;
    r["process"] = p.pid;
    r["kind"] = detector::RaceKindName(e.key.kind);
    r["class"] = detector::RaceClassName(ev.cls);
    r["space"] = detector::IsSyncMisuseKind(e.key.kind) ? nlohmann::json(nullptr) : nlohmann::json(SpaceName(ev.space));
    r["count"] = e.count;
    r["launch"] = ev.launch_id;
    r["kernel"] = KernelOf(p, ev.kernel_name_id);
    if (ev.space == protocol::Space::kShared) {
      r["address"] = Hex(protocol::SharedOffset(ev.address));
      r["shared_block"] = protocol::SharedBlock(ev.address);
    } else {
      r["address"] = Hex(ev.address);
      if (const AllocationEntry* a = p.FindAllocation(ev.address)) {
        r["allocation"] = {{"base", Hex(a->base)}, {"offset", ev.address - a->base}, {"size", a->size},
                           {"kind", AllocationKindName(a->kind)}, {"label", a->label}, {"freed", a->freed}};
      }
    }
    r["first"] = AccessJson(p, ev.earlier);
    r["second"] = AccessJson(p, ev.later);
    races.push_back(std::move(r));
  });
  j["races"] = std::move(races);
  j["summary"] = {{"races", result.races()}, {"dynamic", result.dynamic_races()}, {"shown", shown}};
  return j;
}

void MinimalTextReport(const SessionResult& result, const ReportRequest& request, std::ostream& out) {
  const char* kPrefix = "========= ";
  out << kPrefix << "BARRACUDA (minimal report)\n";
  const uint64_t shown = ForEachRace(result, request, [&](const ProcessResult& p, const detector::RaceEntry& e,
                                                          uint64_t) {
    const detector::RaceEvent& ev = e.first;
    out << kPrefix << detector::RaceKindName(e.key.kind) << " race (" << detector::RaceClassName(ev.cls) << ") on "
        << SpaceName(ev.space) << " memory in kernel " << KernelOf(p, ev.kernel_name_id) << " (launch "
        << ev.launch_id << ", process " << p.pid << "), " << e.count << " dynamic occurrence"
        << (e.count == 1 ? "" : "s") << "\n";
    auto access = [&](const char* which, const detector::AccessInfo& a) {
      out << kPrefix << "    " << which << ": " << protocol::OpName(a.op) << " by thread " << a.tid << " in block "
          << a.block << " at " << Location(p, a.site) << "\n";
    };
    access("first ", ev.earlier);
    access("second", ev.later);
    if (ev.space == protocol::Space::kShared) {
      out << kPrefix << "    address " << Hex(protocol::SharedOffset(ev.address)) << " in the shared window of block "
          << protocol::SharedBlock(ev.address) << "\n";
    } else if (const AllocationEntry* a = p.FindAllocation(ev.address)) {
      out << kPrefix << "    address " << Hex(ev.address) << " is " << (ev.address - a->base) << " bytes into "
          << (a->label.empty() ? AllocationKindName(a->kind) : a->label) << " (" << a->size << " bytes at "
          << Hex(a->base) << ")\n";
    } else {
      out << kPrefix << "    address " << Hex(ev.address) << "\n";
    }
    out << kPrefix << "\n";
  });
  for (const std::string& reason : result.incomplete_reasons) out << kPrefix << "INCOMPLETE: " << reason << "\n";
  for (const std::string& error : result.errors) out << kPrefix << "ERROR: " << error << "\n";
  for (const ProcessResult* p : result.processes)
    for (const std::string& d : p->diagnostics) out << kPrefix << "process " << p->pid << ": " << d << "\n";
  if (request.verbose) {
    for (const ProcessResult* p : result.processes)
      out << kPrefix << "process " << p->pid << ": " << p->launches.size() << " launches, " << p->records_analysed
          << " records analysed, " << p->records_skipped << " skipped, " << p->stats.warp_accesses
          << " warp accesses, " << p->stats.thread_accesses << " thread accesses; records held at most "
          << p->peak_backlog_records << "\n";
    for (const ProcessResult* p : result.processes) out << kPrefix << PhaseSummary(*p) << "\n";
    out << kPrefix << "daemon: peak resident memory " << result.daemon_peak_rss_bytes / (1 << 20) << " MiB\n";
  }
  out << kPrefix << "RACE SUMMARY: " << result.races() << " race" << (result.races() == 1 ? "" : "s") << " ("
      << result.dynamic_races() << " dynamic)";
  if (shown < result.races()) out << ", " << shown << " shown (--max-reports)";
  if (!result.complete()) out << ", analysis INCOMPLETE";
  out << "\n";
}

absl::StatusOr<ReportOutcome> WriteReports(const SessionResult& result, const ReportRequest& request) {
#ifdef BARRACUDA_DAEMON_REPORT_WRITERS
  return WriteReportsWithWriters(result, request);
#endif
  if (!request.suppressions_paths.empty())
    return absl::UnimplementedError("suppressions need the full report writers, which are not integrated yet");
  if (!request.sarif_path.empty())
    return absl::UnimplementedError("SARIF output needs the full report writers, which are not integrated yet");
  ReportOutcome outcome;
  outcome.races_found = result.races();
  outcome.dynamic_found = result.dynamic_races();
  outcome.races_shown = request.max_reports ? std::min(*request.max_reports, outcome.races_found) : outcome.races_found;
  if (!request.json_path.empty()) {
    absl::Status s = WriteFile(request.json_path, MinimalJsonReport(result, request).dump(2) + "\n");
    if (!s.ok()) return s;
  }
  std::ostringstream text;
  MinimalTextReport(result, request, text);
  if (!request.text_path.empty()) {
    absl::Status s = WriteFile(request.text_path, text.str());
    if (!s.ok()) return s;
  }
  if (!request.quiet && request.text_path.empty()) std::cerr << text.str() << std::flush;
  return outcome;
}

}  // namespace barracuda::daemon
