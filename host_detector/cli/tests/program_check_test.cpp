// The checks `barracuda` makes before running anything: program resolution,
// ELF / dynamic linking / CUDA runtime import / PTX, report paths.
#include "host_detector/cli/program_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

#include "host_detector/cli/exit_codes.h"

namespace barracuda::cli {
namespace {

struct TempFile {
  std::string path;
  TempFile(const std::string& leaf, const std::string& content, mode_t mode) {
    path = "/tmp/barracuda_cli_test_" + std::to_string(getpid()) + "_" + leaf;
    std::ofstream(path) << content;
    chmod(path.c_str(), mode);
  }
  ~TempFile() { std::remove(path.c_str()); }
};

TEST_CASE("program resolution: not found, directory, not executable, PATH search", "[cli]") {
  std::string resolved;
  CheckResult r = ResolveProgram("./definitely-not-here", &resolved);
  CHECK(r.exit_code == kExitNotFound);
  CHECK_THAT(r.message, Catch::Contains("definitely-not-here"));
  CHECK(ResolveProgram("no-such-command-barracuda", &resolved).exit_code == kExitNotFound);
  CHECK(ResolveProgram("/tmp", &resolved).exit_code == kExitNotExecutable);
  TempFile plain("plain", "data", 0644);
  CheckResult nx = ResolveProgram(plain.path, &resolved);
  CHECK(nx.exit_code == kExitNotExecutable);
  CHECK_THAT(nx.message, Catch::Contains("not executable"));
  REQUIRE(ResolveProgram("sh", &resolved).ok());  // found on PATH
  CHECK(resolved.find("/sh") != std::string::npos);
}

TEST_CASE("program check: scripts, non-ELF files and non-CUDA programs are refused", "[cli]") {
  TempFile script("script.sh", "#!/bin/sh\nexec ./app\n", 0755);
  CheckResult s = CheckProgram(script.path);
  CHECK(s.exit_code == kExitNotCudaProgram);
  CHECK_THAT(s.message, Catch::Contains("script"));
  TempFile junk("junk", "\x01\x02 not an elf file at all", 0755);
  CHECK(CheckProgram(junk.path).exit_code == kExitNotCudaProgram);
  TempFile truncated("trunc", std::string("\x7f" "ELF\x02\x01\x01", 7), 0755);
  CHECK(CheckProgram(truncated.path).exit_code == kExitNotCudaProgram);
  // A dynamically linked program without CUDA.
  CheckResult sh = CheckProgram("/bin/sh");
  CHECK(sh.exit_code == kExitNotCudaProgram);
  CHECK_THAT(sh.message, Catch::Contains("not a CUDA program"));
}

#ifdef BARRACUDA_CLI_CUDA_PROGRAMS
TEST_CASE("program check: static cudart, no PTX, and a good build (nvcc)", "[cli]") {
  const std::string dir = BARRACUDA_CLI_CUDA_PROGRAMS;
  // -cudart static: accepted (taken over at start), unless stripped.
  CheckResult st = CheckProgram(dir + "/tiny_static_cudart");
  INFO(st.message);
  CHECK(st.ok());
  CHECK(st.static_runtime);
  REQUIRE(!st.notes.empty());
  CHECK_THAT(st.notes[0], Catch::Contains("CUDA runtime linked statically"));
  CheckResult stripped = CheckProgram(dir + "/tiny_static_stripped");
  CHECK(stripped.exit_code == kExitStaticCudart);
  CHECK_THAT(stripped.message, Catch::Contains("stripped"));
  CHECK_THAT(stripped.message, Catch::Contains("-cudart shared"));
  CheckResult np = CheckProgram(dir + "/tiny_no_ptx");
  CHECK(np.exit_code == kExitNoPtx);
  CHECK_THAT(np.message, Catch::Contains("code=[sm_XX,compute_XX]"));
  CheckResult good = CheckProgram(dir + "/tiny_good");
  INFO(good.message);
  CHECK(good.ok());
  CHECK_FALSE(good.static_runtime);
  REQUIRE(good.notes.size() == 1);
  CHECK_THAT(good.notes[0], Catch::Contains("1 PTX entry"));
}
#endif

TEST_CASE("report paths: writable files and directories", "[cli]") {
  CHECK(CheckWritable("--report-json", "-").ok());
  CHECK(CheckWritable("--report-json", "/tmp/barracuda_cli_new_report.json").ok());
  CheckResult missing = CheckWritable("--report-json", "/no/such/dir/r.json");
  CHECK(missing.exit_code == kExitReportNotWritable);
  CHECK_THAT(missing.message, Catch::Contains("/no/such/dir"));
  CHECK(CheckWritable("--report-sarif", "/tmp").exit_code == kExitReportNotWritable);
  if (geteuid() != 0) {  // root may write anywhere
    TempFile ro("readonly.json", "{}", 0444);
    CHECK(CheckWritable("--report-text", ro.path).exit_code == kExitReportNotWritable);
  }
  CHECK(CheckReadable("--suppressions", "/no/such/file").exit_code == kExitReportNotWritable);
}

}  // namespace
}  // namespace barracuda::cli
