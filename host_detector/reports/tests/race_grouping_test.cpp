// GroupBySource and RaceFingerprint (issue 17): one entry per bug, and a
// fingerprint that survives what changes from run to run and unrelated edits.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <algorithm>
#include <unistd.h>
#include <string>
#include <vector>

#include "host_detector/reports/race_fingerprint.h"
#include "host_detector/reports/race_grouping.h"
#include "host_detector/reports/report_text.h"

namespace barracuda::reports {
namespace {

using detector::RaceClass;
using detector::RaceKind;

// A source file written to a fresh directory; rewritten by Write.
class SourceFile {
 public:
  explicit SourceFile(const std::string& dir_name)
      : dir_(std::filesystem::temp_directory_path() / (dir_name + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
  }
  ~SourceFile() { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& text) const {
    const std::string path = (dir_ / "kernels.cu").string();
    std::ofstream(path) << text;
    return path;
  }

 private:
  std::filesystem::path dir_;
};

ptx::Site MakeSite(uint32_t id, const std::string& file, uint32_t line, uint32_t column) {
  ptx::Site s;
  s.id = id;
  s.function = "_Z6kernelPi";
  s.opcode = "st.shared.u32";
  s.ptx_line = 100 + id;
  if (!file.empty()) s.source = ptx::SourceLocation{file, 1, line, column};
  return s;
}

ResolvedRace MakeRace(const ptx::Site& a, const ptx::Site& b, RaceKind kind, RaceClass cls, uint64_t count) {
  ResolvedRace r;
  r.process_id = 7;
  r.kernel_mangled = "_Z6kernelPi";
  r.kernel = "kernel(int*)";
  r.kind = kind;
  r.cls = cls;
  r.space = protocol::Space::kShared;
  r.count = count;
  r.address = 0x40 + count;
  r.earlier.site_id = a.id;
  r.earlier.site = &a;
  r.later.site_id = b.id;
  r.later.site = &b;
  r.seen_in = {{7, count}};
  return r;
}

const char* kSource =
    "__global__ void kernel(int* out) {\n"     // 1
    "  __shared__ int s[256];\n"               // 2
    "  s[threadIdx.x] = threadIdx.x;\n"        // 3
    "  out[threadIdx.x] = s[threadIdx.x ^ 1];\n"  // 4
    "  s[threadIdx.x] = threadIdx.x;\n"        // 5: a copy of line 3
    "}\n";

TEST_CASE("Grouping: runs of one program under several schedules are one entry per bug", "[reports][grouping]") {
  SourceFile src("barracuda_grouping_sched_");
  const std::string file = src.Write(kSource);
  const ptx::Site st = MakeSite(0, file, 3, 19), ld = MakeSite(2, file, 4, 23);
  // Schedule 1 (process 7) met the pair as RAW, schedule 2 (process 8) as WAR.
  ResolvedRace raw = MakeRace(st, ld, RaceKind::kReadAfterWrite, RaceClass::kIntraBlock, 3);
  ResolvedRace war = MakeRace(ld, st, RaceKind::kWriteAfterRead, RaceClass::kInterBlock, 2);
  war.process_id = 8;
  war.seen_in = {{8, 2}};
  const std::vector<ResolvedRace> apart = GroupBySource({raw, war});
  CHECK(apart.size() == 2);  // two processes of a multi-process program: two entries
  const std::vector<ResolvedRace> merged = GroupBySource({raw, war}, /*across_processes=*/true);
  REQUIRE(merged.size() == 1);
  CHECK(merged[0].count == 5);
  CHECK(merged[0].seen_in.size() == 2);
  CHECK(merged[0].variants.size() == 2);
  CHECK(merged[0].fingerprint == apart[0].fingerprint);
}

TEST_CASE("Grouping: one entry per statement pair, kinds and classes as variants", "[reports][grouping]") {
  SourceFile src("barracuda_grouping_");
  const std::string file = src.Write(kSource);
  // Two PTX sites of the store on line 3 (a vector store split), one load on line 4.
  const ptx::Site st0 = MakeSite(0, file, 3, 19), st1 = MakeSite(1, file, 3, 19), ld = MakeSite(2, file, 4, 23);
  const ptx::Site st_copy = MakeSite(3, file, 5, 19);
  std::vector<ResolvedRace> in = {
      MakeRace(st0, ld, RaceKind::kReadAfterWrite, RaceClass::kIntraBlock, 3),
      MakeRace(ld, st1, RaceKind::kWriteAfterRead, RaceClass::kDivergence, 2),  // other order, kind, class, site
      MakeRace(st0, st1, RaceKind::kWriteAfterWrite, RaceClass::kIntraBlock, 1),
      MakeRace(st_copy, ld, RaceKind::kReadAfterWrite, RaceClass::kIntraBlock, 4),  // the copy on line 5
      MakeRace(ld, st0, RaceKind::kWriteAfterRead, RaceClass::kIntraBlock, 7),  // the first site pair reversed
  };
  ResolvedRace global = MakeRace(st0, ld, RaceKind::kReadAfterWrite, RaceClass::kIntraBlock, 5);
  global.space = protocol::Space::kGlobal;
  in.push_back(global);
  ResolvedRace other_kernel = MakeRace(st0, ld, RaceKind::kReadAfterWrite, RaceClass::kIntraBlock, 6);
  other_kernel.kernel_mangled = "_Z5otherPi";
  other_kernel.kernel = "other(int*)";
  in.push_back(other_kernel);

  const std::vector<ResolvedRace> out = GroupBySource(in);
  REQUIRE(out.size() == 5);
  const ResolvedRace& bug = out[0];
  CHECK(bug.ordinal == 1);
  CHECK(bug.count == 12);
  CHECK(bug.kind == RaceKind::kReadAfterWrite);  // the example is the first member
  REQUIRE(bug.site_pairs.size() == 2);           // (0,2) met in both orders is one pair
  CHECK(bug.site_pairs[0].count == 10);
  CHECK(bug.site_pairs[1].earlier.site_id == 2);
  CHECK(bug.site_pairs[1].count == 2);
  REQUIRE(bug.variants.size() == 3);
  CHECK(bug.variants[0].kind == RaceKind::kReadAfterWrite);
  CHECK(bug.variants[0].cls == RaceClass::kIntraBlock);
  CHECK(bug.variants[1].kind == RaceKind::kWriteAfterRead);
  CHECK(bug.variants[1].cls == RaceClass::kDivergence);
  CHECK(bug.variants[1].count == 2);
  CHECK(bug.variants[2].cls == RaceClass::kIntraBlock);
  CHECK(bug.variants[2].count == 7);
  REQUIRE(bug.seen_in.size() == 1);
  CHECK(bug.seen_in[0].count == 12);
  // The heading names the example's class first (its pair is intra-block),
  // then the other occurrences' classes.
  CHECK(RaceKindsAndClassesText(bug) ==
        "read-after-write (RAW) and write-after-read (WAR) race (intra-block; other occurrences divergence)");
  CHECK(RaceKindsAndClassesText(out[1]) == "write-after-write (WAW) race (intra-block)");
  // The hint for a read of an asynchronous copy's destination names the wait.
  ResolvedRace async_read = out[0];
  async_read.earlier.async = true;
  CHECK_THAT(UnacquiredReleaseHint(async_read), Catch::StartsWith("Missing wait: the asynchronous copy"));
  CHECK_THAT(UnacquiredReleaseHint(out[0]), Catch::StartsWith("Missing acquire"));
  CHECK(out[1].kind == RaceKind::kWriteAfterWrite);
  CHECK(out[2].earlier.site_id == 3);
  CHECK(out[3].space == protocol::Space::kGlobal);
  CHECK(out[4].kernel == "other(int*)");

  // Every entry its own fingerprint: the copy on line 5 included.
  std::vector<std::string> prints;
  for (const ResolvedRace& r : out) {
    CHECK(r.fingerprint.size() == 16);
    prints.push_back(r.fingerprint);
  }
  std::sort(prints.begin(), prints.end());
  CHECK(std::adjacent_find(prints.begin(), prints.end()) == prints.end());
}

TEST_CASE("Fingerprints: same across runs and unrelated edits, different for another statement",
          "[reports][grouping][fingerprint]") {
  SourceFile src("barracuda_fingerprint_");
  std::string file = src.Write(kSource);
  ptx::Site st = MakeSite(0, file, 3, 19), ld = MakeSite(1, file, 4, 23);
  auto print = [&](const ResolvedRace& r) {
    SourceLines lines;  // a fresh cache: the file may have changed
    return RaceFingerprint(r, lines);
  };
  const ResolvedRace base = MakeRace(st, ld, RaceKind::kReadAfterWrite, RaceClass::kIntraBlock, 3);
  const std::string fp = print(base);

  SECTION("what changes from run to run does not count") {
    ResolvedRace r = MakeRace(ld, st, RaceKind::kWriteAfterRead, RaceClass::kInterBlock, 9);
    r.process_id = 12345;
    r.address = 0x7f00deadbeef;
    r.shared_block = 17;
    r.launch_id = 4;
    r.earlier.thread_linear = 999;
    r.later.block_linear = 3;
    r.kernel_mangled = "_Z6kernelPi_other_build";
    CHECK(print(r) == fp);
  }
  SECTION("an edit above moves the lines, not the fingerprint; another directory neither") {
    SourceFile moved("barracuda_fingerprint_moved_");
    const std::string edited = moved.Write(std::string("// a comment added above\n#include <cstdio>\n\n") + kSource);
    const ptx::Site st2 = MakeSite(5, edited, 6, 19), ld2 = MakeSite(9, edited, 7, 23);
    CHECK(print(MakeRace(st2, ld2, RaceKind::kReadAfterWrite, RaceClass::kIntraBlock, 1)) == fp);
    // Re-indenting the statement does not count either.
    std::string reindented = kSource;
    reindented.replace(reindented.find("  s[threadIdx.x] = threadIdx.x;"), 2, "\t    ");
    const std::string file3 = moved.Write(reindented);
    const ptx::Site st3 = MakeSite(0, file3, 3, 19), ld3 = MakeSite(1, file3, 4, 23);
    CHECK(print(MakeRace(st3, ld3, RaceKind::kReadAfterWrite, RaceClass::kIntraBlock, 1)) == fp);
  }
  SECTION("what names another race counts") {
    ResolvedRace waw = base;
    waw.kind = RaceKind::kWriteAfterWrite;
    CHECK(print(waw) != fp);
    ResolvedRace global = base;
    global.space = protocol::Space::kGlobal;
    CHECK(print(global) != fp);
    ResolvedRace kernel = base;
    kernel.kernel = "kernel2(int*)";
    CHECK(print(kernel) != fp);
    const ptx::Site copy = MakeSite(0, file, 5, 19);  // the same text, the second copy
    CHECK(print(MakeRace(copy, ld, RaceKind::kReadAfterWrite, RaceClass::kIntraBlock, 3)) != fp);
    const ptx::Site column = MakeSite(0, file, 3, 5);
    CHECK(print(MakeRace(column, ld, RaceKind::kReadAfterWrite, RaceClass::kIntraBlock, 3)) != fp);
    // The statement's text changed: a new race as far as a baseline knows.
    std::string changed = kSource;
    changed.replace(changed.find("threadIdx.x ^ 1"), 15, "threadIdx.x ^ 2");
    file = src.Write(changed);
    CHECK(print(base) != fp);
  }
  SECTION("without -lineinfo the PTX site names the statement") {
    const ptx::Site p0 = MakeSite(0, "", 0, 0), p1 = MakeSite(1, "", 0, 0);
    const std::string a = print(MakeRace(p0, p1, RaceKind::kReadAfterWrite, RaceClass::kIntraBlock, 1));
    CHECK(a == print(MakeRace(p1, p0, RaceKind::kWriteAfterRead, RaceClass::kInterBlock, 2)));
    const ptx::Site p2 = MakeSite(2, "", 0, 0);
    CHECK(a != print(MakeRace(p0, p2, RaceKind::kReadAfterWrite, RaceClass::kIntraBlock, 1)));
  }
  SECTION("an unreadable source falls back to the line number") {
    const ptx::Site gone_st = MakeSite(0, "/nonexistent/kernels.cu", 3, 19);
    const ptx::Site gone_ld = MakeSite(1, "/nonexistent/kernels.cu", 4, 23);
    const std::string a = print(MakeRace(gone_st, gone_ld, RaceKind::kReadAfterWrite, RaceClass::kIntraBlock, 1));
    CHECK(a != fp);
    const ptx::Site moved_ld = MakeSite(1, "/nonexistent/kernels.cu", 5, 23);
    CHECK(a != print(MakeRace(gone_st, moved_ld, RaceKind::kReadAfterWrite, RaceClass::kIntraBlock, 1)));
  }
}

TEST_CASE("Fnv1a64Hex: the published FNV-1a 64 values", "[reports][fingerprint]") {
  CHECK(Fnv1a64Hex("") == "cbf29ce484222325");
  CHECK(Fnv1a64Hex("a") == "af63dc4c8601ec8c");
  CHECK(Fnv1a64Hex("foobar") == "85944171f73967e8");
}

}  // namespace
}  // namespace barracuda::reports
