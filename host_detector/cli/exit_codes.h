// Exit codes of `barracuda` (README.md, "Exit status"). Refusals happen before
// the app runs, so they cannot be confused with the app's own status; they sit
// at the top of the range, next to the shell's 126/127.
#ifndef BARRACUDA_HOST_DETECTOR_CLI_EXIT_CODES_H_
#define BARRACUDA_HOST_DETECTOR_CLI_EXIT_CODES_H_

namespace barracuda::cli {

// Races found: --error-exitcode N (default 1; 0 = keep the app's own status).
inline constexpr int kDefaultErrorExitCode = 1;

// The analysis is incomplete: a kernel did not run because of the tool (the
// emulator could not load its module or does not implement an instruction it
// uses), so its races are unknown. Wins over races found and over the app's
// own status: "N races" or "0 races" would claim more than was checked.
inline constexpr int kExitKernelNotRun = 118;
// The analysis is incomplete: no race was found, but accesses went unchecked:
// the memory limit (--memory-limit) or the daemon's memory left some out, or
// (GPU backend) a launched kernel reaches instructions the device logger does
// not log. Races found win over it (they are real); it wins over the app's
// own status.
inline constexpr int kExitAccessesUnchecked = 116;
// Schedule exploration (--schedules): the program's end (exit status or
// signal) differed between schedules, and no race explains it. Races and
// incomplete analyses win over it; the report names the schedules.
inline constexpr int kExitScheduleDependent = 117;
inline constexpr int kExitBackendUnavailable = 119;  // --backend=gpu: not available (yet)
inline constexpr int kExitUsage = 120;               // bad command line (unknown option, bad regex, ...)
inline constexpr int kExitNotCudaProgram = 121;      // a script, not ELF, static executable, no CUDA inside
inline constexpr int kExitStaticCudart = 122;        // CUDA runtime linked statically (-cudart static)
inline constexpr int kExitNoPtx = 123;               // no PTX embedded (no compute_XX code)
inline constexpr int kExitReportNotWritable = 124;   // a report (or suppressions) path cannot be used
inline constexpr int kExitInternal = 125;            // daemon / emulator library / session failure, lost records
inline constexpr int kExitNotExecutable = 126;       // program exists but cannot be executed
inline constexpr int kExitNotFound = 127;            // program not found

}  // namespace barracuda::cli

#endif  // BARRACUDA_HOST_DETECTOR_CLI_EXIT_CODES_H_
