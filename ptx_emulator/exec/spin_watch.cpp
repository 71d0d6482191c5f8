// mbarrier deadlocks: see spin_watch.h.
#include "ptx_emulator/exec/spin_watch.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "ptx_emulator/ops/mbarrier_state.h"

namespace barracuda::emu {

void CountSpinTurn(Warp& w, uint64_t ran, uint64_t failed_before) {
  if (ran == 0) return;
  // A successful wait resets the count: what failed after it is the turn's.
  const uint64_t failed = w.mbar_failed_waits >= failed_before ? w.mbar_failed_waits - failed_before
                                                               : w.mbar_failed_waits;
  // A short turn with no wait in it, while the last wait still failed (a
  // success resets mbar_failed_waits), changes nothing: a __nanosleep() in the
  // wait loop (libcu++'s cuda::barrier backoff) ends turns between waits.
  if (failed == 0 && ran < kSpinRatio && w.mbar_failed_waits != 0 && !w.serial_pending) return;
  const bool spin = failed != 0 && failed * kSpinRatio >= ran && !w.serial_pending;
  w.spin_turns = spin ? w.spin_turns + 1 : 0;
}

bool ClusterSpinsForever(const Cluster& c) {
  bool spinning = false;
  for (uint32_t r = 0; r < c.size(); ++r) {
    for (const auto& wp : c.ctas[r]->warps) {
      const Warp& w = *wp;
      if (w.state == WarpState::kDone || w.state == WarpState::kWaitingBarrier) continue;
      if (!SpinsOnMbarrier(w)) return false;
      spinning = true;
    }
  }
  return spinning;
}

std::string MbarrierSpinText(const Warp& w, const Cluster& c) {
  std::string where = "an mbarrier";
  for (uint32_t r = 0; r < c.size(); ++r) {
    const Block& b = *c.ctas[r];
    const uint8_t* base = b.shared.get();
    if (w.mbar_wait_object >= base && w.mbar_wait_object + 8 <= base + b.shared_bytes) {
      where = absl::StrCat("the mbarrier at shared offset ", w.mbar_wait_object - base);
      if (c.size() > 1) absl::StrAppend(&where, " of block (", b.coord.x, ",", b.coord.y, ",", b.coord.z, ")");
      uint64_t object = 0;
      std::memcpy(&object, w.mbar_wait_object, sizeof object);
      absl::StrAppend(&where, ", whose current phase still misses ", mbar::Pending(object), " of ",
                      mbar::Expected(object), " arrivals and ", mbar::Tx(object), " transaction bytes");
      break;
    }
  }
  return absl::StrCat(" spins on mbarrier test_wait/try_wait (PTX line ", w.mbar_wait_line, ") of ", where);
}

}  // namespace barracuda::emu
