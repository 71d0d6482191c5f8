// The parallel engine (AnalyzeLaunchParallel) against the single total order:
// random executions split into rings by block group and drained in >= 200
// adversarial interleavings (deterministic RingSchedule), plus real TBB
// workers, plus streaming (StreamingLaunch): records appended in random
// pieces, rings in random order, while the pool's workers analyse them. Verdicts must be identical: the set of racy byte locations and the
// de-duplicated race set.
//
// Which of two concurrent accesses is "earlier" depends on the order they are
// analysed in, so a race found as (a then b, RAW) in one order is (b then a,
// WAR) in another: the race set is compared with each pair of sites unordered
// and RAW/WAR as one kind. The executions are built so that every location is
// accessed either from one block only (same ring, fixed order), under a lock or
// message passing (stamp order), or exactly twice (a deliberately racy pair): on
// such executions the race set does not depend on the interleaving at all.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "host_detector/detector/streaming_analysis.h"
#include "host_detector/detector/tests/trace_builder.h"

namespace barracuda::detector::testing {
namespace {

struct Execution {
  std::vector<Record> records;  // one launch, total order (kKernelBegin first, kKernelEnd last)
};

Execution Generate(uint64_t seed, uint32_t blocks, WarpModel model) {
  std::mt19937_64 rng(seed);
  const uint32_t kThreads = 64, kWarps = 2;
  const uint64_t kLock = 0x900000, kLockData = 0x800000;
  TraceBuilder t;
  t.Begin(blocks, kThreads, 256);
  std::vector<int> flag_sender(16, -1);
  std::vector<bool> flag_received(16, false);
  std::vector<int> racy_count(24, 0);
  const uint32_t steps = 150 + static_cast<uint32_t>(rng() % 150);
  auto rnd = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  auto mask = [&]() { return static_cast<uint32_t>(rng()) | 1u; };
  for (uint32_t s = 0; s < steps; ++s) {
    const uint32_t w = rnd(blocks * kWarps);
    const uint32_t b = w / kWarps;
    const uint64_t priv = 0x100000 + 0x1000 * b;
    switch (rnd(9)) {
      case 0:
      case 1: {  // block-private global words
        const uint32_t off = rnd(16);
        const Op op = rnd(2) ? Op::kRead : (rnd(4) ? Op::kWrite : Op::kAtomic);
        t.Mem(op, w, mask(), [&](unsigned l) { return priv + 4 * ((l + off) % 24); }, 10 + static_cast<uint32_t>(op) + 3 * rnd(2));
        break;
      }
      case 2: {  // shared memory of the block
        const uint32_t off = rnd(16);
        t.Mem(rnd(2) ? Op::kRead : Op::kWrite, w, mask(),
              [&](unsigned l) { return protocol::SharedAddress(b, 4 * ((l + off) % 40)); }, 20 + rnd(3), 4,
              Space::kShared);
        break;
      }
      case 3: {  // critical section under a gpu-scope lock
        t.Sync(Op::kAcquire, Scope::kGpu, w, 1, Same(kLock), protocol::kFlagLoad | protocol::kFlagStore);
        t.Read(w, 1, Same(kLockData + 4 * rnd(4)), 30).Write(w, 1, Same(kLockData + 4 * rnd(4)), 31);
        t.Sync(Op::kRelease, Scope::kGpu, w, 1, Same(kLock), rnd(2) ? protocol::kFlagStore
                                                                  : protocol::kFlagLoad | protocol::kFlagStore);
        break;
      }
      case 4: {  // message passing: data then flag (release), or flag (acquire) then data
        const uint32_t i = rnd(16);
        if (flag_sender[i] < 0) {
          t.Write(w, 1, Same(0x920000 + 64 * i), 40);
          t.Sync(Op::kRelease, rnd(2) ? Scope::kGpu : Scope::kSys, w, 1, Same(0x910000 + 8 * i), protocol::kFlagStore);
          flag_sender[i] = static_cast<int>(b);
        } else if (!flag_received[i] && flag_sender[i] != static_cast<int>(b)) {
          t.Sync(Op::kAcquire, rnd(2) ? Scope::kGpu : Scope::kCta, w, 1, Same(0x910000 + 8 * i), protocol::kFlagLoad);
          t.Read(w, 1, Same(0x920000 + 64 * i), 41);
          flag_received[i] = true;
        }
        break;
      }
      case 5: {  // a location accessed exactly twice, from anywhere
        const uint32_t i = rnd(24);
        if (racy_count[i] >= 2) break;
        const Op op = racy_count[i] == 0 ? (rnd(3) ? Op::kWrite : Op::kAtomic)
                                         : (rnd(2) ? Op::kRead : (rnd(2) ? Op::kWrite : Op::kAtomic));
        t.Mem(op, w, 1u << rnd(32), Same(0xA00000 + 16 * i), 100 + 2 * i + racy_count[i]);
        racy_count[i]++;
        break;
      }
      case 6:  // whole-block barrier
        t.BlockBar(b, kWarps);
        break;
      case 7:  // a branch over private data
        t.If(w, 0xffffffffu, mask());
        t.Write(w, mask(), [&](unsigned l) { return priv + 0x400 + 4 * l; }, 50).Else(w);
        t.Read(w, mask(), [&](unsigned l) { return priv + 0x400 + 4 * ((l + 1) % 32); }, 51).Fi(w);
        break;
      default:
        if (model == WarpModel::kIts) {
          t.WarpSync(w, mask());
        } else {
          t.Write(w, mask(), [&](unsigned l) { return priv + 0x800 + 4 * l; }, 60);
        }
        break;
    }
  }
  t.End();
  return Execution{t.records()};
}

using NormalKey = std::tuple<uint32_t, uint32_t, int>;
struct Verdict {
  std::set<std::pair<int, uint64_t>> racy_bytes;
  std::set<NormalKey> races;
  bool operator==(const Verdict&) const = default;
};

NormalKey Normalize(const RaceKey& k) {
  int kind = static_cast<int>(k.kind);
  if (k.kind == RaceKind::kWriteAfterRead) kind = static_cast<int>(RaceKind::kReadAfterWrite);
  return {std::min(k.earlier_site, k.later_site), std::max(k.earlier_site, k.later_site), kind};
}

Verdict Collect(Detector& d, const std::vector<RaceEvent>& events) {
  Verdict v;
  for (const RaceEvent& e : events) v.racy_bytes.insert({static_cast<int>(e.space), e.address});
  for (const RaceEntry& e : d.Report().entries()) v.races.insert(Normalize(e.key));
  return v;
}

Verdict TotalOrder(const Execution& x, WarpModel model) {
  DetectorOptions o;
  o.warp_model = model;
  Detector d(o);
  std::vector<RaceEvent> events;
  d.SetRaceListener([&](const RaceEvent& e) { events.push_back(e); });
  for (const Record& r : x.records) d.Process(r);
  REQUIRE(d.status().ok());
  return Collect(d, events);
}

class RandomSchedule final : public RingSchedule {
 public:
  explicit RandomSchedule(uint64_t seed) : rng_(seed) {}
  size_t PickRing(std::span<const uint32_t> runnable) override {
    // Adversarial: prefer the highest-numbered ring for long stretches.
    if (rng_() % 4 == 0) return runnable.back();
    return runnable[rng_() % runnable.size()];
  }
  size_t Burst() override { return rng_() % 3 == 0 ? 1 + rng_() % 64 : 1 + rng_() % 3; }

 private:
  std::mt19937_64 rng_;
};

Verdict Rings(const Execution& x, WarpModel model, uint32_t nrings, RingSchedule* schedule,
              unsigned workers = 1) {
  DetectorOptions o;
  o.warp_model = model;
  Detector d(o);
  std::vector<RaceEvent> events;
  d.SetRaceListener([&](const RaceEvent& e) { events.push_back(e); });
  const uint32_t wpb = 2;
  std::vector<std::vector<Record>> ring(nrings);
  std::vector<std::vector<uint64_t>> index(nrings);
  for (size_t i = 1; i + 1 < x.records.size(); ++i) {
    const uint32_t block = x.records[i].header.warp_id / wpb;
    ring[block % nrings].push_back(x.records[i]);
    index[block % nrings].push_back(i);
  }
  std::vector<RingInput> inputs(nrings);
  for (uint32_t k = 0; k < nrings; ++k) inputs[k] = RingInput{ring[k], index[k]};
  ParallelOptions p;
  p.schedule = schedule;
  p.workers = workers;
  p.burst = 8;
  REQUIRE(AnalyzeLaunchParallel(d, x.records.front(), inputs, p).ok());
  REQUIRE(d.status().ok());
  return Collect(d, events);
}

TEST_CASE("adversarial ring interleavings give the total order's verdicts", "[parallel]") {
  uint64_t interleavings = 0;
  size_t executions_with_races = 0;
  for (WarpModel model : {WarpModel::kIts, WarpModel::kLockstep}) {
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      const Execution x = Generate(seed * 7919 + static_cast<int>(model), 6, model);
      const Verdict expected = TotalOrder(x, model);
      executions_with_races += !expected.races.empty();
      for (uint64_t k = 0; k < 20; ++k, ++interleavings) {
        RandomSchedule schedule(seed * 1000 + k);
        const uint32_t nrings = 2 + static_cast<uint32_t>(k % 3);
        const Verdict got = Rings(x, model, nrings, &schedule);
        INFO("model " << static_cast<int>(model) << " seed " << seed << " interleaving " << k);
        for (const NormalKey& key : expected.races) {
          if (!got.races.count(key)) UNSCOPED_INFO("missing " << std::get<0>(key) << "," << std::get<1>(key) << "," << std::get<2>(key));
        }
        for (const NormalKey& key : got.races) {
          if (!expected.races.count(key)) UNSCOPED_INFO("extra " << std::get<0>(key) << "," << std::get<1>(key) << "," << std::get<2>(key));
        }
        REQUIRE(got.racy_bytes == expected.racy_bytes);
        REQUIRE(got.races == expected.races);
      }
    }
  }
  CHECK(interleavings >= 200);
  CHECK(executions_with_races >= 6);  // the executions are not trivially race-free
}

TEST_CASE("concurrent TBB workers give the total order's verdicts", "[parallel]") {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const Execution x = Generate(seed * 31, 8, WarpModel::kIts);
    const Verdict expected = TotalOrder(x, WarpModel::kIts);
    for (int rep = 0; rep < 5; ++rep) {
      const Verdict got = Rings(x, WarpModel::kIts, 4, nullptr, 2);
      REQUIRE(got.racy_bytes == expected.racy_bytes);
      REQUIRE(got.races == expected.races);
    }
  }
}

std::mutex g_collect_mu;

// Splits a launch into rings by block group (the producers' contract).
std::vector<std::vector<Record>> SplitRings(const Execution& x, uint32_t nrings) {
  std::vector<std::vector<Record>> ring(nrings);
  for (size_t i = 1; i + 1 < x.records.size(); ++i) ring[x.records[i].header.warp_id / 2 % nrings].push_back(x.records[i]);
  return ring;
}

// Streams the rings of `x` into a StreamingLaunch in random pieces (random
// ring, random length, now and then a pause), as the daemon would. No Catch
// assertions inside: several threads run it at once.
struct StreamedRun {
  Verdict verdict;
  uint64_t gaps = 0;
  bool ok = false;  // began, no malformed record, every record counted
};
StreamedRun StreamedOnce(const Execution& x, WarpModel model, uint32_t nrings, AnalysisPool& pool, uint64_t seed) {
  DetectorOptions o;
  o.warp_model = model;
  Detector d(o);
  std::vector<RaceEvent> events;
  d.SetRaceListener([&](const RaceEvent& e) { events.push_back(e); });
  const std::vector<std::vector<Record>> ring = SplitRings(x, nrings);
  auto launch = StreamingLaunch::Begin(d, pool, x.records.front(), nrings);
  StreamedRun run;
  if (!launch.ok()) return run;
  std::mt19937_64 rng(seed);
  std::vector<size_t> pos(nrings, 0);
  uint32_t left = nrings;
  for (uint32_t k = 0; k < nrings; ++k)
    if (ring[k].empty()) (*launch)->EndRing(k), --left;
  while (left > 0) {
    const uint32_t k = static_cast<uint32_t>(rng() % nrings);
    if (pos[k] == ring[k].size()) continue;
    const size_t n = std::min<size_t>(ring[k].size() - pos[k], 1 + rng() % (rng() % 4 == 0 ? 64 : 4));
    (*launch)->Append(k, std::span<const Record>(ring[k]).subspan(pos[k], n));
    pos[k] += n;
    if (pos[k] == ring[k].size()) {
      (*launch)->EndRing(k);
      --left;
    }
    if (rng() % 16 == 0) std::this_thread::sleep_for(std::chrono::microseconds(rng() % 200));
  }
  while (!(*launch)->Analysed()) std::this_thread::yield();
  (*launch)->Finish();
  run.gaps = (*launch)->gaps();
  // Every record but kKernelEnd (Finish ends the launch) was analysed.
  run.ok = d.status().ok() && d.Stats().records == x.records.size() - 1;
  std::lock_guard<std::mutex> lock(g_collect_mu);  // Report() entries are read after the launch ended
  run.verdict = Collect(d, events);
  return run;
}

Verdict Streamed(const Execution& x, WarpModel model, uint32_t nrings, AnalysisPool& pool, uint64_t seed,
                 uint64_t* gaps = nullptr) {
  StreamedRun run = StreamedOnce(x, model, nrings, pool, seed);
  REQUIRE(run.ok);
  if (gaps != nullptr) *gaps = run.gaps;
  return run.verdict;
}

TEST_CASE("records streamed in random pieces give the total order's verdicts", "[parallel][streaming]") {
  for (unsigned workers : {1u, 2u}) {
    AnalysisPool pool(workers, 8);
    for (WarpModel model : {WarpModel::kIts, WarpModel::kLockstep}) {
      for (uint64_t seed = 1; seed <= 4; ++seed) {
        const Execution x = Generate(seed * 104729 + workers, 6, model);
        const Verdict expected = TotalOrder(x, model);
        for (uint64_t k = 0; k < 6; ++k) {
          INFO("workers " << workers << " model " << static_cast<int>(model) << " seed " << seed << " run " << k);
          uint64_t gaps = 1;
          const Verdict got = Streamed(x, model, 2 + static_cast<uint32_t>(k % 3), pool, seed * 31 + k, &gaps);
          REQUIRE(got.racy_bytes == expected.racy_bytes);
          REQUIRE(got.races == expected.races);
          CHECK(gaps == 0);  // TraceBuilder's stamps are dense from 1
        }
      }
    }
  }
}

TEST_CASE("streaming: an acquire waits for a release that has not arrived yet", "[parallel][streaming]") {
  // Message passing across rings; the acquiring ring is appended (and ended)
  // first: the pool must hold it until the release arrives, not skip ahead.
  TraceBuilder t;
  t.Begin(2, 64).Write(0, 1, Same(0x10), 1).ReleaseStore(Scope::kGpu, 0, 1, 0x20);
  t.Acquire(Scope::kGpu, 2, 1, 0x20).Read(2, 1, Same(0x10), 2).End();
  const Execution x{t.records()};
  const std::vector<std::vector<Record>> ring = SplitRings(x, 2);
  REQUIRE(ring[1].size() == 2);
  AnalysisPool pool(2);
  Detector d;
  auto launch = StreamingLaunch::Begin(d, pool, x.records.front(), 2);
  REQUIRE(launch.ok());
  (*launch)->Append(1, ring[1]);
  (*launch)->EndRing(1);
  // The acquire cannot go before the release: the launch waits, stuck.
  for (int i = 0; i < 10000 && !(*launch)->stuck(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK((*launch)->stuck());
  CHECK((*launch)->backlog(1) == 2);
  CHECK_FALSE((*launch)->Analysed());
  (*launch)->Append(0, ring[0]);
  (*launch)->EndRing(0);
  (*launch)->Finish();
  CHECK((*launch)->gaps() == 0);
  CHECK(d.Report().size() == 0);
}

TEST_CASE("streaming: a stamp that never arrives is skipped once every ring ended", "[parallel][streaming]") {
  // Two lock-protected sections in different blocks, then the first release's
  // record is lost: the stream has a gap. The launch must still end (the gap
  // is skipped when no ring can move and all ended) with what the complete-
  // ring engine reports for the same records.
  TraceBuilder t;
  t.Begin(2, 64);
  t.Sync(Op::kAcquire, Scope::kGpu, 0, 1, Same(0x900), protocol::kFlagLoad | protocol::kFlagStore);
  t.Write(0, 1, Same(0x800), 1).Sync(Op::kRelease, Scope::kGpu, 0, 1, Same(0x900), protocol::kFlagStore);
  t.Sync(Op::kAcquire, Scope::kGpu, 2, 1, Same(0x900), protocol::kFlagLoad | protocol::kFlagStore);
  t.Write(2, 1, Same(0x800), 2).Sync(Op::kRelease, Scope::kGpu, 2, 1, Same(0x900), protocol::kFlagStore);
  t.End();
  Execution x{t.records()};
  x.records.erase(x.records.begin() + 3);  // block 0's release (stamp 2)
  AnalysisPool pool(2);
  uint64_t gaps = 0;
  const Verdict streamed = Streamed(x, WarpModel::kIts, 2, pool, 7, &gaps);
  CHECK(gaps == 1);
  const Verdict whole = Rings(x, WarpModel::kIts, 2, nullptr, 2);
  CHECK(streamed == whole);
  CHECK(streamed.races.size() == 1);  // without the release, the two writes race
}

TEST_CASE("streaming: one pool serves launches of several detectors at once", "[parallel][streaming]") {
  AnalysisPool pool(2, 16);
  std::vector<Execution> xs;
  std::vector<Verdict> expected;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    xs.push_back(Generate(seed * 7, 6, WarpModel::kIts));
    expected.push_back(TotalOrder(xs.back(), WarpModel::kIts));
  }
  std::vector<StreamedRun> got(xs.size());
  std::vector<std::thread> appenders;
  for (size_t i = 0; i < xs.size(); ++i)
    appenders.emplace_back([&, i] { got[i] = StreamedOnce(xs[i], WarpModel::kIts, 3, pool, 100 + i); });
  for (std::thread& a : appenders) a.join();
  for (size_t i = 0; i < xs.size(); ++i) {
    CHECK(got[i].ok);
    CHECK(got[i].verdict == expected[i]);
  }
}

TEST_CASE("without stamp order, interleavings would report false races", "[parallel]") {
  // Sanity check of the test itself: a message-passing pair across rings is only
  // race-free because the acquire waits for the release's stamp.
  TraceBuilder t;
  t.Begin(2, 64).Write(0, 1, Same(0x10), 1).ReleaseStore(Scope::kGpu, 0, 1, 0x20);
  t.Acquire(Scope::kGpu, 2, 1, 0x20).Read(2, 1, Same(0x10), 2).End();
  Execution x{t.records()};
  class RingOneFirst final : public RingSchedule {
   public:
    size_t PickRing(std::span<const uint32_t> runnable) override { return runnable.back(); }
    size_t Burst() override { return 100; }
  } schedule;
  CHECK(Rings(x, WarpModel::kIts, 2, &schedule).races.empty());
  CHECK(TotalOrder(x, WarpModel::kIts).races.empty());
  // The same records with the stamps removed may be analysed acquire-first.
  for (Record& r : x.records) r.stamp = 0;
  CHECK_FALSE(Rings(x, WarpModel::kIts, 2, &schedule).races.empty());
}

}  // namespace
}  // namespace barracuda::detector::testing
