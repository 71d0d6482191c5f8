// Lookup throughput of the shadow for warp records: cells per second for a
// coalesced warp access (32 lanes x 4 bytes = 128 cells), the detector's
// common case, with and without the per-cell lock, and with the page fast
// path (one page lookup per record) against one lookup per lane.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "shadow_memory/shadow_memory.h"

using namespace barracuda::shadow;

namespace {

constexpr uint32_t kLanes = 32;
constexpr uint32_t kAccessSize = 4;
constexpr uint64_t kBase = 0x7f00'0000'0000ull;
// Steady state: the detector revisits the same buffers, whose cells are
// resident after the first touch. First touch: every record faults in a fresh
// 4 KiB of cells (128 device bytes = one coalesced record).
constexpr uint64_t kSteadyRegion = 2ull << 20;  // 2 pages, 64 MiB of cells, pre-touched
constexpr uint64_t kFirstTouchRegion = 1ull << 30;

// What the detector does per cell for a write that is ordered after the
// previous one: read both halves, then store the new epoch.
inline void WriteCell(Cell c, Tid tid, Clock clock) {
  Epoch w = c.write_epoch();
  Epoch r = c.read_epoch();
  benchmark::DoNotOptimize(w);
  benchmark::DoNotOptimize(r);
  c.SetWrite({tid, clock}, 1, false);
}

template <bool kLock, bool kPageFastPath, bool kFirstTouch>
void BM_CoalescedWarpWrite(benchmark::State& state) {
  const uint64_t kRegion = kFirstTouch ? kFirstTouchRegion : kSteadyRegion;
  ShadowMemory shadow;
  shadow.BeginLaunch(1, 0);
  GlobalShadow& g = shadow.global();
  if (!kFirstTouch) {
    for (uint64_t a = kBase; a < kBase + kRegion; a += 128) g.View(a).CellAt(a).SetRead({1, 1}, 0);
  }
  uint64_t offset = 0;
  Clock clock = 1;
  for (auto _ : state) {
    const uint64_t record_base = kBase + offset;
    PageView view = g.View(record_base);
    for (uint32_t lane = 0; lane < kLanes; ++lane) {
      const uint64_t addr = record_base + lane * kAccessSize;
      if (!kPageFastPath || !view.Contains(addr, kAccessSize)) view = g.View(addr);
      const CellSpan cells = view.Cells(addr, kAccessSize);
      for (size_t i = 0; i < cells.size(); ++i) {
        const Cell c = cells[i];
        if constexpr (kLock) {
          CellSpanLock lock(cells.subspan(i, 1), true);
          WriteCell(c, lane, clock);
        } else {
          WriteCell(c, lane, clock);
        }
      }
    }
    offset = (offset + kLanes * kAccessSize) % kRegion;
    if (offset == 0) {
      ++clock;
      if (kFirstTouch) {  // start over with fresh pages, outside the timing
        state.PauseTiming();
        shadow.EndLaunch();
        shadow.BeginLaunch(1, 0);
        state.ResumeTiming();
      }
    }
  }
  state.SetItemsProcessed(state.iterations() * kLanes * kAccessSize);
  state.counters["cells/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * kLanes * kAccessSize), benchmark::Counter::kIsRate);
}

// Shared memory: no lock, window lookup per lane.
void BM_CoalescedWarpWriteShared(benchmark::State& state) {
  ShadowMemory shadow;
  constexpr uint32_t kWindow = 48 * 1024;
  shadow.BeginLaunch(1, kWindow);
  SharedShadow& s = shadow.shared();
  uint32_t offset = 0;
  for (auto _ : state) {
    for (uint32_t lane = 0; lane < kLanes; ++lane) {
      for (const Cell c : s.Cells(offset + lane * kAccessSize, kAccessSize)) WriteCell(c, lane, 1);
    }
    offset = (offset + kLanes * kAccessSize) % kWindow;
  }
  state.SetItemsProcessed(state.iterations() * kLanes * kAccessSize);
  state.counters["cells/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * kLanes * kAccessSize), benchmark::Counter::kIsRate);
}

// Page creation cost: a fresh launch touching one cell in each of N pages.
void BM_PageCreation(benchmark::State& state) {
  ShadowMemory shadow;
  for (auto _ : state) {
    shadow.BeginLaunch(1, 0);
    for (uint64_t p = 0; p < 64; ++p) {
      shadow.global().View(kBase + p * kPageBytes).CellAt(kBase + p * kPageBytes).SetRead({1, 1}, 0);
    }
    shadow.EndLaunch();
  }
  state.SetItemsProcessed(state.iterations() * 64);
}

}  // namespace

BENCHMARK(BM_CoalescedWarpWrite<true, true, false>)->Name("CoalescedWarpWrite/global/locked/page_fast_path");
BENCHMARK(BM_CoalescedWarpWrite<false, true, false>)->Name("CoalescedWarpWrite/global/unlocked/page_fast_path");
BENCHMARK(BM_CoalescedWarpWrite<true, false, false>)->Name("CoalescedWarpWrite/global/locked/lookup_per_lane");
BENCHMARK(BM_CoalescedWarpWrite<true, true, true>)->Name("CoalescedWarpWrite/global/locked/first_touch");
BENCHMARK(BM_CoalescedWarpWriteShared)->Name("CoalescedWarpWrite/shared");
BENCHMARK(BM_PageCreation)->Name("PageCreationAndReset/64_pages");

BENCHMARK_MAIN();
