// logger_equivalence_suite --manifest M [--group G] [--filter SUBSTR] [--timeout S]
//
// Stage-3 equivalence check over the concurrency bug suite: for every
// test_suite/programs PTX file of the corpus manifest (corpus_generate.py;
// default group sm75-lineinfo), every kernel is launched on the emulator with
// synthetic arguments (a zeroed 1 MiB buffer per 8-byte parameter, 64 for
// 4-byte ones, zeros otherwise; 2 blocks of 64 threads or the kernel's
// .reqntid; 4 KiB of dynamic shared memory) twice: as is with the emulator's
// tracing, and instrumented with the device logger merged; the queues must
// hold the same records per warp (logger_equivalence.h). Each program runs in
// a child process with a time limit. A warp whose record counts differ but
// whose sets of distinct records agree passes (spin-waits iterate as often as
// the timing makes them, and the instrumented kernel runs slower); a kernel
// whose per-warp streams differ but whose kernel-level multiset with warp ids
// erased agrees passes too (which warp does what depends on the schedule,
// e.g. the last warp to bump a counter). The output says which rule applied.
//
// A kernel whose *original* run fails (fault, deadlock, unsupported: the
// synthetic arguments are not the program's) is skipped and counted; a
// failure of the instrumented run when the original ran is a failure.
// Exit status: 0 all compared equal (known gaps aside), 1 some mismatch or failure, 2 usage.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "device_logger/tests/logger_equivalence.h"

namespace barracuda::logger_test {
namespace {

constexpr int kEqual = 0, kMismatch = 1, kSkipped = 3, kError = 4;

// Known gaps (issue 7, open; device_logger/README.md): a listed program that
// mismatches is reported as a known gap and does not fail the run; one that
// compares equal is reported so the entry can go.
struct KnownGap {
  const char* program;
  const char* why;
};
// Dynamic parallelism only (since the one-block-at-a-time retry made the
// last-block reductions comparable and the logger's kFi fix): each run hands
// out fresh parameter buffers (core/device_launches.h; freed ones are
// quarantined by memcheck), so the parent's stores into them differ in
// address between the two runs, and nothing else does.
constexpr KnownGap kKnownGaps[] = {
    {"dynamic_parallelism/child_grid_tile_sum_ok.cu", "device-side launch parameter buffers differ per run"},
    {"dynamic_parallelism/child_grid_tile_sum_racy.cu", "device-side launch parameter buffers differ per run"},
};
// Not compared at all: lanes of one warp spin on one lock, so which lanes
// retry together (each retry's active mask, the divergence records) depends on
// how many instructions an iteration takes, which the logger changes; neither
// the per-warp sets nor the one-block-at-a-time rerun can agree. Running them
// cost ~25 s each (before the instrumented run's queues were drained during
// the launch, they stopped at the 60 s time limit). On the GPU path the suite's
// gpu-backend test checks warp_lock_fenced_ok's verdict (and skips the racy
// twin, test_suite/programs/verdicts.cmake).
constexpr KnownGap kNotComparable[] = {
    {"locks/warp_lock_fenced_ok.cu", "lanes of one warp spin on one lock: retry masks depend on the schedule"},
    {"locks/warp_lock_no_acquire_fence_racy.cu", "lanes of one warp spin on one lock: retry masks depend on the schedule"},
};

template <size_t N>
const KnownGap* FindIn(const KnownGap (&list)[N], const std::string& source) {
  for (const KnownGap& g : list) {
    const std::string p = g.program;
    if (source.size() >= p.size() && source.compare(source.size() - p.size(), p.size(), p) == 0) return &g;
  }
  return nullptr;
}
const KnownGap* FindKnownGap(const std::string& source) { return FindIn(kKnownGaps, source); }

uint64_t ParamBytes(const ptx::VarDecl& p) {
  uint64_t n = ptx::TypeSize(p.type);
  if (p.vector_width > 1) n *= p.vector_width;
  for (uint64_t d : p.declarators.front().dims) n *= d == ptx::Declarator::kUnsizedDim ? 1 : d;
  return n;
}

LaunchSpec SyntheticLaunch(const ptx::Function& f) {
  LaunchSpec l;
  l.kernel = f.name;
  l.grid = {2, 1, 1};
  l.block = {64, 1, 1};
  l.dynamic_shared = 4096;
  for (const ptx::PerformanceDirective& d : f.directives) {
    if (d.name == ".reqntid" || d.name == ".maxntid") {
      emu::Dim3 b{1, 1, 1};
      if (!d.values.empty()) b.x = static_cast<uint32_t>(d.values[0]);
      if (d.values.size() > 1) b.y = static_cast<uint32_t>(d.values[1]);
      if (d.values.size() > 2) b.z = static_cast<uint32_t>(d.values[2]);
      if (d.name == ".reqntid" || b.count() < 64) l.block = b;
    }
    if (d.name == ".reqnctapercluster" && !d.values.empty()) l.grid.x = static_cast<uint32_t>(d.values[0]);
  }
  std::vector<uint64_t> sizes;
  for (const ptx::VarDecl& p : f.params) sizes.push_back(ParamBytes(p));
  l.args = [sizes](emu::Device& device, std::vector<std::shared_ptr<void>>& storage, std::vector<Region>& regions) {
    std::vector<void*> args;
    for (uint64_t size : sizes) {
      auto bytes = std::make_shared<std::vector<uint8_t>>(std::max<uint64_t>(size, 8), 0);
      if (size == 8) {
        constexpr uint64_t kBuffer = 1 << 20;
        auto mem = device.memory().Allocate(kBuffer, emu::DeviceMemory::Kind::kDevice);
        if (!mem.ok()) throw std::runtime_error(std::string(mem.status().message()));
        std::memset(*mem, 0, kBuffer);
        regions.push_back(Region{reinterpret_cast<uintptr_t>(*mem), kBuffer});
        const uint64_t address = reinterpret_cast<uintptr_t>(*mem);
        std::memcpy(bytes->data(), &address, 8);
      } else if (size == 4) {
        const uint32_t v = 64;
        std::memcpy(bytes->data(), &v, 4);
      } else if (size == 2 || size == 1) {
        bytes->at(0) = 1;
      }
      args.push_back(bytes->data());
      storage.push_back(bytes);
    }
    return args;
  };
  return l;
}

// Child process: compares every kernel of one file; prints the differences.
int CheckFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto module = ptx::ParseModule(text.str(), path);
  if (!module.ok()) {
    std::cout << "  parse: " << module.status().message() << "\n";
    return kError;
  }
  int result = kSkipped;
  for (const ptx::Function* f : std::as_const(*module).Functions()) {
    if (!f->is_entry || !f->has_body) continue;
    const Outcome o = RunBoth(text.str(), {SyntheticLaunch(*f)});
    if (!o.error.empty()) {
      const bool original = o.error.rfind("original", 0) == 0;
      std::cout << "  " << f->name << ": " << (original ? "skipped: " : "ERROR: ") << o.error << "\n";
      if (!original) return kError;
      continue;
    }
    int set_only = 0;
    const std::string diff = Compare(o.emulator, o.logger, /*as_sets=*/true, &set_only);
    if (!diff.empty()) {
      uint32_t exited_e = 0, exited_l = 0;
      if (WarpAgnostic(o.emulator, &exited_e) == WarpAgnostic(o.logger, &exited_l) && exited_e == exited_l) {
        std::cout << "  " << f->name << ": equal ignoring warp ids (schedule-dependent per-warp behaviour; "
                  << o.emulator_records << " records)\n";
        if (result == kSkipped) result = kEqual;
        continue;
      }
      // Which block does what may depend on how blocks interleave (the last
      // block to draw a ticket reduces), and the instrumented kernel runs
      // longer per block. Run both one block at a time, in block order, so
      // the schedule no longer depends on instruction counts. (A kernel whose
      // blocks wait for later blocks would hang here; the time limit of the
      // child catches it.)
      emu::ScheduleOptions serial;
      serial.workers = 1;
      serial.max_resident_blocks_per_worker = 1;
      const Outcome s = RunBoth(text.str(), {SyntheticLaunch(*f)}, 3, 1u << 16, &serial);
      if (s.error.empty() && Compare(s.emulator, s.logger, /*as_sets=*/true).empty()) {
        std::cout << "  " << f->name << ": equal when blocks run one at a time (schedule-dependent; "
                  << s.emulator_records << " records)\n";
        if (result == kSkipped) result = kEqual;
        continue;
      }
      std::cout << "  " << f->name << ": MISMATCH (" << o.emulator_records << " emulator records, "
                << o.logger_records << " logger records)\n" << diff;
      return kMismatch;
    }
    std::cout << "  " << f->name << ": equal (" << o.emulator_records << " records"
              << (set_only ? ", " + std::to_string(set_only) + " warps as sets: spin loops" : std::string()) << ")\n";
    result = kEqual;
  }
  return result;
}

}  // namespace
}  // namespace barracuda::logger_test

int main(int argc, char** argv) {
  using namespace barracuda::logger_test;
  std::string manifest_path, group = "sm75-lineinfo", filter;
  int timeout_s = 60;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--manifest" && i + 1 < argc) manifest_path = argv[++i];
    else if (a == "--group" && i + 1 < argc) group = argv[++i];
    else if (a == "--filter" && i + 1 < argc) filter = argv[++i];
    else if (a == "--timeout" && i + 1 < argc) timeout_s = std::atoi(argv[++i]);
    else {
      std::cerr << "usage: logger_equivalence_suite --manifest M [--group G] [--filter S] [--timeout S]\n";
      return 2;
    }
  }
  if (manifest_path.empty()) {
    std::cerr << "logger_equivalence_suite: --manifest is required\n";
    return 2;
  }
  nlohmann::json manifest;
  try {
    std::ifstream in(manifest_path);
    manifest = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    std::cerr << "logger_equivalence_suite: cannot read " << manifest_path << ": " << e.what() << "\n";
    return 2;
  }
  int equal = 0, skipped = 0, failed = 0, known = 0;
  std::vector<std::string> failures;
  for (const auto& e : manifest["ptx"]) {
    const std::string source = e.value("source", "");
    if (e.value("group", "") != group || source.rfind("test_suite/programs/", 0) != 0) continue;
    if (!filter.empty() && source.find(filter) == std::string::npos) continue;
    const std::string path = e.value("output", "");
    std::cout << source << "\n" << std::flush;
    if (const KnownGap* not_comparable = FindIn(kNotComparable, source)) {
      std::cout << "  skipped: not comparable (" << not_comparable->why << ")\n";
      ++skipped;
      continue;
    }
    const pid_t child = fork();
    if (child == 0) {
      const int rc = CheckFile(path);
      std::cout.flush();
      _exit(rc);
    }
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    bool timed_out = false;
    while (waitpid(child, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
        timed_out = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const int rc = timed_out ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : -2;
    const KnownGap* gap = FindKnownGap(source);
    if (rc == kEqual) {
      ++equal;
      if (gap != nullptr) std::cout << "  equal although listed as a known gap (" << gap->why << ")\n";
    } else if (gap != nullptr && rc != kSkipped && !timed_out) {
      ++known;
      std::cout << "  known gap: " << gap->why << "\n";
    } else if (rc == kSkipped || timed_out) {
      // A spin-wait on synthetic arguments can run forever in both runs.
      if (timed_out) std::cout << "  skipped: time limit of " << timeout_s << " s\n";
      ++skipped;
    } else {
      ++failed;
      failures.push_back(source);
    }
  }
  std::cout << "equal: " << equal << ", skipped (original run failed or timed out): " << skipped
            << ", known gaps: " << known << ", failed: " << failed << "\n";
  for (const std::string& f : failures) std::cout << "FAILED: " << f << "\n";
  return failed == 0 && equal > 0 ? 0 : 1;
}
