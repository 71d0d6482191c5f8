// Detector throughput on synthetic record streams (thread-level accesses
// analysed per second) and clock state per thread.
//
//   a) coalesced streaming global reads/writes        (ITS)
//   b) shared-memory tiled kernel with barriers        (ITS)
//   c) divergent branches with nested if/else          (lockstep: branches order lanes)
//   d) lock-heavy kernel: per-thread gpu-scope locks   (ITS)
//   e) 16x16-tiled matmul: broadcast and strided shared reads (ITS)
//
// Each launch runs its body `kIterations` times over the same data (a kernel
// with an outer loop), so shadow pages are first-touched once per launch and
// reused, as in real kernels; launch set-up and tear-down are inside the timing.
// One Detector analyses all launches of a benchmark, as the daemon keeps one
// per session: shadow pages released at a launch's end serve the next launch.
// "Parallel/N" drives AnalyzeLaunchParallel with N TBB workers over 2 rings per
// worker (block groups); "Serial" is Detector::Process on the total order.
#include <benchmark/benchmark.h>

#include <time.h>

#include <cstring>
#include <vector>

#include "device_logger/protocol.h"
#include "host_detector/detector/detector.h"

namespace barracuda::detector {
namespace {

using protocol::Op;
using protocol::Record;
using protocol::Scope;
using protocol::Space;

constexpr uint32_t kAll = 0xffffffffu;
constexpr int kIterations = 8;

struct Stream {
  Record begin;
  std::vector<Record> body;  // warp records of one launch, total order
  uint32_t threads_per_block = 0;
  uint64_t thread_accesses = 0;
  WarpModel model = WarpModel::kIts;
};

Record Blank(Op op) {
  Record r;
  std::memset(&r, 0, sizeof(r));
  r.header.op = static_cast<uint8_t>(op);
  return r;
}

class StreamBuilder {
 public:
  StreamBuilder(uint32_t blocks, uint32_t tpb, uint32_t shared_bytes, WarpModel model) {
    s_.begin = Blank(Op::kKernelBegin);
    s_.begin.kernel.grid[0] = blocks;
    s_.begin.kernel.grid[1] = s_.begin.kernel.grid[2] = 1;
    s_.begin.kernel.block[0] = tpb;
    s_.begin.kernel.block[1] = s_.begin.kernel.block[2] = 1;
    s_.begin.kernel.static_shared_bytes = shared_bytes;
    s_.begin.kernel.launch_id = 1;
    s_.threads_per_block = tpb;
    s_.model = model;
  }
  template <typename F>
  void Mem(Op op, uint32_t warp, uint32_t mask, Space space, uint32_t site, F addr) {
    Record r = Blank(op);
    r.header.warp_id = warp;
    r.header.active_mask = mask;
    r.header.access_size = 4;
    r.header.site_id = site;
    r.header.space_scope = protocol::PackSpaceScope(space, Scope::kNone);
    for (unsigned l = 0; l < 32; ++l) r.addr[l] = addr(l);
    s_.body.push_back(r);
    s_.thread_accesses += static_cast<uint64_t>(__builtin_popcount(mask));
  }
  template <typename F>
  void Sync(Op op, uint32_t warp, uint32_t mask, uint8_t flags, F addr) {
    Record r = Blank(op);
    r.header.warp_id = warp;
    r.header.active_mask = mask;
    r.header.access_size = 4;
    r.header.flags = flags;
    r.header.space_scope = protocol::PackSpaceScope(Space::kGlobal, Scope::kGpu);
    r.stamp = ++stamp_;
    for (unsigned l = 0; l < 32; ++l) r.addr[l] = addr(l);
    s_.body.push_back(r);
  }
  void Simple(Op op, uint32_t warp, uint32_t mask, uint32_t payload = 0) {
    Record r = Blank(op);
    r.header.warp_id = warp;
    r.header.active_mask = mask;
    r.branch.then_mask = payload;  // barrier_id = 0 / then mask share the slot
    if (op == Op::kIf) r.branch.then_mask = payload;
    s_.body.push_back(r);
  }
  Stream Take() { return std::move(s_); }

 private:
  Stream s_;
  uint64_t stamp_ = 0;
};

constexpr uint64_t kIn = 0x10000000, kOut = 0x20000000;

// a) out[i] = f(in[i]): one coalesced read and one coalesced write per thread.
Stream Streaming(uint32_t threads, int iterations) {
  const uint32_t tpb = 256, blocks = threads / tpb, warps = threads / 32;
  StreamBuilder b(blocks, tpb, 0, WarpModel::kIts);
  for (int it = 0; it < iterations; ++it) {
    for (uint32_t w = 0; w < warps; ++w) {
      b.Mem(Op::kRead, w, kAll, Space::kGlobal, 1, [&](unsigned l) { return kIn + 4 * (w * 32 + l); });
      b.Mem(Op::kWrite, w, kAll, Space::kGlobal, 2, [&](unsigned l) { return kOut + 4 * (w * 32 + l); });
    }
  }
  return b.Take();
}

// b) tile[t] = in[i]; bar; out[i] = tile[t] + tile[t+1]; bar.
Stream Tiled(uint32_t threads, int iterations) {
  const uint32_t tpb = 256, blocks = threads / tpb, wpb = tpb / 32;
  StreamBuilder b(blocks, tpb, tpb * 4 + 4, WarpModel::kIts);
  for (int it = 0; it < iterations; ++it) {
    for (uint32_t blk = 0; blk < blocks; ++blk) {
      for (uint32_t wi = 0; wi < wpb; ++wi) {
        const uint32_t w = blk * wpb + wi;
        b.Mem(Op::kRead, w, kAll, Space::kGlobal, 1, [&](unsigned l) { return kIn + 4 * (w * 32 + l); });
        b.Mem(Op::kWrite, w, kAll, Space::kShared, 2,
              [&](unsigned l) { return protocol::SharedAddress(blk, 4 * (wi * 32 + l)); });
        b.Simple(Op::kBarrier, w, kAll);
      }
      for (uint32_t wi = 0; wi < wpb; ++wi) {
        const uint32_t w = blk * wpb + wi;
        b.Mem(Op::kRead, w, kAll, Space::kShared, 3,
              [&](unsigned l) { return protocol::SharedAddress(blk, 4 * (wi * 32 + l)); });
        b.Mem(Op::kRead, w, kAll, Space::kShared, 4,
              [&](unsigned l) { return protocol::SharedAddress(blk, 4 * (wi * 32 + l + 1)); });
        b.Mem(Op::kWrite, w, kAll, Space::kGlobal, 5, [&](unsigned l) { return kOut + 4 * (w * 32 + l); });
        b.Simple(Op::kBarrier, w, kAll);
      }
    }
  }
  return b.Take();
}

// c) if (t < 16) { out = ..; if (t < 8) r1 else r2 } else { out = .. } (lockstep).
Stream Divergent(uint32_t threads, int iterations) {
  const uint32_t tpb = 256, blocks = threads / tpb, warps = threads / 32;
  StreamBuilder b(blocks, tpb, 0, WarpModel::kLockstep);
  for (int it = 0; it < iterations; ++it) {
    for (uint32_t w = 0; w < warps; ++w) {
      auto own = [&](uint64_t base) { return [=](unsigned l) { return base + 4 * (w * 32 + l); }; };
      b.Mem(Op::kRead, w, kAll, Space::kGlobal, 1, own(kIn));
      b.Simple(Op::kIf, w, kAll, 0x0000ffffu);
      b.Mem(Op::kWrite, w, 0x0000ffffu, Space::kGlobal, 2, own(kOut));
      b.Simple(Op::kIf, w, 0x0000ffffu, 0x000000ffu);
      b.Mem(Op::kRead, w, 0x000000ffu, Space::kGlobal, 3, own(kIn));
      b.Simple(Op::kElse, w, 0);
      b.Mem(Op::kRead, w, 0x0000ff00u, Space::kGlobal, 4, own(kOut));
      b.Simple(Op::kFi, w, 0);
      b.Simple(Op::kElse, w, 0);
      b.Mem(Op::kWrite, w, 0xffff0000u, Space::kGlobal, 5, own(kOut));
      b.Simple(Op::kFi, w, 0);
      b.Mem(Op::kWrite, w, kAll, Space::kGlobal, 6, own(kIn));
    }
  }
  return b.Take();
}

// e) C = A * B with 16x16 shared tiles (ptx_emulator/bench/matmul.cu's
// kernel): per tile step each thread loads one word of A and of B into the
// tiles, then reads a row of ta (16 lanes read one word: a broadcast) and a
// column of tb (lanes l and l + 16 read one word); a grid row of blocks reads
// each word of A. A is rows x 64, B 64 x 64: 4 tile steps per block.
Stream MatMul(uint32_t threads, int /*iterations: the tile steps are the kernel's loop*/) {
  const uint32_t tpb = 256, blocks = threads / tpb, wpb = tpb / 32;
  constexpr uint32_t kTile = 16, kN = 64, kGridX = kN / kTile;
  constexpr uint64_t kB = 0x18000000;
  StreamBuilder b(blocks, tpb, 2 * kTile * kTile * 4, WarpModel::kIts);
  for (uint32_t blk = 0; blk < blocks; ++blk) {
    const uint32_t bx = blk % kGridX, by = blk / kGridX;
    auto ty = [&](uint32_t wi, unsigned l) { return 2 * wi + l / kTile; };
    for (uint32_t k0 = 0; k0 < kN; k0 += kTile) {
      for (uint32_t wi = 0; wi < wpb; ++wi) {
        const uint32_t w = blk * wpb + wi;
        b.Mem(Op::kRead, w, kAll, Space::kGlobal, 1,
              [&](unsigned l) { return kIn + 4 * ((by * kTile + ty(wi, l)) * kN + k0 + l % kTile); });
        b.Mem(Op::kRead, w, kAll, Space::kGlobal, 2,
              [&](unsigned l) { return kB + 4 * ((k0 + ty(wi, l)) * kN + bx * kTile + l % kTile); });
        b.Mem(Op::kWrite, w, kAll, Space::kShared, 3,
              [&](unsigned l) { return protocol::SharedAddress(blk, 4 * (ty(wi, l) * kTile + l % kTile)); });
        b.Mem(Op::kWrite, w, kAll, Space::kShared, 4, [&](unsigned l) {
          return protocol::SharedAddress(blk, 4 * (kTile * kTile + ty(wi, l) * kTile + l % kTile));
        });
        b.Simple(Op::kBarrier, w, kAll);
      }
      for (uint32_t wi = 0; wi < wpb; ++wi) {
        const uint32_t w = blk * wpb + wi;
        for (uint32_t k = 0; k < kTile; ++k) {
          b.Mem(Op::kRead, w, kAll, Space::kShared, 5,
                [&](unsigned l) { return protocol::SharedAddress(blk, 4 * (ty(wi, l) * kTile + k)); });
          b.Mem(Op::kRead, w, kAll, Space::kShared, 6,
                [&](unsigned l) { return protocol::SharedAddress(blk, 4 * (kTile * kTile + k * kTile + l % kTile)); });
        }
        b.Simple(Op::kBarrier, w, kAll);
      }
    }
    for (uint32_t wi = 0; wi < wpb; ++wi) {
      const uint32_t w = blk * wpb + wi;
      b.Mem(Op::kWrite, w, kAll, Space::kGlobal, 7,
            [&](unsigned l) { return kOut + 4 * ((by * kTile + ty(wi, l)) * kN + bx * kTile + l % kTile); });
    }
  }
  return b.Take();
}

// d) per-thread locks (a hash-table insert): acquire lock[h(t)], update
// bucket[h(t)], release; locks are shared by threads of different blocks.
Stream Locks(uint32_t threads, int iterations) {
  const uint32_t tpb = 256, blocks = threads / tpb, warps = threads / 32;
  const uint32_t kLocks = 4096;
  StreamBuilder b(blocks, tpb, 0, WarpModel::kIts);
  for (int it = 0; it < iterations; ++it) {
    for (uint32_t w = 0; w < warps; ++w) {
      auto h = [&](unsigned l) { return ((w * 32 + l) * 2654435761u + it) % kLocks; };
      b.Sync(Op::kAcquire, w, kAll, protocol::kFlagLoad | protocol::kFlagStore,
             [&](unsigned l) { return 0x30000000 + 8 * h(l); });
      b.Mem(Op::kRead, w, kAll, Space::kGlobal, 1, [&](unsigned l) { return 0x40000000 + 8 * h(l); });
      b.Mem(Op::kWrite, w, kAll, Space::kGlobal, 2, [&](unsigned l) { return 0x40000000 + 8 * h(l); });
      b.Sync(Op::kRelease, w, kAll, protocol::kFlagStore, [&](unsigned l) { return 0x30000000 + 8 * h(l); });
      b.Mem(Op::kRead, w, kAll, Space::kGlobal, 3, [&](unsigned l) { return kIn + 4 * (w * 32 + l); });
    }
  }
  return b.Take();
}

DetectorOptions OptionsFor(const Stream& s) {
  DetectorOptions o;
  o.warp_model = s.model;
  return o;
}

void RunSerial(benchmark::State& state, Stream (*make)(uint32_t, int)) {
  const Stream s = make(static_cast<uint32_t>(state.range(0)), kIterations);
  Record end = Blank(Op::kKernelEnd);
  Detector d(OptionsFor(s));
  for (auto _ : state) {
    d.Process(s.begin);
    for (const Record& r : s.body) d.Process(r);
    d.Process(end);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * s.thread_accesses));
  state.counters["races"] = static_cast<double>(d.Stats().racy_accesses);
}

void RunParallel(benchmark::State& state, Stream (*make)(uint32_t, int)) {
  const Stream s = make(static_cast<uint32_t>(state.range(0)), kIterations);
  const unsigned workers = static_cast<unsigned>(state.range(1));
  const uint32_t nrings = 2 * workers;
  const uint32_t wpb = protocol::WarpsPerBlock(s.threads_per_block);
  std::vector<std::vector<Record>> rings(nrings);
  for (const Record& r : s.body) rings[(r.header.warp_id / wpb) % nrings].push_back(r);
  std::vector<RingInput> inputs(nrings);
  for (uint32_t k = 0; k < nrings; ++k) inputs[k].records = rings[k];
  ParallelOptions p;
  p.workers = workers;
  p.burst = 256;
  // CPU time of all threads of the process: on a loaded machine wall time says
  // little, accesses per CPU-second still give the per-worker rate.
  auto process_cpu = [] {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  double cpu = 0;
  Detector d(OptionsFor(s));
  for (auto _ : state) {
    const double start = process_cpu();
    if (!AnalyzeLaunchParallel(d, s.begin, inputs, p).ok()) state.SkipWithError("analysis failed");
    cpu += process_cpu() - start;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * s.thread_accesses));
  state.counters["accesses_per_cpu_second"] =
      static_cast<double>(state.iterations() * s.thread_accesses) / cpu;
}

constexpr int64_t kThreads = 1 << 17;  // 131,072 threads, 4,096 warps
BENCHMARK_CAPTURE(RunSerial, a_streaming, Streaming)->Arg(kThreads)->Arg(1 << 14)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(RunSerial, b_tiled, Tiled)->Arg(kThreads)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(RunSerial, c_divergent, Divergent)->Arg(kThreads)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(RunSerial, d_locks, Locks)->Arg(kThreads)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(RunSerial, e_matmul, MatMul)->Arg(kThreads)->Arg(1 << 14)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(RunParallel, a_streaming, Streaming)->Args({kThreads, 1})->Args({kThreads, 2})->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(RunParallel, b_tiled, Tiled)->Args({kThreads, 1})->Args({kThreads, 2})->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(RunParallel, c_divergent, Divergent)->Args({kThreads, 1})->Args({kThreads, 2})->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(RunParallel, d_locks, Locks)->Args({kThreads, 1})->Args({kThreads, 2})->UseRealTime()->Unit(benchmark::kMillisecond);

// Clock state at 1,048,576 threads after one pass of each stream (compressed),
// against dense per-thread vector clocks (threads x 4 bytes per thread; not
// allocated: 4 TiB).
void ClockState(benchmark::State& state, Stream (*make)(uint32_t, int)) {
  const uint32_t threads = 1u << 20;
  const Stream s = make(threads, 1);
  const size_t one_pass = s.body.size();
  double per_thread = 0;
  for (auto _ : state) {
    Detector d(OptionsFor(s));
    d.Process(s.begin);
    for (size_t i = 0; i < one_pass; ++i) d.Process(s.body[i]);
    per_thread = static_cast<double>(d.Stats().clock_state_bytes) / threads;
  }
  state.counters["clock_bytes_per_thread"] = per_thread;
  state.counters["dense_bytes_per_thread"] = static_cast<double>(threads) * sizeof(uint32_t);
}
BENCHMARK_CAPTURE(ClockState, a_streaming, Streaming)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ClockState, b_tiled, Tiled)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ClockState, c_divergent, Divergent)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ClockState, d_locks, Locks)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace barracuda::detector

BENCHMARK_MAIN();
