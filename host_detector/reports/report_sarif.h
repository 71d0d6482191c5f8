// SARIF 2.1.0 output for IDEs and code-scanning services. One result per
// distinct race; rule id = race kind ("RAW", "WAR", "WAW", "atomic-vs-plain",
// "barrier-divergence"); `locations` is the first access (source file:line,
// or the PTX file and line without -lineinfo), `relatedLocations` the second.
// Mapping: REPORTS.md, "SARIF". Validated in tests against the official
// schema (host_detector/reports/schemas/sarif-schema-2.1.0.json).
#ifndef BARRACUDA_HOST_DETECTOR_REPORT_SARIF_H_
#define BARRACUDA_HOST_DETECTOR_REPORT_SARIF_H_

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "host_detector/reports/report_context.h"

namespace barracuda::reports {

inline constexpr const char* kSarifSchemaUri =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

nlohmann::json SarifReport(const ReportData& data, const ReportContext& context);

// A file path as a SARIF artifact URI: absolute paths become file:///...,
// relative ones stay relative; reserved characters are percent-encoded.
std::string PathToUri(std::string_view path);

}  // namespace barracuda::reports

#endif  // BARRACUDA_HOST_DETECTOR_REPORT_SARIF_H_
