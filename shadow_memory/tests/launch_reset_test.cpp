#include <catch2/catch.hpp>

#include <fstream>
#include <unistd.h>

#include "shadow_memory/shadow_memory.h"
#include "shadow_memory/sync_locations.h"

using namespace barracuda::shadow;

#if defined(__SANITIZE_ADDRESS__)
#define BARRACUDA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BARRACUDA_ASAN 1
#endif
#endif

namespace {

#ifdef BARRACUDA_ASAN
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif

uint64_t ResidentSetBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

struct Clock1 {
  uint64_t v = 0;
};

// One launch's worth of typical work: coalesced global writes, concurrent
// reads (inflating clocks), shared-memory traffic, a synchronisation location.
void RunLaunch(ShadowMemory& shadow, SyncLocationMap<Clock1>& sync, uint64_t global_base) {
  shadow.BeginLaunch(8, 256);
  sync.BeginLaunch();
  uint64_t dirty = 0;  // cells carrying state from an earlier launch
  PageView v = shadow.global().View(global_base);
  for (uint64_t a = global_base; a < global_base + 2 * 1024; a += 4) {
    const CellSpan cells = v.Cells(a, 4);
    CellSpanLock lock(cells, true);
    for (const Cell c : cells) {
      dirty += !c.IsPristine();
      SetWriteEpoch(c, shadow.vcs(), {1, 2}, 7, false);
      if (a % 64 == 0) {
        AddReader(c, shadow.vcs(), {2, 3}, 8);
        AddReader(c, shadow.vcs(), {3, 3}, 8);
      }
    }
  }
  for (uint64_t b = 0; b < 8; ++b) {
    for (const Cell c : shadow.shared().Window(b)) {
      dirty += !c.IsPristine();
      c.SetWrite({static_cast<Tid>(b), 1}, 0, false);
    }
  }
  REQUIRE(dirty == 0);
  sync.Publish(SyncKey{Space::kGlobal, global_base}, 0, 0, ScopeLevel::kGpu, ReleaseKind::kStore,
               [](Clock1& c) { c.v = 1; });
  shadow.EndLaunch();
  sync.EndLaunch();
}

}  // namespace

TEST_CASE("1000 launches on the same and on different addresses keep memory bounded") {
  ShadowMemory shadow;
  SyncLocationMap<Clock1> sync(&shadow.accounting());
  RunLaunch(shadow, sync, 0x7000'0000'0000);  // warm-up: pool chunks, first table pages
  const uint64_t baseline = shadow.Stats().total_bytes;
  const uint64_t rss_before = ResidentSetBytes();
  for (int i = 0; i < 1000; ++i) {
    // Even launches hit the same addresses; odd ones a fresh MiB each time,
    // spread over many leaves of the page table.
    uint64_t base = i % 2 == 0 ? 0x7000'0000'0000ull
                               : 0x1000'0000'0000ull + static_cast<uint64_t>(i) * 0x10'0000'0000ull;
    RunLaunch(shadow, sync, base);
    ShadowStats s = shadow.Stats();
    REQUIRE(s.live_global_pages == 0);
    REQUIRE(s.live_vcs == 0);
    REQUIRE(s.Bytes(MemoryCategory::kGlobalCells) == 0);
    REQUIRE(s.Bytes(MemoryCategory::kSharedCells) == 0);
    REQUIRE(s.Bytes(MemoryCategory::kSyncLocations) == 0);
  }
  ShadowStats s = shadow.Stats();
  CHECK(s.Events(ShadowEvent::kLaunchesReset) == 1001);
  CHECK(s.Events(ShadowEvent::kGlobalPagesMapped) == 1001);
  // What stays between launches is the radix table (4 KiB per touched 512
  // slots: about 500 table pages over 63 leaves here) and the pool's chunks.
  CHECK(s.Bytes(MemoryCategory::kPageTable) <= 501 * 2 * 4096);
  CHECK(s.total_bytes <= baseline + 500 * 2 * 4096);
  CHECK(s.peak_total_bytes <= baseline + 500 * 2 * 4096 + 8 * 1024 * 1024);
  // And the process agrees: no growth beyond the table pages and allocator
  // slack. (Not under ASan: its quarantine keeps freed heap resident.)
  if (!kAddressSanitizer) CHECK(ResidentSetBytes() <= rss_before + 16 * 1024 * 1024);
}
