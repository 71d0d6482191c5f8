// barracudad: the analysis daemon. Started by the `barracuda` CLI (or by hand
// for several processes, e.g. MPI ranks); see README.md for options, the
// control protocol and exit codes.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "device_logger/shm_transport.h"
#include "host_detector/daemon/daemon_exit_codes.h"
#include "host_detector/daemon/report_output.h"
#include "host_detector/daemon/session.h"

namespace {

using barracuda::daemon::AppEnd;

// Reads the control channel: lines "exit N", "signal N", "done" (the app
// ended), and "process PID exit N" / "process PID signal N" (one run of
// schedule exploration ended), "note TEXT" (for the report). Returns the app's end once one arrived (EOF:
// the controller went away).
class Control {
 public:
  explicit Control(int fd) : fd_(fd) {
    if (fd_ >= 0) fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK);
  }
  // Waits up to `timeout_us` microseconds for input; true when the app's end is known.
  bool Check(int64_t timeout_us) {
    if (ended_) return true;
    const timespec timeout{static_cast<time_t>(timeout_us / 1000000), static_cast<long>(timeout_us % 1000000) * 1000};
    if (fd_ < 0) {
      if (timeout_us > 0) nanosleep(&timeout, nullptr);
      return false;
    }
    pollfd pfd{fd_, POLLIN, 0};
    if (ppoll(&pfd, 1, &timeout, nullptr) <= 0) return false;
    char buf[256];
    const ssize_t n = (pfd.revents & POLLNVAL) != 0 ? -1 : read(fd_, buf, sizeof buf);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return false;
    if (n <= 0) {  // EOF, or a control fd that is not open: nobody can tell us any more
      ended_ = true;
      lost_controller_ = true;
      return true;
    }
    line_.append(buf, static_cast<size_t>(n));
    for (size_t nl; (nl = line_.find('\n')) != std::string::npos;) {
      const std::string cmd = line_.substr(0, nl);
      line_.erase(0, nl + 1);
      int value = 0;
      unsigned pid = 0;
      if (std::sscanf(cmd.c_str(), "process %u exit %d", &pid, &value) == 2) {
        process_ends_.emplace_back(pid, AppEnd{AppEnd::How::kExited, value});
      } else if (std::sscanf(cmd.c_str(), "process %u signal %d", &pid, &value) == 2) {
        process_ends_.emplace_back(pid, AppEnd{AppEnd::How::kSignaled, value});
      } else if (std::sscanf(cmd.c_str(), "exit %d", &value) == 1) {
        end_ = {AppEnd::How::kExited, value};
        ended_ = true;
      } else if (std::sscanf(cmd.c_str(), "signal %d", &value) == 1) {
        end_ = {AppEnd::How::kSignaled, value};
        ended_ = true;
      } else if (cmd.rfind("note ", 0) == 0) {
        notes_.push_back(cmd.substr(5));
      } else if (cmd == "done") {
        ended_ = true;
      }
    }
    return ended_;
  }
  const AppEnd& end() const { return end_; }
  const std::vector<std::pair<uint32_t, AppEnd>>& process_ends() const { return process_ends_; }
  const std::vector<std::string>& notes() const { return notes_; }
  bool lost_controller() const { return lost_controller_; }

 private:
  int fd_;
  bool ended_ = false;
  bool lost_controller_ = false;
  std::string line_;
  AppEnd end_;
  std::vector<std::pair<uint32_t, AppEnd>> process_ends_;
  std::vector<std::string> notes_;
};

}  // namespace

int main(int argc, char** argv) {
  namespace d = barracuda::daemon;
  namespace t = barracuda::transport;
  signal(SIGPIPE, SIG_IGN);
  // The CLI forwards SIGINT/SIGTERM to the app; the daemon must outlive it to
  // write the report, so a terminal's Ctrl-C and a SIGTERM or SIGHUP sent to
  // the whole process group (`timeout`, a CI job's kill, a closed terminal)
  // are ignored: the daemon ends when the CLI's control channel says the app
  // ended, or closes (the CLI died).
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);  // Ctrl-\ reaches the whole process group too

  CLI::App app{"barracudad: the barracuda analysis daemon. Attaches a session's shared-memory segment, "
               "analyses the records of every process feeding it, and writes the race reports when told "
               "that the app ended (a line \"exit N\", \"signal N\" or \"done\" on the control fd, or EOF).",
               "barracudad"};
  std::string session, warp_model = "its", kernel_include, kernel_exclude, backend = "emu";
  d::ReportRequest request;
  bool create = false, unlink_at_end = false;
  t::Layout layout;
  int control_fd = 0, verdict_fd = 1;
  unsigned workers = 2;
  int grace_ms = 5000;
  uint64_t max_reports = 0;
  uint64_t memory_limit = barracuda::detector::DetectorOptions{}.shadow_limit_bytes;
  app.add_option("--session", session, "shared-memory segment name (BARRACUDA_SESSION of the app)")->required();
  app.add_flag("--create", create, "create the segment (otherwise it must exist)");
  app.add_flag("--unlink", unlink_at_end, "remove the segment name when done");
  app.add_option("--max-processes", layout.max_processes, "with --create: process slots")->capture_default_str();
  app.add_option("--rings", layout.rings_per_process, "with --create: rings per process")->capture_default_str();
  app.add_option("--ring-capacity", layout.ring_capacity, "with --create: records per ring (power of two)")
      ->capture_default_str();
  app.add_option("--warp-model", warp_model, "its (default) or lockstep")
      ->check(CLI::IsMember({"its", "lockstep"}));
  app.add_option("--backend", backend, "backend name recorded in the report")->capture_default_str();
  app.add_option("--report-json", request.json_path, "write the JSON report to FILE ('-' = stdout)");
  app.add_option("--report-sarif", request.sarif_path, "write the SARIF 2.1.0 report to FILE");
  app.add_option("--report-text", request.text_path, "write the text report to FILE instead of stderr");
  app.add_option("--suppressions", request.suppressions_paths, "suppression file (repeatable)")
      ->allow_extra_args(false);
  std::vector<std::string> ignore;
  app.add_option("--ignore", ignore, "leave out a warning class: same-value or dependency-ordered (repeatable)")
      ->check(CLI::IsMember({"same-value", "dependency-ordered"}));
  app.add_option("--max-reports", max_reports, "show at most N races (0 = no limit)");
  app.add_option("--kernel-include", kernel_include, "analyse only kernels whose name matches REGEX");
  app.add_option("--kernel-exclude", kernel_exclude, "do not analyse kernels whose name matches REGEX");
  app.add_flag("--quiet", request.quiet, "no text report on stderr");
  app.add_flag("--verbose", request.verbose, "per-process statistics in the text report");
  app.add_option("--control-fd", control_fd, "fd to read control lines from (-1: none)")->capture_default_str();
  app.add_option("--verdict-fd", verdict_fd, "fd for the one-line JSON verdict (-1: none)")->capture_default_str();
  app.add_option("--memory-limit", memory_limit,
                 "shadow memory per analysed process, in bytes (0: none); past it races may be missed, "
                 "never invented, and the report is marked incomplete")
      ->capture_default_str();
  app.add_option("--workers", workers, "analysis threads (shared by every process's launches)")->capture_default_str();
  app.add_option("--grace-ms", grace_ms, "after the app ended, wait this long for other attached processes")
      ->capture_default_str();
  std::string schedule_json;
  app.add_option("--schedule-json", schedule_json,
                 "the emulator schedule for the report, as a JSON object {\"policy\": ..., \"seed\": N}");
  uint32_t schedules = 0;
  app.add_option("--schedules", schedules,
                 "the session holds this many runs of the program, one per emulator schedule: races are "
                 "merged over them and listed with the schedules that showed them");
  std::string command_json;
  app.add_option("--command-json", command_json,
                 "the run's command line for the report, as a JSON array of strings (one argument: app "
                 "arguments cannot be mistaken for daemon options)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : d::kDaemonUsage;
  }
  for (const std::string& name : ignore) {
    for (barracuda::detector::RaceKind k : barracuda::detector::kAllRaceKinds) {
      if (name == barracuda::detector::RaceKindName(k)) request.ignore.push_back(k);
    }
  }

  d::SessionOptions options;
  options.warp_model =
      warp_model == "lockstep" ? barracuda::detector::WarpModel::kLockstep : barracuda::detector::WarpModel::kIts;
  options.barrier_arrivals_in_groups = backend == "gpu";
  options.analysis_workers = std::max(1u, workers);
  options.memory_limit_bytes = memory_limit;
  options.grace = std::chrono::milliseconds(std::max(0, grace_ms));
  options.explored_schedules = schedules;
  request.explored_schedules = schedules;
  try {
    if (!kernel_include.empty()) options.kernel_include.emplace(kernel_include);
    if (!kernel_exclude.empty()) options.kernel_exclude.emplace(kernel_exclude);
  } catch (const std::regex_error& e) {
    std::cerr << "barracudad: invalid kernel regex: " << e.what() << "\n";
    return d::kDaemonUsage;
  }
  if (max_reports != 0) request.max_reports = max_reports;
  if (!command_json.empty()) {
    nlohmann::json argv_json = nlohmann::json::parse(command_json, nullptr, false);
    if (!argv_json.is_array()) {
      std::cerr << "barracudad: --command-json: not a JSON array\n";
      return d::kDaemonUsage;
    }
    for (const nlohmann::json& a : argv_json)
      if (a.is_string()) request.command_line.push_back(a.get<std::string>());
  }

  if (!schedule_json.empty()) {
    nlohmann::json s = nlohmann::json::parse(schedule_json, nullptr, false);
    if (!s.is_object() || !s.contains("policy") || !s["policy"].is_string() || !s.contains("seed") ||
        !s["seed"].is_number_unsigned()) {
      std::cerr << "barracudad: --schedule-json: not {\"policy\": string, \"seed\": unsigned}\n";
      return d::kDaemonUsage;
    }
    request.schedule = barracuda::reports::Schedule{s["policy"].get<std::string>(), s["seed"].get<uint64_t>(),
                                                    s.value("arguments", std::string())};
  }
  absl::StatusOr<t::Segment> segment = create ? t::Segment::Create(session, layout) : t::Segment::Attach(session);
  if (!segment.ok()) {
    std::cerr << "barracudad: " << segment.status().message() << "\n";
    return d::kDaemonNoSession;
  }
  const std::string segment_name = segment->name();
  d::AnalysisSession analysis(std::move(*segment), options);  // publishes our pid: producers may start

  Control control(control_fd);
  // Idle polls wait for the controller, 25 us after the rings last moved,
  // doubling up to 1 ms: a producer far ahead of the analysis refills its
  // ring (1024 records) within tens of microseconds, and a fixed 1 ms wait
  // capped the transport at one ring per millisecond (a tiled matmul of 10 M
  // records spent 9 s waiting for room with the records not even analysed).
  int64_t idle_us = 0;
  while (!control.Check(0)) {
    if (analysis.Poll()) {
      idle_us = 0;
      continue;
    }
    idle_us = std::clamp<int64_t>(2 * idle_us, 25, 1000);
    control.Check(idle_us);
  }
  for (const auto& [pid, end] : control.process_ends()) analysis.SetProcessEnd(pid, end);
  analysis.Finish(control.end());
  d::SessionResult result = analysis.result();
  result.backend = backend;
  if (result.processes.empty())
    result.incomplete_reasons.push_back(
        "no process attached to the session: the app never loaded the emulator's libcudart.so.13 (an RPATH "
        "or static link to the real CUDA runtime?) or made no CUDA call; nothing was analysed");
  if (control.lost_controller())
    result.incomplete_reasons.push_back("the barracuda CLI went away before the app ended");
  if (unlink_at_end) (void)t::Segment::Unlink(segment_name);
  request.notes = control.notes();

  absl::StatusOr<d::ReportOutcome> outcome = d::WriteReports(result, request);
  int rc = d::kDaemonOk;
  nlohmann::json verdict;
  if (!outcome.ok()) {
    std::cerr << "barracudad: " << outcome.status().message() << "\n";
    verdict["report_error"] = std::string(outcome.status().message());
    rc = d::kDaemonReportFailed;
  } else {
    verdict["races"] = outcome->races_reported();  // after suppressions: what the exit status is about
    verdict["found"] = outcome->races_found;
    verdict["suppressed"] = outcome->races_suppressed;
    verdict["shown"] = outcome->races_shown;
    verdict["dynamic"] = outcome->dynamic_found;
  }
  if (rc == d::kDaemonOk && !result.errors.empty()) rc = d::kDaemonAnalysisErrors;
  verdict["complete"] = result.complete();
  verdict["launches_not_run"] = result.launches_not_run();
  verdict["memory_errors"] = result.memory_errors();
  verdict["stream_order_races"] = result.stream_order_races();
  verdict["memory_limited"] = result.memory_limited();
  verdict["launches_unchecked"] = result.launches_unchecked();
  verdict["errors"] = result.errors.size();
  verdict["processes"] = result.processes.size();
  uint64_t launches = 0, records = 0;
  for (const d::ProcessResult* p : result.processes) launches += p->launches.size(), records += p->records_analysed;
  verdict["launches"] = launches;
  verdict["records"] = records;
  if (verdict_fd >= 0) {
    const std::string line = verdict.dump() + "\n";
    if (write(verdict_fd, line.data(), line.size()) < 0) {
      // The CLI is gone; the reports are written, nothing else to do.
    }
  }
  return rc;
}
