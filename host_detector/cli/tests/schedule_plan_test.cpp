// SchedulePlan: which schedule each run of an exploration uses, and the
// usage errors of the schedule options.
#include "host_detector/cli/schedule_plan.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

namespace barracuda::cli {
namespace {

std::string Env(const ScheduleRun& run, const std::string& name) {
  for (const auto& [k, v] : run.env)
    if (k == name) return v;
  return "<unset>";
}

TEST_CASE("SchedulePlan: random exploration and single runs", "[cli][schedules]") {
  ScheduleRequest r;
  r.schedules = 4;
  SchedulePlan plan(r, "");
  const std::vector<ScheduleRun> runs = plan.FirstRuns();
  REQUIRE(runs.size() == 4);
  CHECK(Env(runs[0], "BARRACUDA_EMU_POLICY") == "round-robin");
  CHECK(Env(runs[3], "BARRACUDA_EMU_POLICY") == "random");
  CHECK(Env(runs[3], "BARRACUDA_EMU_SEED") == "3");
  CHECK(runs[3].label == "schedule 4/4 (random, seed 3)");
  std::string note;
  CHECK(plan.AfterFirstRun(&note).empty());

  r.seed = 10;  // all random, seeds 10..13
  const std::vector<ScheduleRun> seeded = SchedulePlan(r, "").FirstRuns();
  CHECK(Env(seeded[0], "BARRACUDA_EMU_POLICY") == "random");
  CHECK(Env(seeded[0], "BARRACUDA_EMU_SEED") == "10");

  ScheduleRequest one;
  one.delays = "1:2:3";
  SchedulePlan replay(one, "");
  CHECK(replay.SinglePolicy() == "cd");
  CHECK(replay.SingleArguments() == "--delays 1:2:3");
  REQUIRE(replay.FirstRuns().size() == 1);
  CHECK(Env(replay.FirstRuns()[0], "BARRACUDA_EMU_DELAYS") == "1:2:3");
  CHECK(Env(SchedulePlan(ScheduleRequest{}, "").FirstRuns()[0], "BARRACUDA_EMU_POLICY") == "<unset>");
}

TEST_CASE("SchedulePlan: cd delays every set of at most K conflict points, smallest first", "[cli][schedules]") {
  const std::string scratch = "/tmp/barracuda_schedule_plan_" + std::to_string(getpid());
  {
    std::ofstream out(scratch);
    out << "conflict 1 0 7\nconflict 1 1 7\nconflict 1 0 7\nsteps 12\nconflict 2 3 9\nsteps 20\n";
  }
  ScheduleRequest r;
  r.schedules = 8;
  r.policy = "cd";
  r.delay_bound = 2;
  SchedulePlan plan(r, scratch);
  const std::vector<ScheduleRun> first = plan.FirstRuns();
  REQUIRE(first.size() == 1);
  CHECK(Env(first[0], "BARRACUDA_EMU_CONFLICTS_OUT") == scratch);
  std::string note;
  const std::vector<ScheduleRun> rest = plan.AfterFirstRun(&note);
  // 3 distinct points: 3 singles and 3 pairs = 6 schedules (fewer than the 7 allowed).
  REQUIRE(rest.size() == 6);
  CHECK(Env(rest[0], "BARRACUDA_EMU_DELAYS") == "1:0:7");
  CHECK(Env(rest[2], "BARRACUDA_EMU_DELAYS") == "2:3:9");
  CHECK(Env(rest[3], "BARRACUDA_EMU_DELAYS") == "1:0:7,1:1:7");
  CHECK(Env(rest[5], "BARRACUDA_EMU_DELAYS") == "1:1:7,2:3:9");
  CHECK(rest[5].label == "schedule 7/8 (cd, --delays 1:1:7,2:3:9)");
  CHECK_THAT(note, Catch::Contains("3 conflict points"));

  r.policy = "pct";
  r.pct_depth = 4;
  const std::vector<ScheduleRun> pct = SchedulePlan(r, scratch).AfterFirstRun(&note);
  REQUIRE(pct.size() == 7);
  CHECK(Env(pct[0], "BARRACUDA_EMU_PCT_HORIZON") == "20");  // the last launch's running count
  CHECK(Env(pct[0], "BARRACUDA_EMU_PCT_DEPTH") == "4");
  CHECK(Env(pct[6], "BARRACUDA_EMU_SEED") == "7");
  std::remove(scratch.c_str());
}

TEST_CASE("SchedulePlan: usage errors", "[cli][schedules]") {
  auto check = [](ScheduleRequest r) { return SchedulePlan::Check(r).value_or(""); };
  ScheduleRequest r;
  CHECK(check(r).empty());
  r.schedules = 3;
  r.policy = "round-robin";
  CHECK_THAT(check(r), Catch::Contains("round-robin is one schedule"));
  r = {};
  r.delays = "1:2";
  CHECK_THAT(check(r), Catch::Contains("LAUNCH:BLOCK:SITE"));
  r.delays = "1:2:3";
  r.policy = "random";
  CHECK_THAT(check(r), Catch::Contains("goes with --schedule-policy cd"));
  r.policy = "cd";
  r.schedules = 4;
  CHECK_THAT(check(r), Catch::Contains("replays one cd schedule"));
  r = {};
  r.policy = "cd";
  CHECK_THAT(check(r), Catch::Contains("needs --schedules N"));
  r = {};
  r.pct_horizon = 5;
  CHECK_THAT(check(r), Catch::Contains("--pct-horizon goes with"));
}

}  // namespace
}  // namespace barracuda::cli
