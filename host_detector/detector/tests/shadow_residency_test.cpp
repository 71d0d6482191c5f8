// Which halves of the global cells an access loads (shadow::PageView::
// HalvesUntouched): data a launch only reads must cost read halves only, data
// it only writes write halves only, as the accounting says. mincore counts a
// loaded half as resident even where the kernel maps a zero page for it, so
// these checks hold on any kernel; on one without a zero page (this project's
// dev VM) a loaded half is real memory, twice the shadow the accounting shows.
// Geometry: 1 block x 32 threads, one warp reading or writing 128 bytes per
// record.
#include <catch2/catch.hpp>
#include <unistd.h>

#include "host_detector/detector/tests/trace_builder.h"

namespace barracuda::detector::testing {
namespace {

constexpr uint64_t kBase = 0x4000000;  // page-aligned (1 MiB)
constexpr uint64_t kData = 64 * 1024;  // device bytes per array
constexpr uint64_t kHalvesOfData = kData / 4 * 16;  // one 16-byte half per 4-byte granule
constexpr uint32_t kAll = ~0u;

TraceBuilder& Sweep(TraceBuilder& t, Op op, uint64_t base, uint32_t site) {
  for (uint64_t a = base; a < base + kData; a += 128) t.Mem(op, 0, kAll, Strided(a, 4), site);
  return t;
}

uint64_t ResidentBeforeEnd(const TraceBuilder& t, RunResult* out = nullptr) {
  uint64_t resident = 0;
  RunResult r = Run(t, WarpModel::kIts, [&](Detector& d) { resident = d.ResidentGlobalCellBytes(); });
  if (out != nullptr) *out = r;
  return resident;
}

TEST_CASE("data only read costs read halves only, data only written write halves only", "[residency]") {
  if (sysconf(_SC_PAGESIZE) != 4096) return;  // the figures assume 4 KiB OS pages
  TraceBuilder reads;
  reads.Begin(1, 32);
  Sweep(reads, Op::kRead, kBase, 1);
  Sweep(reads, Op::kRead, kBase, 2);  // read again: the readers' halves only
  reads.End();
  CHECK(ResidentBeforeEnd(reads) == kHalvesOfData);

  TraceBuilder writes;
  writes.Begin(1, 32);
  Sweep(writes, Op::kWrite, kBase, 1);
  Sweep(writes, Op::kWrite, kBase, 2);
  writes.End();
  CHECK(ResidentBeforeEnd(writes) == kHalvesOfData);

  // A vector add: two inputs read, one output written.
  TraceBuilder add;
  add.Begin(1, 32);
  for (uint64_t off = 0; off < kData; off += 128) {
    add.Read(0, kAll, Strided(kBase + off, 4), 1)
        .Read(0, kAll, Strided(kBase + kData + off, 4), 2)
        .Write(0, kAll, Strided(kBase + 2 * kData + off, 4), 3);
  }
  add.End();
  CHECK(ResidentBeforeEnd(add) == 3 * kHalvesOfData);
}

TEST_CASE("data both written and read costs both halves, and its races are still found", "[residency]") {
  if (sysconf(_SC_PAGESIZE) != 4096) return;
  // Two blocks: the second's reads of what the first wrote race, and its
  // writes over what the first read race too (no barrier orders blocks).
  TraceBuilder t;
  t.Begin(2, 32);
  Sweep(t, Op::kWrite, kBase, 1);          // block 0 writes array A (write halves)
  Sweep(t, Op::kRead, kBase + kData, 2);   // block 0 reads array B (read halves)
  for (uint64_t a = kBase; a < kBase + 2 * kData; a += 128) {
    t.Mem(a < kBase + kData ? Op::kRead : Op::kWrite, 1, kAll, Strided(a, 4), 3);  // block 1: read A, write B
  }
  t.End();
  RunResult r;
  CHECK(ResidentBeforeEnd(t, &r) == 4 * kHalvesOfData);
  // Every word of both arrays races: one dynamic race per lane and record.
  CHECK(r.stats.racy_accesses == 2 * kData / 4);
}

}  // namespace
}  // namespace barracuda::detector::testing
