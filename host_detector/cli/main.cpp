// barracuda: run a CUDA program under the race detector.
//   barracuda [options] ./app [args...]      (or: barracuda [options] -- ./app ...)
// Options, exit codes and environment: README.md.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

#include "device_logger/protocol.h"
#include "device_logger/shm_transport.h"
#include "host_detector/cli/exit_codes.h"
#include "host_detector/cli/program_check.h"
#include "host_detector/cli/runtime_paths.h"
#include "host_detector/cli/schedule_plan.h"
#include "host_detector/cli/supervisor.h"
#include "host_detector/daemon/daemon_exit_codes.h"
#ifdef BARRACUDA_CLI_REPORT_WRITERS
#include "host_detector/reports/suppressions.h"
#endif

#ifndef BARRACUDA_VERSION
#define BARRACUDA_VERSION "unknown"
#endif

namespace {

using namespace barracuda::cli;

// Half of the machine's physical memory (8 GiB when it cannot be read): the
// app (on the emulator, its device memory too) needs the rest.
uint64_t DefaultMemoryLimit() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return uint64_t{8} << 30;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2;
}

constexpr const char* kFooter = R"(
Exit status:
  the app's own status (128+N when it was killed by signal N), or
  --error-exitcode N when races or memory errors were found (default 1; 0 keeps the app's status);
  118 analysis incomplete: a kernel did not run (the emulator could not load its
      module or does not implement an instruction it uses, or it belongs to a CUDA
      library with its own runtime, such as cuBLAS) or faulted other than by
      a memory error (trap, assert, deadlock, timeout); wins over races found;
      a memory error (out of bounds, use after free, misaligned, ...) is an error
      like a race: --error-exitcode, with the report's memcheck-style entry;
  116 analysis incomplete: no races found, but the --memory-limit left some accesses
      unchecked, or the daemon ran out of memory, or (GPU backend) a kernel that ran
      uses instructions the device logger does not log, such as texture fetches
      (the report says what was left out; races found win over it);
  117 with --schedules: no races, but the program ended differently under some
      schedules (exit status or signal); the report names them;
  119 backend not available, 120 usage error, 121 not a dynamically linked CUDA program,
  122 static CUDA runtime in a stripped executable (don't strip, or -cudart shared), 123 no PTX embedded,
  124 report or suppressions path not usable, 125 internal error (daemon, emulator
  library, lost records), 126 program not executable, 127 program not found.

Build apps so that they embed PTX:  nvcc -lineinfo -gencode arch=compute_75,code=[sm_75,compute_75] ...
  (the static CUDA runtime, nvcc's and CMake's default, is taken over at start; -cudart shared works too)
Environment: BARRACUDA_EMU_LIB (directory of the emulator's libcudart.so.13),
  BARRACUDA_DAEMON (path of barracudad), BARRACUDA_GPU_AGENT (path of libbarracuda_gpu.so),
  BARRACUDA_STATIC_CUDART_LIB (path of libbarracuda_static_cudart.so).)";

// A temporary file name, removed at scope exit (what a cd/pct exploration's
// first run records). Made only when needed: a barracuda killed outright
// (SIGKILL from a test harness's timeout) cannot remove it.
class ScratchFile {
 public:
  explicit ScratchFile(bool needed) {
    if (!needed) return;
    const char* dir = std::getenv("TMPDIR");
    std::string tmpl = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/barracuda-schedule-XXXXXX";
    const int fd = mkstemp(tmpl.data());
    if (fd >= 0) {
      close(fd);
      path_ = tmpl;
    }
  }
  ~ScratchFile() {
    if (!path_.empty()) std::remove(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Unsigned options: CLI11 would take "-1" as 2^64-1 and clamp a number too
// large for 64 bits; both are usage errors here.
const CLI::Validator kUnsigned(
    [](const std::string& s) {
      const bool digits = !s.empty() && s.size() <= 20 && s.find_first_not_of("0123456789") == std::string::npos;
      errno = 0;
      if (digits) (void)std::strtoull(s.c_str(), nullptr, 10);
      if (!digits || errno == ERANGE) return std::string("expected a whole number from 0 to 18446744073709551615");
      return std::string();
    },
    "UINT");

int Refuse(const CheckResult& r) {
  std::cerr << "barracuda: " << r.message << "\n";
  return r.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{"barracuda: find data races in CUDA programs (BARRACUDA, PLDI'17). Runs the program on an NVIDIA "
               "GPU with instrumented PTX (GPU backend) or on the built-in PTX emulator (no GPU needed), and "
               "reports races on stderr and in files.\n"
               "Run as: barracuda [options] ./app [args...]   or   barracuda [options] -- ./app [args...]",
               "barracuda"};
  app.footer(kFooter);
  app.prefix_command();  // everything from the program name on belongs to the app

  std::string backend = "auto", gpu_runtime = "system", warp_model = "its", json, sarif, text, include, exclude;
  std::vector<std::string> suppressions;
  int error_exitcode = kDefaultErrorExitCode;
  uint64_t max_reports = 0, seed = 0, gpu_queue_mb = 0;
  bool quiet = false, verbose = false, version = false;
  app.add_option("--backend", backend, "auto (GPU when a CUDA driver and device are present, else the "
                                       "emulator), emu, or gpu")
      ->check(CLI::IsMember({"auto", "emu", "gpu"}))
      ->capture_default_str();
  app.add_option("--gpu-runtime", gpu_runtime,
                 "with --backend=gpu: system (the CUDA runtime the program loads, on an NVIDIA GPU) or "
                 "emulator (the instrumented PTX runs on the built-in emulator: the GPU path without a GPU)")
      ->check(CLI::IsMember({"system", "emulator"}))
      ->capture_default_str();
  app.add_option("--gpu-queue-mb", gpu_queue_mb,
                 "GPU backend: MiB of mapped pinned memory for the record queues (default: 1% of device "
                 "memory, 16 to 512 MiB)")
      ->check(kUnsigned);
  app.add_option("--warp-model", warp_model,
                 "its: Volta+ independent thread scheduling (default); lockstep: the paper's lock-step warps")
      ->check(CLI::IsMember({"its", "lockstep"}))
      ->capture_default_str();
  // An empty FILE (a CI variable left unset) is a usage error, not "no report".
  const auto not_empty = CLI::Validator(
      [](const std::string& s) { return s.empty() ? std::string("FILE is empty") : std::string(); }, "FILE");
  app.add_option("--report-json", json, "write the JSON report to FILE ('-': stdout)")->check(not_empty);
  app.add_option("--report-sarif", sarif, "write the SARIF 2.1.0 report to FILE ('-': stdout)")->check(not_empty);
  app.add_option("--report-text", text, "write the text report to FILE instead of stderr ('-': stdout)")
      ->check(not_empty);
  app.add_option("--error-exitcode", error_exitcode,
                 "exit status when races or memory errors are found (0: keep the app's own status)")
      ->check(CLI::Range(0, 255))
      ->capture_default_str();
  app.add_option("--kernel-include", include, "analyse only kernels whose name (mangled or demangled) matches "
                                              "the ECMAScript REGEX");
  app.add_option("--kernel-exclude", exclude, "do not analyse kernels whose name matches REGEX");
  app.add_option("--suppressions", suppressions,
                 "suppression FILE (host_detector/reports/REPORTS.md); repeatable: the rules of all files, in order")
      ->check(not_empty)
      ->allow_extra_args(false);
  std::vector<std::string> ignore;
  app.add_option("--ignore", ignore,
                 "leave out a warning class (repeatable): same-value (unordered writes of one value) or "
                 "dependency-ordered; data races are silenced with --suppressions")
      ->check(CLI::IsMember({"same-value", "dependency-ordered"}))
      ->allow_extra_args(false);  // one class per --ignore: `--ignore same-value ./app` runs ./app
  app.add_option("--max-reports", max_reports, "report at most N races (0: no limit)")->check(kUnsigned);
  app.add_option("--seed", seed,
                 "emulator schedule seed: the same seed gives the same schedule and report with any number of "
                 "workers (BARRACUDA_EMU_SEED of the app; implies --schedule-policy=random)")
      ->check(kUnsigned);
  uint32_t analysis_streams = 1;
  app.add_option("--analysis-streams", analysis_streams,
                 "emulator: record streams per launch. 1 (default): the analysis of a launch follows one fixed "
                 "order and the report is the same on every run; N > 1: the daemon analyses a launch on several "
                 "threads, faster, but which access of a racing pair it meets first (RAW or WAR, the example, "
                 "the counts) may vary between runs")
      ->check(CLI::Range(1u, 32u));
  std::string schedule_policy;
  app.add_option("--schedule-policy", schedule_policy,
                 "emulator schedule: round-robin (default without --seed), random (warp order, turn lengths "
                 "and the order of cross-block operations drawn from --seed), cd (conflict-directed delay "
                 "bounding: with --schedules, or --delays to replay) or pct (priorities and --pct-depth "
                 "change points drawn from --seed)")
      ->check(CLI::IsMember({"round-robin", "random", "cd", "pct"}));
  ScheduleRequest schedule_request;
  app.add_option("--schedules", schedule_request.schedules,
                 "emulator: run the program under N schedules and report the union of their races, each with "
                 "the schedules that showed it (and how to replay one), and any schedule whose run ended "
                 "differently. Schedule 1 is round-robin; then random seeds 1..N-1 (with --seed S: all random, "
                 "seeds S..S+N-1), or with --schedule-policy cd the conflict-directed delay sets, or pct seeds")
      ->check(CLI::Range(1u, 4000u));
  app.add_option("--delay-bound", schedule_request.delay_bound,
                 "--schedule-policy cd: delay at most K conflict points per schedule")
      ->check(CLI::Range(1u, 8u))
      ->capture_default_str();
  app.add_option("--delays", schedule_request.delays,
                 "--schedule-policy cd: replay one schedule, holding back these LAUNCH:BLOCK:SITE points (as "
                 "a report names them)");
  app.add_option("--pct-depth", schedule_request.pct_depth,
                 "--schedule-policy pct: d, the bug depth (d-1 priority change points)")
      ->check(CLI::Range(1u, 64u))
      ->capture_default_str();
  uint64_t pct_horizon = 0;
  app.add_option("--pct-horizon", pct_horizon,
                 "--schedule-policy pct: the serial steps change points are drawn from (a report names it)")
      ->check(kUnsigned);
  double kernel_timeout = 0;
  app.add_option("--kernel-timeout", kernel_timeout,
                 "emulator: a launch still running after SECONDS fails with cudaErrorLaunchTimeout (as a GPU "
                 "watchdog would) and the run is incomplete (exit 118), kernel and schedule named: for spin-waits "
                 "that some schedule never releases (0: no limit; at least 0.001)")
      ->check(CLI::Validator(
          [](const std::string& s) {
            char* end = nullptr;
            const double v = std::strtod(s.c_str(), &end);
            if (end == s.c_str() || *end != '\0' || !(v == 0 || (v >= 0.001 && v < 1e9)))
              return std::string("SECONDS must be 0 (no limit) or a number from 0.001 to 1e9");
            return std::string();
          },
          "SECONDS"));
  uint64_t memory_limit = DefaultMemoryLimit();
  app.add_option("--memory-limit", memory_limit,
                 "shadow memory per analysed process (e.g. 512M, 8G; 0: none; default: half the machine's "
                 "memory). Past it, memory touched later is not checked and concurrent readers are not all "
                 "kept: races there may be missed, none is invented; the report says what was left out and, "
                 "with no race found, barracuda exits 116")
      ->check(CLI::Validator(
          [](const std::string& v) { return !v.empty() && v[0] == '-' ? std::string("a size is not negative") : ""; },
          "SIZE"))
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  app.add_flag("-q,--quiet", quiet, "no text report on stderr, no notes (files are still written)");
  app.add_flag("-v,--verbose", verbose, "say what barracuda does; statistics in the report");
  app.add_flag("--version", version, "print the version and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }
  if (version) {
    std::cout << "barracuda " << BARRACUDA_VERSION << " (record protocol "
              << barracuda::protocol::kProtocolVersion << ", transport " << barracuda::transport::kTransportVersion
              << ")\n";
    return 0;
  }
  std::vector<std::string> command = app.remaining();
  if (!command.empty() && command.front() == "--") command.erase(command.begin());
  if (command.empty()) {
    std::cerr << "barracuda: no program given\nUsage: barracuda [options] ./app [args...]  (--help for more)\n";
    return kExitUsage;
  }
  // With prefix_command an unknown option would be taken for the program.
  const bool after_separator = argc >= static_cast<int>(command.size()) + 1 &&
                               std::strcmp(argv[argc - command.size() - 1], "--") == 0;
  if (command.front().size() > 1 && command.front()[0] == '-' && !after_separator) {
    std::cerr << "barracuda: unknown option " << command.front()
              << " (a program whose name starts with '-' goes after --)\n";
    return kExitUsage;
  }
  for (const auto& [flag, re] : {std::pair<const char*, std::string&>{"--kernel-include", include},
                                 std::pair<const char*, std::string&>{"--kernel-exclude", exclude}}) {
    if (re.empty()) continue;
    try {
      std::regex check(re);
    } catch (const std::regex_error& e) {
      std::cerr << "barracuda: " << flag << " " << re << ": invalid regular expression (" << e.what() << ")\n";
      return kExitUsage;
    }
  }

  // Backend: the GPU agent on a GPU (or, for testing, on the emulator as the
  // "GPU"); else the emulator.
  const std::string self = SelfDirectory();
  const Found agent = FindGpuAgent(self);
  bool use_gpu = false;
  if (backend == "gpu") {
    if (gpu_runtime == "system" && !NvidiaGpuPresent()) {
      std::cerr << "barracuda: --backend=gpu needs an NVIDIA GPU and driver (/dev/nvidia0, libcuda.so.1), and "
                   "none is usable here; use --backend=emu, or --gpu-runtime=emulator to run the GPU backend's "
                   "instrumented PTX on the emulator\n";
      return kExitBackendUnavailable;
    }
    if (agent.path.empty()) {
      std::cerr << "barracuda: the GPU agent " << kGpuAgentName << " was not found; looked for:\n";
      for (const std::string& s : agent.searched) std::cerr << "  " << s << "\n";
      std::cerr << "build the target barracuda_gpu, or set " << kGpuAgentEnv << "\n";
      return kExitBackendUnavailable;
    }
    use_gpu = true;
  } else if (backend == "auto" && NvidiaGpuPresent()) {
    use_gpu = !agent.path.empty();
    if (!use_gpu && !quiet)
      std::cerr << "barracuda: an NVIDIA GPU is present, but the GPU agent " << kGpuAgentName
                << " was not found: using the emulator\n";
  }
  const bool emulated_runtime = !use_gpu || gpu_runtime == "emulator";

  // Refusals, before anything runs.
  std::string program;
  if (CheckResult r = ResolveProgram(command.front(), &program); !r.ok()) return Refuse(r);
  CheckResult program_check = CheckProgram(program);
  if (!program_check.ok()) return Refuse(program_check);
  for (const auto& [opt, path] : {std::pair<const char*, std::string&>{"--report-json", json},
                                  std::pair<const char*, std::string&>{"--report-sarif", sarif},
                                  std::pair<const char*, std::string&>{"--report-text", text}}) {
    if (path.empty()) continue;
    if (CheckResult r = CheckWritable(opt, path); !r.ok()) return Refuse(r);
  }
  for (const std::string& file : suppressions) {
    if (CheckResult r = CheckReadable("--suppressions", file); !r.ok()) return Refuse(r);
#ifdef BARRACUDA_CLI_REPORT_WRITERS
    // A rule with a mistake is reported now, with FILE:LINE:COL, not after the run.
    if (auto rules = barracuda::reports::SuppressionSet::Load(file); !rules.ok()) {
      std::cerr << "barracuda: " << rules.status().message() << "\n";
      return kExitUsage;
    }
#endif
  }

  Found lib = emulated_runtime ? FindEmulatorLibraryDir(self) : Found{};
  if (emulated_runtime && lib.path.empty()) {
    std::cerr << "barracuda: the emulator's " << kEmulatorLibraryName << " was not found; looked for:\n";
    for (const std::string& s : lib.searched) std::cerr << "  " << s << "\n";
    std::cerr << "build the target barracuda_cudart, or set " << kEmuLibEnv << "\n";
    return kExitInternal;
  }
  const Found static_cudart = program_check.static_runtime ? FindStaticCudartLibrary(self) : Found{};
  if (program_check.static_runtime && static_cudart.path.empty()) {
    std::cerr << "barracuda: " << program << " links the CUDA runtime statically, and " << kStaticCudartName
              << ", which takes it over, was not found; looked for:\n";
    for (const std::string& s : static_cudart.searched) std::cerr << "  " << s << "\n";
    std::cerr << "build the target barracuda_static_cudart, or set " << kStaticCudartEnv << "\n";
    return kExitInternal;
  }
  Found daemon = FindDaemon(self);
  if (daemon.path.empty()) {
    std::cerr << "barracuda: barracudad not found (looked for " << daemon.searched.front() << "); set "
              << kDaemonEnv << "\n";
    return kExitInternal;
  }
  if (verbose) {
    for (const std::string& n : program_check.notes) std::cerr << "barracuda: " << n << "\n";
    if (use_gpu)
      std::cerr << "barracuda: backend gpu, agent " << agent.path << ", CUDA runtime "
                << (emulated_runtime ? "the emulator's from " + lib.path : std::string("the program's own"))
                << ", daemon " << daemon.path << "\n";
    else
      std::cerr << "barracuda: backend emu, emulator runtime from " << lib.path << ", daemon " << daemon.path << "\n";
  }

  RunPlan plan;
  plan.program_path = program;
  plan.app_argv = command;
  plan.daemon_path = daemon.path;
  plan.library_dir = lib.path;
  plan.verbose = verbose;
  plan.progress = !quiet && isatty(STDERR_FILENO) == 1;
  if (!quiet && !use_gpu && kernel_timeout == 0) {
    // BARRACUDA_STALL_SECONDS: when the hint comes (tests).
    if (const char* s = std::getenv("BARRACUDA_STALL_SECONDS"); s != nullptr && std::atoi(s) > 0)
      plan.stall_seconds = std::atoi(s);
    plan.stall_hint = "barracuda: no kernel has finished for " + std::to_string(plan.stall_seconds) +
                      " s. If one waits for something that never happens (a spin-wait no schedule releases, "
                      "a barrier phase never completed), --kernel-timeout SECONDS makes such a launch fail "
                      "and reports the rest; Ctrl-C (or SIGTERM) stops the app and reports what was analysed.";
  }
  std::vector<std::string>& d = plan.daemon_args;
  d = {"--backend", use_gpu ? "gpu" : "emu", "--warp-model", warp_model};
  if (!json.empty()) d.insert(d.end(), {"--report-json", json});
  if (!sarif.empty()) d.insert(d.end(), {"--report-sarif", sarif});
  if (!text.empty()) d.insert(d.end(), {"--report-text", text});
  for (const std::string& file : suppressions) d.insert(d.end(), {"--suppressions", file});
  for (const std::string& k : ignore) d.insert(d.end(), {"--ignore", k});
  if (!include.empty()) d.insert(d.end(), {"--kernel-include", include});
  if (!exclude.empty()) d.insert(d.end(), {"--kernel-exclude", exclude});
  if (max_reports != 0) d.insert(d.end(), {"--max-reports", std::to_string(max_reports)});
  d.insert(d.end(), {"--memory-limit", std::to_string(memory_limit)});
  if (quiet) d.push_back("--quiet");
  if (verbose) d.push_back("--verbose");
  nlohmann::json command_line = nlohmann::json::array();
  for (int i = 0; i < argc; ++i) command_line.push_back(argv[i]);
  d.insert(d.end(), {"--command-json", command_line.dump()});
  if (analysis_streams != 1) plan.app_env.emplace_back("BARRACUDA_EMU_STREAMS", std::to_string(analysis_streams));
  // %g-like, not std::to_string's %f (which would turn 1e-4 into 0.000100, and smaller values into 0: no limit).
  if (kernel_timeout > 0) plan.app_env.emplace_back("BARRACUDA_EMU_KERNEL_TIMEOUT", absl::StrCat(kernel_timeout));
  schedule_request.policy = schedule_policy;
  if (app.count("--seed") != 0) schedule_request.seed = seed;
  if (app.count("--pct-horizon") != 0) schedule_request.pct_horizon = pct_horizon;
  if (std::optional<std::string> bad = SchedulePlan::Check(schedule_request)) {
    std::cerr << "barracuda: " << *bad << "\n";
    return kExitUsage;
  }
  if (schedule_request.schedules > 1 && use_gpu) {
    std::cerr << "barracuda: --schedules needs the emulator backend (--backend=emu): a GPU's schedule cannot be "
                 "chosen\n";
    return kExitUsage;
  }
  // The first run of a cd/pct exploration records what the others are planned from.
  ScratchFile scratch(SchedulePlan::NeedsScratch(schedule_request));
  SchedulePlan schedule_plan(schedule_request, scratch.path());
  plan.runs = schedule_plan.FirstRuns();
  if (schedule_plan.exploring()) {
    plan.after_first_run = [&schedule_plan](std::string* note) { return schedule_plan.AfterFirstRun(note); };
    d.insert(d.end(), {"--schedules", std::to_string(schedule_request.schedules)});
    // A slot per run, and room for processes the app forks.
    plan.layout.max_processes = std::min<uint32_t>(4096, schedule_request.schedules + 16);
  } else if (!use_gpu) {
    // The report names the emulator schedule, so that a finding can be replayed.
    nlohmann::json schedule_json{{"policy", schedule_plan.SinglePolicy()}, {"seed", seed}};
    if (const std::string args = schedule_plan.SingleArguments(); !args.empty()) schedule_json["arguments"] = args;
    d.insert(d.end(), {"--schedule-json", schedule_json.dump()});
  }
  std::vector<std::string> preloads;
  if (use_gpu) {
    // The agent is preloaded; records come from its queues, so the emulator
    // (when it plays the GPU) must not trace as well. One ring per GPU queue:
    // up to 256 queues (~1.25 per SM).
    preloads.push_back(agent.path);
    plan.app_env.emplace_back("BARRACUDA_BACKEND", "gpu");
    if (verbose) plan.app_env.emplace_back("BARRACUDA_GPU_VERBOSE", "1");
    if (gpu_queue_mb != 0) plan.app_env.emplace_back("BARRACUDA_GPU_QUEUE_MB", std::to_string(gpu_queue_mb));
    plan.layout.rings_per_process = 256;
  }
  if (program_check.static_runtime) {
    // After the agent: the redirection sends the static runtime's entry
    // points to the agent's hooks where it has them, else to libcudart.so.13.
    preloads.push_back(static_cudart.path);
    if (emulated_runtime) plan.app_env.emplace_back("BARRACUDA_CUDART", lib.path + "/" + kEmulatorLibraryName);
    if (verbose) plan.app_env.emplace_back("BARRACUDA_STATIC_CUDART_VERBOSE", "1");
  }
  if (!preloads.empty()) {
    std::string value;
    for (const std::string& p : preloads) value += (value.empty() ? "" : ":") + p;
    if (const char* old = std::getenv("LD_PRELOAD"); old != nullptr && *old != '\0') value += std::string(":") + old;
    plan.app_env.emplace_back("LD_PRELOAD", value);
  }

  RunOutcome run = RunSession(plan);
  if (!run.error.empty()) {
    std::cerr << "barracuda: " << run.error << "\n";
    return kExitInternal;
  }
  if (!run.app_started) {
    std::cerr << "barracuda: cannot execute " << program << ": " << std::strerror(run.exec_errno) << "\n";
    return run.exec_errno == ENOENT ? kExitNotFound : kExitNotExecutable;
  }
  if (run.daemon_exit == barracuda::daemon::kDaemonReportFailed) return kExitReportNotWritable;
  if (!run.daemon_finished || run.verdict.is_null() || !run.verdict.contains("races")) {
    std::cerr << "barracuda: the analysis daemon failed ("
              << (run.daemon_signal != 0 ? absl::StrCat("killed by signal ", run.daemon_signal, " (",
                                                        strsignal(run.daemon_signal), ")")
                                         : absl::StrCat("exit status ", run.daemon_exit))
              << "); no verdict\n";
    return kExitInternal;
  }
  // Stream-order races (two streams' operations unordered) are races too.
  const uint64_t races =
      run.verdict["races"].get<uint64_t>() + run.verdict.value("stream_order_races", uint64_t{0});
  // Before races: a verdict over part of the program is not the program's verdict.
  if (const uint64_t not_run = run.verdict.value("launches_not_run", uint64_t{0}); not_run != 0) {
    if (!quiet)
      std::cerr << "barracuda: analysis INCOMPLETE: " << not_run << (not_run == 1 ? " launch" : " launches")
                << " did not run on the emulator, or faulted (see above); exit status " << kExitKernelNotRun << "\n";
    return kExitKernelNotRun;
  }
  // Memory errors (the emulator's memcheck) are errors like races: real, and
  // the report lists them.
  const uint64_t memory_errors = run.verdict.value("memory_errors", uint64_t{0});
  if ((races != 0 || memory_errors != 0) && error_exitcode != 0) return error_exitcode;
  // After races (those found are real), before the app's status: "0 races"
  // over accesses left unchecked (memory the limit left out, instructions the
  // GPU backend does not log) would claim more than was checked.
  const uint64_t limited = run.verdict.value("memory_limited", uint64_t{0});
  const uint64_t unchecked = run.verdict.value("launches_unchecked", uint64_t{0});
  if ((limited != 0 || unchecked != 0) && races == 0 && memory_errors == 0) {
    if (!quiet) {
      std::cerr << "barracuda: analysis INCOMPLETE: ";
      if (limited != 0) {
        std::cerr << "the memory limit left accesses unchecked";
      } else {
        std::cerr << unchecked << (unchecked == 1 ? " launch" : " launches")
                  << " of kernels that use instructions the GPU backend does not log";
      }
      std::cerr << " (see above); exit status " << kExitAccessesUnchecked << "\n";
    }
    return kExitAccessesUnchecked;
  }
  if (run.daemon_exit == barracuda::daemon::kDaemonAnalysisErrors) {
    std::cerr << "barracuda: the analysis reported errors (see above): the verdict may be wrong\n";
    return kExitInternal;
  }
  // Exploration: a program whose end (status, signal) differs between
  // schedules fails under some interleavings; the report names them.
  for (const AppRun& r : run.runs) {
    if (r.wait_status == run.runs.front().wait_status) continue;
    if (!quiet)
      std::cerr << "barracuda: the program's outcome depends on the schedule (see the report); exit status "
                << kExitScheduleDependent << "\n";
    return kExitScheduleDependent;
  }
  const int st = run.app_wait_status;
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return WIFEXITED(st) ? WEXITSTATUS(st) : kExitInternal;
}
