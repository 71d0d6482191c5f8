// Runs one barracuda session: creates the shared-memory segment, starts
// barracudad on it, runs the app with the emulator's libcudart.so.13 first on
// LD_LIBRARY_PATH and BARRACUDA_SESSION set (stdin/stdout/stderr pass
// through), forwards termination signals to the app, tells the daemon how the
// app ended and collects its verdict. Shows a progress line on a terminal.
#ifndef BARRACUDA_HOST_DETECTOR_CLI_SUPERVISOR_H_
#define BARRACUDA_HOST_DETECTOR_CLI_SUPERVISOR_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "device_logger/shm_transport.h"
#include "host_detector/cli/schedule_plan.h"

namespace barracuda::cli {

struct RunPlan {
  std::string program_path;               // resolved executable
  std::vector<std::string> app_argv;      // argv of the app (argv[0] as the user typed it)
  std::string daemon_path;
  std::vector<std::string> daemon_args;   // report/analysis options (session and fds are added)
  std::string library_dir;                // prepended to LD_LIBRARY_PATH ("" = none)
  std::vector<std::pair<std::string, std::string>> app_env;  // extra environment
  // The app runs once per entry, one after another, into the one session,
  // with the entry's environment on top of app_env (schedule exploration:
  // one entry per schedule, its label in the progress line). Empty: one run.
  std::vector<ScheduleRun> runs;
  // Called after the first run; returns more runs (planned from what it
  // recorded) and may set a note for the report.
  std::function<std::vector<ScheduleRun>(std::string* note)> after_first_run;
  transport::Layout layout;
  bool progress = false;  // status line on stderr (a terminal) for long runs
  bool verbose = false;
  // Printed once on stderr when no kernel has finished for stall_seconds
  // while the app runs (a launch that may never end); empty: never.
  std::string stall_hint;
  int stall_seconds = 60;
};

struct AppRun {
  int pid = 0;
  int wait_status = 0;  // waitpid status
};

struct RunOutcome {
  bool app_started = false;
  int app_wait_status = 0;      // waitpid status of the app (of its last run)
  std::vector<AppRun> runs;     // every run that started, in order
  bool interrupted = false;     // a termination signal stopped the exploration early
  int exec_errno = 0;           // the app could not be executed (app_started false)
  bool daemon_finished = false; // exited normally
  int daemon_exit = -1;
  int daemon_signal = 0;  // the signal that killed the daemon, 0 if none
  nlohmann::json verdict;       // the daemon's verdict line (null when none)
  std::string error;            // set-up failure (no session, daemon did not start)
};

RunOutcome RunSession(const RunPlan& plan);

}  // namespace barracuda::cli

#endif  // BARRACUDA_HOST_DETECTOR_CLI_SUPERVISOR_H_
