// The human-readable race report (default, stderr), in the style of
// compute-sanitizer: every line starts with "========= ", one block per
// distinct race, then a summary line. Format: REPORTS.md, "Text".
#ifndef BARRACUDA_HOST_DETECTOR_REPORT_TEXT_H_
#define BARRACUDA_HOST_DETECTOR_REPORT_TEXT_H_

#include <ostream>
#include <string>

#include "host_detector/reports/report_context.h"

namespace barracuda::reports {

inline constexpr const char* kTextPrefix = "========= ";

void WriteTextReport(const ReportData& data, const ReportContext& context, std::ostream& out);
std::string TextReport(const ReportData& data, const ReportContext& context);

// Pieces shared with the other writers.
std::string Capitalized(std::string s);       // first letter upper-case
std::string Hex(uint64_t value);               // "0x7f00001000"
std::string CoordText(const Dim3& d);         // "(1,0,0)"
std::string OperationName(protocol::Op op);
// The access's operation; an asynchronous copy's read or write is named so
// ("async-copy read", "async-copy write").
std::string OperationName(const ResolvedAccess& a);   // "read", "write", "atomic", "acquire", ...
const char* SpaceName(protocol::Space space);  // "global", "shared"
std::string KindDescription(detector::RaceKind kind);  // "read-after-write (RAW)"
// A (grouped) entry's kinds and classes: "read-after-write (RAW) and
// write-after-read (WAR) race (divergence, intra-block)", the same in every format.
std::string RaceKindsAndClassesText(const ResolvedRace& race);
// The sentence for ResolvedRace::unacquired_release (SEMANTICS.md, "Observed but not acquired").
std::string UnacquiredReleaseHint(const ResolvedRace& race);
// "thread (5,0,0) in block (1,0,0)" or "thread 69 in block 1" without the launch.
std::string ThreadText(const ResolvedAccess& access);
// One sentence naming the address and its allocation (without the leading "Address ").
std::string AddressText(const ResolvedRace& race);

}  // namespace barracuda::reports

#endif  // BARRACUDA_HOST_DETECTOR_REPORT_TEXT_H_
