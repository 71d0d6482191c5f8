// Which emulator schedule each run of the program uses: one run (--seed,
// --schedule-policy, --delays, --pct-*), or schedule exploration
// (--schedules N), where the cd and pct policies plan their runs from what the
// first run recorded (ptx_emulator/exec/serial_phase.h):
//   random  schedule 1 round-robin, then random seeds 1..N-1 (with --seed S
//           or --schedule-policy random: random seeds S..S+N-1);
//   cd      schedule 1 round-robin, recording its conflict points (cross-block
//           operations of different blocks on one address, one a write); then
//           every set of at most --delay-bound of those points, smallest sets
//           first, each run holding its points back one round;
//   pct     schedule 1 round-robin, counting its serial steps (the horizon);
//           then PCT with --pct-depth d and seeds 1..N-1 (or S..S+N-1).
#ifndef BARRACUDA_HOST_DETECTOR_CLI_SCHEDULE_PLAN_H_
#define BARRACUDA_HOST_DETECTOR_CLI_SCHEDULE_PLAN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace barracuda::cli {

using Environment = std::vector<std::pair<std::string, std::string>>;

struct ScheduleRequest {
  std::string policy;        // "" (not given), round-robin, random, cd, pct
  std::optional<uint64_t> seed;
  uint32_t schedules = 1;    // --schedules
  std::string delays;        // --delays (cd replay)
  uint32_t delay_bound = 2;  // --delay-bound (cd exploration)
  uint32_t pct_depth = 3;    // --pct-depth
  std::optional<uint64_t> pct_horizon;  // --pct-horizon (pct replay)
};

struct ScheduleRun {
  Environment env;    // on top of the app's environment
  std::string label;  // "schedule 3/8 (random, seed 2)"
};

class SchedulePlan {
 public:
  // Checks the combination; an error message (usage) when it does not make sense.
  static std::optional<std::string> Check(const ScheduleRequest& request);

  // Whether the plan needs a scratch file: only a cd/pct exploration's first
  // run records what the others are planned from.
  static bool NeedsScratch(const ScheduleRequest& request) {
    return request.schedules > 1 && (request.policy == "cd" || request.policy == "pct");
  }
  // `scratch` is a file the first run of a cd/pct exploration writes its
  // conflict points and step count to (empty when !NeedsScratch).
  SchedulePlan(ScheduleRequest request, std::string scratch);

  bool exploring() const { return request_.schedules > 1; }
  // The policy a single run reports (for the report's run.schedule) and the
  // options besides --seed/--schedule-policy that replay it.
  std::string SinglePolicy() const;
  std::string SingleArguments() const;

  // The runs known before any ran (one, or all N for random exploration).
  std::vector<ScheduleRun> FirstRuns() const;
  // After the first run of a cd/pct exploration: the rest, from what it
  // recorded, and a note for the report (how the runs were chosen).
  std::vector<ScheduleRun> AfterFirstRun(std::string* note) const;

 private:
  ScheduleRun Run(uint32_t index, std::string policy, uint64_t seed, Environment extra,
                  const std::string& description) const;
  ScheduleRequest request_;
  std::string scratch_;
};

}  // namespace barracuda::cli

#endif  // BARRACUDA_HOST_DETECTOR_CLI_SCHEDULE_PLAN_H_
