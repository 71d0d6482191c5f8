#include "host_detector/reports/suppressions.h"

#include "host_detector/reports/race_fingerprint.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::reports {
namespace {

using detector::RaceKind;

constexpr size_t kMaxRegexLength = 1024;

struct GlobToken {
  enum Kind : uint8_t { kChar, kAny, kStar } kind;
  char c;
};

std::vector<GlobToken> Tokenize(std::string_view pattern) {
  std::vector<GlobToken> out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      out.push_back({GlobToken::kChar, pattern[++i]});
    } else if (c == '*') {
      out.push_back({GlobToken::kStar, 0});
    } else if (c == '?') {
      out.push_back({GlobToken::kAny, 0});
    } else {
      out.push_back({GlobToken::kChar, c});
    }
  }
  return out;
}


bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// "RAW, WAR, ..." in summary order.
std::string KindNames() {
  std::string names;
  for (RaceKind k : detector::kAllRaceKinds) names += ptx::Cat(names.empty() ? "" : ", ", detector::RaceKindName(k));
  return names;
}

std::optional<RaceKind> ParseKind(std::string_view text) {
  for (RaceKind k : detector::kAllRaceKinds) {
    if (EqualsIgnoreCase(text, detector::RaceKindName(k))) return k;
  }
  return std::nullopt;
}

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool SourceMatches(const std::string& glob, std::optional<uint32_t> line,
                   const std::optional<ptx::SourceLocation>& loc) {
  if (!loc || loc->file.empty()) return false;
  if (line && loc->line != *line) return false;
  const std::string_view file = glob.find('/') == std::string::npos ? BaseName(loc->file)
                                                                    : std::string_view(loc->file);
  return GlobMatch(glob, file);
}

bool AccessSourceMatches(const Suppression& s, const ResolvedAccess& a) {
  if (a.site == nullptr) return false;
  return SourceMatches(*s.source_glob, s.source_line, a.site->source) ||
         SourceMatches(*s.source_glob, s.source_line, a.site->inlined_at);
}

// Line parser with 1-based columns for error messages.
class RuleParser {
 public:
  RuleParser(std::string_view line, std::string_view file, uint32_t line_number)
      : line_(line), file_(file), line_number_(line_number) {}

  // Parses the whole line into `rule`; false (and error()) on bad input.
  bool Parse(Suppression& rule) {
    bool any = false;
    while (true) {
      SkipBlanks();
      if (AtEnd()) break;
      const size_t key_col = pos_;
      std::string key;
      while (!AtEnd() && (std::isalnum(static_cast<unsigned char>(line_[pos_])) || line_[pos_] == '-' ||
                          line_[pos_] == '_')) {
        key.push_back(line_[pos_++]);
      }
      bool regex = false;
      if (!AtEnd() && line_[pos_] == '~') {
        regex = true;
        pos_++;
      }
      if (key.empty() || AtEnd() || line_[pos_] != '=') {
        return Fail(key_col, "expected a condition KEY=VALUE (kernel=, kernel~=, kind=, source=, fingerprint=)");
      }
      pos_++;
      const size_t value_col = pos_;
      std::string value;
      if (!ReadValue(value)) return false;
      if (value.empty()) return Fail(value_col, ptx::Cat("empty value for '", key, "'"));
      if (!Apply(rule, key, regex, value, key_col, value_col)) return false;
      any = true;
    }
    if (!any) return Fail(0, "a suppression needs at least one condition");
    return true;
  }
  const absl::Status& error() const { return error_; }

 private:
  bool AtEnd() const { return pos_ >= line_.size(); }
  void SkipBlanks() {
    while (!AtEnd() && (line_[pos_] == ' ' || line_[pos_] == '\t' || line_[pos_] == '\r')) pos_++;
  }
  bool Fail(size_t col, const std::string& message) {
    error_ = absl::InvalidArgumentError(ptx::Cat(file_, ":", line_number_, ":", col + 1, ": ", message));
    return false;
  }
  // f(item, column) for each comma-separated item of a value that starts at
  // value_col (empty items included: the callers reject them); false as soon
  // as f is.
  template <class F>
  static bool ForEachListItem(std::string_view value, size_t value_col, F&& f) {
    for (size_t start = 0; start <= value.size();) {
      size_t comma = value.find(',', start);
      if (comma == std::string_view::npos) comma = value.size();
      if (!f(value.substr(start, comma - start), value_col + start)) return false;
      start = comma + 1;
    }
    return true;
  }
  bool ReadValue(std::string& value) {
    if (AtEnd() || line_[pos_] != '"') {
      while (!AtEnd() && line_[pos_] != ' ' && line_[pos_] != '\t' && line_[pos_] != '\r') {
        value.push_back(line_[pos_++]);
      }
      return true;
    }
    const size_t open = pos_++;
    while (!AtEnd()) {
      const char c = line_[pos_++];
      if (c == '"') {
        if (!AtEnd() && line_[pos_] != ' ' && line_[pos_] != '\t' && line_[pos_] != '\r') {
          return Fail(pos_, "expected a blank after the closing quote");
        }
        return true;
      }
      if (c == '\\' && !AtEnd() && (line_[pos_] == '"' || line_[pos_] == '\\')) {
        value.push_back(line_[pos_++]);
      } else {
        value.push_back(c);
      }
    }
    return Fail(open, "unterminated quoted value");
  }
  bool Apply(Suppression& rule, const std::string& key, bool regex, const std::string& value,
             size_t key_col, size_t value_col) {
    if (key == "kernel" && regex) {
      if (rule.kernel_regex) return Fail(key_col, "'kernel~' given twice");
      // libstdc++ compiles and matches regexes recursively: bound the pattern.
      if (value.size() > kMaxRegexLength) {
        return Fail(value_col, ptx::Cat("regular expression longer than ", kMaxRegexLength, " characters"));
      }
      try {
        rule.kernel_regex.emplace(value, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        return Fail(value_col, ptx::Cat("bad regular expression: ", e.what()));
      }
      rule.kernel_regex_text = value;
      return true;
    }
    if (regex) return Fail(key_col, ptx::Cat("'", key, "' takes '=', not '~=' (only kernel~= is a regex)"));
    if (key == "kernel") {
      if (rule.kernel_glob) return Fail(key_col, "'kernel' given twice");
      rule.kernel_glob = value;
      return true;
    }
    if (key == "kind") {
      if (!rule.kinds.empty()) return Fail(key_col, "'kind' given twice (list kinds with commas)");
      return ForEachListItem(value, value_col, [&](std::string_view name, size_t col) {
        std::optional<RaceKind> kind = ParseKind(name);
        if (!kind) {
          return Fail(col, ptx::Cat("unknown race kind '", name, "' (expected ", KindNames(), ")"));
        }
        rule.kinds.push_back(*kind);
        return true;
      });
    }
    if (key == "source") {
      if (rule.source_glob) return Fail(key_col, "'source' given twice");
      std::string glob = value;
      const size_t colon = value.find_last_of(':');
      if (colon != std::string::npos && colon + 1 < value.size()) {
        const std::string digits = value.substr(colon + 1);
        bool numeric = digits.size() <= 9;
        for (char c : digits) numeric = numeric && std::isdigit(static_cast<unsigned char>(c));
        if (numeric) {
          const uint32_t line = static_cast<uint32_t>(std::stoul(digits));
          if (line == 0) return Fail(value_col + colon + 1, "source line numbers start at 1");
          rule.source_line = line;
          glob = value.substr(0, colon);
        }
      }
      if (glob.empty()) return Fail(value_col, "empty file pattern in 'source'");
      rule.source_glob = std::move(glob);
      return true;
    }
    if (key == "fingerprint") {
      if (!rule.fingerprints.empty()) return Fail(key_col, "'fingerprint' given twice (list them with commas)");
      return ForEachListItem(value, value_col, [&](std::string_view fp, size_t col) {
        const bool hex = fp.size() == 16 && std::all_of(fp.begin(), fp.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
        });
        if (!hex) return Fail(col, ptx::Cat("'", fp, "' is not a race fingerprint (16 hex digits, lower case)"));
        rule.fingerprints.emplace_back(fp);
        return true;
      });
    }
    return Fail(key_col,
                ptx::Cat("unknown condition '", key, "' (expected kernel, kernel~, kind, source, fingerprint)"));
  }

  std::string_view line_;
  std::string_view file_;
  uint32_t line_number_;
  size_t pos_ = 0;
  absl::Status error_;
};

// The line without its comment ('#' outside quotes) and outer blanks.
std::string_view StripComment(std::string_view line) {
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    if (quoted && line[i] == '\\') {
      ++i;
    } else if (line[i] == '"') {
      quoted = !quoted;
    } else if (line[i] == '#' && !quoted) {
      line = line.substr(0, i);
      break;
    }
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) {
    line.remove_suffix(1);
  }
  return line;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text) {
  const std::vector<GlobToken> p = Tokenize(pattern);
  // Greedy match with one backtrack point (the last star): linear in practice.
  size_t pi = 0, ti = 0;
  size_t star = std::string_view::npos, star_text = 0;
  while (ti < text.size()) {
    if (pi < p.size() && p[pi].kind == GlobToken::kStar) {
      star = pi++;
      star_text = ti;
    } else if (pi < p.size() &&
               (p[pi].kind == GlobToken::kAny || (p[pi].kind == GlobToken::kChar && p[pi].c == text[ti]))) {
      pi++;
      ti++;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      ti = ++star_text;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi].kind == GlobToken::kStar) pi++;
  return pi == p.size();
}

std::string_view WithoutParameters(std::string_view name) {
  if (name.empty() || name.back() != ')') return name;
  int depth = 0;
  size_t open = std::string_view::npos;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') depth++;
    if (name[i] == '(' && --depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string_view::npos || open == 0) return name;
  std::string_view head = name.substr(0, open);
  // Drop a return type ("void f<int>"): text after the last blank outside <> and ().
  int nest = 0;
  size_t cut = 0;
  for (size_t i = 0; i < head.size(); ++i) {
    const char c = head[i];
    if (c == '<' || c == '(') nest++;
    if ((c == '>' || c == ')') && nest > 0) nest--;
    if (c == ' ' && nest == 0) cut = i + 1;
  }
  return head.substr(cut);
}

bool Suppression::Matches(const ResolvedRace& race) const {
  if (!kinds.empty()) {
    // A grouped entry matches through any kind its members showed (RAW and WAR of one pair).
    bool any = false;
    for (RaceKind k : kinds) {
      any = any || k == race.kind;
      for (const ResolvedRace::Variant& v : race.variants) any = any || k == v.kind;
    }
    if (!any) return false;
  }
  if (!fingerprints.empty()) {
    if (std::find(fingerprints.begin(), fingerprints.end(), FingerprintOf(race)) == fingerprints.end()) return false;
  }
  if (kernel_glob) {
    const bool match = GlobMatch(*kernel_glob, race.kernel) ||
                       GlobMatch(*kernel_glob, WithoutParameters(race.kernel)) ||
                       (!race.kernel_mangled.empty() && GlobMatch(*kernel_glob, race.kernel_mangled));
    if (!match) return false;
  }
  if (kernel_regex && !std::regex_search(race.kernel, *kernel_regex)) return false;
  if (source_glob && !AccessSourceMatches(*this, race.earlier) && !AccessSourceMatches(*this, race.later)) {
    return false;
  }
  return true;
}

absl::StatusOr<SuppressionSet> SuppressionSet::Parse(std::string_view text, std::string_view filename) {
  SuppressionSet set;
  uint32_t line_number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    line_number++;
    const std::string_view line = StripComment(raw);
    size_t first = 0;
    while (first < line.size() && (line[first] == ' ' || line[first] == '\t')) first++;
    if (first == line.size()) continue;
    Suppression rule;
    rule.file = std::string(filename);
    rule.line = line_number;
    rule.text = std::string(line.substr(first));
    RuleParser parser(line, filename, line_number);
    if (!parser.Parse(rule)) return parser.error();
    set.rules_.push_back(std::move(rule));
  }
  return set;
}

absl::StatusOr<SuppressionSet> SuppressionSet::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(ptx::Cat("cannot open suppression file '", path, "'"));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::DataLossError(ptx::Cat("cannot read suppression file '", path, "'"));
  return Parse(text.str(), path);
}

void SuppressionSet::Append(const SuppressionSet& other) {
  rules_.insert(rules_.end(), other.rules_.begin(), other.rules_.end());
}

std::optional<size_t> SuppressionSet::Match(const ResolvedRace& race) const {
  for (size_t i = 0; i < rules_.size(); ++i) {
    if (rules_[i].Matches(race)) return i;
  }
  return std::nullopt;
}

ReportData FilterRaces(std::vector<ResolvedRace> races, const SuppressionSet* suppressions,
                       std::optional<uint64_t> max_reports, std::vector<detector::RaceKind> ignore) {
  ReportData data;
  data.max_reports = max_reports;
  data.ignore = std::move(ignore);
  std::vector<RaceCounts> per_rule(suppressions != nullptr ? suppressions->rules().size() : 0);
  for (ResolvedRace& race : races) {
    if (std::find(data.ignore.begin(), data.ignore.end(), race.kind) != data.ignore.end()) {
      data.ignored.Add(race);
      continue;
    }
    const bool warning = detector::IsWarningKind(race.kind);
    data.found.Add(race);
    if (warning) data.found_warnings.Add(race);
    if (suppressions != nullptr) {
      if (std::optional<size_t> rule = suppressions->Match(race)) {
        data.suppressed.Add(race);
        if (warning) data.suppressed_warnings.Add(race);
        per_rule[*rule].Add(race);
        continue;
      }
    }
    if (max_reports && data.races.size() >= *max_reports) {
      data.omitted.Add(race);
      continue;
    }
    data.races.push_back(std::move(race));
    data.races.back().ordinal = data.races.size();
  }
  for (size_t i = 0; i < per_rule.size(); ++i) {
    if (per_rule[i].races == 0) continue;
    const Suppression& s = suppressions->rules()[i];
    data.suppressions_used.push_back(SuppressionUse{ptx::Cat(s.file, ":", s.line), s.text, per_rule[i]});
  }
  return data;
}

}  // namespace barracuda::reports
