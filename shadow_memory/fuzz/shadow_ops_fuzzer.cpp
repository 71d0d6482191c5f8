// libFuzzer target: arbitrary sequences of shadow operations (any 64-bit
// address, either space, any access size, tiny memory limits, launch resets)
// checked against a plain map model of what each byte's cell must record.
// Invariants: lookups never crash and reject only addresses they must; cells
// hold exactly the model's readers/writers; the pool holds exactly one clock
// per inflated half; a reset leaves no cell bytes, windows or clocks behind.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <tuple>
#include <utility>

#include "shadow_memory/shadow_memory.h"

using namespace barracuda::shadow;

namespace {

struct Reader {
  const uint8_t* p;
  size_t n;
  template <class T>
  T Get() {
    T v{};
    for (size_t i = 0; i < sizeof(T) && n > 0; ++i, ++p, --n) v |= static_cast<T>(*p) << (8 * i);
    return v;
  }
};

#define FUZZ_CHECK(c) \
  do {                \
    if (!(c)) abort(); \
  } while (0)

using Key = std::pair<Space, CellWriteHalf*>;
struct Model {
  std::map<Tid, VcEntry> readers, writers;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader in{data, size};
  const uint8_t config = in.Get<uint8_t>();
  ShadowOptions options;
  // 1 byte: every global page untracked, and no clock inflates (a cell keeps
  // its newest reader and writer only).
  const bool limited = (config & 1) != 0;
  options.memory_limit_bytes = limited ? 1 : 0;
  ShadowMemory shadow(options);
  shadow.BeginLaunch(1 + (config >> 3 & 7), 1 + in.Get<uint8_t>() * 16);
  std::map<Key, Model> model;  // by cell (granule cells cover 4 bytes)
  Clock clock = 1;

  while (in.n > 0) {
    const uint8_t op = in.Get<uint8_t>();
    if (op == 0xff) {  // launch boundary
      shadow.EndLaunch();
      ShadowStats s = shadow.Stats();
      FUZZ_CHECK(s.live_vcs == 0 && s.live_global_pages == 0);
      FUZZ_CHECK(s.Bytes(MemoryCategory::kGlobalCells) == 0);
      FUZZ_CHECK(s.Bytes(MemoryCategory::kSharedCells) == 0);
      model.clear();
      shadow.BeginLaunch(1 + (op & 7), 64);
      continue;
    }
    const Space space = (op & 0x80) ? Space::kShared : Space::kGlobal;
    const uint64_t addr = space == Space::kShared ? in.Get<uint64_t>() & 0x7'0000'ffffull
                                                  : in.Get<uint64_t>() >> (in.Get<uint8_t>() & 63);
    const uint32_t access = 1u << (op >> 4 & 3);
    CellSpan cells;
    if (space == Space::kGlobal) {
      PageView v = shadow.global().View(addr);
      FUZZ_CHECK(v.valid() == (addr <= kMaxAddress));
      if (!v.valid()) continue;
      FUZZ_CHECK(v.tracked() != limited);
      if (!v.tracked()) continue;  // over the limit: the detector skips such accesses
      if (!v.Contains(addr, access)) continue;  // straddles a page: the detector goes byte-wise
      cells = v.Cells(addr, access);
      FUZZ_CHECK(cells.size() >= 1 && cells.size() <= access);
    } else {
      cells = shadow.shared().Cells(addr, access);
      bool inside = (addr >> 32) < shadow.shared().num_blocks() &&
                    (addr & 0xffffffffu) + access <= shadow.shared().window_bytes();
      FUZZ_CHECK(cells.empty() != inside);
      if (cells.empty()) continue;
    }
    // Every other access repeats the last clock, so that readers of one clock
    // and site form runs (Cell::ReadRun) as well as clocks; not over the
    // limit, where the model keeps only the newest reader (a run needs no
    // memory and keeps both).
    const Epoch e{static_cast<Tid>(op & 3), (op & 8) != 0 && !limited ? clock : ++clock};
    const SiteId site = op;
    const bool atomic = (op & 4) != 0;
    CellSpanLock lock(cells, true);
    for (const Cell c : cells) {
      Model& m = model[{space, c.write_half()}];
      switch (op & 7) {
        case 0: SetReadEpoch(c, shadow.vcs(), e, site); m.readers = {{e.tid, {e.clock, site, false}}}; break;
        case 1: case 2:
          AddReader(c, shadow.vcs(), e, site);
          if (limited) m.readers.clear();
          m.readers[e.tid] = {e.clock, site, false};
          break;
        case 3: ClearReads(c, shadow.vcs()); m.readers.clear(); break;
        case 4: SetWriteEpoch(c, shadow.vcs(), e, site, atomic); m.writers = {{e.tid, {e.clock, site, atomic}}}; break;
        case 5: case 6:
          AddWriter(c, shadow.vcs(), e, site, atomic);
          if (limited) m.writers.clear();
          m.writers[e.tid] = {e.clock, site, atomic};
          break;
        case 7: ResetCell(c, shadow.vcs()); m = Model{}; break;
      }
      std::map<Tid, VcEntry> got;
      ForEachReader(c, shadow.vcs(), [&](Tid t, const VcEntry& v) { got[t] = v; });
      FUZZ_CHECK(got == m.readers);
      got.clear();
      ForEachWriter(c, shadow.vcs(), [&](Tid t, const VcEntry& v) { got[t] = v; });
      FUZZ_CHECK(got == m.writers);
      FUZZ_CHECK((c.read_shared() || c.read_run()) == (m.readers.size() > 1));
      FUZZ_CHECK(c.write_shared() == (m.writers.size() > 1));
    }
    uint64_t inflated = 0;  // clocks out of line: read VCs (not runs) and write VCs
    for (const auto& [key, m] : model) inflated += Cell(key.second).read_shared() + (m.writers.size() > 1);
    FUZZ_CHECK(shadow.vcs().live() == inflated);
  }
  shadow.EndLaunch();
  FUZZ_CHECK(shadow.Stats().live_vcs == 0);
  return 0;
}
