// Reads what the daemon tests check from a JSON report in either format the
// daemon writes: the writers' "barracuda-report" v1 or the minimal one
// (report_output.h).
#ifndef BARRACUDA_HOST_DETECTOR_DAEMON_TESTS_REPORT_VIEW_H_
#define BARRACUDA_HOST_DETECTOR_DAEMON_TESTS_REPORT_VIEW_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace barracuda::daemon::testing {

struct RaceView {
  std::string kernel;  // demangled
  uint32_t process = 0;
  std::string kind, cls, space;
  std::set<std::string> locations;  // "file:line" of both accesses
};

struct ReportView {
  bool complete = true;
  std::vector<std::string> incomplete_reasons;
  std::vector<std::string> command_line;  // of the whole run
  std::vector<uint32_t> pids;
  std::vector<RaceView> races;
};

inline std::string SourceOf(const nlohmann::json& access) {
  const nlohmann::json& site = access["site"];
  if (site.is_null() || site["source"].is_null()) return "?";
  return site["source"]["file"].get<std::string>() + ":" + std::to_string(site["source"]["line"].get<int>());
}

inline ReportView ViewOf(const nlohmann::json& j) {
  ReportView v;
  const bool full = j.value("format", "") == "barracuda-report";
  const nlohmann::json& run = full ? j["run"] : j;
  v.complete = run["complete"];
  for (const auto& r : run["incomplete_reasons"]) v.incomplete_reasons.push_back(r);
  for (const auto& a : run["command_line"]) v.command_line.push_back(a);
  for (const auto& p : j["processes"]) v.pids.push_back(p["pid"]);
  for (const auto& r : j["races"]) {
    RaceView rv;
    rv.kind = r["kind"];
    rv.cls = r["class"];
    rv.space = r["space"].is_null() ? std::string("-") : r["space"].get<std::string>();
    if (full) {
      rv.kernel = r["kernel"]["name"];
      rv.process = r["process_id"];
      rv.locations = {SourceOf(r["first"]), SourceOf(r["second"])};
    } else {
      rv.kernel = r["kernel"];
      rv.process = r["process"];
      rv.locations = {r["first"]["location"].get<std::string>(), r["second"]["location"].get<std::string>()};
    }
    v.races.push_back(rv);
  }
  return v;
}

}  // namespace barracuda::daemon::testing

#endif  // BARRACUDA_HOST_DETECTOR_DAEMON_TESTS_REPORT_VIEW_H_
