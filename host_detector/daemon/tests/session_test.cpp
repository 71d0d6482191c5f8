// AnalysisSession in-process, fed by the emulator's ShmRecordSink (and by a
// raw transport::Producer for malformed streams): races with file:line from
// the site tables, several rings, kernel filters, a producer killed during a
// launch, lost records, several processes on one segment.
#include "host_detector/daemon/session.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <thread>

#include "host_detector/daemon/report_output.h"
#include "host_detector/daemon/tests/racy_stream.h"
#include "host_detector/detector/record_feed.h"
#include "ptx_emulator/runtime/shm_sink.h"

namespace barracuda::daemon {
namespace {

using testing::EmitLaunch;
using testing::EmitModule;
using testing::RacyStream;

constexpr transport::Layout kSmall{.max_processes = 4, .rings_per_process = 4, .ring_capacity = 64,
                                   .channel_bytes = 4096};

struct Fixture {
  std::string name = transport::Segment::UniqueName();
  std::unique_ptr<AnalysisSession> session;
  explicit Fixture(SessionOptions options = {}) {
    absl::StatusOr<transport::Segment> seg = transport::Segment::Create(name, kSmall);
    REQUIRE(seg.ok());
    options.grace = std::chrono::milliseconds(2000);
    session = std::make_unique<AnalysisSession>(std::move(*seg), std::move(options));
  }
  ~Fixture() { (void)transport::Segment::Unlink(name); }
  // A producer process: attaches, sends the racy module, runs emit(sink),
  // detaches and exits 0 (10: it could not attach).
  template <class F>
  pid_t ForkProducer(F&& emit) {
    const pid_t child = fork();
    if (child == 0) {
      auto sink = emu::ShmRecordSink::Attach(name);
      if (!sink.ok()) _exit(10);
      EmitModule(**sink);
      emit(**sink);
      (*sink)->Detach(0);
      _exit(0);
    }
    return child;
  }
  std::unique_ptr<emu::ShmRecordSink> Sink() {
    auto sink = emu::ShmRecordSink::Attach(name);
    REQUIRE(sink.ok());
    return std::move(*sink);
  }
  SessionResult Run(AppEnd end = {AppEnd::How::kExited, 0}) {
    while (session->Poll()) {
    }
    session->Finish(end);
    return session->result();
  }
};

std::set<uint32_t> SitesOf(const detector::RaceEntry& e) { return {e.key.earlier_site, e.key.later_site}; }

TEST_CASE("session: a racy launch is found, with source lines from the site table", "[daemon]") {
  Fixture f;
  {
    auto sink = f.Sink();
    EmitModule(*sink);
    EmitLaunch(*sink, RacyStream{});
    sink->Detach(0);
  }
  SessionResult r = f.Run();
  INFO(MinimalJsonReport(r, {}).dump(2));
  REQUIRE(r.processes.size() == 1);
  const ProcessResult& p = *r.processes[0];
  CHECK(p.pid == static_cast<uint32_t>(getpid()));
  CHECK(p.exited_normally);
  CHECK_FALSE(p.command_line.empty());
  CHECK(p.records_received == 2);
  CHECK(p.records_analysed == 2);
  CHECK(r.errors.empty());
  CHECK(r.complete());
  REQUIRE(r.races() == 1);
  const detector::RaceEntry& e = p.report->entries()[0];
  CHECK(e.key.kind == detector::RaceKind::kReadAfterWrite);
  CHECK(e.first.cls == detector::RaceClass::kInterBlock);
  CHECK(e.key.earlier_site == 0);
  CHECK(e.key.later_site == 1);
  CHECK(e.count == 32);
  nlohmann::json j = MinimalJsonReport(r, {});
  CHECK(j["races"][0]["first"]["location"] == "racy.cu:12");
  CHECK(j["races"][0]["second"]["location"] == "racy.cu:15");
  CHECK(j["races"][0]["kernel"] == "racy(int*)");
  CHECK(j["races"][0]["kind"] == "RAW");
}

TEST_CASE("session: the clean twin has no race", "[daemon]") {
  Fixture f;
  {
    auto sink = f.Sink();
    EmitModule(*sink);
    EmitLaunch(*sink, RacyStream{.racy = false});
  }  // the sink's destructor detaches
  SessionResult r = f.Run();
  CHECK(r.races() == 0);
  CHECK(r.complete());
  CHECK(r.errors.empty());
  REQUIRE(r.processes.size() == 1);
  CHECK(r.processes[0]->records_analysed == 2);
}

TEST_CASE("session: blocks on several rings are analysed in parallel", "[daemon]") {
  Fixture f;
  {
    auto sink = f.Sink();
    EmitModule(*sink);
    for (uint64_t launch = 1; launch <= 3; ++launch) EmitLaunch(*sink, RacyStream{.workers = 2, .launch_id = launch});
    // More workers than rings: rings are shared, records still arrive.
    EmitLaunch(*sink, RacyStream{.workers = 9, .launch_id = 4});
  }
  SessionResult r = f.Run();
  CHECK(r.errors.empty());
  REQUIRE(r.processes.size() == 1);
  CHECK(r.processes[0]->launches.size() == 4);
  CHECK(r.processes[0]->records_analysed == 8);
  // The same site pair in every launch. Which of the two concurrent blocks is
  // analysed first depends on the worker interleaving, so a launch may report
  // it as RAW (0 -> 1) or as WAR (1 -> 0): one or two entries.
  REQUIRE(r.races() >= 1);
  REQUIRE(r.races() <= 2);
  for (const detector::RaceEntry& e : r.processes[0]->report->entries()) {
    CHECK(SitesOf(e) == std::set<uint32_t>{0, 1});
    CHECK(e.first.cls == detector::RaceClass::kInterBlock);
  }
  CHECK(r.dynamic_races() == 4 * 32);
}

TEST_CASE("session: kernel filters skip launches but still drain them", "[daemon]") {
  SessionOptions excl;
  excl.kernel_exclude.emplace("racy");
  SessionOptions incl;
  incl.kernel_include.emplace("^other");
  SessionOptions incl_demangled;
  incl_demangled.kernel_include.emplace("^racy\\(int\\*\\)$");  // demangled names match too
  for (auto* options : {&excl, &incl, &incl_demangled}) {
    Fixture f(*options);
    {
      auto sink = f.Sink();
      EmitModule(*sink);
      EmitLaunch(*sink, RacyStream{});
    }
    SessionResult r = f.Run();
    CHECK(r.errors.empty());
    REQUIRE(r.processes.size() == 1);
    if (options == &incl_demangled) {
      CHECK(r.races() == 1);
      CHECK(r.processes[0]->records_analysed == 2);
    } else {
      CHECK(r.races() == 0);
      CHECK(r.processes[0]->records_skipped == 2);
      CHECK_FALSE(r.processes[0]->launches.begin()->second.analysed);
    }
  }
}

TEST_CASE("session: a producer killed during a launch: what reached the rings is analysed", "[daemon]") {
  Fixture f;
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    auto sink = emu::ShmRecordSink::Attach(f.name);
    if (!sink.ok()) _exit(10);
    EmitModule(**sink);
    EmitLaunch(**sink, RacyStream{.workers = 2, .end_launch = false});
    kill(getpid(), SIGKILL);
    _exit(11);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  SessionResult r = f.Run({AppEnd::How::kSignaled, SIGKILL});
  REQUIRE(r.processes.size() == 1);
  CHECK(r.processes[0]->pid == static_cast<uint32_t>(child));
  CHECK_FALSE(r.processes[0]->exited_normally);
  CHECK(r.races() == 1);
  CHECK_FALSE(r.complete());
  REQUIRE(r.incomplete_reasons.size() == 2);
  CHECK_THAT(r.incomplete_reasons[0], Catch::Contains("ended during launch 1 of racy(int*)"));
  CHECK_THAT(r.incomplete_reasons[1], Catch::Contains("killed by signal 9 (SIGKILL)"));
  CHECK(r.errors.empty());
}

TEST_CASE("session: fewer records than the producer counted is an error", "[daemon]") {
  Fixture f;
  {
    auto producer = transport::Producer::Attach(f.name);
    REQUIRE(producer.ok());
    protocol::Record begin{};
    begin.header.op = static_cast<uint8_t>(protocol::Op::kKernelBegin);
    begin.kernel.grid[0] = begin.kernel.grid[1] = begin.kernel.grid[2] = 1;
    begin.kernel.block[0] = 32, begin.kernel.block[1] = begin.kernel.block[2] = 1;
    begin.kernel.launch_id = 1;
    REQUIRE((*producer)->SendLaunchBegin(begin, 1));
    protocol::Record w{};
    w.header.op = static_cast<uint8_t>(protocol::Op::kWrite);
    w.header.access_size = 4;
    w.header.active_mask = 1;
    w.addr[0] = 0x1000;
    REQUIRE((*producer)->PushRecord(0, w));
    protocol::Record end{};
    end.header.op = static_cast<uint8_t>(protocol::Op::kKernelEnd);
    const uint64_t claimed[] = {2};  // says 2, sent 1
    REQUIRE((*producer)->EndLaunch(end, claimed));
  }
  SessionResult r = f.Run();
  REQUIRE(r.errors.size() == 1);
  CHECK_THAT(r.errors[0], Catch::Contains("2 records produced, 1 received"));
}

TEST_CASE("session: several processes feed one session, races name their process", "[daemon]") {
  Fixture f;
  std::vector<pid_t> children;
  for (int i = 0; i < 2; ++i) {
    const pid_t child = f.ForkProducer([&](emu::RecordSink& sink) {
      EmitLaunch(sink, RacyStream{.workers = 2, .racy = i == 0});
    });
    REQUIRE(child >= 0);
    children.push_back(child);
  }
  for (pid_t c : children) {
    int status = 0;
    REQUIRE(waitpid(c, &status, 0) == c);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  SessionResult r = f.Run();
  CHECK(r.errors.empty());
  CHECK(r.complete());
  REQUIRE(r.processes.size() == 2);
  CHECK(r.races() == 1);
  for (const ProcessResult* p : r.processes) {
    const bool racy_one = p->pid == static_cast<uint32_t>(children[0]);
    CHECK(p->report->size() == (racy_one ? 1u : 0u));
  }
  nlohmann::json j = MinimalJsonReport(r, {});
  CHECK(j["races"][0]["process"] == children[0]);
}

// A launch of `blocks` blocks of one warp that each write and read back their
// own 32 ints (no race): 2 records per block, block b on worker b % 2.
void EmitLongLaunch(emu::RecordSink& sink, uint32_t blocks, uint64_t launch_id, int wait_fd = -1,
                    int ready_fd = -1) {
  protocol::Record begin{};
  begin.header.op = static_cast<uint8_t>(protocol::Op::kKernelBegin);
  begin.header.site_id = protocol::kNoSite;
  begin.kernel.grid[0] = blocks, begin.kernel.grid[1] = 1, begin.kernel.grid[2] = 1;
  begin.kernel.block[0] = 32, begin.kernel.block[1] = 1, begin.kernel.block[2] = 1;
  begin.kernel.launch_id = launch_id;
  begin.kernel.process_id = static_cast<uint32_t>(getpid());
  sink.OnLaunchBegin(begin, 2);
  for (uint32_t b = 0; b < blocks; ++b) {
    for (protocol::Op op : {protocol::Op::kWrite, protocol::Op::kRead}) {
      protocol::Record r{};
      r.header.op = static_cast<uint8_t>(op);
      r.header.access_size = 4;
      r.header.space_scope = protocol::PackSpaceScope(protocol::Space::kGlobal, protocol::Scope::kNone);
      r.header.active_mask = 0xffffffffu;
      r.header.warp_id = b;
      r.header.site_id = op == protocol::Op::kWrite ? 0 : 1;
      for (uint32_t l = 0; l < protocol::kWarpSize; ++l) r.addr[l] = testing::kRacyBase + 128ull * b + 4 * l;
      sink.Emit(b % 2, r);
    }
  }
  if (ready_fd >= 0) (void)!write(ready_fd, "r", 1);
  if (wait_fd >= 0) {
    char c;
    (void)!read(wait_fd, &c, 1);
  }
  protocol::Record end{};
  end.header.op = static_cast<uint8_t>(protocol::Op::kKernelEnd);
  end.header.site_id = protocol::kNoSite;
  end.kernel.launch_id = launch_id;
  sink.OnLaunchEnd(end);
}

bool Exited(pid_t child) {
  int status = 0;
  return waitpid(child, &status, WNOHANG) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST_CASE("session: a long launch is analysed while it arrives, holding a bounded backlog", "[daemon][streaming]") {
  SessionOptions options;
  options.backlog_records = 512;
  Fixture f(options);
  constexpr uint32_t kBlocks = 50000;  // 100000 records, 28 MB, through rings of 64 records
  const pid_t child = f.ForkProducer([&](emu::RecordSink& sink) { EmitLongLaunch(sink, kBlocks, 1); });
  REQUIRE(child >= 0);
  bool exited = false;
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
       !exited && std::chrono::steady_clock::now() < until;) {
    if (!f.session->Poll()) std::this_thread::sleep_for(std::chrono::microseconds(100));
    exited = Exited(child);
  }
  REQUIRE(exited);
  SessionResult r = f.Run();
  CHECK(r.errors.empty());
  CHECK(r.complete());
  CHECK(r.races() == 0);
  REQUIRE(r.processes.size() == 1);
  const ProcessResult& p = *r.processes[0];
  CHECK(p.records_analysed == 2 * kBlocks);
  CHECK(p.stamp_gaps == 0);
  // Per ring: the chunks the backlog spans (512 + one poll batch of 256
  // records: at most 2) plus 2 spare chunks; 2 rings.
  const size_t chunk = detector::RecordFeed::kChunkRecords * sizeof(protocol::Record);
  INFO("peak held " << p.peak_held_bytes << " bytes, launch " << 2 * kBlocks * sizeof(protocol::Record));
  CHECK(p.peak_held_bytes <= 2 * 4 * chunk);
  CHECK(p.peak_held_bytes < 2 * kBlocks * sizeof(protocol::Record) / 3);
  // The backlog itself: at most the limit plus one poll batch (256) per ring.
  CHECK(p.peak_backlog_records <= 2 * (512 + 256));
  // Whether the producer had to wait (held_back, producer_waited_ns) depends
  // on how fast the analysis was on this machine: not checked.
  // -v's phases: the producer's own figures arrived (kProducerStats at detach).
  CHECK(p.producer_launch_ns > 0);
  CHECK(p.producer_waited_ns <= p.producer_launch_ns);  // one emitting thread, waits inside the launch
  CHECK(p.analysis_worker_ns > 0);
  CHECK_THAT(PhaseSummary(p), Catch::Contains("waited") && Catch::Contains("of worker time"));
}

// Waits for a producer while still draining the rings: a producer that needs
// ring room to finish (its launch's end record) would wait for ever on a
// parent blocked in waitpid.
void WaitDraining(Fixture& f, pid_t pid) {
  int status = 0;
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
       waitpid(pid, &status, WNOHANG) != pid;) {
    REQUIRE(std::chrono::steady_clock::now() < until);
    if (!f.session->Poll()) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

TEST_CASE("session: four processes (MPI-style ranks), one in a long launch: the others are drained and analysed",
          "[daemon][streaming]") {
  Fixture f;  // kSmall: 4 processes, rings of 64 records
  int ready[2], go[2];
  REQUIRE(pipe(ready) == 0);
  REQUIRE(pipe(go) == 0);
  const pid_t long_one = f.ForkProducer([&](emu::RecordSink& sink) {
    EmitLongLaunch(sink, 10000, 1, go[0], ready[1]);  // stays in its launch until told
  });
  REQUIRE(long_one >= 0);
  std::vector<pid_t> racy;
  for (int i = 0; i < 3; ++i) {
    racy.push_back(f.ForkProducer([](emu::RecordSink& sink) { EmitLaunch(sink, RacyStream{.workers = 2}); }));
    REQUIRE(racy.back() >= 0);
  }
  fcntl(ready[0], F_SETFL, O_NONBLOCK);
  // All must happen with the long launch still open: its 20000 records went
  // through rings of 64 (so they were drained as they came), and the three
  // other processes' launches were analysed meanwhile.
  bool long_emitted = false;
  size_t racy_analysed = 0;
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
       !(long_emitted && racy_analysed == racy.size()) && std::chrono::steady_clock::now() < until;) {
    if (!f.session->Poll()) std::this_thread::sleep_for(std::chrono::microseconds(100));
    char c;
    long_emitted |= read(ready[0], &c, 1) == 1;
    racy_analysed = 0;
    for (const ProcessResult* p : f.session->result().processes) {
      const bool is_racy = std::find(racy.begin(), racy.end(), static_cast<pid_t>(p->pid)) != racy.end();
      racy_analysed += is_racy && p->launches.size() == 1 && p->report->size() == 1;
    }
  }
  CHECK(long_emitted);
  CHECK(racy_analysed == racy.size());
  REQUIRE(write(go[1], "g", 1) == 1);
  WaitDraining(f, long_one);
  for (pid_t pid : racy) WaitDraining(f, pid);
  SessionResult r = f.Run();
  CHECK(r.errors.empty());
  CHECK(r.complete());
  CHECK(r.races() == racy.size());  // one per racy rank, each naming its process
  REQUIRE(r.processes.size() == 4);
  for (const ProcessResult* p : r.processes)
    CHECK(p->records_analysed == (p->pid == static_cast<uint32_t>(long_one) ? 20000u : 2u));
  for (int fd : {ready[0], ready[1], go[0], go[1]}) close(fd);
}

}  // namespace
}  // namespace barracuda::daemon
