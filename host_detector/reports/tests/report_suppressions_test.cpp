// Suppression files (parse errors with file:line:col, matching by kernel,
// kind and source file:line) and FilterRaces (suppression counts, the
// --max-reports limit), over the fixture's real races.
#include <catch2/catch.hpp>

#include <fstream>

#include "host_detector/reports/race_grouping.h"
#include "host_detector/reports/suppressions.h"
#include "ptx_rewriter/text_concat.h"
#include "host_detector/reports/tests/report_fixture.h"

namespace barracuda::reports::testing {
namespace {

using detector::RaceKind;

SuppressionSet MustParse(std::string_view text) {
  absl::StatusOr<SuppressionSet> set = SuppressionSet::Parse(text, "supp.txt");
  INFO(set.status().ToString());
  REQUIRE(set.ok());
  return *std::move(set);
}

std::string ParseError(std::string_view text) {
  absl::StatusOr<SuppressionSet> set = SuppressionSet::Parse(text, "supp.txt");
  REQUIRE_FALSE(set.ok());
  CHECK(absl::IsInvalidArgument(set.status()));
  return std::string(set.status().message());
}

size_t CountSuppressed(const SuppressionSet& set, const std::vector<ResolvedRace>& races) {
  size_t n = 0;
  for (const ResolvedRace& r : races) n += set.Match(r).has_value();
  return n;
}

TEST_CASE("GlobMatch", "[reports][suppressions]") {
  CHECK(GlobMatch("*", ""));
  CHECK(GlobMatch("*", "anything/at/all"));
  CHECK(GlobMatch("racy*", "racyRW(int*, int*)"));
  CHECK(GlobMatch("*RW(*", "racyRW(int*, int*)"));
  CHECK(GlobMatch("r?cy", "racy"));
  CHECK_FALSE(GlobMatch("r?cy", "rcy"));
  CHECK_FALSE(GlobMatch("racy", "racyRW"));  // whole text
  CHECK(GlobMatch("*/app/*.cu", "/home/user/app/racy kernels.cu"));
  CHECK(GlobMatch("a*b*c", "aXXbYYbZc"));
  CHECK_FALSE(GlobMatch("a*b*c", "aXXbYY"));
  CHECK(GlobMatch("f(int\\*)", "f(int*)"));
  CHECK_FALSE(GlobMatch("f(int\\*)", "f(intX)"));
  CHECK(GlobMatch("[x]", "[x]"));  // no character classes
  // A long star-heavy pattern stays fast (one backtrack point).
  CHECK_FALSE(GlobMatch("*a*a*a*a*a*a*a*b", std::string(2000, 'a')));
}

TEST_CASE("WithoutParameters", "[reports][suppressions]") {
  CHECK(WithoutParameters("racyRW(int*, int*)") == "racyRW");
  CHECK(WithoutParameters("void reduce<float>(float*, int)") == "reduce<float>");
  CHECK(WithoutParameters("void ns::k<(int)3>(void (*)(int))") == "ns::k<(int)3>");
  CHECK(WithoutParameters("(anonymous namespace)::k(int)") == "(anonymous namespace)::k");
  CHECK(WithoutParameters("plain_c_kernel") == "plain_c_kernel");
}

TEST_CASE("Parsing: comments, quoting, kinds, source line", "[reports][suppressions]") {
  const SuppressionSet set = MustParse(
      "# racy on purpose\n"
      "\n"
      "kernel=racyRW kind=RAW,waw   # trailing comment\n"
      "kernel=\"void reduce<float>(float*, int)\" source=\"*/my dir/*.cu:42\"\n"
      "  kernel~=^tile.*\\(float\\*\\)$\n"
      "kind=barrier-divergence\r\n"
      "kernel=\"has # hash and \\\"quotes\\\"\"\n");
  REQUIRE(set.rules().size() == 5);
  const Suppression& a = set.rules()[0];
  CHECK(a.line == 3);
  CHECK(a.file == "supp.txt");
  CHECK(a.text == "kernel=racyRW kind=RAW,waw");
  CHECK(a.kernel_glob == "racyRW");
  CHECK(a.kinds == std::vector<RaceKind>{RaceKind::kReadAfterWrite, RaceKind::kWriteAfterWrite});
  const Suppression& b = set.rules()[1];
  CHECK(b.kernel_glob == "void reduce<float>(float*, int)");
  CHECK(b.source_glob == "*/my dir/*.cu");
  CHECK(b.source_line == 42u);
  CHECK(set.rules()[2].kernel_regex_text == "^tile.*\\(float\\*\\)$");
  CHECK(set.rules()[3].kinds == std::vector<RaceKind>{RaceKind::kBarrierDivergence});
  CHECK(set.rules()[4].kernel_glob == "has # hash and \"quotes\"");
  CHECK(MustParse("").empty());
  CHECK(MustParse("# only comments\n   \n").empty());
  CHECK(MustParse("source=file.cu:0x10").rules()[0].source_glob == "file.cu:0x10");  // not a line number
}

TEST_CASE("Parsing errors name file:line:col", "[reports][suppressions]") {
  CHECK(ParseError("kind=RAW\nkernel=a bogus=1\n") ==
        "supp.txt:2:10: unknown condition 'bogus' (expected kernel, kernel~, kind, source, fingerprint)");
  CHECK(ParseError("kind=RAW,nope") ==
        "supp.txt:1:10: unknown race kind 'nope' (expected RAW, WAR, WAW, atomic-vs-plain, not-morally-strong, barrier-divergence, warp-sync-mask, dsmem-lifetime, dependency-ordered, same-value)");
  CHECK(ParseError("kind=RAW,") == "supp.txt:1:10: unknown race kind '' (expected RAW, WAR, WAW, atomic-vs-plain, not-morally-strong, barrier-divergence, warp-sync-mask, dsmem-lifetime, dependency-ordered, same-value)");
  CHECK(ParseError("  kernel") == "supp.txt:1:3: expected a condition KEY=VALUE (kernel=, kernel~=, kind=, source=, fingerprint=)");
  CHECK(ParseError("kernel=") == "supp.txt:1:8: empty value for 'kernel'");
  CHECK(ParseError("kernel=\"abc") == "supp.txt:1:8: unterminated quoted value");
  CHECK(ParseError("kernel=\"a\"b") == "supp.txt:1:11: expected a blank after the closing quote");
  CHECK(ParseError("kernel=a kernel=b") == "supp.txt:1:10: 'kernel' given twice");
  CHECK(ParseError("kind=RAW kind=WAR") == "supp.txt:1:10: 'kind' given twice (list kinds with commas)");
  CHECK(ParseError("source=x.cu:0") == "supp.txt:1:13: source line numbers start at 1");
  CHECK(ParseError("source=:12") == "supp.txt:1:8: empty file pattern in 'source'");
  CHECK(ParseError("kind~=RAW") == "supp.txt:1:1: 'kind' takes '=', not '~=' (only kernel~= is a regex)");
  CHECK_THAT(ParseError("kernel~=(unclosed"), Catch::StartsWith("supp.txt:1:9: bad regular expression: "));
  CHECK_THAT(ParseError("=x"), Catch::StartsWith("supp.txt:1:1: expected a condition"));
  CHECK(ParseError("kernel~=" + std::string(1025, 'a')) == "supp.txt:1:9: regular expression longer than 1024 characters");
  CHECK(MustParse("kernel~=" + std::string(1024, 'a')).rules().size() == 1);
  CHECK(ParseError("fingerprint=63B4C7C31D949B79") ==
        "supp.txt:1:13: '63B4C7C31D949B79' is not a race fingerprint (16 hex digits, lower case)");
  CHECK(ParseError("fingerprint=63b4c7c31d949b7") ==
        "supp.txt:1:13: '63b4c7c31d949b7' is not a race fingerprint (16 hex digits, lower case)");
  CHECK(ParseError("fingerprint=63b4c7c31d949b79 fingerprint=63b4c7c31d949b79") ==
        "supp.txt:1:30: 'fingerprint' given twice (list them with commas)");
}

TEST_CASE("Load: reads a file, names a missing one", "[reports][suppressions]") {
  const std::string path = ReportOutputPath("suppressions_load_test.txt");
  {
    std::ofstream out(path);
    out << "kind=WAR\nkernel=x kind=nope\n";
  }
  absl::StatusOr<SuppressionSet> bad = SuppressionSet::Load(path);
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(std::string(bad.status().message()), Catch::StartsWith(path + ":2:15: unknown race kind 'nope'"));
  {
    std::ofstream out(path);
    out << "kind=WAR\n";
  }
  absl::StatusOr<SuppressionSet> good = SuppressionSet::Load(path);
  REQUIRE(good.ok());
  CHECK(good->rules().size() == 1);
  CHECK(good->rules()[0].file == path);
  absl::StatusOr<SuppressionSet> missing = SuppressionSet::Load(path + ".does-not-exist");
  CHECK(absl::IsNotFound(missing.status()));
  CHECK_THAT(std::string(missing.status().message()), Catch::Contains("does-not-exist"));
}

TEST_CASE("Matching real races by kernel, kind and source", "[reports][suppressions]") {
  const Fixture f = MakeFixture();
  const std::vector<ResolvedRace> races = f.Resolve();
  size_t in_racy = 0, raw = 0;
  for (const ResolvedRace& r : races) {
    in_racy += r.kernel == "racyRW(int*, int*)";
    raw += r.kind == RaceKind::kReadAfterWrite;
  }
  REQUIRE(in_racy >= 3);
  REQUIRE(raw == 2);

  SECTION("kernel glob on the name without parameters, the full name, the mangled name") {
    CHECK(CountSuppressed(MustParse("kernel=racyRW"), races) == in_racy);
    CHECK(CountSuppressed(MustParse("kernel=\"racyRW(int*, int*)\""), races) == in_racy);
    CHECK(CountSuppressed(MustParse("kernel=_Z6racyRW*"), races) == in_racy);
    CHECK(CountSuppressed(MustParse("kernel=racy"), races) == 0);
    CHECK(CountSuppressed(MustParse("kernel=reduce<*>"), races) == 3);
  }
  SECTION("kernel regex is searched in the demangled name") {
    CHECK(CountSuppressed(MustParse("kernel~=RW\\("), races) == in_racy);
    CHECK(CountSuppressed(MustParse("kernel~=^RW"), races) == 0);
  }
  SECTION("kind") {
    CHECK(CountSuppressed(MustParse("kind=RAW"), races) == raw);
    CHECK(CountSuppressed(MustParse("kind=barrier-divergence"), races) == 1);
  }
  SECTION("conditions of one rule must all hold") {
    CHECK(CountSuppressed(MustParse("kernel=racyRW kind=RAW"), races) == 1);
    CHECK(CountSuppressed(MustParse("kernel=tileShared kind=atomic-vs-plain"), races) == 0);
  }
  SECTION("source: base name or path glob, line of either access or the inlined-at call site") {
    CHECK(CountSuppressed(MustParse("source=\"racy kernels.cu:15\""), races) == 1);  // the read of the RAW
    CHECK(CountSuppressed(MustParse("source=\"*/app/racy kernels.cu:31\""), races) == 2);  // shared RAW and WAR
    CHECK(CountSuppressed(MustParse("source=racy?kernels.cu:17"), races) >= 1);  // atomicAdd inlined here
    CHECK(CountSuppressed(MustParse("source=sm_60_atomic_functions.h"), races) >= 1);
    CHECK(CountSuppressed(MustParse("source=app/racy?kernels.cu"), races) == 0);  // has '/': whole path
    CHECK(CountSuppressed(MustParse("source=\"racy kernels.cu:16\""), races) == 0);
    CHECK(CountSuppressed(MustParse("source=*"), races) == races.size() - 3);  // process B has no .loc
  }
  SECTION("fingerprint, and kind over a grouped entry's variants") {
    const std::vector<ResolvedRace> grouped = GroupBySource(races);
    auto both = std::find_if(grouped.begin(), grouped.end(), [](const ResolvedRace& r) { return r.variants.size() > 1; });
    REQUIRE(both != grouped.end());  // the shared RAW and WAR of one statement pair
    CHECK(CountSuppressed(MustParse("fingerprint=" + both->fingerprint), grouped) == 1);
    CHECK(CountSuppressed(MustParse("fingerprint=0123456789abcdef," + both->fingerprint), grouped) == 1);
    CHECK(CountSuppressed(MustParse("fingerprint=0123456789abcdef"), grouped) == 0);
    // The example's kind is one variant; a rule naming another variant's kind matches too.
    for (const ResolvedRace::Variant& v : both->variants) {
      CHECK(MustParse(ptx::Cat("kind=", detector::RaceKindName(v.kind))).Match(*both).has_value());
    }
  }
  SECTION("the first matching rule counts; Append keeps file order") {
    SuppressionSet set = MustParse("kind=WAR\n");
    set.Append(MustParse("kernel=tileShared\n"));
    const ResolvedRace& war = RaceOf(races, kPidA, RaceKind::kWriteAfterRead, protocol::Space::kShared);
    CHECK(set.Match(war) == 0u);
    const ResolvedRace& shared_raw = RaceOf(races, kPidA, RaceKind::kReadAfterWrite, protocol::Space::kShared);
    CHECK(set.Match(shared_raw) == 1u);
  }
}

TEST_CASE("FilterRaces: suppression counts and --max-reports", "[reports][suppressions]") {
  const Fixture f = MakeFixture();
  const std::vector<ResolvedRace> races = f.Resolve();
  uint64_t total_dynamic = 0;
  for (const ResolvedRace& r : races) total_dynamic += r.count;

  SECTION("nothing filtered") {
    const ReportData d = FilterRaces(races, nullptr, std::nullopt);
    CHECK(d.races.size() == races.size());
    CHECK(d.found.races == races.size());
    CHECK(d.found.dynamic == total_dynamic);
    CHECK(d.suppressed.races == 0);
    CHECK(d.omitted.races == 0);
  }
  SECTION("suppressed races are counted per rule and not shown") {
    const SuppressionSet set = MustParse("kind=WAR\nkernel=racyRW kind=RAW\nkernel=nothing-matches\n");
    const ReportData d = FilterRaces(races, &set, std::nullopt);
    const ResolvedRace& raw = RaceOf(races, kPidA, RaceKind::kReadAfterWrite);
    size_t wars = 0;
    uint64_t war_dynamic = 0;
    for (const ResolvedRace& r : races) {
      if (r.kind == RaceKind::kWriteAfterRead) wars++, war_dynamic += r.count;
    }
    CHECK(d.suppressed.races == wars + 1);
    CHECK(d.suppressed.dynamic == war_dynamic + raw.count);
    CHECK(d.races.size() == races.size() - wars - 1);
    REQUIRE(d.suppressions_used.size() == 2);  // the rule that matched nothing is not listed
    CHECK(d.suppressions_used[0].where == "supp.txt:1");
    CHECK(d.suppressions_used[0].counts.races == wars);
    CHECK(d.suppressions_used[1].where == "supp.txt:2");
    CHECK(d.suppressions_used[1].text == "kernel=racyRW kind=RAW");
    CHECK(d.suppressions_used[1].counts.dynamic == 4);
    for (size_t i = 0; i < d.races.size(); ++i) {
      CHECK(d.races[i].ordinal == i + 1);
      CHECK(d.races[i].kind != RaceKind::kWriteAfterRead);
    }
  }
  SECTION("--max-reports keeps the first N unsuppressed races and counts the rest") {
    const SuppressionSet set = MustParse("kind=RAW\n");
    const ReportData d = FilterRaces(races, &set, 3);
    REQUIRE(d.races.size() == 3);
    CHECK(d.max_reports == 3u);
    CHECK(d.suppressed.races == 2);
    CHECK(d.omitted.races == races.size() - 2 - 3);
    CHECK(d.found.races == races.size());
    CHECK(d.found.dynamic == d.suppressed.dynamic + d.omitted.dynamic + d.races[0].count + d.races[1].count +
                                 d.races[2].count);
    // The shown ones are the first unsuppressed in report order.
    std::vector<uint64_t> expected;
    for (const ResolvedRace& r : races) {
      if (r.kind != RaceKind::kReadAfterWrite && expected.size() < 3) expected.push_back(r.ordinal);
    }
    CHECK(races[expected[2] - 1].key == d.races[2].key);
    CHECK(d.races[2].ordinal == 3);
  }
  SECTION("--max-reports 0 shows none") {
    const ReportData d = FilterRaces(races, nullptr, 0);
    CHECK(d.races.empty());
    CHECK(d.omitted.races == races.size());
  }
}

}  // namespace
}  // namespace barracuda::reports::testing
