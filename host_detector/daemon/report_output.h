// Report output of barracudad: the one place where a finished session's
// results become files (JSON, SARIF, text) and the stderr summary.
//
// With the report writers (host_detector/report_{context,text,json,sarif}.*,
// suppressions.*; CMake target barracuda_reports present, compile definition
// BARRACUDA_DAEMON_REPORT_WRITERS) WriteReports uses them
// (report_writers.cpp): JSON barracuda-report v1, SARIF 2.1.0, the
// compute-sanitizer-style text, suppressions and --max-reports. Without them it
// writes the minimal formats below (JSON "barracuda-minimal-report" version 0
// and a short text) and refuses --suppressions and --report-sarif rather than
// ignore them.
#ifndef BARRACUDA_HOST_DETECTOR_DAEMON_REPORT_OUTPUT_H_
#define BARRACUDA_HOST_DETECTOR_DAEMON_REPORT_OUTPUT_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "host_detector/daemon/session.h"
#include "host_detector/reports/report_context.h"

namespace barracuda::daemon {

struct ReportRequest {
  std::string json_path;   // "" = none; "-" = stdout
  std::string sarif_path;  // "" = none
  std::string text_path;   // "" = stderr (unless quiet)
  bool quiet = false;      // no text report on stderr (files are still written)
  bool verbose = false;    // statistics per process
  std::vector<std::string> suppressions_paths;  // rules of all files, in order
  std::vector<detector::RaceKind> ignore;  // warning kinds left out (--ignore)
  std::optional<uint64_t> max_reports;
  std::vector<std::string> command_line;  // of the whole run (barracuda ... ./app args)
  std::optional<reports::Schedule> schedule;  // the emulator's schedule (none on a GPU)
  uint32_t explored_schedules = 0;            // barracuda --schedules N (0: a single run)
  std::vector<std::string> notes;             // from the controller ("note TEXT" lines)
};

struct ReportOutcome {
  uint64_t races_found = 0;       // distinct races before suppressions / limit
  uint64_t races_suppressed = 0;  // of those, matched by a suppression rule
  uint64_t races_shown = 0;       // in the reports (after the limit)
  uint64_t dynamic_found = 0;
  uint64_t races_reported() const { return races_found - races_suppressed; }
};

// Writes every requested report. Errors name the path.
absl::StatusOr<ReportOutcome> WriteReports(const SessionResult& result, const ReportRequest& request);

// The writers' path (report_writers.cpp), when built.
absl::StatusOr<ReportOutcome> WriteReportsWithWriters(const SessionResult& result, const ReportRequest& request);

// The minimal formats (public for tests).
nlohmann::json MinimalJsonReport(const SessionResult& result, const ReportRequest& request);
void MinimalTextReport(const SessionResult& result, const ReportRequest& request, std::ostream& out);

}  // namespace barracuda::daemon

#endif  // BARRACUDA_HOST_DETECTOR_DAEMON_REPORT_OUTPUT_H_
