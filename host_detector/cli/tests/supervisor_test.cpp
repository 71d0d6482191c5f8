// RunSession end to end with the real barracudad and a stand-in app that
// produces records through the emulator's ShmRecordSink: verdicts, the app's
// exit status, crashes (SIGSEGV, SIGKILL), two processes, the environment the
// app sees, and stdin/stdout pass-through.
#include "host_detector/cli/supervisor.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "host_detector/daemon/tests/report_view.h"

namespace barracuda::cli {
namespace {

using daemon::testing::ReportView;
using daemon::testing::ViewOf;

std::string Temp(const std::string& leaf) {
  return "/tmp/barracuda_supervisor_test_" + std::to_string(getpid()) + "_" + leaf;
}

RunPlan Plan(std::vector<std::string> app_args, const std::string& json) {
  RunPlan plan;
  plan.program_path = SYNTHETIC_APP_PATH;
  plan.app_argv = {"synthetic_app"};
  plan.app_argv.insert(plan.app_argv.end(), app_args.begin(), app_args.end());
  plan.daemon_path = BARRACUDAD_PATH;
  plan.daemon_args = {"--quiet", "--report-json", json, "--grace-ms", "3000"};
  plan.library_dir = "/tmp/barracuda-fake-lib-dir";
  plan.layout = {.max_processes = 4, .rings_per_process = 4, .ring_capacity = 64, .channel_bytes = 4096};
  return plan;
}

ReportView ReadReport(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  nlohmann::json j = nlohmann::json::parse(in);
  std::remove(path.c_str());
  return ViewOf(j);
}

TEST_CASE("supervisor: racy app, exit status passes through", "[cli]") {
  const std::string json = Temp("race.json");
  RunOutcome r = RunSession(Plan({"race", "3"}, json));
  REQUIRE(r.error.empty());
  REQUIRE(r.app_started);
  CHECK(WIFEXITED(r.app_wait_status));
  CHECK(WEXITSTATUS(r.app_wait_status) == 3);
  CHECK(r.daemon_exit == 0);
  CHECK(r.verdict["races"] == 1);
  CHECK(r.verdict["complete"] == true);
  ReportView report = ReadReport(json);
  REQUIRE(report.races.size() == 1);
  CHECK(report.races[0].kernel == "racy(int*)");
  CHECK(report.complete);
}

TEST_CASE("supervisor: clean app", "[cli]") {
  const std::string json = Temp("clean.json");
  RunOutcome r = RunSession(Plan({"clean"}, json));
  REQUIRE(r.app_started);
  CHECK(r.verdict["races"] == 0);
  CHECK(r.verdict["records"] == 2);
  CHECK(ReadReport(json).complete);
}

TEST_CASE("supervisor: the app crashes after a racy kernel, the report still has the race", "[cli]") {
  for (const char* mode : {"segv", "kill"}) {
    const std::string json = Temp(std::string(mode) + ".json");
    RunOutcome r = RunSession(Plan({mode}, json));
    REQUIRE(r.app_started);
    REQUIRE(WIFSIGNALED(r.app_wait_status));
    CHECK(WTERMSIG(r.app_wait_status) == (std::string(mode) == "segv" ? SIGSEGV : SIGKILL));
    CHECK(r.verdict["races"] == 1);
    CHECK(r.verdict["complete"] == false);
    ReportView report = ReadReport(json);
    CHECK(report.races.size() == 1);
    REQUIRE(report.incomplete_reasons.size() == 1);
    CHECK_THAT(report.incomplete_reasons[0], Catch::Contains(std::string(mode) == "segv" ? "SIGSEGV" : "SIGKILL"));
  }
}

TEST_CASE("supervisor: two processes of one app feed one daemon", "[cli]") {
  const std::string json = Temp("fork.json");
  RunOutcome r = RunSession(Plan({"fork"}, json));
  REQUIRE(r.app_started);
  CHECK(WEXITSTATUS(r.app_wait_status) == 0);
  CHECK(r.verdict["processes"] == 2);
  CHECK(r.verdict["races"] == 1);
  ReportView report = ReadReport(json);
  REQUIRE(report.pids.size() == 2);
  CHECK(report.pids[0] != report.pids[1]);
  REQUIRE(report.races.size() == 1);
  // The race names one of the two processes (the child: the parent's launch is clean).
  CHECK((report.races[0].process == report.pids[0] || report.races[0].process == report.pids[1]));
}

TEST_CASE("supervisor: a child forked after tracing started gets its own slot", "[cli]") {
  const std::string json = Temp("forkafter.json");
  RunOutcome r = RunSession(Plan({"fork-after"}, json));
  REQUIRE(r.app_started);
  CHECK(WEXITSTATUS(r.app_wait_status) == 0);
  CHECK(r.verdict["processes"] == 2);
  CHECK(r.verdict["races"] == 1);
  CHECK(r.verdict["errors"] == 0);
  CHECK(r.verdict["complete"] == true);  // the parent's slot was not touched by the child
  CHECK(r.verdict["records"] == 4);
  ReportView report = ReadReport(json);
  REQUIRE(report.races.size() == 1);
  CHECK(report.races[0].process != 0);
}

TEST_CASE("supervisor: the app sees the emulator library first and its options", "[cli]") {
  const std::string json = Temp("env.json");
  RunPlan plan = Plan({"env", "/tmp/barracuda-fake-lib-dir"}, json);
  plan.app_env = {{"BARRACUDA_EMU_SEED", "7"}};
  RunOutcome r = RunSession(plan);
  REQUIRE(r.app_started);
  CHECK(WEXITSTATUS(r.app_wait_status) == 0);
  std::remove(json.c_str());
}

TEST_CASE("supervisor: stdin and stdout pass through to the app", "[cli]") {
  const std::string in = Temp("stdin.txt"), out = Temp("stdout.txt"), json = Temp("echo.json");
  std::ofstream(in) << "one\ntwo\n";
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int i = open(in.c_str(), O_RDONLY), o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(i, 0);
    dup2(o, 1);
    RunOutcome r = RunSession(Plan({"echo"}, json));
    _exit(r.app_started && WIFEXITED(r.app_wait_status) ? WEXITSTATUS(r.app_wait_status) : 50);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  std::stringstream got;
  got << std::ifstream(out).rdbuf();
  CHECK(got.str() == "echo:one\necho:two\n");
  std::remove(in.c_str());
  std::remove(out.c_str());
  std::remove(json.c_str());
}

#ifdef BARRACUDA_CLI_REPORT_WRITERS
TEST_CASE("supervisor: suppressions, SARIF and text reports through the report writers", "[cli]") {
  const std::string json = Temp("supp.json"), sarif = Temp("supp.sarif"), text = Temp("supp.txt"),
                    supp = Temp("supp.rules");
  std::ofstream(supp) << "# the known race of the stand-in app\nkernel=racy\n";
  RunPlan plan = Plan({"race"}, json);
  plan.daemon_args.insert(plan.daemon_args.end(),
                          {"--suppressions", supp, "--report-sarif", sarif, "--report-text", text});
  RunOutcome r = RunSession(plan);
  REQUIRE(r.app_started);
  CHECK(r.daemon_exit == 0);
  CHECK(r.verdict["found"] == 1);
  CHECK(r.verdict["suppressed"] == 1);
  CHECK(r.verdict["races"] == 0);
  CHECK(ReadReport(json).races.empty());
  std::ifstream sarif_in(sarif);
  REQUIRE(sarif_in.good());
  nlohmann::json s = nlohmann::json::parse(sarif_in);
  CHECK(s["version"] == "2.1.0");
  std::stringstream t;
  t << std::ifstream(text).rdbuf();
  CHECK_THAT(t.str(), Catch::Contains("========= "));
  for (const std::string& f : {sarif, text, supp}) std::remove(f.c_str());
}

// Writes the daemon's JSON and SARIF reports of several runs (racy, clean,
// crashed, two processes) for the CTest daemon_report_schemas, which validates
// them against the checked-in schemas (host_detector/reports/tests/validate_reports.py).
TEST_CASE("supervisor: reports of real runs for schema validation", "[cli][report-files]") {
  const char* dir_env = std::getenv("BARRACUDA_REPORT_OUTPUT_DIR");
  const std::string dir = dir_env != nullptr ? dir_env : "/tmp";
  const bool keep = dir_env != nullptr;
  for (const char* mode : {"race", "clean", "segv", "fork"}) {
    const std::string base = dir + "/daemon_" + mode + "_" + std::to_string(getpid());
    RunPlan plan = Plan({mode}, base + ".json");
    plan.daemon_args.insert(plan.daemon_args.end(), {"--report-sarif", base + ".sarif"});
    RunOutcome r = RunSession(plan);
    REQUIRE(r.app_started);
    CHECK(r.daemon_exit == 0);
    std::ifstream json_in(base + ".json"), sarif_in(base + ".sarif");
    CHECK(json_in.good());
    CHECK(sarif_in.good());
    if (!keep) {
      std::remove((base + ".json").c_str());
      std::remove((base + ".sarif").c_str());
    }
  }
}
#endif

TEST_CASE("supervisor: a program that cannot be executed", "[cli]") {
  const std::string json = Temp("none.json");
  RunPlan plan = Plan({}, json);
  plan.program_path = "/nonexistent/program";
  RunOutcome r = RunSession(plan);
  CHECK_FALSE(r.app_started);
  CHECK(r.exec_errno == ENOENT);
  CHECK(r.verdict["races"] == 0);  // the daemon still finished cleanly
  CHECK(r.verdict["complete"] == false);  // and says that nothing was analysed
  std::remove(json.c_str());
}

}  // namespace
}  // namespace barracuda::cli
