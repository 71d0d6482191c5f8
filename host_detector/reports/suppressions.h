// Race suppressions (`barracuda --suppressions FILE`) and the report limit
// (`--max-reports N`). File format (REPORTS.md, "Suppression files"): one rule
// per line, `#` starts a comment; a rule is one or more conditions, all of
// which must hold:
//
//   kernel=GLOB        demangled kernel name, its name without the parameter
//                      list, or the mangled name matches the glob (* ? \)
//   kernel~=REGEX      ECMAScript regex searched in the demangled name
//   kind=K[,K...]      RAW, WAR, WAW, atomic-vs-plain, barrier-divergence
//   source=GLOB[:LINE] either access's source file (or the call site it was
//                      inlined at) matches; a glob without '/' matches the
//                      file's base name
//   fingerprint=FP[,FP...] the entry's fingerprint (race_fingerprint.h) is
//                      one of these: a known race, whatever its lines
//                      become
//
// Values may be double-quoted (with \" and \\) to hold spaces:
//   kernel="reduce(float*, int)" kind=WAW source=reduce.cu:42
#ifndef BARRACUDA_HOST_DETECTOR_SUPPRESSIONS_H_
#define BARRACUDA_HOST_DETECTOR_SUPPRESSIONS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "host_detector/reports/report_context.h"
#include "host_detector/detector/report_model.h"

namespace barracuda::reports {

// Shell-style glob over the whole text: `*` any run (also across '/'), `?` one
// character, `\c` the character c. No character classes: `[` is literal.
bool GlobMatch(std::string_view pattern, std::string_view text);

// "ns::f<int>" from "void ns::f<int>(int*, float)": the demangled name without
// its trailing parameter list (and without cv/ref qualifiers after it).
std::string_view WithoutParameters(std::string_view demangled);

struct Suppression {
  std::string file;  // where the rule was written
  uint32_t line = 0;
  std::string text;  // the rule as written (comment and outer blanks stripped)

  std::optional<std::string> kernel_glob;
  std::optional<std::string> kernel_regex_text;
  std::optional<std::regex> kernel_regex;
  std::vector<detector::RaceKind> kinds;  // empty: any kind
  std::optional<std::string> source_glob;
  std::optional<uint32_t> source_line;
  std::vector<std::string> fingerprints;  // empty: any (race_fingerprint.h)

  bool Matches(const ResolvedRace& race) const;
};

class SuppressionSet {
 public:
  // Errors name the place: "FILE:LINE:COL: message".
  static absl::StatusOr<SuppressionSet> Parse(std::string_view text, std::string_view filename);
  static absl::StatusOr<SuppressionSet> Load(const std::string& path);
  // Rules of several files: the first matching rule (in file order) counts.
  void Append(const SuppressionSet& other);

  // Index of the first rule matching `race`, nullopt when none does.
  std::optional<size_t> Match(const ResolvedRace& race) const;
  const std::vector<Suppression>& rules() const { return rules_; }
  bool empty() const { return rules_.empty(); }

 private:
  std::vector<Suppression> rules_;
};

// Drops races of the `ignore` kinds (counted as ignored), then applies
// suppressions (may be null) and the limit (nullopt: none) to `races` in their
// order; counts what was suppressed (per rule) and omitted; renumbers the
// shown races 1..n.
ReportData FilterRaces(std::vector<ResolvedRace> races, const SuppressionSet* suppressions,
                       std::optional<uint64_t> max_reports, std::vector<detector::RaceKind> ignore = {});

}  // namespace barracuda::reports

#endif  // BARRACUDA_HOST_DETECTOR_SUPPRESSIONS_H_
