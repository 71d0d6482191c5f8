#include "host_detector/cli/supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace barracuda::cli {
namespace {

volatile sig_atomic_t g_app_pid = 0;
volatile sig_atomic_t g_interrupted = 0;  // a termination signal arrived: run no further schedules

// Termination signals sent to barracuda go to the app; the app's end is then
// reported as usual. A Ctrl-C from the terminal already reaches the app (same
// process group), so only SIGINTs sent by a process (si_pid != 0) are forwarded.
void Forward(int sig, siginfo_t* info, void*) {
  g_interrupted = 1;
  if (sig == SIGINT && info != nullptr && info->si_pid == 0) return;
  if (g_app_pid > 0) kill(static_cast<pid_t>(g_app_pid), sig);
}

void InstallForwarding() {
  struct sigaction sa{};
  sa.sa_sigaction = Forward;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(sig, &sa, nullptr);
}

void RestoreDefaults() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) signal(sig, SIG_DFL);
}

std::vector<char*> Argv(std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

class ProgressLine {
 public:
  ProgressLine(bool enabled, const transport::SegmentHeader& h) : enabled_(enabled), h_(h) {}
  // Shown once the run has taken 2 s; refreshed every 0.5 s.
  void Tick() {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(2) || now - last_ < std::chrono::milliseconds(500)) return;
    last_ = now;
    std::fprintf(stderr, "\r\033[Kbarracuda: %s%llu kernels analysed, %llu records, %llu races so far",
                 label_.c_str(), static_cast<unsigned long long>(h_.launches_analysed.load()),
                 static_cast<unsigned long long>(h_.records_analysed.load()),
                 static_cast<unsigned long long>(h_.races_found.load()));
    shown_ = true;
  }
  void SetLabel(const std::string& label) { label_ = label + ": "; }
  void Clear() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
    shown_ = false;
  }

 private:
  bool enabled_;
  const transport::SegmentHeader& h_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
  bool shown_ = false;
  std::string label_;
};

// Forks and execs the app with the session's environment plus `extra`.
// Returns its pid once exec succeeded; with *exec_errno set when exec failed
// (the child is reaped); -1 with *error when it could not be started at all.
pid_t SpawnApp(const RunPlan& plan, const std::string& session, const Environment& extra, int* exec_errno,
               std::string* error) {
  // A CLOEXEC pipe tells whether exec succeeded (EOF) or failed (errno).
  int exec_pipe[2];
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return -1;
  }
  std::vector<std::string> app_args = plan.app_argv;
  const pid_t app = fork();
  if (app < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    close(exec_pipe[0]);
    close(exec_pipe[1]);
    return -1;
  }
  if (app == 0) {
    RestoreDefaults();
    close(exec_pipe[0]);
    if (!plan.library_dir.empty()) {
      const char* old = std::getenv("LD_LIBRARY_PATH");
      std::string value = plan.library_dir;
      if (old != nullptr && *old != '\0') value += std::string(":") + old;
      setenv("LD_LIBRARY_PATH", value.c_str(), 1);
    }
    setenv(transport::kSessionEnv, session.c_str(), 1);
    for (const auto& [k, v] : plan.app_env) setenv(k.c_str(), v.c_str(), 1);
    for (const auto& [k, v] : extra) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> argv = Argv(app_args);
    execv(plan.program_path.c_str(), argv.data());
    const int err = errno;
    (void)!write(exec_pipe[1], &err, sizeof err);
    _exit(127);
  }
  g_app_pid = app;
  InstallForwarding();
  close(exec_pipe[1]);
  int err = 0;
  ssize_t got;
  while ((got = read(exec_pipe[0], &err, sizeof err)) < 0 && errno == EINTR) {
  }
  close(exec_pipe[0]);
  if (got != 0) {
    int status = 0;
    while (waitpid(app, &status, 0) < 0 && errno == EINTR) {
    }
    g_app_pid = 0;
    *exec_errno = err != 0 ? err : ENOEXEC;
  }
  return app;
}

}  // namespace

RunOutcome RunSession(const RunPlan& plan) {
  RunOutcome out;
  // Reclaim what SIGKILLed sessions left in /dev/shm before taking more.
  transport::Segment::RemoveOrphans();
  const std::string name = transport::Segment::UniqueName();
  absl::StatusOr<transport::Segment> segment = transport::Segment::Create(name, plan.layout);
  if (!segment.ok()) {
    out.error = std::string(segment.status().message());
    return out;
  }
  // Unlinked when this function returns: the daemon and the app have it mapped.
  struct Unlinker {
    std::string name;
    ~Unlinker() { (void)transport::Segment::Unlink(name); }
  } unlinker{name};

  int control[2], verdict[2];
  if (pipe2(control, O_CLOEXEC) != 0 || pipe2(verdict, O_CLOEXEC) != 0) {
    out.error = std::string("pipe: ") + std::strerror(errno);
    return out;
  }
  std::vector<std::string> dargs = {plan.daemon_path, "--session", name, "--control-fd", "3", "--verdict-fd", "4"};
  dargs.insert(dargs.end(), plan.daemon_args.begin(), plan.daemon_args.end());
  const pid_t daemon = fork();
  if (daemon < 0) {
    out.error = std::string("fork: ") + std::strerror(errno);
    return out;
  }
  if (daemon == 0) {
    // fds 3 and 4 are the pipes (dup2 clears CLOEXEC); stdin is not the daemon's.
    // Move both ends above 4 first: a pipe end may already be fd 3 or 4, and
    // dup2 onto itself would keep its close-on-exec flag.
    const int c = fcntl(control[0], F_DUPFD_CLOEXEC, 10), v = fcntl(verdict[1], F_DUPFD_CLOEXEC, 10);
    dup2(c, 3);
    dup2(v, 4);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    std::vector<char*> argv = Argv(dargs);
    execv(argv[0], argv.data());
    std::fprintf(stderr, "barracuda: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  close(control[0]);
  close(verdict[1]);
  auto reap_daemon = [&] {
    close(control[1]);
    std::string text;
    char buf[1024];
    for (ssize_t n; (n = read(verdict[0], buf, sizeof buf)) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      text.append(buf, static_cast<size_t>(n));
    }
    close(verdict[0]);
    int status = 0;
    while (waitpid(daemon, &status, 0) < 0 && errno == EINTR) {
    }
    out.daemon_finished = WIFEXITED(status);
    out.daemon_exit = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    out.daemon_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (!text.empty()) out.verdict = nlohmann::json::parse(text, nullptr, false);
    if (out.verdict.is_discarded()) out.verdict = nullptr;
  };

  // The daemon is ready once it published its pid (producers check it to notice a dead daemon).
  const transport::SegmentHeader& header = segment->header();
  for (int i = 0; header.daemon_pid.load(std::memory_order_acquire) == 0; ++i) {
    int status = 0;
    if (waitpid(daemon, &status, WNOHANG) == daemon) {
      out.error = "the analysis daemon exited before attaching to the session";
      close(control[1]);
      close(verdict[0]);
      return out;
    }
    if (i > 10000) {  // ~10 s
      out.error = "the analysis daemon did not attach to the session within 10 s";
      kill(daemon, SIGKILL);
      reap_daemon();
      return out;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  // The app, once per run (schedule exploration: one run per schedule).
  std::vector<ScheduleRun> runs = plan.runs;
  if (runs.empty()) runs.emplace_back();
  ProgressLine progress(plan.progress, header);
  int status = 0;
  for (size_t run = 0; run < runs.size() && !g_interrupted; ++run) {
    int exec_err = 0;
    const pid_t app = SpawnApp(plan, name, runs[run].env, &exec_err, &out.error);
    if (app < 0) {
      reap_daemon();
      return out;
    }
    if (exec_err != 0) {
      if (run == 0) out.exec_errno = exec_err;
      status = W_EXITCODE(127, 0);  // what the child's _exit(127) said
      break;
    }
    out.app_started = true;
    if (!runs[run].label.empty()) {
      progress.SetLabel(runs[run].label);
      if (plan.verbose) std::fprintf(stderr, "barracuda: %s\n", runs[run].label.c_str());
    }
    const bool poll_app = plan.progress || !plan.stall_hint.empty();
    auto last_change = std::chrono::steady_clock::now();
    uint64_t last_launches = header.launches_analysed.load(), last_begun = header.launches_begun.load();
    bool hinted = false;
    for (;;) {
      const pid_t r = waitpid(app, &status, poll_app ? WNOHANG : 0);
      if (r == app) break;
      if (r < 0 && errno != EINTR) break;
      if (r == 0) {
        progress.Tick();
        const auto now = std::chrono::steady_clock::now();
        const uint64_t l = header.launches_analysed.load(), b = header.launches_begun.load();
        if (l != last_launches || b != last_begun) {
          last_launches = l;
          last_begun = b;
          last_change = now;
        } else if (!hinted && !plan.stall_hint.empty() && b > l &&  // a launch under way, not host code
                   now - last_change >= std::chrono::seconds(plan.stall_seconds)) {
          progress.Clear();
          std::fprintf(stderr, "%s\n", plan.stall_hint.c_str());
          hinted = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    g_app_pid = 0;
    out.app_wait_status = status;
    out.runs.push_back({app, status});
    if (run == 0 && plan.after_first_run) {
      std::string note;
      for (ScheduleRun& more : plan.after_first_run(&note)) runs.push_back(std::move(more));
      if (!note.empty()) {
        const std::string line = "note " + note + "\n";
        (void)!write(control[1], line.data(), line.size());
      }
    }
    if (plan.after_first_run || runs.size() > 1) {
      // The daemon reports each run's end under its schedule.
      char line[96];
      if (WIFSIGNALED(status))
        std::snprintf(line, sizeof line, "process %d signal %d\n", static_cast<int>(app), WTERMSIG(status));
      else
        std::snprintf(line, sizeof line, "process %d exit %d\n", static_cast<int>(app),
                      WIFEXITED(status) ? WEXITSTATUS(status) : 0);
      (void)!write(control[1], line, std::strlen(line));
    }
  }
  out.interrupted = g_interrupted != 0;

  // Tell the daemon, then wait for its verdict (it may still be analysing).
  char line[64];
  if (WIFSIGNALED(status))
    std::snprintf(line, sizeof line, "signal %d\n", WTERMSIG(status));
  else
    std::snprintf(line, sizeof line, "exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 0);
  (void)!write(control[1], line, std::strlen(line));
  if (plan.progress) {
    pollfd pfd{verdict[0], POLLIN, 0};
    while (poll(&pfd, 1, 100) == 0) progress.Tick();
  }
  progress.Clear();
  reap_daemon();
  return out;
}

}  // namespace barracuda::cli
