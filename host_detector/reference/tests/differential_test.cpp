// Differential test: the optimised detector (host_detector/detector/detector.h) against
// the reference on random feasible traces, in both warp models.
//
// Contract (host_detector/detector/SEMANTICS.md): before the first race on a byte both
// detectors are exact, so they must agree on which access first races on each
// byte. The detector reports one event per racy access naming its *first*
// racing byte, so for every thread-level access a, with
//   C(a) = bytes whose first race (reference) is a        ("clean" racy bytes)
//   D(a) = bytes of a that already had a race before a    ("dirty", state free)
// the detector must: report a iff C(a) is non-empty or it names a dirty byte;
// name only bytes in C(a) ∪ D(a); and name no byte above min C(a). Together
// this is the map byte -> first racy access, as far as the events show it,
// plus "trace has a race". Barrier divergences must name the same records.
// One allowance (SEMANTICS.md "Observation order"): a race that only PTX
// causality through observation order excuses (racy in the reference without
// that clause, at the same access and byte) may be reported; it is counted,
// and its byte counts as raced from then on. A missed race never is.
//
// Environment: BARRACUDA_DIFF_TRACES (total traces, default 30000 (500 in
// sanitizer builds), split over the two models), BARRACUDA_DIFF_SEED (replay
// one seed verbosely), BARRACUDA_DIFF_ARRIVE=completion (see ReferenceOptions).
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "host_detector/reference/reference_detector.h"
#include "host_detector/reference/tests/detector_adapter.h"
#include "host_detector/reference/trace_generator.h"

namespace barracuda::reference {
namespace {

using protocol::Op;
using protocol::Record;
using testing::DetectorEvent;
using testing::DetectorRun;

struct Mismatch {
  std::string category;  // short, for counting
  std::string detail;
};

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 0) : fallback;
}

std::string Ref(const AccessRef& a) {
  return "#" + std::to_string(a.record_index) + "/lane" + std::to_string(a.lane);
}

// The reference's kind of a record's accesses (strong accesses: kAtomic when
// they write, kAtomicLoad when they only read).
AccessKind KindOf(const Record& r) {
  const Op op = protocol::OpOf(r.header);
  if (op == Op::kRead) return AccessKind::kRead;
  if (op == Op::kWrite) return AccessKind::kWrite;
  const bool loads = r.header.flags & protocol::kFlagLoad, stores = r.header.flags & protocol::kFlagStore;
  return loads && !stores ? AccessKind::kAtomicLoad : AccessKind::kAtomic;
}

// BARRACUDA_DIFF_ARRIVE=completion switches the reference to the literal
// reading of bar.arrive (see ArriveSemantics), to tell that question apart
// from other disagreements.
Options ReferenceOptions(WarpModel model) {
  Options options{model};
  const char* v = std::getenv("BARRACUDA_DIFF_ARRIVE");
  if (v != nullptr && std::string(v) == "completion") options.arrive = ArriveSemantics::kJoinAtCompletion;
  return options;
}

bool Touches(const Record& r, uint32_t lane, protocol::Space space, uint64_t byte) {
  return (r.header.active_mask >> lane & 1) && protocol::SpaceOf(r.header) == space && r.addr[lane] <= byte &&
         byte < r.addr[lane] + r.header.access_size;
}

// Names the rule behind a missed race of access `a` on `byte` against the
// earlier access `e`, for the report (heuristic, by the shape of the trace):
//  bar.arrive           the race disappears when the reference reads bar.arrive
//                       as "join at completion" (ArriveSemantics)
//  atomic-after-atomic  `a` is an atomic and another atomic hit the byte between
//                       e and a: a shadow that keeps only the latest atomic loses
//                       the reads / plain write it superseded
//  same-value-lanes     an earlier lane of a's same-value store record wrote the
//                       byte: the exemption between the two lanes must not hide
//                       what the first lane's write superseded
std::string MissedRaceRule(std::span<const Record> trace, WarpModel model, AccessRef e, AccessRef a,
                           protocol::Space space, uint64_t byte) {
  Options literal{model, ArriveSemantics::kJoinAtCompletion};
  ReferenceDetector alt(literal);
  if (alt.ProcessAll(trace).ok()) {
    bool racy = false;
    for (const RacyAccess& r : alt.racy_accesses()) racy |= r.access == a && r.location.address == byte;
    if (!racy) return "bar.arrive";
  }
  const Record& ra = trace[a.record_index];
  if (protocol::OpOf(ra.header) == Op::kAtomic) {
    for (uint64_t i = e.record_index; i <= a.record_index; ++i) {
      if (protocol::OpOf(trace[i].header) != Op::kAtomic) continue;
      for (uint32_t l = 0; l < 32; ++l) {
        const AccessRef x{i, l};
        if (e < x && x < a && Touches(trace[i], l, space, byte)) return "atomic-after-atomic";
      }
    }
  }
  if (protocol::OpOf(ra.header) == Op::kWrite && (ra.header.flags & protocol::kFlagSameValue)) {
    for (uint32_t l = 0; l < a.lane; ++l) {
      if (Touches(ra, l, space, byte)) return "same-value-lanes";
    }
  }
  return "unclassified";
}

// The (access, space, byte) triples the reference finds racy without PTX
// causality through observation order (Options::observation_order off).
std::set<std::tuple<AccessRef, uint8_t, uint64_t>> RacyWithoutObservation(std::span<const Record> trace,
                                                                          WarpModel model) {
  Options options = ReferenceOptions(model);
  options.observation_order = false;
  ReferenceDetector loose(options);
  std::set<std::tuple<AccessRef, uint8_t, uint64_t>> racy;
  if (!loose.ProcessAll(trace).ok()) return racy;
  for (const RacyAccess& r : loose.racy_accesses())
    racy.insert({r.access, static_cast<uint8_t>(r.location.space), r.location.address});
  return racy;
}

// `tolerated` (if not null) counts the detector's races that only PTX
// causality through observation order excuses: the detector keeps the strong
// reads that observed the latest write of a location's unbroken chain, not
// every read that observed any write (SEMANTICS.md "Observation order", what
// the detector does not see). Such a race is allowed, never a missed one; its
// byte counts as raced from then on.
// `confirmed` (if not null) counts the (access, byte) pairs that only
// observation order orders (racy without it) on which the detector agrees:
// evidence that the rule is exercised, not only excused.
std::optional<Mismatch> Compare(std::span<const Record> trace, WarpModel model, const DetectorRun& run,
                                uint64_t* tolerated = nullptr, uint64_t* confirmed = nullptr) {
  ReferenceDetector ref(ReferenceOptions(model));
  if (absl::Status s = ref.ProcessAll(trace); !s.ok()) {
    return Mismatch{"reference rejected trace", s.ToString()};
  }
  std::optional<std::set<std::tuple<AccessRef, uint8_t, uint64_t>>> loose;  // computed on the first false race
  std::map<std::pair<uint8_t, uint64_t>, AccessRef> excused;  // (space, byte) -> first tolerated race
  if (!run.status.ok()) return Mismatch{"detector status", run.status.ToString()};

  std::map<AccessRef, std::set<std::pair<uint8_t, uint64_t>>> reported;  // access -> (space, byte)
  std::set<uint64_t> det_divergent;
  bool det_race = false;
  for (const DetectorEvent& e : run.events) {
    if (e.barrier_divergence) {
      det_divergent.insert(e.record_index);
      continue;
    }
    det_race = true;
    reported[AccessRef{e.record_index, e.lane}].insert({static_cast<uint8_t>(e.space), e.address});
  }
  // The reference's earliest conflicting access for (access, byte), for messages.
  std::map<std::pair<AccessRef, uint64_t>, const RacyAccess*> why;
  for (const RacyAccess& r : ref.racy_accesses()) why.emplace(std::make_pair(r.access, r.location.address), &r);

  uint64_t launch = 0;
  bool seen_begin = false;
  for (uint64_t i = 0; i < trace.size(); ++i) {
    const Record& r = trace[i];
    const Op op = protocol::OpOf(r.header);
    if (op == Op::kKernelBegin) {
      if (seen_begin) ++launch;
      seen_begin = true;
    }
    // Every memory record is race-checked, sync accesses included (wave 2).
    if (!protocol::IsMemoryOp(op)) continue;
    const protocol::Space space = protocol::SpaceOf(r.header);
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (!(r.header.active_mask >> lane & 1)) continue;
      const AccessRef a{i, lane};
      std::set<uint64_t> clean, dirty;
      for (uint64_t y = r.addr[lane]; y < r.addr[lane] + r.header.access_size; ++y) {
        if (auto ex = excused.find({static_cast<uint8_t>(space), y}); ex != excused.end() && ex->second < a) {
          dirty.insert(y);
          continue;
        }
        auto it = ref.first_racy().find(ByteLocation{launch, space, y});
        if (it == ref.first_racy().end()) continue;
        if (it->second == a) clean.insert(y);
        if (it->second < a) dirty.insert(y);
      }
      auto rep = reported.find(a);
      std::ostringstream where;
      where << "access " << Ref(a) << " (" << protocol::OpName(op) << " " << (space == protocol::Space::kShared ? "shared" : "global")
            << " 0x" << std::hex << r.addr[lane] << std::dec << " size " << int{r.header.access_size} << ")";
      if (!clean.empty() && rep == reported.end()) {
        const RacyAccess* w = why.at({a, *clean.begin()});
        std::ostringstream s;
        s << where.str() << ": reference: first race on byte 0x" << std::hex << *clean.begin() << std::dec
          << " against earlier " << AccessKindName(w->earlier_kind) << " " << Ref(w->earlier)
          << "; detector: no race (missed race)";
        return Mismatch{std::string("missed race: ") + AccessKindName(w->earlier_kind) + " then " +
                            AccessKindName(KindOf(r)) + " (" + RaceKindName(w->race_kind) + ") [" + MissedRaceRule(trace, model, w->earlier, a, space, *clean.begin()) + "]",
                        s.str()};
      }
      if (rep == reported.end()) continue;
      for (auto [sp, y] : rep->second) {
        if (sp != static_cast<uint8_t>(space) || y < r.addr[lane] || y >= r.addr[lane] + r.header.access_size) {
          return Mismatch{"event outside the access", where.str() + ": detector names a byte outside it"};
        }
        if (!clean.count(y) && !dirty.count(y)) {
          if (tolerated != nullptr) {
            if (!loose) loose = RacyWithoutObservation(trace, model);
            if (loose->count({a, static_cast<uint8_t>(space), y})) {
              excused.emplace(std::make_pair(static_cast<uint8_t>(space), y), a);
              ++*tolerated;
              continue;
            }
          }
          std::ostringstream s;
          s << where.str() << ": detector: race on byte 0x" << std::hex << y << std::dec;
          const auto& ev = *std::find_if(run.events.begin(), run.events.end(), [&](const DetectorEvent& e) {
            return !e.barrier_divergence && e.record_index == a.record_index && e.lane == a.lane && e.address == y;
          });
          s << " against " << Ref(AccessRef{ev.earlier_record, ev.earlier_lane})
            << "; reference: ordered, no race on it (false race)";
          return Mismatch{std::string("false race: ") + AccessKindName(KindOf(r)) + " vs " +
                              (ev.earlier_record < trace.size() ? AccessKindName(KindOf(trace[ev.earlier_record])) : "?"),
                          s.str()};
        }
      }
      if (!clean.empty() && rep->second.begin()->second > *clean.begin()) {
        std::ostringstream s;
        s << where.str() << ": detector's first racing byte 0x" << std::hex << rep->second.begin()->second
          << " is above the reference's first race on 0x" << *clean.begin() << std::dec;
        return Mismatch{"missed race (byte)", s.str()};
      }
    }
  }
  // Events on records that are not plain/atomic accesses.
  for (const auto& [a, bytes] : reported) {
    if (a.record_index >= trace.size()) return Mismatch{"event outside the trace", Ref(a)};
    const Op op = protocol::OpOf(trace[a.record_index].header);
    if (!protocol::IsMemoryOp(op)) {
      return Mismatch{"race on a non-access record", Ref(a) + " is " + protocol::OpName(op)};
    }
    if (!(trace[a.record_index].header.active_mask >> a.lane & 1)) {
      return Mismatch{"race on an inactive lane", Ref(a)};
    }
  }
  if (confirmed != nullptr) {
    if (!loose) loose = RacyWithoutObservation(trace, model);
    std::set<std::tuple<AccessRef, uint8_t, uint64_t>> strict;
    for (const RacyAccess& r : ref.racy_accesses())
      strict.insert({r.access, static_cast<uint8_t>(r.location.space), r.location.address});
    // First races per byte without the clause that the reference does not
    // have at all (not even later): the clause alone decides them.
    std::set<std::pair<uint8_t, uint64_t>> seen;
    std::set<std::pair<uint8_t, uint64_t>> strict_bytes;
    for (const auto& [a, sp, y] : strict) strict_bytes.insert({sp, y});
    for (const auto& [a, sp, y] : *loose) {
      (void)a;
      if (!seen.insert({sp, y}).second || strict_bytes.count({sp, y})) continue;
      bool reported_any = false;
      for (const auto& [acc, bytes] : reported) reported_any |= bytes.count({sp, y}) != 0;
      if (!reported_any) ++*confirmed;
    }
  }
  if (det_race != ref.has_race() && !(det_race && !excused.empty())) {
    return Mismatch{"has-race verdict", std::string("detector ") + (det_race ? "race" : "no race") + ", reference " +
                                            (ref.has_race() ? "race" : "no race")};
  }
  std::set<uint64_t> ref_divergent;
  for (const BarrierDivergence& b : ref.barrier_divergences()) ref_divergent.insert(b.record_index);
  if (!std::includes(ref_divergent.begin(), ref_divergent.end(), det_divergent.begin(), det_divergent.end()) ||
      (det_divergent.empty() != ref_divergent.empty())) {
    std::ostringstream s;
    s << "barrier divergence records: detector {";
    for (uint64_t x : det_divergent) s << " #" << x;
    s << " } reference {";
    for (uint64_t x : ref_divergent) s << " #" << x;
    s << " }";
    return Mismatch{"barrier divergence", s.str()};
  }
  return std::nullopt;
}

std::optional<Mismatch> CompareTotalOrder(std::span<const Record> trace, WarpModel model,
                                          uint64_t* tolerated = nullptr, uint64_t* confirmed = nullptr) {
  return Compare(trace, model, testing::RunOptimisedDetector(trace, model), tolerated, confirmed);
}

// Greedy shrink: drop records whose removal keeps the trace feasible (memory
// and sync records, warp-syncs, fences, empty-bodied branches) while the
// mismatch category stays the same.
std::vector<Record> Shrink(std::vector<Record> trace, WarpModel model, const std::string& category) {
  auto still_fails = [&](const std::vector<Record>& t) {
    if (!CheckFeasible(t).ok()) return false;
    uint64_t tolerated = 0;
    const auto m = CompareTotalOrder(t, model, &tolerated);
    return m.has_value() && m->category == category;
  };
  auto removable = [](Op op) {
    return protocol::IsMemoryOp(op) || op == Op::kFence || op == Op::kWarpSync;
  };
  for (size_t chunk = 16; chunk >= 1; chunk /= 2) {
    for (size_t i = trace.size(); i-- > 0;) {
      std::vector<Record> candidate;
      candidate.reserve(trace.size());
      size_t removed = 0;
      for (size_t j = 0; j < trace.size(); ++j) {
        if (j >= i && j < i + chunk && removable(protocol::OpOf(trace[j].header))) {
          ++removed;
          continue;
        }
        candidate.push_back(trace[j]);
      }
      if (removed == 0) continue;
      RestampSyncRecords(candidate);
      if (still_fails(candidate)) trace = std::move(candidate);
    }
  }
  // Whole launches, then any single record (exits, barrier arrivals, ...),
  // then pairs of arrivals at the same barrier of the same block: each kept
  // only if the trace stays feasible.
  auto without = [&](const std::vector<size_t>& drop) {
    std::vector<Record> candidate;
    for (size_t j = 0; j < trace.size(); ++j) {
      if (std::find(drop.begin(), drop.end(), j) == drop.end()) candidate.push_back(trace[j]);
    }
    RestampSyncRecords(candidate);
    return candidate;
  };
  for (size_t i = 0; i < trace.size(); ++i) {
    if (protocol::OpOf(trace[i].header) != Op::kKernelBegin) continue;
    std::vector<size_t> launch;
    for (size_t j = i; j < trace.size(); ++j) {
      launch.push_back(j);
      if (protocol::OpOf(trace[j].header) == Op::kKernelEnd) break;
    }
    if (launch.size() == trace.size()) break;
    auto candidate = without(launch);
    if (still_fails(candidate)) {
      trace = std::move(candidate);
      i = static_cast<size_t>(-1);
    }
  }
  for (size_t i = trace.size(); i-- > 0;) {
    const Op op = protocol::OpOf(trace[i].header);
    if (op == Op::kKernelBegin || op == Op::kKernelEnd) continue;
    auto candidate = without({i});
    if (still_fails(candidate)) trace = std::move(candidate);
  }
  auto is_barrier = [&](size_t i) {
    const Op op = protocol::OpOf(trace[i].header);
    return op == Op::kBarrier || op == Op::kBarrierArrive;
  };
  for (size_t i = 0; i < trace.size(); ++i) {
    if (!is_barrier(i)) continue;
    for (size_t j = i + 1; j < trace.size(); ++j) {
      if (!is_barrier(j) || trace[j].barrier.barrier_id != trace[i].barrier.barrier_id) continue;
      auto candidate = without({i, j});
      if (still_fails(candidate)) {
        trace = std::move(candidate);
        i = static_cast<size_t>(-1);
        break;
      }
    }
  }
  // if/else/fi triples with nothing between them.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i + 2 < trace.size() && !changed; ++i) {
      const auto w = trace[i].header.warp_id;
      if (protocol::OpOf(trace[i].header) != Op::kIf) continue;
      std::vector<size_t> idx{i};
      for (size_t j = i + 1; j < trace.size() && idx.size() < 3; ++j) {
        if (trace[j].header.warp_id == w && protocol::OpOf(trace[j].header) != Op::kKernelBegin &&
            protocol::OpOf(trace[j].header) != Op::kKernelEnd) {
          idx.push_back(j);
        }
      }
      if (idx.size() < 3 || protocol::OpOf(trace[idx[1]].header) != Op::kElse || protocol::OpOf(trace[idx[2]].header) != Op::kFi) continue;
      std::vector<Record> candidate;
      for (size_t j = 0; j < trace.size(); ++j) {
        if (j != idx[0] && j != idx[1] && j != idx[2]) candidate.push_back(trace[j]);
      }
      if (still_fails(candidate)) {
        trace = std::move(candidate);
        changed = true;
      }
    }
  }
  return trace;
}

GeneratorOptions DiffOptions() { return GeneratorOptions{}; }

struct Tally {
  uint64_t traces = 0, racy = 0, records = 0, mismatches = 0;
  uint64_t tolerated = 0;  // races only observation order excuses (Compare)
  uint64_t confirmed = 0;  // orderings only observation order makes, detector agreeing (every 8th trace)
  std::map<std::string, uint64_t> categories;
  std::vector<std::string> reports;
};

void RunMany(WarpModel model, uint64_t first_seed, uint64_t count, Tally& tally) {
  const GeneratorOptions options = DiffOptions();
  for (uint64_t k = 0; k < count; ++k) {
    const uint64_t seed = first_seed + k;
    const GeneratedTrace trace = GenerateTrace(seed, options);
    ++tally.traces;
    tally.records += trace.records.size();
    const auto m = CompareTotalOrder(trace.records, model, &tally.tolerated, k % 8 == 0 ? &tally.confirmed : nullptr);
    if (!m) {
      // Count the racy ones so the run shows it tested both verdicts.
      ReferenceDetector ref(ReferenceOptions(model));
      if (k % 16 == 0 && ref.ProcessAll(trace.records).ok()) tally.racy += ref.has_race() ? 16 : 0;
      continue;
    }
    ++tally.mismatches;
    // One shrunk report per kind of disagreement.
    if (tally.categories[m->category]++ == 0 && tally.reports.size() < 8) {
      const std::vector<Record> small = Shrink(trace.records, model, m->category);
      uint64_t tolerated = 0;
      const auto sm = CompareTotalOrder(small, model, &tolerated);
      std::ostringstream s;
      s << "MISMATCH [" << m->category << "] model=" << WarpModelName(model) << " seed=" << seed
        << " (" << trace.records.size() << " records, shrunk to " << small.size() << ")\n"
        << "  original: " << m->detail << "\n"
        << "  shrunk:   " << (sm ? sm->detail : std::string("?")) << "\n"
        << DumpTrace(small);
      tally.reports.push_back(s.str());
    }
  }
}

// CI's share of an exploration (brief: long explorations stay out of CI):
// 30,000 traces (15,000 per model) take ~52 s per model on an idle 2-core
// machine (release; 60,000 took 132 s per model in CI, 2026-11-30);
// BARRACUDA_DIFF_TRACES runs more (README). Under ASan the point is memory
// errors, not breadth.
#ifdef BARRACUDA_REFERENCE_SANITIZED
constexpr uint64_t kDefaultTraces = 500;  // Debug+ASan is ~35x slower per trace
#else
constexpr uint64_t kDefaultTraces = 30000;
#endif

void RunModel(WarpModel model, uint64_t seed_base) {
  const uint64_t total = EnvOr("BARRACUDA_DIFF_TRACES", kDefaultTraces);
  const uint64_t count = (total + 1) / 2;
  Tally tally;
  const auto start = std::chrono::steady_clock::now();
  RunMany(model, seed_base, count, tally);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "differential[" << WarpModelName(model) << "]: " << tally.traces << " traces, " << tally.records
            << " records, ~" << tally.racy << " racy (sampled), " << tally.mismatches << " mismatches, "
            << tally.tolerated << " races excused only by observation order (allowed), ~"
            << 8 * tally.confirmed << " bytes race-free only by observation order (detector agrees), " << seconds
            << " s" << std::endl;
  for (const auto& [category, n] : tally.categories) std::cout << "  " << category << ": " << n << "\n";
  for (const std::string& r : tally.reports) std::cout << r << "\n";
  INFO(tally.mismatches << " of " << tally.traces << " traces disagree; first reports above");
  CHECK(tally.mismatches == 0);
}

TEST_CASE("differential lockstep: random traces", "[differential]") { RunModel(WarpModel::kLockstep, 0); }

TEST_CASE("differential its: random traces", "[differential]") { RunModel(WarpModel::kIts, uint64_t{1} << 32); }

TEST_CASE("differential rings: interleaved rings give the same race verdict", "[differential]") {
  // AnalyzeLaunchParallel on 2-3 rings with a seeded drain order: which access
  // of a concurrent pair is "first" depends on processing order, so only the
  // trace-level verdict is compared.
  const uint64_t count = std::max<uint64_t>(1, EnvOr("BARRACUDA_DIFF_TRACES", kDefaultTraces) / 20);
  uint64_t mismatches = 0;
  std::string first;
  for (uint64_t k = 0; k < count; ++k) {
    const uint64_t seed = (uint64_t{2} << 32) + k;
    const WarpModel model = k % 2 ? WarpModel::kIts : WarpModel::kLockstep;
    const GeneratedTrace trace = GenerateTrace(seed);
    ReferenceDetector ref(ReferenceOptions(model));
    REQUIRE(ref.ProcessAll(trace.records).ok());
    const DetectorRun run = testing::RunOptimisedDetectorOnRings(trace.records, model, 2 + k % 2, seed);
    bool det_race = false;
    for (const DetectorEvent& e : run.events) det_race |= !e.barrier_divergence;
    if (run.status.ok() && det_race == ref.has_race()) continue;
    // A race that only observation order excuses is allowed (Compare).
    if (run.status.ok() && det_race && !RacyWithoutObservation(trace.records, model).empty()) continue;
    if (++mismatches == 1) {
      std::ostringstream s;
      s << "seed=" << seed << " model=" << WarpModelName(model) << " rings=" << 2 + k % 2 << " status="
        << run.status.ToString() << " detector " << (det_race ? "race" : "no race") << ", reference "
        << (ref.has_race() ? "race" : "no race") << "\n"
        << DumpTrace(trace.records);
      first = s.str();
    }
  }
  if (!first.empty()) std::cout << "ring interleaving mismatch: " << first << "\n";
  INFO(mismatches << " of " << count << " ring-interleaved traces disagree");
  CHECK(mismatches == 0);
}

TEST_CASE("differential replay: one seed from BARRACUDA_DIFF_SEED", "[differential]") {
  const char* v = std::getenv("BARRACUDA_DIFF_SEED");
  if (v == nullptr || *v == '\0') return;
  const uint64_t seed = std::strtoull(v, nullptr, 0);
  const GeneratedTrace trace = GenerateTrace(seed, DiffOptions());
  std::cout << DumpTrace(trace.records);
  for (WarpModel model : {WarpModel::kLockstep, WarpModel::kIts}) {
    uint64_t tolerated = 0;
    const auto m = CompareTotalOrder(trace.records, model, &tolerated);
    std::cout << WarpModelName(model) << ": " << (m ? m->category + ": " + m->detail : std::string("agree"))
              << (tolerated != 0 ? " (" + std::to_string(tolerated) + " races excused only by observation order)" : "")
              << "\n";
    CHECK_FALSE(m.has_value());
  }
}

}  // namespace
}  // namespace barracuda::reference
