// The barracuda binary: help, version, usage errors and every refusal with its
// exit code and message, run as a user would.
#include <sys/wait.h>
#include <csignal>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "host_detector/cli/exit_codes.h"
#include "host_detector/cli/runtime_paths.h"

namespace barracuda::cli {
namespace {

struct Result {
  int status = -1;
  std::string out, err;
};

// Runs barracuda with `args`, capturing stdout and stderr.
// `prefix`: words before the command (a `timeout`, an `env`).
Result Barracuda(const std::vector<std::string>& args, const std::string& prefix = "") {
  const std::string base = "/tmp/barracuda_cli_binary_" + std::to_string(getpid());
  std::string cmd = prefix + "'" + BARRACUDA_CLI_PATH + "'";
  for (const std::string& a : args) cmd += " '" + a + "'";
  cmd += " > " + base + ".out 2> " + base + ".err < /dev/null";
  const int rc = std::system(cmd.c_str());
  Result r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  auto slurp = [](const std::string& p) {
    std::ifstream in(p);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::remove(p.c_str());
    return s;
  };
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  return r;
}

TEST_CASE("barracuda: --help and --version", "[cli]") {
  Result help = Barracuda({"--help"});
  CHECK(help.status == 0);
  for (const char* opt : {"--backend", "--warp-model", "--report-json", "--report-sarif", "--report-text",
                          "--error-exitcode", "--kernel-include", "--kernel-exclude", "--suppressions",
                          "--max-reports", "--ignore", "--seed", "--quiet", "--verbose", "--version", "--gpu-runtime",
                          "--gpu-queue-mb", "Exit status"})
    CHECK_THAT(help.out, Catch::Contains(opt));
  Result version = Barracuda({"--version"});
  CHECK(version.status == 0);
  CHECK_THAT(version.out, Catch::StartsWith("barracuda "));
}

TEST_CASE("barracuda: usage errors", "[cli]") {
  CHECK(Barracuda({}).status == kExitUsage);
  Result unknown = Barracuda({"--no-such-option", "./app"});
  CHECK(unknown.status == kExitUsage);
  CHECK_THAT(unknown.err, Catch::Contains("--no-such-option"));
  CHECK(Barracuda({"--warp-model=sideways", "/bin/sh"}).status == kExitUsage);
  Result regex = Barracuda({"--kernel-include", "([", "/bin/sh"});
  CHECK(regex.status == kExitUsage);
  CHECK_THAT(regex.err, Catch::Contains("invalid regular expression"));
  Result runtime = Barracuda({"--backend=gpu", "--gpu-runtime=cpu", "/bin/sh"});
  CHECK(runtime.status == kExitUsage);
  // Values a CI script could get wrong are refused, not wrapped or dropped:
  // an exit status past 255 (256 would read as 0), negative or too large
  // unsigned numbers, a timeout too small to be one, an empty report path.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--error-exitcode", "256"}, {"--error-exitcode", "-1"}, {"--max-reports", "-1"},
           {"--seed", "99999999999999999999"}, {"--gpu-queue-mb", "-1"}, {"--memory-limit", "-1"},
           {"--kernel-timeout", "1e-9"}, {"--kernel-timeout", "nan"}, {"--report-json", ""},
           {"--report-text", ""}, {"--suppressions", ""}}) {
    std::vector<std::string> argv = args;
    argv.push_back("/bin/sh");
    Result r = Barracuda(argv);
    INFO(args[0] << " '" << args[1] << "': " << r.err);
    CHECK(r.status == kExitUsage);
    CHECK_THAT(r.err, Catch::Contains(args[0]));
  }
  if (!NvidiaGpuPresent()) {
    Result gpu = Barracuda({"--backend=gpu", "/bin/sh"});
    CHECK(gpu.status == kExitBackendUnavailable);
    CHECK_THAT(gpu.err, Catch::Contains("needs an NVIDIA GPU and driver"));
    CHECK_THAT(gpu.err, Catch::Contains("--gpu-runtime=emulator"));
  }
  setenv(kGpuAgentEnv, "/nonexistent/libbarracuda_gpu.so", 1);
  Result no_agent = Barracuda({"--backend=gpu", "--gpu-runtime=emulator", "/bin/sh"});
  unsetenv(kGpuAgentEnv);
  CHECK(no_agent.status == kExitBackendUnavailable);
  CHECK_THAT(no_agent.err, Catch::Contains("/nonexistent/libbarracuda_gpu.so"));
  CHECK_THAT(no_agent.err, Catch::Contains("build the target barracuda_gpu"));
}

TEST_CASE("barracuda: refusals", "[cli]") {
  Result missing = Barracuda({"./no-such-program", "arg"});
  CHECK(missing.status == kExitNotFound);
  CHECK_THAT(missing.err, Catch::Contains("no-such-program"));
  // After "--" a dash-name is a program, not an option.
  CHECK(Barracuda({"--", "-dash-program"}).status == kExitNotFound);
  const std::string script = "/tmp/barracuda_cli_binary_script_" + std::to_string(getpid()) + ".sh";
  std::ofstream(script) << "#!/bin/sh\necho hi\n";
  REQUIRE(std::system(("chmod +x " + script).c_str()) == 0);
  Result s = Barracuda({script});
  CHECK(s.status == kExitNotCudaProgram);
  CHECK_THAT(s.err, Catch::Contains("script"));
  std::remove(script.c_str());
  CHECK(Barracuda({"/bin/sh", "-c", "true"}).status == kExitNotCudaProgram);
#ifdef BARRACUDA_CLI_CUDA_PROGRAMS
  const std::string dir = BARRACUDA_CLI_CUDA_PROGRAMS;
  Result st = Barracuda({dir + "/tiny_static_stripped"});
  CHECK(st.status == kExitStaticCudart);
  CHECK_THAT(st.err, Catch::Contains("stripped"));
  Result np = Barracuda({dir + "/tiny_no_ptx"});
  CHECK(np.status == kExitNoPtx);
  CHECK_THAT(np.err, Catch::Contains("compute_XX"));
  Result unwritable = Barracuda({"--report-json", "/no/such/dir/r.json", dir + "/tiny_good"});
  CHECK(unwritable.status == kExitReportNotWritable);
  CHECK_THAT(unwritable.err, Catch::Contains("/no/such/dir/r.json"));
  Result nosupp = Barracuda({"--suppressions", "/no/such/supp.txt", dir + "/tiny_good"});
  CHECK(nosupp.status == kExitReportNotWritable);
  Result dirsupp = Barracuda({"--suppressions", "/tmp", dir + "/tiny_good"});
  CHECK(dirsupp.status == kExitReportNotWritable);
  CHECK_THAT(dirsupp.err, Catch::Contains("is a directory"));
#ifdef BARRACUDA_CLI_REPORT_WRITERS
  const std::string bad_rules = "/tmp/barracuda_cli_binary_rules_" + std::to_string(getpid());
  std::ofstream(bad_rules) << "kernel=ok\nkind=NOT-A-KIND\n";
  Result badsupp = Barracuda({"--suppressions", bad_rules, dir + "/tiny_good"});
  std::remove(bad_rules.c_str());
  CHECK(badsupp.status == kExitUsage);
  CHECK_THAT(badsupp.err, Catch::Contains(bad_rules + ":2:"));
#endif
  // The good build passes every check; without the emulator library it stops there.
  setenv("BARRACUDA_EMU_LIB", "/nonexistent-barracuda-lib", 1);
  Result nolib = Barracuda({dir + "/tiny_good"});
  unsetenv("BARRACUDA_EMU_LIB");
  CHECK(nolib.status == kExitInternal);
  CHECK_THAT(nolib.err, Catch::Contains("/nonexistent-barracuda-lib"));
#endif
}

}  // namespace
}  // namespace barracuda::cli

#ifdef BARRACUDA_E2E_EXAMPLES
namespace barracuda::cli {
namespace {

std::string ReportPath(const std::string& leaf) {
  const char* dir = std::getenv("BARRACUDA_REPORT_OUTPUT_DIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/e2e_" + leaf + "_" + std::to_string(getpid());
}

// The GPU backend's whole path without a GPU: the preloaded agent instruments
// the PTX and drains its queues, the emulator runs the instrumented PTX as the
// "GPU". Same bug found as with --backend=emu (which of a RAW/WAR pair depends
// on the schedule, which the longer instrumented code changes).
TEST_CASE("barracuda: the bundled example under the GPU backend on the emulator", "[cli][e2e][report-files][gpu]") {
  const std::string cli = BARRACUDA_CLI_PATH;
  if (FindGpuAgent(cli.substr(0, cli.rfind('/'))).path.empty()) {
    WARN("libbarracuda_gpu.so not built: skipped");
    return;
  }
  const std::string examples = BARRACUDA_E2E_EXAMPLES;
  const bool keep = std::getenv("BARRACUDA_REPORT_OUTPUT_DIR") != nullptr;
  const std::string json = ReportPath("gpu_racy") + ".json", sarif = ReportPath("gpu_racy") + ".sarif";
  Result racy = Barracuda({"--backend=gpu", "--gpu-runtime=emulator", "-v", "--report-json", json, "--report-sarif",
                           sarif, examples + "/racy_reduction"});
  CHECK(racy.status == kDefaultErrorExitCode);
  CHECK_THAT(racy.err, Catch::Contains("backend gpu, agent"));
  CHECK_THAT(racy.err, Catch::Contains("barracuda gpu agent: module 0"));  // per-module statistics (-v)
  CHECK_THAT(racy.err, Catch::Contains("racy_reduction.cu:38"));
  std::ifstream in(json);
  REQUIRE(in.good());
  nlohmann::json report = nlohmann::json::parse(in);
  CHECK(report["run"]["backend"] == "gpu");
  CHECK(report["run"]["complete"] == true);
  CHECK(report["summary"]["races"].get<int>() > 0);
  for (const auto& race : report["races"]) {
    CHECK(race["space"] == "shared");
    CHECK(race["first"]["site"]["source"]["line"] == 38);
  }
  const std::string fixed_json = ReportPath("gpu_fixed") + ".json", fixed_sarif = ReportPath("gpu_fixed") + ".sarif";
  Result fixed = Barracuda({"--backend=gpu", "--gpu-runtime=emulator", "--report-json", fixed_json,
                            "--report-sarif", fixed_sarif, examples + "/racy_reduction_fixed"});
  CHECK(fixed.status == 0);
  CHECK_THAT(fixed.out, Catch::Contains("PASS"));
  std::ifstream fin(fixed_json);
  REQUIRE(fin.good());
  nlohmann::json clean = nlohmann::json::parse(fin);
  CHECK(clean["summary"]["races"] == 0);
  CHECK(clean["run"]["complete"] == true);
  if (!keep)
    for (const std::string& f : {json, sarif, fixed_json, fixed_sarif}) std::remove(f.c_str());
}

TEST_CASE("barracuda: the bundled example under the emulator (race found, fixed twin clean)",
          "[cli][e2e][report-files]") {
  const std::string examples = BARRACUDA_E2E_EXAMPLES;
  const bool keep = std::getenv("BARRACUDA_REPORT_OUTPUT_DIR") != nullptr;
  const std::string json = ReportPath("racy") + ".json", sarif = ReportPath("racy") + ".sarif";
  Result racy = Barracuda({"--report-json", json, "--report-sarif", sarif, examples + "/racy_reduction"});
  CHECK(racy.status == kDefaultErrorExitCode);
  CHECK_THAT(racy.err, Catch::Contains("read-after-write (RAW) and write-after-read (WAR) race"));
  CHECK_THAT(racy.err, Catch::Contains("racy_reduction.cu:38"));
  CHECK_THAT(racy.err, Catch::Contains("BARRACUDA SUMMARY: 1 race (1 RAW/WAR)"));
  std::ifstream in(json);
  REQUIRE(in.good());
  nlohmann::json report = nlohmann::json::parse(in);
  // One missing barrier, one entry (issue 17), whatever the unrolled loop's PTX sites.
  CHECK(report["summary"]["races"] == 1);
  REQUIRE(report["races"].size() == 1);
  CHECK(report["races"][0]["site_pairs"].size() > 1);
  const std::string fingerprint = report["races"][0]["fingerprint"];
  CHECK(fingerprint.size() == 16);
  CHECK_THAT(racy.err, Catch::Contains("Fingerprint " + fingerprint));
  CHECK(report["run"]["complete"] == true);
  for (const auto& race : report["races"]) CHECK(race["space"] == "shared");

  const std::string fixed_json = ReportPath("fixed") + ".json", fixed_sarif = ReportPath("fixed") + ".sarif";
  Result fixed = Barracuda({"--report-json", fixed_json, "--report-sarif", fixed_sarif,
                            examples + "/racy_reduction_fixed"});
  CHECK(fixed.status == 0);
  CHECK_THAT(fixed.out, Catch::Contains("PASS"));  // the app's stdout passes through
  std::ifstream fin(fixed_json);
  REQUIRE(fin.good());
  CHECK(nlohmann::json::parse(fin)["summary"]["races"] == 0);

  // Lock-step warps (the paper): only the cross-warp steps race.
  const std::string ls_json = ReportPath("lockstep") + ".json", ls_sarif = ReportPath("lockstep") + ".sarif";
  Result lockstep = Barracuda({"-q", "--warp-model=lockstep", "--error-exitcode", "7", "--report-json", ls_json,
                               "--report-sarif", ls_sarif, examples + "/racy_reduction"});
  CHECK(lockstep.status == 7);
  std::ifstream lin(ls_json);
  REQUIRE(lin.good());
  nlohmann::json ls = nlohmann::json::parse(lin);
  CHECK(ls["summary"]["races"].get<int>() > 0);
  for (const auto& race : ls["races"]) {
    for (const auto& variant : race["variants"]) CHECK(variant["class"] == "intra-block");
  }
  if (!keep)
    for (const std::string& f : {json, sarif, fixed_json, fixed_sarif, ls_json, ls_sarif}) std::remove(f.c_str());
}

TEST_CASE("barracuda: several suppression files and a report file that cannot be written",
          "[cli][e2e][report-files]") {
  const std::string app = std::string(BARRACUDA_E2E_EXAMPLES) + "/racy_reduction";
  const std::string other = ReportPath("supp_other") + ".supp", match = ReportPath("supp_match") + ".supp";
  std::ofstream(other) << "kernel=no_such_kernel\n";
  std::ofstream(match) << "kind=RAW\n";
  Result both = Barracuda({"--suppressions", other, "--suppressions", match, app});
  INFO(both.err);
  CHECK_THAT(both.err, Catch::Contains("BARRACUDA SUMMARY: 0 races; 1 suppressed"));  // (the app's own status: its sums fail)
  CHECK_THAT(both.err, Catch::Contains(match + ":1"));
  std::remove(other.c_str());
  std::remove(match.c_str());
  // A full disk: exit 124 with the reason, and the race still on stderr.
  Result full = Barracuda({"--report-json", "/dev/full", app});
  CHECK(full.status == kExitReportNotWritable);
  CHECK_THAT(full.err, Catch::Contains("No space left on device"));
  CHECK_THAT(full.err, Catch::Contains("BARRACUDA SUMMARY: 1 race"));
}

TEST_CASE("barracuda --memory-limit: past it races may be missed, never invented, and the report says so",
          "[cli][e2e][report-files]") {
  const std::string examples = BARRACUDA_E2E_EXAMPLES;
  const bool keep = std::getenv("BARRACUDA_REPORT_OUTPUT_DIR") != nullptr;
  // 1 KiB: over the limit from the start, so the global input the example
  // reads goes unchecked; its races are in shared memory, which stays checked.
  const std::string json = ReportPath("limit_racy") + ".json", sarif = ReportPath("limit_racy") + ".sarif";
  Result racy = Barracuda({"--memory-limit", "1k", "--report-json", json, "--report-sarif", sarif,
                           examples + "/racy_reduction"});
  CHECK(racy.status == kDefaultErrorExitCode);  // races found win: they are real
  CHECK_THAT(racy.err, Catch::Contains("read-after-write (RAW) race"));
  CHECK_THAT(racy.err, Catch::Contains("analysis INCOMPLETE"));
  CHECK_THAT(racy.err, Catch::Contains("shadow memory limit (1.0 KiB, --memory-limit) was reached"));
  std::ifstream in(json);
  REQUIRE(in.good());
  nlohmann::json report = nlohmann::json::parse(in);
  CHECK(report["run"]["complete"] == false);
  REQUIRE(report["processes"].size() == 1);
  const nlohmann::json& limit = report["processes"][0]["memory_limit"];
  CHECK(limit["limit_bytes"] == 1024);
  CHECK(limit["unchecked_accesses"].get<uint64_t>() > 0);
  CHECK(limit["untracked_mib"].get<uint64_t>() > 0);

  // No race found over a partly unchecked run: exit 116, not the app's 0.
  const std::string fixed_json = ReportPath("limit_fixed") + ".json", fixed_sarif = ReportPath("limit_fixed") + ".sarif";
  Result fixed = Barracuda({"--memory-limit", "1k", "--report-json", fixed_json, "--report-sarif", fixed_sarif,
                            examples + "/racy_reduction_fixed"});
  CHECK(fixed.status == kExitAccessesUnchecked);
  CHECK_THAT(fixed.err, Catch::Contains("0 races; analysis INCOMPLETE"));
  CHECK_THAT(fixed.err, Catch::Contains("exit status 116"));
  // The default limit (half the machine's memory) leaves this run alone.
  Result plain = Barracuda({"-q", examples + "/racy_reduction_fixed"});
  CHECK(plain.status == 0);
  Result bad = Barracuda({"--memory-limit", "lots", examples + "/racy_reduction_fixed"});
  CHECK(bad.status == kExitUsage);
  if (!keep)
    for (const std::string& f : {json, sarif, fixed_json, fixed_sarif}) std::remove(f.c_str());
}

#ifdef BARRACUDA_CLI_CUDA_PROGRAMS
TEST_CASE("barracuda: a CUDA app that crashes after a racy kernel still gets its report",
          "[cli][e2e][report-files]") {
  const std::string app = std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/racy_then_crash";
  const bool keep = std::getenv("BARRACUDA_REPORT_OUTPUT_DIR") != nullptr;
  for (const char* how : {"segv", "kill"}) {
    const std::string json = ReportPath(std::string("crash_") + how) + ".json",
                      sarif = ReportPath(std::string("crash_") + how) + ".sarif";
    Result r = Barracuda({"--report-json", json, "--report-sarif", sarif, app, how});
    CHECK(r.status == kDefaultErrorExitCode);  // races found
    CHECK_THAT(r.out, Catch::Contains("kernel done"));
    std::ifstream in(json);
    REQUIRE(in.good());
    nlohmann::json report = nlohmann::json::parse(in);
    CHECK(report["run"]["complete"] == false);
    REQUIRE(report["run"]["incomplete_reasons"].size() == 1);
    CHECK_THAT(report["run"]["incomplete_reasons"][0].get<std::string>(),
               Catch::Contains(std::string(how) == "segv" ? "SIGSEGV" : "SIGKILL"));
    REQUIRE(report["races"].size() == 1);
    CHECK(report["races"][0]["kind"] == "WAW");
    CHECK(report["races"][0]["class"] == "inter-block");
    CHECK(report["races"][0]["kernel"]["name"] == "all_write(int*)");
    // Without races the app's own status: 128 + signal.
    Result plain = Barracuda({"-q", "--error-exitcode", "0", app, how});
    CHECK(plain.status == 128 + (std::string(how) == "segv" ? SIGSEGV : SIGKILL));
    if (!keep) {
      std::remove(json.c_str());
      std::remove(sarif.c_str());
    }
  }
}
#endif

#ifdef BARRACUDA_CLI_CUDA_PROGRAMS
// Same-value writes: warnings in every format, not counted in the exit status,
// counted apart in the summary, left out with --ignore same-value.
TEST_CASE("barracuda: same-value writes are warnings, --ignore same-value hides them", "[cli][e2e][report-files]") {
  const std::string app = std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/same_value_flag";
  const std::string json = ReportPath("same_value") + ".json", sarif = ReportPath("same_value") + ".sarif";
  Result warned = Barracuda({"--report-json", json, "--report-sarif", sarif, app});
  CHECK(warned.status == 0);  // warnings only
  CHECK_THAT(warned.out, Catch::Contains("flag=1"));
  CHECK_THAT(warned.err, Catch::Contains("Warning #1: same-value write-write race"));
  CHECK_THAT(warned.err, !Catch::Contains("Race #"));
  CHECK_THAT(warned.err, Catch::Contains("BARRACUDA SUMMARY: 0 races; 1 warning (1 same-value)"));
  {
    std::ifstream in(json);
    REQUIRE(in.good());
    const nlohmann::json report = nlohmann::json::parse(in);
    REQUIRE(report["races"].size() == 1);
    CHECK(report["races"][0]["kind"] == "same-value");
    CHECK(report["races"][0]["class"] == "inter-block");
    CHECK(report["summary"]["warnings"]["races"] == 1);
    CHECK(report["summary"]["by_kind"]["same-value"] == 1);
    std::ifstream sin(sarif);
    REQUIRE(sin.good());
    const nlohmann::json s = nlohmann::json::parse(sin);
    REQUIRE(s["runs"][0]["results"].size() == 1);
    CHECK(s["runs"][0]["results"][0]["level"] == "warning");
  }
  Result ignored = Barracuda({"--ignore", "same-value", "--report-json", json, app});
  CHECK(ignored.status == 0);
  CHECK_THAT(ignored.err, Catch::Contains("BARRACUDA SUMMARY: 0 races; 1 ignored (--ignore same-value)"));
  {
    std::ifstream in(json);
    REQUIRE(in.good());
    const nlohmann::json report = nlohmann::json::parse(in);
    CHECK(report["races"].empty());
    CHECK(report["summary"]["ignored"]["races"] == 1);
  }
  // The program right after the class: --ignore takes one class, not the program too.
  Result direct = Barracuda({"--ignore", "same-value", app});
  CHECK(direct.status == 0);
  CHECK_THAT(direct.err, Catch::Contains("1 ignored (--ignore same-value)"));
  // A data race of different values next to the same-value pair: exit status
  // of a race, the warning still listed apart.
  Result raced = Barracuda({"--report-json", json, app, "race"});
  CHECK(raced.status == kDefaultErrorExitCode);
  CHECK_THAT(raced.err, Catch::Contains("BARRACUDA SUMMARY: 1 race (1 WAW)"));
  CHECK_THAT(raced.err, Catch::Contains("; 1 warning (1 same-value)"));
  CHECK(Barracuda({"--ignore", "WAW", app}).status == kExitUsage);  // only warning classes
  std::remove(json.c_str());
  std::remove(sarif.c_str());
}
#endif

#ifdef BARRACUDA_CLI_CUDA_PROGRAMS
// A kernel that did not run on the emulator: the program sees the launch fail,
// and barracuda exits 118 with every report saying the analysis is incomplete.
void CheckNotRun(const std::string& program, const std::string& cuda_error, const std::string& reason_part) {
  const std::string app = std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/" + program;
  const bool keep = std::getenv("BARRACUDA_REPORT_OUTPUT_DIR") != nullptr;
  const std::string json = ReportPath("notrun_" + program) + ".json",
                    sarif = ReportPath("notrun_" + program) + ".sarif";
  Result r = Barracuda({"--report-json", json, "--report-sarif", sarif, app});
  INFO(r.err);
  CHECK(r.status == kExitKernelNotRun);
  CHECK_THAT(r.out, Catch::Contains("launch: " + cuda_error));  // the program saw the failed launch
  CHECK_THAT(r.err, Catch::Contains("did not run: "));           // the emulator's note
  CHECK_THAT(r.err, Catch::Contains(reason_part));
  CHECK_THAT(r.err, Catch::Contains("0 races; analysis INCOMPLETE"));  // never just "0 races"
  CHECK_THAT(r.err, Catch::Contains("barracuda: analysis INCOMPLETE"));

  std::ifstream in(json);
  REQUIRE(in.good());
  const nlohmann::json report = nlohmann::json::parse(in);
  CHECK(report["run"]["complete"] == false);
  REQUIRE(report["run"]["incomplete_reasons"].size() == 1);
  CHECK_THAT(report["run"]["incomplete_reasons"][0].get<std::string>(), Catch::Contains("did not run"));
  REQUIRE(report["run"]["kernels_not_run"].size() == 1);
  const nlohmann::json& k = report["run"]["kernels_not_run"][0];
  CHECK(k["cuda_error"] == cuda_error);
  CHECK_THAT(k["reason"].get<std::string>(), Catch::Contains(reason_part));
  CHECK(k["launches"].get<int>() >= 1);

  std::ifstream sin(sarif);
  REQUIRE(sin.good());
  const nlohmann::json s = nlohmann::json::parse(sin);
  const nlohmann::json& invocation = s["runs"][0]["invocations"][0];
  CHECK(invocation["executionSuccessful"] == false);
  bool told = false;
  for (const auto& n : invocation["toolExecutionNotifications"])
    told |= n["level"] == "error" &&
            n["message"]["text"].get<std::string>().find("did not run") != std::string::npos;
  CHECK(told);
  if (!keep)
    for (const std::string& f : {json, sarif}) std::remove(f.c_str());
}

TEST_CASE("barracuda: a wgmma kernel the emulator cannot run makes the analysis incomplete",
          "[cli][e2e][report-files][not-run]") {
  CheckNotRun("wgmma_kernel", "cudaErrorNotSupported", "unsupported PTX instruction `wgmma.");
  // The launch error is the program's to see, as on a GPU: peek keeps it, get
  // clears it, and (not a fault inside a kernel) it does not stick.
  Result r = Barracuda({"-q", std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/wgmma_kernel"});
  CHECK(r.status == kExitKernelNotRun);
  CHECK_THAT(r.out, Catch::Contains("launch: cudaErrorNotSupported, peek: cudaErrorNotSupported, sync: cudaSuccess"));
  CHECK_THAT(r.out, Catch::Contains("again: cudaErrorNotSupported"));
  // -q silences barracuda, not the emulator's note in the app's stderr: once
  // per kernel, though the kernel was launched twice.
  CHECK(r.err.find("barracuda: analysis INCOMPLETE") == std::string::npos);
  const size_t note = r.err.find("did not run: ");
  REQUIRE(note != std::string::npos);
  CHECK(r.err.find("did not run: ", note + 1) == std::string::npos);

  // The GPU backend's path (the emulator playing the GPU): the agent sees the
  // runtime reject the instrumented code and tells the session the same way.
  const std::string cli = BARRACUDA_CLI_PATH;
  if (FindGpuAgent(cli.substr(0, cli.rfind('/'))).path.empty()) return;
  Result gpu = Barracuda({"--backend=gpu", "--gpu-runtime=emulator", "--report-json", "-",
                          std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/wgmma_kernel"});
  INFO(gpu.err);
  CHECK(gpu.status == kExitKernelNotRun);
  CHECK_THAT(gpu.out, Catch::Contains("launch: cudaErrorNotSupported"));
  const size_t brace = gpu.out.find('{');
  REQUIRE(brace != std::string::npos);
  const nlohmann::json report = nlohmann::json::parse(gpu.out.substr(brace));
  CHECK(report["run"]["complete"] == false);
  REQUIRE(report["run"]["kernels_not_run"].size() == 1);
  CHECK(report["run"]["kernels_not_run"][0]["cuda_error"] == "cudaErrorNotSupported");
}

TEST_CASE("barracuda: a module the emulator cannot load makes the analysis incomplete",
          "[cli][e2e][report-files][not-run]") {
  CheckNotRun("bad_registers", "cudaErrorInvalidPtx", "vector register");
}

// A kernel that faults: the program ignores the error and exits 0, but the
// run is incomplete (exit 118), the reports name the kernel, the fault and the
// emulator schedule (issue 15 item 4: a schedule-dependent failure can be replayed).
void CheckFault(const std::string& arg, const std::string& cuda_error, const std::string& reason_part,
                const std::string& where_part = "") {
  const std::string app = std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/faulting_kernel";
  const std::string json = ReportPath("fault_" + arg) + ".json";
  Result r = Barracuda({"--seed", "5", "--kernel-timeout", "1.5", "--report-json", json, app, arg});
  INFO(r.err);
  CHECK(r.status == kExitKernelNotRun);
  CHECK_THAT(r.out, Catch::Contains("sync: " + cuda_error));  // the program saw the fault
  CHECK_THAT(r.err, Catch::Contains("faulted: "));            // the emulator's note
  CHECK_THAT(r.err, Catch::Contains("analysis INCOMPLETE"));
  CHECK_THAT(r.err, Catch::Contains("Emulator schedule: random, seed 5"));
  std::ifstream in(json);
  REQUIRE(in.good());
  const nlohmann::json report = nlohmann::json::parse(in);
  CHECK(report["run"]["complete"] == false);
  CHECK(report["run"]["schedule"] == nlohmann::json({{"policy", "random"}, {"seed", 5}}));
  REQUIRE(report["run"]["incomplete_reasons"].size() == 1);
  CHECK_THAT(report["run"]["incomplete_reasons"][0].get<std::string>(), Catch::Contains("faulted"));
  REQUIRE(report["run"]["kernels_not_run"].size() == 1);
  const nlohmann::json& k = report["run"]["kernels_not_run"][0];
  CHECK(k["cuda_error"] == cuda_error);
  CHECK_THAT(k["reason"].get<std::string>(), Catch::Contains(reason_part));
  CHECK_THAT(k["reason"].get<std::string>(), Catch::Contains(where_part));
  if (std::getenv("BARRACUDA_REPORT_OUTPUT_DIR") == nullptr) std::remove(json.c_str());
}

TEST_CASE("barracuda: a kernel that faults makes the run incomplete, with kernel and schedule named",
          "[cli][e2e][report-files][not-run]") {
  CheckFault("deadlock", "cudaErrorLaunchTimeout", "no warp of the block can make progress");
  // A spinning warp is named by its PTX line, which users can find.
  CheckFault("spin", "cudaErrorLaunchTimeout", "ran longer than 1.5 s (--kernel-timeout)", " at PTX line ");
  CheckFault("grid", "cudaErrorLaunchTimeout",
             "barrier divergence at grid scope: grid.sync() (the cooperative grid barrier) is waited on by 2 blocks");
}

// Memory errors (issue 18 item 3): a kernel's access outside its allocations
// is reported like compute-sanitizer's memcheck (kind, size, address, nearest
// allocation and offset, thread and block, source line) in text, JSON and
// SARIF, and the run's exit status is --error-exitcode although the program
// itself exits 0.
struct MemoryErrorCase {
  std::string mode, kind, headline, space, operation, cuda_error;
  int line;                    // LINE-<mode> in memory_errors.cu
  std::optional<int64_t> offset;  // from the nearest allocation; nullopt: none expected
  nlohmann::json thread, block;
  std::string address_text;    // in the text report's Address line
};

void CheckMemoryError(const MemoryErrorCase& c) {
  const std::string app = std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/memory_errors";
  const std::string json = ReportPath("memerr_" + c.mode) + ".json", sarif = ReportPath("memerr_" + c.mode) + ".sarif";
  Result r = Barracuda({"--report-json", json, "--report-sarif", sarif, app, c.mode});
  INFO(c.mode << "\n" << r.err);
  CHECK(r.status == kDefaultErrorExitCode);
  CHECK_THAT(r.out, Catch::Contains("sync: " + c.cuda_error));  // the program saw the fault, and exited 0
  CHECK_THAT(r.err, Catch::Contains("Memory error #1: " + c.headline + " (" + c.kind + ")"));
  CHECK_THAT(r.err, Catch::Contains("memory_errors.cu:" + std::to_string(c.line)));
  if (!c.address_text.empty()) CHECK_THAT(r.err, Catch::Contains(c.address_text));
  CHECK_THAT(r.err, Catch::Contains("0 races; 1 memory error; analysis INCOMPLETE"));
  const nlohmann::json report = nlohmann::json::parse(std::ifstream(json));
  CHECK(report["summary"]["memory_errors"] == 1);
  REQUIRE(report["memory_errors"].size() == 1);
  const nlohmann::json& e = report["memory_errors"][0];
  CHECK(e["kind"] == c.kind);
  CHECK(e["operation"] == c.operation);
  CHECK(e["space"] == c.space);
  CHECK(e["cuda_error"] == c.cuda_error);
  CHECK(e["access"]["thread"] == c.thread);
  CHECK(e["access"]["block"] == c.block);
  CHECK(e["access"]["site"]["source"]["line"] == c.line);
  if (c.offset) {
    REQUIRE(e["nearest_allocation"].is_object());
    CHECK(e["nearest_allocation"]["offset"] == *c.offset);
  } else {
    CHECK(e["nearest_allocation"].is_null());
  }
  CHECK(report["run"]["kernels_not_run"].empty());
  const nlohmann::json s = nlohmann::json::parse(std::ifstream(sarif));
  const nlohmann::json& results = s["runs"][0]["results"];
  REQUIRE(results.size() == 1);
  CHECK(results[0]["ruleId"] == "memory-error/" + c.kind);
  CHECK(results[0]["level"] == "error");
  CHECK(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == c.line);
  if (std::getenv("BARRACUDA_REPORT_OUTPUT_DIR") == nullptr) std::remove(json.c_str()), std::remove(sarif.c_str());
}

TEST_CASE("barracuda: memory errors are reported as memcheck does, and fail the run",
          "[cli][e2e][report-files][memory-errors]") {
  using J = nlohmann::json;
  CheckMemoryError({"before", "out-of-bounds", "Invalid __global__ read of size 4 bytes", "global", "read",
                    "cudaErrorIllegalAddress", 17, -128, J::array({0, 0, 0}), J::array({0, 0, 0}),
                    "is 128 bytes before the nearest device allocation"});
  CheckMemoryError({"after", "out-of-bounds", "Invalid __global__ write of size 4 bytes", "global", "write",
                    "cudaErrorIllegalAddress", 22, 400, J::array({100, 0, 0}), J::array({0, 0, 0}),
                    "is 1 bytes after the nearest device allocation"});
  CheckMemoryError({"freed", "use-after-free", "Invalid __global__ read of size 4 bytes", "global", "read",
                    "cudaErrorIllegalAddress", 26, 0, J::array({0, 0, 0}), J::array({0, 0, 0}),
                    "is at offset 0 of the freed device allocation"});
  CheckMemoryError({"misaligned", "misaligned", "Invalid __global__ read of size 4 bytes", "global", "read",
                    "cudaErrorMisalignedAddress", 30, 1, J::array({0, 0, 0}), J::array({0, 0, 0}),
                    "is at offset 1 of the device allocation"});
  CheckMemoryError({"shared", "out-of-bounds", "Invalid __shared__ read of size 4 bytes", "shared", "read",
                    "cudaErrorIllegalAddress", 37, std::nullopt, J::array({0, 0, 0}), J::array({0, 0, 0}), ""});
}

TEST_CASE("barracuda: the same accesses in bounds give no memory error", "[cli][e2e][memory-errors]") {
  const std::string app = std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/memory_errors";
  Result r = Barracuda({app, "ok"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("sync: cudaSuccess"));
  CHECK_THAT(r.err, Catch::Contains("BARRACUDA SUMMARY: 0 races\n"));
}

// On the GPU backend a fault says no more than its error: the run is
// incomplete (118), never "0 races" with exit 0 (on the H200 the misaligned
// read was only a note). Checked with the agent over the emulator.
TEST_CASE("barracuda --backend=gpu: a kernel that faults on the device makes the run incomplete",
          "[cli][e2e][memory-errors][gpu-agent]") {
  const std::string app = std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/memory_errors";
  Result r = Barracuda({"--backend=gpu", "--gpu-runtime=emulator", app, "misaligned"});
  INFO(r.err);
  CHECK(r.status == kExitKernelNotRun);
  CHECK_THAT(r.err, Catch::Contains("faulted on the GPU: cudaErrorMisalignedAddress"));
  CHECK_THAT(r.err, Catch::Contains("--backend=emu"));
}

// Stream-order races (issue 18 item 2): kernels and async copies of two
// streams that nothing orders, touching the same bytes (stream_order.cu).
TEST_CASE("barracuda: operations of two streams that nothing orders are stream-order races",
          "[cli][e2e][report-files][stream-order]") {
  const std::string app = std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/stream_order";
  struct Case {
    std::string mode;
    std::string first_api, second_api;  // "kernel launch" or the call
    std::string first_access, second_access;
    int first_line, second_line;        // the kernel's access line, or the API call's host line
  };
  for (const Case& c : {Case{"kernels", "kernel launch", "kernel launch", "write", "read", 18, 22},
                        Case{"nonblocking", "kernel launch", "kernel launch", "write", "read", 18, 22},
                        Case{"copy", "kernel launch", "cudaMemcpyAsync", "write", "read", 18, 52},
                        Case{"memset", "kernel launch", "cudaMemsetAsync", "read", "write", 22, 61}}) {
    const std::string json = ReportPath("stream_" + c.mode) + ".json",
                      sarif = ReportPath("stream_" + c.mode) + ".sarif";
    Result r = Barracuda({"--report-json", json, "--report-sarif", sarif, app, c.mode});
    INFO(c.mode << "\n" << r.err);
    CHECK(r.status == kDefaultErrorExitCode);
    CHECK_THAT(r.err, Catch::Contains("0 races; 1 stream-order race"));
    const nlohmann::json report = nlohmann::json::parse(std::ifstream(json));
    CHECK(report["summary"]["stream_order_races"] == 1);
    REQUIRE(report["stream_order_races"].size() == 1);
    const nlohmann::json& e = report["stream_order_races"][0];
    CHECK(e["first"]["api"] == c.first_api);
    CHECK(e["second"]["api"] == c.second_api);
    CHECK(e["first"]["access"] == c.first_access);
    CHECK(e["second"]["access"] == c.second_access);
    CHECK(e["first"]["stream"] != e["second"]["stream"]);
    auto line_of = [](const nlohmann::json& side) {
      if (side["operation"] == "kernel") return side["site"]["source"]["line"].get<int>();
      const std::string at = side["host_location"].get<std::string>();  // "main at /path/stream_order.cu:52"
      return std::stoi(at.substr(at.rfind(':') + 1));
    };
    CHECK(line_of(e["first"]) == c.first_line);
    CHECK(line_of(e["second"]) == c.second_line);
    CHECK_THAT(e["first"]["host_location"].get<std::string>(), Catch::StartsWith("main at "));
    const nlohmann::json s = nlohmann::json::parse(std::ifstream(sarif));
    REQUIRE(s["runs"][0]["results"].size() == 1);
    CHECK(s["runs"][0]["results"][0]["ruleId"] == "stream-order-race");
    if (std::getenv("BARRACUDA_REPORT_OUTPUT_DIR") == nullptr) std::remove(json.c_str()), std::remove(sarif.c_str());
  }
  // Ordered by an event, a stream synchronisation or a legacy-stream kernel
  // between blocking streams; atomics of both; disjoint bytes: nothing.
  for (const char* mode : {"event", "sync", "legacy", "atomics", "disjoint"}) {
    Result r = Barracuda({app, mode});
    INFO(mode << "\n" << r.err);
    CHECK(r.status == 0);
    CHECK_THAT(r.err, Catch::Contains("BARRACUDA SUMMARY: 0 races\n"));
  }
}

// A null pointer is an invalid address (no allocation is near it).
TEST_CASE("barracuda: a null-pointer read is an invalid-address memory error", "[cli][e2e][memory-errors]") {
  const std::string app = std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/faulting_kernel";
  const std::string json = ReportPath("fault_null") + ".json";
  Result r = Barracuda({"--report-json", json, app, "null"});
  INFO(r.err);
  CHECK(r.status == kDefaultErrorExitCode);
  CHECK_THAT(r.err, Catch::Contains("Invalid __global__ read of size 4 bytes (invalid-address)"));
  const nlohmann::json report = nlohmann::json::parse(std::ifstream(json));
  REQUIRE(report["memory_errors"].size() == 1);
  CHECK(report["memory_errors"][0]["address"] == "0x0");
  CHECK_THAT(report["run"]["incomplete_reasons"][0].get<std::string>(), Catch::Contains("ReadNull"));
  if (std::getenv("BARRACUDA_REPORT_OUTPUT_DIR") == nullptr) std::remove(json.c_str());
}

// A launch that never ends without --kernel-timeout: barracuda says so once
// (here after 1 s), and a SIGTERM sent to the whole process group (`timeout`,
// a CI job's kill) stops the app while the daemon lives on and writes the
// report of what was analysed (it used to die with the group: "the analysis
// daemon failed; no verdict").
TEST_CASE("barracuda: time in host code is not taken for a launch that never ends", "[cli][e2e]") {
  const std::string app = std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/faulting_kernel";
  Result r = Barracuda({app, "host_sleep"}, "env BARRACUDA_STALL_SECONDS=1 ");
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("slept"));
  CHECK(r.err.find("no kernel has finished") == std::string::npos);
}

TEST_CASE("barracuda: a hanging app stopped by SIGTERM to its process group still gets a report",
          "[cli][e2e][report-files][not-run]") {
  const std::string app = std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/faulting_kernel";
  const std::string json = ReportPath("hang_sigterm") + ".json";
  std::remove(json.c_str());
  Result r = Barracuda({"--report-json", json, app, "spin"}, "timeout -s TERM 5 env BARRACUDA_STALL_SECONDS=1 ");
  INFO(r.err);
  CHECK(r.status == 124);  // timeout's: it had to stop the run
  CHECK_THAT(r.err, Catch::Contains("no kernel has finished for 1 s"));
  CHECK_THAT(r.err, Catch::Contains("--kernel-timeout SECONDS"));
  CHECK(r.err.find("daemon failed") == std::string::npos);
  CHECK_THAT(r.err, Catch::Contains("SIGTERM"));
  std::ifstream in(json);
  REQUIRE(in.good());
  const nlohmann::json report = nlohmann::json::parse(in);
  CHECK(report["run"]["complete"] == false);
  if (std::getenv("BARRACUDA_REPORT_OUTPUT_DIR") == nullptr) std::remove(json.c_str());
}

// Schedule exploration (issue 15 items 2 and 4) on a program with a
// ticket-order assumption: the default schedule keeps the tickets in block
// order, other schedules do not.
nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

TEST_CASE("barracuda --schedules: a race seen only under some schedules is reported with them, and replays",
          "[cli][e2e][report-files][schedules]") {
  const std::string app = std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/ticket_order";
  // The default schedule alone does not show it.
  Result alone = Barracuda({app, "race"});
  INFO(alone.err);
  CHECK(alone.status == 0);
  CHECK_THAT(alone.err, Catch::Contains("BARRACUDA SUMMARY: 0 races"));

  const std::string json = ReportPath("schedules_race") + ".json", sarif = ReportPath("schedules_race") + ".sarif";
  Result r = Barracuda({"--schedules", "4", "--report-json", json, "--report-sarif", sarif, app, "race"});
  INFO(r.err);
  CHECK(r.status == kDefaultErrorExitCode);
  CHECK_THAT(r.err, Catch::Contains("WAW"));
  CHECK_THAT(r.err, Catch::Contains("Seen under"));
  CHECK_THAT(r.err, Catch::Contains("Schedules explored: 4 of 4 requested (#1 round-robin; #2-#4 random, seeds 1-3)"));
  const nlohmann::json report = ReadJson(json);
  const nlohmann::json& exploration = report["run"]["exploration"];
  CHECK(exploration["requested"] == 4);
  REQUIRE(exploration["schedules"].size() == 4);
  CHECK(exploration["schedules"][0]["policy"] == "round-robin");
  CHECK(exploration["schedules"][0]["races"] == 0);
  CHECK(exploration["schedules"][3]["seed"] == 3);
  REQUIRE(report["processes"].size() == 4);
  // One entry for the race over every schedule, listing where it was seen.
  REQUIRE(report["races"].size() >= 1);
  uint64_t replay_seed = 0;
  for (const nlohmann::json& race : report["races"]) {
    REQUIRE(!race["schedules"].empty());
    for (const nlohmann::json& seen : race["schedules"]) {
      CHECK(seen["number"] != 1);
      CHECK(seen["policy"] == "random");
      CHECK(seen["count"].get<uint64_t>() >= 1);
    }
    replay_seed = race["schedules"][0]["seed"].get<uint64_t>();
  }
  // The schedule named in the report replays the race on its own.
  Result replay = Barracuda({"--seed", std::to_string(replay_seed), "--schedule-policy", "random", app, "race"});
  INFO(replay.err);
  CHECK(replay.status == kDefaultErrorExitCode);
  CHECK_THAT(replay.err, Catch::Contains("WAW"));
  const nlohmann::json sarif_report = ReadJson(sarif);
  CHECK(sarif_report["runs"][0]["properties"]["exploration"] == exploration);
  if (std::getenv("BARRACUDA_REPORT_OUTPUT_DIR") == nullptr) {
    std::remove(json.c_str());
    std::remove(sarif.c_str());
  }
}

TEST_CASE("barracuda --schedules with cd and pct: delays at conflict points expose the race, and replay",
          "[cli][e2e][report-files][schedules]") {
  const std::string app = std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/ticket_order";
  const std::string json = ReportPath("schedules_cd") + ".json";
  Result r = Barracuda({"--schedules", "3", "--schedule-policy", "cd", "--report-json", json, app, "race"});
  INFO(r.err);
  CHECK(r.status == kDefaultErrorExitCode);
  CHECK_THAT(r.err, Catch::Contains("schedule exploration (cd): schedule 1 met 8 conflict points"));
  const nlohmann::json report = ReadJson(json);
  REQUIRE(report["races"].size() == 1);
  const nlohmann::json& seen = report["races"][0]["schedules"][0];
  CHECK(seen["policy"] == "cd");
  const std::string delays = seen["arguments"].get<std::string>();
  CHECK_THAT(delays, Catch::StartsWith("--delays 1:"));
  // The named delay set replays the race alone; the default schedule does not show it.
  Result replay = Barracuda({"--schedule-policy", "cd", "--delays", delays.substr(9), app, "race"});
  INFO(replay.err);
  CHECK(replay.status == kDefaultErrorExitCode);
  CHECK_THAT(replay.err, Catch::Contains("Emulator schedule: cd, " + delays));
  if (std::getenv("BARRACUDA_REPORT_OUTPUT_DIR") == nullptr) std::remove(json.c_str());

  Result pct = Barracuda({"--schedules", "3", "--schedule-policy", "pct", app, "race"});
  INFO(pct.err);
  CHECK(pct.status == kDefaultErrorExitCode);
  CHECK_THAT(pct.err, Catch::Contains("#2-#3 pct, seeds 1-2, --pct-depth 3 --pct-horizon "));

  Result bad = Barracuda({"--schedule-policy", "cd", "--delays", "1:x:3", app, "race"});
  CHECK(bad.status == kExitUsage);
  Result lone = Barracuda({"--schedule-policy", "cd", app, "race"});
  CHECK(lone.status == kExitUsage);
}

TEST_CASE("barracuda --schedules: a program that fails under some schedules gets exit 117 and the schedules named",
          "[cli][e2e][report-files][schedules]") {
  const std::string app = std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/ticket_order";
  const std::string json = ReportPath("schedules_outcome") + ".json";
  Result r = Barracuda({"--schedules", "3", "--report-json", json, app, "check"});
  INFO(r.err);
  CHECK(r.status == kExitScheduleDependent);
  CHECK_THAT(r.out, Catch::Contains("tickets in block order"));
  CHECK_THAT(r.out, Catch::Contains("out of order"));
  CHECK_THAT(r.err, Catch::Contains("SCHEDULE-DEPENDENT OUTCOME: the program exited with status 0 under #1"));
  CHECK_THAT(r.err, Catch::Contains("exited with status 1 under #2 (random, seed 1); replay: barracuda --seed 1 "
                                    "--schedule-policy random"));
  const nlohmann::json report = ReadJson(json);
  REQUIRE(report["run"]["exploration"]["schedules"].size() == 3);
  CHECK(report["run"]["exploration"]["schedules"][0]["ends"] == nlohmann::json::array({nlohmann::json{{"exit_status", 0}}}));
  CHECK(report["run"]["exploration"]["schedules"][1]["ends"] == nlohmann::json::array({nlohmann::json{{"exit_status", 1}}}));
  CHECK(report["races"].empty());
  if (std::getenv("BARRACUDA_REPORT_OUTPUT_DIR") == nullptr) std::remove(json.c_str());

  // Usage: round-robin is a single schedule.
  Result usage = Barracuda({"--schedules", "3", "--schedule-policy", "round-robin", app, "check"});
  CHECK(usage.status == kExitUsage);
  CHECK_THAT(usage.err, Catch::Contains("round-robin is one schedule"));
}

// nvcc's default build (-cudart static): the runtime inside the executable is
// taken over at start (static_cudart/), with the same findings as -cudart
// shared, on the emulator and through the GPU agent (on the emulator here).
TEST_CASE("barracuda: programs linked with the static CUDA runtime are analysed like shared builds",
          "[cli][e2e][static-cudart]") {
  const std::string dir = BARRACUDA_CLI_CUDA_PROGRAMS;
  std::vector<std::vector<std::string>> backends = {{}};
  const std::string cli = BARRACUDA_CLI_PATH;
  if (!FindGpuAgent(cli.substr(0, cli.rfind('/'))).path.empty())
    backends.push_back({"--backend=gpu", "--gpu-runtime=emulator"});
  for (const std::vector<std::string>& backend : backends) {
    std::vector<std::string> args = backend;
    args.insert(args.end(), {"-v", "--report-json", "-", dir + "/racy_reduction_static"});
    Result racy = Barracuda(args);
    INFO(racy.err);
    CHECK(racy.status == kDefaultErrorExitCode);
    CHECK_THAT(racy.err, Catch::Contains("CUDA runtime linked statically"));
    CHECK_THAT(racy.err, Catch::Contains("static CUDA runtime redirected"));
    CHECK_THAT(racy.err, Catch::Contains("racy_reduction.cu:38"));
    const size_t brace = racy.out.find('{');
    REQUIRE(brace != std::string::npos);
    const nlohmann::json report = nlohmann::json::parse(racy.out.substr(brace));
    CHECK(report["run"]["complete"] == true);
    CHECK(report["summary"]["races"] == 1);

    std::vector<std::string> fixed_args = backend;
    fixed_args.push_back(dir + "/racy_reduction_fixed_static");
    Result fixed = Barracuda(fixed_args);
    INFO(fixed.err);
    CHECK(fixed.status == 0);
    CHECK_THAT(fixed.out, Catch::Contains("PASS"));
    CHECK_THAT(fixed.err, Catch::Contains("0 races"));
  }
}

TEST_CASE("barracuda: children of a static-runtime program (a shell and itself again) run as they are",
          "[cli][e2e][static-cudart]") {
  Result r = Barracuda({std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/static_fork_exec"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("shell-ok"));
  CHECK_THAT(r.out, Catch::Contains("child: no error"));
  CHECK_THAT(r.out, Catch::Contains("parent: rc=0 child=0"));
  CHECK_THAT(r.err, Catch::Contains("BARRACUDA SUMMARY: 0 races"));
  CHECK_THAT(r.err, !Catch::Contains("INCOMPLETE"));
}

// Kernels of a library that ships machine code only (as cuBLAS does for many):
// the emulator cannot run them, so the run is incomplete and the library is
// named; the GPU agent lets them run uninstrumented and names the library too.
TEST_CASE("barracuda: kernels of a library without PTX are named, and the run is incomplete",
          "[cli][e2e][not-run]") {
  const std::string app = std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/uses_noptx_library";
  Result emu = Barracuda({app});
  INFO(emu.err);
  CHECK(emu.status == kExitKernelNotRun);
  CHECK_THAT(emu.out, Catch::Contains("library launch: cudaErrorNoKernelImageForDevice"));
  CHECK_THAT(emu.err, Catch::Contains("libnoptx_library.so holds only sm_75 and no PTX"));
  CHECK_THAT(emu.err, Catch::Contains("analysis INCOMPLETE"));
  const std::string cli = BARRACUDA_CLI_PATH;
  if (FindGpuAgent(cli.substr(0, cli.rfind('/'))).path.empty()) return;
  Result gpu = Barracuda({"--backend=gpu", "--gpu-runtime=emulator", app});
  INFO(gpu.err);
  CHECK_THAT(gpu.err, Catch::Contains("libnoptx_library.so is not analysed (its kernels run uninstrumented)"));
}

TEST_CASE("barracuda: a host program whose CUDA code is all in a shared library is analysed",
          "[cli][e2e]") {
  const std::string app = std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/plain_main_cuda_library";
  Result r = Barracuda({app});
  INFO(r.err);
  CHECK(r.status == kDefaultErrorExitCode);
  CHECK_THAT(r.out, Catch::Contains("library: done"));
  CHECK_THAT(r.err, Catch::Contains("ptx_library.cu:5"));
  CHECK_THAT(r.err, Catch::Contains("BARRACUDA SUMMARY: 1 race"));
}

// Dynamic parallelism: the child grid runs after its parent, its own race is
// reported, and the report says what it does not check.
TEST_CASE("barracuda: a kernel that launches kernels runs them, and races inside a child are reported",
          "[cli][e2e][not-run]") {
  Result r = Barracuda({std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/device_launch"});
  INFO(r.err);
  CHECK(r.status == kDefaultErrorExitCode);
  CHECK_THAT(r.out, Catch::Contains("parent launch: cudaSuccess"));
  CHECK_THAT(r.out, Catch::Contains("after the child: 6 6"));
  CHECK_THAT(r.err, Catch::Contains("in child(int*)"));
  CHECK_THAT(r.err, Catch::Contains("device_launch.cu:10"));
  CHECK_THAT(r.err, Catch::Contains("dynamic parallelism: grids launched from device code run after"));
  CHECK_FALSE(Catch::Contains("INCOMPLETE").match(r.err));
}

#ifdef BARRACUDA_CLI_HOST_LIBRARY
// cuRAND carries its own copy of NVIDIA's runtime, which asks the driver for
// its private tables: nothing the library launches reaches the emulator. The
// run is incomplete and names the library; the program's own kernel runs.
TEST_CASE("barracuda: a CUDA host library with its own runtime makes the run incomplete",
          "[cli][e2e][not-run][report-files]") {
  const std::string json = ReportPath("host_library") + ".json";
  Result r = Barracuda({"--report-json", json, std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/host_library"});
  INFO(r.err);
  CHECK(r.status == kExitKernelNotRun);
  CHECK_THAT(r.out, Catch::Contains("own kernel: ok"));
  CHECK_THAT(r.out, Catch::Contains("curandCreateGenerator: "));
  CHECK_FALSE(Catch::Contains("curandCreateGenerator: 0").match(r.out));  // the library's call failed
  CHECK_THAT(r.err, Catch::Contains("libcurand.so"));
  CHECK_THAT(r.err, Catch::Contains("its own copy of NVIDIA's CUDA runtime"));
  CHECK_THAT(r.err, Catch::Contains("0 races; analysis INCOMPLETE"));
  std::ifstream in(json);
  REQUIRE(in.good());
  const nlohmann::json report = nlohmann::json::parse(in);
  CHECK(report["run"]["complete"] == false);
  REQUIRE(report["run"]["incomplete_reasons"].size() == 1);
  CHECK_THAT(report["run"]["incomplete_reasons"][0].get<std::string>(),
             Catch::Contains("the kernels of libcurand.so"));
  std::remove(json.c_str());
}
#endif

TEST_CASE("barracuda: a clean CUDA program is complete and exits 0", "[cli][e2e][not-run]") {
  Result r = Barracuda({"--report-json", "-", std::string(BARRACUDA_CLI_CUDA_PROGRAMS) + "/tiny_good"});
  INFO(r.err);
  CHECK(r.status == 0);
  const size_t brace = r.out.find('{');
  REQUIRE(brace != std::string::npos);
  const nlohmann::json report = nlohmann::json::parse(r.out.substr(brace));
  CHECK(report["run"]["complete"] == true);
  CHECK(report["run"]["kernels_not_run"].empty());
}
#endif

TEST_CASE("barracuda: kernel filters and --error-exitcode 0 on the example", "[cli][e2e]") {
  const std::string examples = BARRACUDA_E2E_EXAMPLES;
  // Excluded: nothing analysed, so the app's own status (it prints FAIL: the
  // emulator's schedule exposes the race in the sums) comes back.
  Result excluded = Barracuda({"-q", "--kernel-exclude", "^block_sum$", examples + "/racy_reduction"});
  Result kept = Barracuda({"-q", "--error-exitcode", "0", examples + "/racy_reduction"});
  CHECK(excluded.status == kept.status);
  CHECK(excluded.status < kExitBackendUnavailable);  // the app's status, not a refusal
  Result included = Barracuda({"-q", "--kernel-include", "block", "--error-exitcode", "9",
                               examples + "/racy_reduction"});
  CHECK(included.status == 9);
}

}  // namespace
}  // namespace barracuda::cli
#endif
