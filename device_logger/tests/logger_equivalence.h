// Runs a PTX module twice on the emulator: as is, collecting the emulator's
// own records, and instrumented with the device logger merged, collecting
// what the logger wrote into its queues; and compares the two per warp as
// multisets (DESIGN.md "Emulator contract"). Shared by the logger's tests and
// the bug-suite equivalence test.
//
// Normalisation before comparing (each documented in device_logger/README.md):
// stamps and kFlagValue are ignored; payload words the record's op does not define are
// zeroed (addresses of inactive lanes, the rest of a barrier/branch payload, a
// warp sync's member mask but not its strays);
// kKernelBegin/kKernelEnd are the launcher's, not a warp's; kExit records of a
// warp are compared as the union of their lanes (the emulator may exit lanes
// parked at an exit early, in another grouping); kFi with no lanes (the
// emulator's join of a divergence whose paths meet only at exit) has no
// counterpart on a GPU, where no lane is left to log it.
#ifndef BARRACUDA_DEVICE_LOGGER_TESTS_LOGGER_EQUIVALENCE_H_
#define BARRACUDA_DEVICE_LOGGER_TESTS_LOGGER_EQUIVALENCE_H_

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "device_logger/gpu_queue.h"
#include "device_logger/logger_abi.h"
#include "device_logger/logger_ptx.h"
#include "device_logger/protocol.h"
#include "ptx_emulator/core/device.h"
#include "ptx_emulator/core/record_sink.h"
#include "ptx_rewriter/instrument/instrument.h"
#include "ptx_rewriter/instrument/merge_logger.h"
#include "ptx_rewriter/parser.h"
#include "ptx_rewriter/printer.h"
#include "vc_compression/reconvergence_stack.h"

namespace barracuda::logger_test {

namespace proto = barracuda::protocol;

// A device allocation of one run: [base, base + size).
struct Region {
  uint64_t base = 0;
  uint64_t size = 0;
};

// A launch: kernel name, shape, and a function that allocates and returns the
// argument values (called once per run, with that run's device).
struct LaunchSpec {
  std::string kernel;
  emu::Dim3 grid{1, 1, 1};
  emu::Dim3 block{32, 1, 1};
  uint32_t dynamic_shared = 0;
  // Builds the kernel's arguments in `device` memory; returns pointers to
  // argument storage (kept alive by `storage`) and adds every buffer it
  // allocated to `regions` (addresses in them are compared as offsets).
  std::function<std::vector<void*>(emu::Device&, std::vector<std::shared_ptr<void>>& storage,
                                   std::vector<Region>& regions)>
      args;
};

// Global addresses differ between the two runs (different devices): those in
// a region become (region index + 1) << 48 | offset.
inline proto::Record Normalize(proto::Record r, const std::vector<Region>& regions) {
  // Sequence stamps differ. kFlagValue and the stored value are left out too:
  // the logger does not yet set them in every case the emulator does (a store
  // in a noinline function, atomics programs: open, see the 2026-11-26 note),
  // which only makes the detector classify fewer same-value pairs (WAW instead).
  r.stamp = 0;
  r.header.flags &= static_cast<uint8_t>(~proto::kFlagValue);
  const auto op = proto::OpOf(r.header);
  if (proto::IsMemoryOp(op)) {
    for (uint32_t l = 0; l < proto::kWarpSize; ++l) {
      if (((r.header.active_mask >> l) & 1u) == 0) {
        r.addr[l] = 0;
      } else if (proto::SpaceOf(r.header) == proto::Space::kGlobal) {
        for (size_t i = 0; i < regions.size(); ++i)
          if (r.addr[l] - regions[i].base < regions[i].size) r.addr[l] = (uint64_t{i} + 1) << 48 | (r.addr[l] - regions[i].base);
      }
    }
  } else if (op == proto::Op::kAsyncWait) {
    // Per lane: how many of its async records are complete.
    for (uint32_t l = 0; l < proto::kWarpSize; ++l)
      if (((r.header.active_mask >> l) & 1u) == 0) r.addr[l] = 0;
  } else if (op == proto::Op::kBarrier || op == proto::Op::kBarrierArrive || op == proto::Op::kIf) {
    const uint64_t keep = r.addr[0];
    std::memset(r.addr, 0, sizeof r.addr);
    r.addr[0] = op == proto::Op::kIf ? (keep & 0xffffffffu) : keep;
  } else if (op == proto::Op::kWarpSync) {
    // The strays only: the member mask is the logger's (the emulator writes 0).
    const uint32_t strays = r.warp_sync.strays;
    std::memset(r.addr, 0, sizeof r.addr);
    r.warp_sync.strays = strays;
  } else {
    std::memset(r.addr, 0, sizeof r.addr);
  }
  return r;
}

inline std::string Describe(const proto::Record& r) {
  std::ostringstream s;
  s << proto::OpName(proto::OpOf(r.header)) << " flags=" << int(r.header.flags) << " size=" << int(r.header.access_size)
    << " ss=" << int(r.header.space_scope) << " mask=" << std::hex << r.header.active_mask << std::dec
    << " warp=" << r.header.warp_id << " site=" << r.header.site_id;
  if (proto::IsMemoryOp(proto::OpOf(r.header))) {
    for (uint32_t l = 0; l < proto::kWarpSize; ++l)
      if ((r.header.active_mask >> l) & 1u) {
        s << " a" << l << "=" << std::hex << r.addr[l] << std::dec;
        break;
      }
  } else {
    s << " p=" << std::hex << r.addr[0] << std::dec;
  }
  return s.str();
}

// Per warp: sorted record texts (byte images) plus the exited lanes.
struct WarpStream {
  std::vector<std::string> records;
  uint32_t exited = 0;
  std::vector<std::string> described;
  // Joins reached in groups (host_detector/detector/SEMANTICS.md): the logger logs one
  // kFi per group of lanes that arrive together where log_fi cannot wait, the
  // emulator one per branch. Both streams are compared as the detector reads
  // them: a kFi that closes a branch is kept (mask 0: which group closed it is
  // timing), one that only takes lanes off a branch is dropped. The detector's
  // own stack (a test-only use) decides which is which.
  barracuda::vc::ReconvergenceStack joins;
  bool joins_started = false;
};
using Streams = std::map<uint32_t, WarpStream>;

inline void Add(Streams& s, const proto::Record& raw, const std::vector<Region>& regions) {
  const auto op = proto::OpOf(raw.header);
  if (op == proto::Op::kKernelBegin || op == proto::Op::kKernelEnd) return;
  WarpStream& w = s[raw.header.warp_id];
  if (!w.joins_started) {
    w.joins.Reset(~0u);
    w.joins_started = true;
  }
  if (op == proto::Op::kExit) {
    w.exited |= raw.header.active_mask;
    w.joins.RemoveLanes(raw.header.active_mask);
    return;
  }
  proto::Record r = Normalize(raw, regions);
  uint32_t joined = 0;
  const uint32_t lanes = raw.header.active_mask & ~w.exited;
  if (op == proto::Op::kIf) {
    w.joins.PushIf(lanes, raw.branch.then_mask);
  } else if (op == proto::Op::kElse) {
    w.joins.Else(lanes, &joined);
  } else if (op == proto::Op::kFi) {
    // An empty kFi (the emulator's, when a branch's lanes all exited) closes
    // its branch but is not compared: the logger has no lanes to log it.
    const size_t depth = w.joins.depth();
    w.joins.Fi(lanes, &joined);
    if (w.joins.depth() == depth || raw.header.active_mask == 0) return;
    r.header.active_mask = 0;
  }
  w.records.emplace_back(reinterpret_cast<const char*>(&r), sizeof r);
  w.described.push_back(Describe(r));
}

inline void Sort(Streams& s) {
  for (auto& [id, w] : s) {
    std::sort(w.records.begin(), w.records.end());
    std::sort(w.described.begin(), w.described.end());
  }
}

inline std::vector<std::string> Unique(std::vector<std::string> v) {
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// "" when equal, else a description of the differences. `as_sets`: a warp
// whose multisets differ still passes when the sets of distinct records agree
// (spin loops iterate a timing-dependent number of times, and the
// instrumented kernel's timing differs); `*set_only` counts such warps.
inline std::string Compare(const Streams& emulator, const Streams& logger, bool as_sets = false,
                           int* set_only = nullptr) {
  std::ostringstream out;
  for (const auto& [id, e] : emulator) {
    auto it = logger.find(id);
    if (it == logger.end()) {
      if (!e.records.empty() || e.exited != 0) out << "warp " << id << ": no records from the logger\n";
      continue;
    }
    const WarpStream& l = it->second;
    if (e.exited != l.exited)
      out << "warp " << id << ": exited lanes " << std::hex << e.exited << " vs " << l.exited << std::dec << "\n";
    if (e.records != l.records && as_sets && Unique(e.records) == Unique(l.records)) {
      if (set_only != nullptr) ++*set_only;
    } else if (e.records != l.records) {
      out << "warp " << id << ": " << e.records.size() << " emulator records, " << l.records.size()
          << " logger records\n";
      std::vector<std::string> only_e, only_l;
      std::set_difference(e.described.begin(), e.described.end(), l.described.begin(), l.described.end(),
                          std::back_inserter(only_e));
      std::set_difference(l.described.begin(), l.described.end(), e.described.begin(), e.described.end(),
                          std::back_inserter(only_l));
      for (size_t i = 0; i < only_e.size() && i < 6; ++i) out << "  emulator only: " << only_e[i] << "\n";
      for (size_t i = 0; i < only_l.size() && i < 6; ++i) out << "  logger only:   " << only_l[i] << "\n";
    }
  }
  for (const auto& [id, l] : logger)
    if (!emulator.contains(id) && !l.records.empty()) out << "warp " << id << ": only the logger has records\n";
  return out.str();
}

// Every record of every warp with the warp id erased, sorted: for programs
// whose per-warp behaviour depends on the schedule (the last warp to bump a
// counter does the final write), where only the kernel-level multiset is
// schedule-independent.
inline std::vector<std::string> WarpAgnostic(const Streams& s, uint32_t* exited_lanes) {
  std::vector<std::string> all;
  *exited_lanes = 0;
  for (const auto& [id, w] : s) {
    *exited_lanes += static_cast<uint32_t>(std::popcount(w.exited));
    for (std::string r : w.records) {
      proto::Record rec;
      std::memcpy(&rec, r.data(), sizeof rec);
      rec.header.warp_id = 0;
      all.emplace_back(reinterpret_cast<const char*>(&rec), sizeof rec);
    }
  }
  std::sort(all.begin(), all.end());
  return all;
}

struct Outcome {
  std::string error;  // setup/run failure
  Streams emulator, logger;
  size_t emulator_records = 0, logger_records = 0;
};

inline emu::LaunchConfig ConfigOf(const LaunchSpec& l) {
  emu::LaunchConfig c;
  c.grid = l.grid;
  c.block = l.block;
  c.dynamic_shared_bytes = l.dynamic_shared;
  return c;
}

// CollectingSink that keeps at most `limit` records: a spin-wait on synthetic
// arguments can run until the caller's time limit, and its records must not
// exhaust memory meanwhile (they made the suite die of bad_alloc on a loaded
// machine). The run is then reported as not comparable.
class BoundedCollectingSink final : public emu::CollectingSink {
 public:
  explicit BoundedCollectingSink(size_t limit) : limit_(limit) {}
  void Emit(uint32_t worker, const proto::Record& r) override {
    if (emitted_.fetch_add(1, std::memory_order_relaxed) >= limit_) return;
    CollectingSink::Emit(worker, r);
  }
  bool overflowed() const { return emitted_.load() > limit_; }

 private:
  size_t limit_;
  std::atomic<size_t> emitted_{0};
};

inline constexpr size_t kMaxEquivalenceRecords = size_t{1} << 21;  // 2 M records, 560 MiB

// The instrumented run's QueueSet while its launches' arguments are built
// (nullptr in the emulator's own run): a test that makes TMA tensor maps puts
// their geometry into its table, as the agent does (gpu_agent/tensor_maps.h).
inline gpu_queue::QueueSet*& CurrentQueueSet() {
  static thread_local gpu_queue::QueueSet* set = nullptr;
  return set;
}

// Runs `ptx` as is (tracing) and instrumented + logger (queues); fills Outcome.
// `schedule`, when given, is used by both runs (e.g. one block at a time, for
// programs whose records depend on which block finishes last).
inline Outcome RunBoth(const std::string& ptx, const std::vector<LaunchSpec>& launches, uint32_t queues = 3,
                       uint32_t slots = 1u << 16, const emu::ScheduleOptions* schedule = nullptr) {
  Outcome out;
  auto module = ptx::ParseModule(ptx, "original.ptx");
  if (!module.ok()) return out.error = std::string(module.status().message()), out;
  // Module-level .global variables are regions too (same order in both runs).
  std::vector<std::string> globals;
  for (const ptx::ModuleItem& item : module->items)
    if (const auto* v = std::get_if<ptx::VarDecl>(&item); v && v->space == ptx::StateSpace::kGlobal)
      for (const ptx::Declarator& d : v->declarators) globals.push_back(d.name);
  auto variable_regions = [&](emu::Device& device, uint32_t unit, std::vector<Region>& regions) {
    for (const std::string& name : globals)
      if (auto var = device.FindVariable(unit, name); var.ok())
        regions.push_back(Region{reinterpret_cast<uintptr_t>(var->address), var->size});
  };
  // Every launch of `launches` on `unit`; an error message, empty when all ran.
  auto launch_all = [&](emu::Device& device, const auto& unit, std::vector<Region>& regions) -> std::string {
    std::vector<std::shared_ptr<void>> storage;
    for (const LaunchSpec& l : launches) {
      auto k = device.FindKernel(unit, l.kernel);
      if (!k.ok()) return "kernel: " + std::string(k.status().message());
      std::vector<void*> args = l.args ? l.args(device, storage, regions) : std::vector<void*>{};
      auto st = device.Launch(*k, ConfigOf(l), args.data());
      if (!st.ok()) return "launch: " + std::string(st.message());
    }
    return {};
  };
  // 1. The emulator's own records for the original module.
  {
    emu::Device device;
    if (schedule != nullptr) device.schedule() = *schedule;
    BoundedCollectingSink sink(kMaxEquivalenceRecords);
    device.SetSink(&sink);
    auto unit = device.LoadLinkUnit({emu::PtxSource{ptx, "original.ptx"}});
    if (!unit.ok()) return out.error = "original: " + std::string(unit.status().message()), out;
    std::vector<Region> regions;
    variable_regions(device, *unit, regions);
    if (std::string e = launch_all(device, *unit, regions); !e.empty()) return out.error = "original " + e, out;
    if (sink.overflowed())
      return out.error = "original run: more than " + std::to_string(kMaxEquivalenceRecords) +
                         " records (a spin-wait on synthetic arguments?)",
             out;
    for (size_t i = 0; i < sink.launches.size(); ++i)
      for (const proto::Record& r : sink.Flatten(i)) Add(out.emulator, r, regions), ++out.emulator_records;
  }
  // 2. Instrumented, logger merged, tracing off; records from the queues.
  ptx::InstrumentOptions options;
  options.prune = false;  // the emulator logs every access
  if (auto st = ptx::InstrumentModule(*module, options); !st.ok())
    return out.error = "instrument: " + std::string(st.status().message()), out;
  auto logger = ptx::ParseModule(device_logger::LoggerPtx(), "logger.ptx");
  if (!logger.ok()) return out.error = "logger: " + std::string(logger.status().message()), out;
  if (auto st = ptx::MergeLogger(*module, *logger); !st.ok()) return out.error = std::string(st.message()), out;
  const std::string instrumented = ptx::PrintModule(*module);
  {
    emu::Device device;
    if (schedule != nullptr) device.schedule() = *schedule;
    auto unit = device.LoadLinkUnit({emu::PtxSource{instrumented, "instrumented.ptx"}});
    if (!unit.ok()) return out.error = "instrumented: " + std::string(unit.status().message()), out;
    auto var = device.FindVariable(*unit, logger_abi::kQueueSetSymbol);
    if (!var.ok()) return out.error = std::string(var.status().message()), out;
    const uint64_t bytes = gpu_queue::QueueSetBytes(queues, slots);
    auto mem = device.memory().Allocate(bytes, emu::DeviceMemory::Kind::kDevice);
    if (!mem.ok()) return out.error = std::string(mem.status().message()), out;
    gpu_queue::InitQueueSet(*mem, queues, slots);
    const uint64_t address = reinterpret_cast<uintptr_t>(*mem);
    std::memcpy(var->address, &address, sizeof address);
    std::vector<Region> regions;
    variable_regions(device, *unit, regions);
    auto* set = static_cast<gpu_queue::QueueSet*>(*mem);
    // Drained while the launches run, as the agent drains them on a GPU: a
    // producer waits for room in a full queue, so a spin loop's records
    // (warp_lock_*: 128 lanes retrying a CAS) would otherwise stop the run
    // until the caller's time limit. Kept raw until the launches are done
    // (launch_all still adds regions meanwhile), at most as many as the
    // original run may keep.
    std::vector<proto::Record> drained;
    bool overflowed = false;
    auto drain_all = [&] {
      size_t n = 0;
      for (uint32_t q = 0; q < queues; ++q)
        n += gpu_queue::Drain(set, q, [&](const proto::Record& r) {
          if (drained.size() < kMaxEquivalenceRecords) drained.push_back(r);
          else overflowed = true;
        });
      return n;
    };
    // A jthread: an argument builder that throws (a failed allocation) still
    // stops and joins it on the way out.
    std::jthread drainer([&](std::stop_token stop) {
      while (!stop.stop_requested())
        if (drain_all() == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
    });
    CurrentQueueSet() = set;
    const std::string launched = launch_all(device, *unit, regions);
    CurrentQueueSet() = nullptr;
    drainer.request_stop();
    drainer.join();
    drain_all();
    if (!launched.empty()) return out.error = "instrumented " + launched, out;
    if (overflowed)
      return out.error = "instrumented run: more than " + std::to_string(kMaxEquivalenceRecords) + " records",
             out;
    for (const proto::Record& r : drained) Add(out.logger, r, regions), ++out.logger_records;
  }
  Sort(out.emulator);
  Sort(out.logger);
  return out;
}

}  // namespace barracuda::logger_test

#endif  // BARRACUDA_DEVICE_LOGGER_TESTS_LOGGER_EQUIVALENCE_H_
