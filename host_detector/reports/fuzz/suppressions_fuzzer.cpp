// libFuzzer target for suppression files. Properties checked on every input:
//  - SuppressionSet::Parse never crashes (ASan/UBSan catch memory and UB errors);
//  - errors carry a position: "fuzz.supp:LINE:COL: message";
//  - every parsed rule, re-parsed from its own text, gives the same conditions;
//  - matching a race against every rule never crashes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "host_detector/reports/suppressions.h"

using namespace barracuda;
using namespace barracuda::reports;

namespace {

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
  std::abort();
}

bool SameConditions(const Suppression& a, const Suppression& b) {
  return a.kernel_glob == b.kernel_glob && a.kernel_regex_text == b.kernel_regex_text && a.kinds == b.kinds &&
         a.source_glob == b.source_glob && a.source_line == b.source_line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<SuppressionSet> set = SuppressionSet::Parse(text, "fuzz.supp");
  if (!set.ok()) {
    const std::string message(set.status().message());
    if (!message.starts_with("fuzz.supp:")) Fail("error without position", message);
    return 0;
  }
  static const ptx::Site site = [] {
    ptx::Site s;
    s.function = "_Z6kernelPi";
    s.source = ptx::SourceLocation{"/src/app/kernel.cu", 1, 12, 3};
    s.inlined_at = ptx::SourceLocation{"/src/app/main.cu", 2, 40, 1};
    return s;
  }();
  ResolvedRace race;
  race.kernel = "kernel(int*)";
  race.kernel_mangled = "_Z6kernelPi";
  race.earlier.site = &site;
  race.later.site = &site;
  for (const Suppression& rule : set->rules()) {
    (void)rule.Matches(race);
    absl::StatusOr<SuppressionSet> again = SuppressionSet::Parse(rule.text, "again.supp");
    if (!again.ok()) Fail("a parsed rule does not parse again", std::string(again.status().message()));
    if (again->rules().size() != 1 || !SameConditions(again->rules()[0], rule)) {
      Fail("a rule re-parsed from its text differs", rule.text);
    }
  }
  return 0;
}
