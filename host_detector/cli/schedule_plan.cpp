#include "host_detector/cli/schedule_plan.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

namespace barracuda::cli {
namespace {

constexpr const char* kPolicyEnv = "BARRACUDA_EMU_POLICY";
constexpr const char* kSeedEnv = "BARRACUDA_EMU_SEED";

// Subsets of {0..n-1} of size 1..bound, smallest first, then lexicographic;
// at most `limit`.
std::vector<std::vector<size_t>> DelaySets(size_t n, uint32_t bound, size_t limit) {
  std::vector<std::vector<size_t>> out;
  for (size_t k = 1; k <= std::min<size_t>(bound, n) && out.size() < limit; ++k) {
    std::vector<size_t> idx(k);
    for (size_t i = 0; i < k; ++i) idx[i] = i;
    while (out.size() < limit) {
      out.push_back(idx);
      size_t i = k;
      while (i > 0 && idx[i - 1] == n - k + (i - 1)) --i;
      if (i == 0) break;
      ++idx[i - 1];
      for (size_t j = i; j < k; ++j) idx[j] = idx[j - 1] + 1;
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> SchedulePlan::Check(const ScheduleRequest& r) {
  if (r.schedules > 1 && r.policy == "round-robin")
    return "--schedules: round-robin is one schedule; use --schedule-policy random, cd or pct, or leave it out "
           "(schedule 1 is then round-robin, the others random)";
  if (!r.delays.empty()) {
    if (!r.policy.empty() && r.policy != "cd") return "--delays goes with --schedule-policy cd";
    if (r.schedules > 1) return "--delays replays one cd schedule; --schedules explores them (leave --delays out)";
    static const std::regex kList(R"(\d+:\d+:\d+(,\d+:\d+:\d+)*)");
    if (!std::regex_match(r.delays, kList))
      return "--delays " + r.delays + ": expected LAUNCH:BLOCK:SITE[,LAUNCH:BLOCK:SITE...] (as a report names them)";
  }
  if (r.policy == "cd" && r.schedules <= 1 && r.delays.empty())
    return "--schedule-policy cd needs --schedules N (explore) or --delays LIST (replay one schedule)";
  if (r.pct_horizon && r.policy != "pct") return "--pct-horizon goes with --schedule-policy pct";
  return std::nullopt;
}

SchedulePlan::SchedulePlan(ScheduleRequest request, std::string scratch)
    : request_(std::move(request)), scratch_(std::move(scratch)) {}

std::string SchedulePlan::SinglePolicy() const {
  if (!request_.delays.empty()) return "cd";
  if (!request_.policy.empty()) return request_.policy;
  return request_.seed ? "random" : "round-robin";
}

std::string SchedulePlan::SingleArguments() const {
  const std::string policy = SinglePolicy();
  if (policy == "cd") return "--delays " + request_.delays;
  if (policy == "pct")
    return "--pct-depth " + std::to_string(request_.pct_depth) +
           (request_.pct_horizon ? " --pct-horizon " + std::to_string(*request_.pct_horizon) : std::string());
  return "";
}

ScheduleRun SchedulePlan::Run(uint32_t index, std::string policy, uint64_t seed, Environment extra,
                              const std::string& description) const {
  ScheduleRun run;
  run.env = {{kPolicyEnv, policy}, {kSeedEnv, std::to_string(seed)}};
  run.env.insert(run.env.end(), extra.begin(), extra.end());
  run.label = "schedule " + std::to_string(index + 1) + "/" + std::to_string(request_.schedules) + " (" +
              description + ")";
  return run;
}

std::vector<ScheduleRun> SchedulePlan::FirstRuns() const {
  if (!exploring()) {
    ScheduleRun run;
    const std::string policy = SinglePolicy();
    if (!request_.policy.empty() || request_.seed || policy != "round-robin") run.env.emplace_back(kPolicyEnv, policy);
    if (request_.seed) run.env.emplace_back(kSeedEnv, std::to_string(*request_.seed));
    if (policy == "cd") run.env.emplace_back("BARRACUDA_EMU_DELAYS", request_.delays);
    if (policy == "pct") {
      run.env.emplace_back("BARRACUDA_EMU_PCT_DEPTH", std::to_string(request_.pct_depth));
      if (request_.pct_horizon) run.env.emplace_back("BARRACUDA_EMU_PCT_HORIZON", std::to_string(*request_.pct_horizon));
    }
    return {run};
  }
  if (request_.policy == "cd" || request_.policy == "pct") {
    // The first run is the default schedule; it records what the others are planned from.
    return {Run(0, "round-robin", 0, {{"BARRACUDA_EMU_CONFLICTS_OUT", scratch_}},
                request_.policy == "cd" ? "round-robin, recording conflict points" : "round-robin, counting steps")};
  }
  std::vector<ScheduleRun> runs;
  const bool all_random = request_.seed || request_.policy == "random";
  for (uint32_t i = 0; i < request_.schedules; ++i) {
    const std::string policy = !all_random && i == 0 ? "round-robin" : "random";
    const uint64_t seed = all_random ? request_.seed.value_or(0) + i : i;
    runs.push_back(Run(i, policy, seed, {}, policy == "random" ? "random, seed " + std::to_string(seed) : policy));
  }
  return runs;
}

std::vector<ScheduleRun> SchedulePlan::AfterFirstRun(std::string* note) const {
  if (!exploring() || (request_.policy != "cd" && request_.policy != "pct")) return {};
  // What the first run recorded: "conflict LAUNCH BLOCK SITE" per point (in the
  // order met) and "steps N" at each launch's end.
  std::vector<std::string> points;
  uint64_t steps = 0;
  std::ifstream in(scratch_);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string what;
    words >> what;
    if (what == "conflict") {
      uint64_t launch = 0, block = 0, site = 0;
      if (!(words >> launch >> block >> site)) continue;
      const std::string point = std::to_string(launch) + ":" + std::to_string(block) + ":" + std::to_string(site);
      if (std::find(points.begin(), points.end(), point) == points.end()) points.push_back(point);
    } else if (what == "steps") {
      words >> steps;
    }
  }
  std::vector<ScheduleRun> runs;
  const size_t limit = request_.schedules - 1;
  if (request_.policy == "cd") {
    const std::vector<std::vector<size_t>> sets = DelaySets(points.size(), request_.delay_bound, limit);
    for (size_t r = 0; r < sets.size(); ++r) {
      std::string delays;
      for (size_t i : sets[r]) delays += (delays.empty() ? "" : ",") + points[i];
      runs.push_back(Run(static_cast<uint32_t>(r + 1), "cd", 0, {{"BARRACUDA_EMU_DELAYS", delays}},
                         "cd, --delays " + delays));
    }
    *note = "schedule exploration (cd): schedule 1 met " + std::to_string(points.size()) +
            " conflict point" + (points.size() == 1 ? "" : "s") +
            " (cross-block operations of different blocks on one address, one of them a write); " +
            std::to_string(runs.size()) + " schedule" + (runs.size() == 1 ? "" : "s") +
            " delayed sets of at most " + std::to_string(request_.delay_bound) + " of them" +
            (points.empty() ? ": no other interleaving of cross-block operations to try" : "");
  } else {
    for (uint32_t i = 1; i < request_.schedules; ++i) {
      const uint64_t seed = request_.seed.value_or(1) + i - 1;
      runs.push_back(Run(i, "pct", seed,
                         {{"BARRACUDA_EMU_PCT_DEPTH", std::to_string(request_.pct_depth)},
                          {"BARRACUDA_EMU_PCT_HORIZON", std::to_string(steps)}},
                         "pct, seed " + std::to_string(seed)));
    }
    *note = "schedule exploration (pct): depth " + std::to_string(request_.pct_depth) + ", horizon " +
            std::to_string(steps) + " serial steps (counted in schedule 1)";
  }
  return runs;
}

}  // namespace barracuda::cli
