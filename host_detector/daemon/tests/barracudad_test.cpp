// The barracudad binary: a synthetic producer process (the emulator's
// ShmRecordSink writing a known racy stream) feeds it through the segment; the
// control pipe says how the app ended; the JSON report and the verdict line
// are checked. Also: SIGKILLed producer, unwritable report, missing session.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "device_logger/shm_transport.h"
#include "host_detector/daemon/daemon_exit_codes.h"
#include "host_detector/daemon/tests/racy_stream.h"
#include "host_detector/daemon/tests/report_view.h"
#include "ptx_emulator/runtime/shm_sink.h"

namespace barracuda::daemon {
namespace {

using testing::EmitLaunch;
using testing::EmitModule;
using testing::RacyStream;
using testing::ReportView;
using testing::ViewOf;

std::string TempPath(const std::string& leaf) {
  return "/tmp/barracudad_test_" + std::to_string(getpid()) + "_" + leaf;
}

struct Daemon {
  pid_t pid = -1;
  int control = -1;  // write end
  int verdict = -1;  // read end

  // Starts barracudad on `session` with extra arguments.
  static Daemon Start(const std::string& session, std::vector<std::string> extra) {
    int control_pipe[2], verdict_pipe[2];
    REQUIRE(pipe(control_pipe) == 0);
    REQUIRE(pipe(verdict_pipe) == 0);
    Daemon d;
    d.pid = fork();
    REQUIRE(d.pid >= 0);
    if (d.pid == 0) {
      // Move both ends above 4 first: a pipe end may already be fd 3 or 4, and
      // dup2 onto itself would keep its close-on-exec flag.
      const int c = fcntl(control_pipe[0], F_DUPFD_CLOEXEC, 10), v = fcntl(verdict_pipe[1], F_DUPFD_CLOEXEC, 10);
      dup2(c, 3);
      dup2(v, 4);
      std::vector<std::string> args = {BARRACUDAD_PATH, "--session", session, "--control-fd", "3",
                                       "--verdict-fd", "4", "--quiet", "--grace-ms", "2000"};
      args.insert(args.end(), extra.begin(), extra.end());
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      for (int fd = 5; fd < 64; ++fd) close(fd);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(control_pipe[0]);
    close(verdict_pipe[1]);
    d.control = control_pipe[1];
    d.verdict = verdict_pipe[0];
    return d;
  }
  void Tell(const std::string& line) const {
    REQUIRE(write(control, line.data(), line.size()) == static_cast<ssize_t>(line.size()));
  }
  // Reads the verdict line and the exit status.
  int Wait(nlohmann::json* verdict_json) {
    std::string text;
    char buf[512];
    for (ssize_t n; (n = read(verdict, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    close(control);
    close(verdict);
    if (verdict_json != nullptr && !text.empty()) *verdict_json = nlohmann::json::parse(text);
    REQUIRE(WIFEXITED(status));
    return WEXITSTATUS(status);
  }
};

// Waits until the daemon published its pid in the segment (it is attached).
void WaitAttached(const transport::Segment& seg) {
  for (int i = 0; i < 5000 && seg.header().daemon_pid.load() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE(seg.header().daemon_pid.load() != 0);
}

// A producer process: module, launches, then `how` (0: detach, 1: SIGKILL).
pid_t StartProducer(const std::string& session, RacyStream stream, int how) {
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    auto sink = emu::ShmRecordSink::Attach(session);
    if (!sink.ok()) _exit(10);
    EmitModule(**sink);
    EmitLaunch(**sink, stream);
    if (how == 1) kill(getpid(), SIGKILL);
    (*sink)->Detach(0);
    _exit(0);
  }
  return child;
}

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

struct Session {
  std::string name = transport::Segment::UniqueName();
  transport::Segment segment;
  Session()
      : segment(*transport::Segment::Create(name, {.max_processes = 4, .rings_per_process = 4,
                                                  .ring_capacity = 64, .channel_bytes = 4096})) {}
  ~Session() { (void)transport::Segment::Unlink(name); }
};

TEST_CASE("barracudad: a synthetic producer's race is in the JSON report", "[daemon]") {
  Session s;
  const std::string json = TempPath("race.json");
  // App arguments that look like daemon options stay in the command line.
  Daemon d = Daemon::Start(s.name, {"--report-json", json, "--command-json",
                                    R"(["barracuda","./app","--report-json","x"])"});
  WaitAttached(s.segment);
  pid_t app = StartProducer(s.name, RacyStream{.workers = 2}, 0);
  int status = 0;
  REQUIRE(waitpid(app, &status, 0) == app);
  d.Tell("exit 0\n");
  nlohmann::json verdict;
  CHECK(d.Wait(&verdict) == kDaemonOk);
  CHECK(verdict["races"] == 1);
  CHECK(verdict["complete"] == true);
  CHECK(verdict["errors"] == 0);
  CHECK(verdict["records"] == 2);
  ReportView report = ViewOf(ReadJson(json));
  std::remove(json.c_str());
  REQUIRE(report.races.size() == 1);
  const testing::RaceView& race = report.races[0];
  CHECK(race.process == static_cast<uint32_t>(app));
  CHECK(race.cls == "inter-block");
  CHECK(race.space == "global");
  CHECK(race.kernel == "racy(int*)");
  CHECK(race.locations == std::set<std::string>{"racy.cu:12", "racy.cu:15"});
  CHECK(report.complete);
  CHECK(report.command_line == std::vector<std::string>{"barracuda", "./app", "--report-json", "x"});
  CHECK(s.segment.header().launches_analysed.load() == 1);
}

TEST_CASE("barracudad: an app killed by SIGKILL still gets its report, marked incomplete", "[daemon]") {
  Session s;
  const std::string json = TempPath("killed.json");
  Daemon d = Daemon::Start(s.name, {"--report-json", json});
  WaitAttached(s.segment);
  pid_t app = StartProducer(s.name, RacyStream{}, 1);
  int status = 0;
  REQUIRE(waitpid(app, &status, 0) == app);
  REQUIRE(WIFSIGNALED(status));
  d.Tell("signal 9\n");
  nlohmann::json verdict;
  CHECK(d.Wait(&verdict) == kDaemonOk);
  CHECK(verdict["races"] == 1);
  CHECK(verdict["complete"] == false);
  ReportView report = ViewOf(ReadJson(json));
  std::remove(json.c_str());
  CHECK_FALSE(report.complete);
  REQUIRE(report.incomplete_reasons.size() == 1);
  CHECK_THAT(report.incomplete_reasons[0], Catch::Contains("SIGKILL"));
  CHECK(report.races.size() == 1);
}

TEST_CASE("barracudad: the controller going away still writes the report", "[daemon]") {
  Session s;
  const std::string json = TempPath("eof.json");
  Daemon d = Daemon::Start(s.name, {"--report-json", json});
  WaitAttached(s.segment);
  pid_t app = StartProducer(s.name, RacyStream{}, 0);
  REQUIRE(waitpid(app, nullptr, 0) == app);
  close(d.control);  // EOF on the control fd
  d.control = -1;
  nlohmann::json verdict;
  CHECK(d.Wait(&verdict) == kDaemonOk);
  ReportView report = ViewOf(ReadJson(json));
  std::remove(json.c_str());
  CHECK(report.races.size() == 1);
  CHECK_FALSE(report.complete);
}

TEST_CASE("barracudad: refusals have their exit codes", "[daemon]") {
  SECTION("missing session") {
    Daemon d = Daemon::Start("/barracuda-no-such-session-xyz", {});
    CHECK(d.Wait(nullptr) == kDaemonNoSession);
  }
  SECTION("bad option") {
    Session s;
    Daemon d = Daemon::Start(s.name, {"--warp-model", "sideways"});
    CHECK(d.Wait(nullptr) == kDaemonUsage);
  }
  SECTION("unwritable report") {
    Session s;
    Daemon d = Daemon::Start(s.name, {"--report-json", "/nonexistent-dir/r.json"});
    WaitAttached(s.segment);
    d.Tell("exit 0\n");
    nlohmann::json verdict;
    CHECK(d.Wait(&verdict) == kDaemonReportFailed);
    CHECK_THAT(verdict["report_error"].get<std::string>(), Catch::Contains("/nonexistent-dir/r.json"));
  }
}

}  // namespace
}  // namespace barracuda::daemon
