// Race fingerprints: a 16-hex-digit name of a race entry that does not change
// when nothing about the race itself changed. FNV-1a 64 over, in order:
//   "barracuda-race-v1", the demangled kernel name (template arguments
//   included, parameters included), the kind family (RAW and WAR are one:
//   which access of the pair the analysis met first is the schedule's
//   choice), the memory space, and the two statements sorted, each as
//     file base name, the text of its source line with runs of blanks
//     collapsed, how many earlier lines of the file have that same text (so
//     that two copies of one statement differ), and the column; then the
//     same for the call site it was inlined at, if any.
// Left out on purpose: process ids, addresses, thread and block ids, counts
// and the grid (they change from run to run), the line number (edits above
// the statement move it) and the directory (checkouts differ), and the race
// class (which threads the schedule pitted against each other). When the
// source file cannot be read the line number stands in for its text (stable
// only while the line does not move); without -lineinfo a statement is its
// function, opcode and PTX line (stable across runs of one build).
#ifndef BARRACUDA_HOST_DETECTOR_REPORTS_RACE_FINGERPRINT_H_
#define BARRACUDA_HOST_DETECTOR_REPORTS_RACE_FINGERPRINT_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host_detector/reports/report_context.h"

namespace barracuda::reports {

// FNV-1a 64 of `text` as 16 lower-case hex digits.
std::string Fnv1a64Hex(std::string_view text);

// Source lines read once per file (nullopt for a file that cannot be read).
class SourceLines {
 public:
  struct Line {
    std::string text;   // blanks collapsed and trimmed
    uint32_t copy = 0;  // how many earlier lines of the file have the same text
  };
  // Line `line` (1-based) of `file`; nullopt when the file cannot be read or
  // is shorter.
  std::optional<Line> Normalized(const std::string& file, uint32_t line);

 private:
  std::map<std::string, std::optional<std::vector<Line>>> files_;
};

// The statement an access is (what GroupBySource groups by): source location
// and inlined-at call site; else the PTX site; else the site id.
std::string StatementKey(const ResolvedAccess& access);

std::string RaceFingerprint(const ResolvedRace& race, SourceLines& lines);

// The entry's fingerprint: the one GroupBySource stored, else computed (an
// entry not grouped: tools, tests).
std::string FingerprintOf(const ResolvedRace& race);

// The kind family grouping and fingerprints use: "RAW|WAR" for both (which
// access of a pair the analysis meets first is the schedule's choice), the
// kind's name otherwise.
std::string_view KindFamilyName(detector::RaceKind kind);

}  // namespace barracuda::reports

#endif  // BARRACUDA_HOST_DETECTOR_REPORTS_RACE_FINGERPRINT_H_
