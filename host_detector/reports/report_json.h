// The machine-readable race report: JSON following
// host_detector/reports/schemas/barracuda-report-v2.schema.json (fields: REPORTS.md,
// "JSON"). Addresses are hex strings: they do not fit a JSON double.
#ifndef BARRACUDA_HOST_DETECTOR_REPORT_JSON_H_
#define BARRACUDA_HOST_DETECTOR_REPORT_JSON_H_

#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "host_detector/reports/report_context.h"

namespace barracuda::reports {

inline constexpr int kJsonReportVersion = 2;  // 2: entries grouped by source statements, fingerprints
inline constexpr const char* kToolName = "barracuda";
const char* ToolVersion();  // the project version ("0.1.0")

nlohmann::json JsonReport(const ReportData& data, const ReportContext& context);
// {policy, seed} of the run's emulator schedule; null when not said.
nlohmann::json ScheduleJson(const ReportContext& context);
// Schedule exploration (context.explored_schedules() > 1): {requested,
// schedules: [{number, policy, seed, processes, ends, races}]}, and a race's
// [{number, policy, seed, process_id, count}] (REPORTS.md).
nlohmann::json ExplorationJson(const ReportData& data, const ReportContext& context);
nlohmann::json SightingsJson(std::span<const ScheduleSighting> seen_in, const ReportContext& context);
// [{kind, class, count}]: what a grouped entry's members showed (race_grouping.h).
nlohmann::json VariantsJson(const ResolvedRace& race);

// Writes `json` (indented) to `path`; "-" is stdout. Error names the path.
absl::Status WriteJsonFile(const nlohmann::json& json, const std::string& path);
// The same for a text report (`-`: stdout).
absl::Status WriteTextFile(const std::string& text, const std::string& path);

}  // namespace barracuda::reports

#endif  // BARRACUDA_HOST_DETECTOR_REPORT_JSON_H_
