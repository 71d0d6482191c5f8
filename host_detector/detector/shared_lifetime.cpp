// Distributed shared memory lifetime: see shared_lifetime.h and SEMANTICS.md
// "Distributed shared memory lifetime".
#include <algorithm>
#include <bit>
#include <vector>

#include "host_detector/detector/detector_impl.h"

namespace barracuda::detector {

using protocol::Op;

void Detector::Impl::EmitLifetime(const WindowLifetime& w, const WindowLifetime::Key& key,
                                  const WindowLifetime::Use& use) {
  RaceEvent e;
  e.kind = RaceKind::kSharedLifetime;
  e.cls = launch.IsAsyncThread(key.tid) ? RaceClass::kAsyncCopy : RaceClass::kInterBlock;
  e.space = protocol::Space::kShared;
  e.address = use.address;
  e.launch_id = launch.launch_id;
  e.kernel_name_id = launch.name_id;
  e.earlier = Describe(key.tid, key.site, key.op);
  e.earlier.address = use.address;
  e.earlier.access_size = use.size;
  e.later = w.exit;
  Emit(e);
}

void Detector::Impl::NoteRemoteShared(uint32_t owner, uint64_t tid, uint32_t site, Op op, uint64_t clock,
                                      uint64_t address, uint8_t size) {
  WindowLifetime& w = window_lifetimes[owner];
  std::lock_guard<std::mutex> lock(w.mu);
  const WindowLifetime::Key key{tid, site, op};
  WindowLifetime::Use& use = w.remote[key];
  if (use.size == 0 || address < use.address) {
    use.address = address;
    use.size = size;
  }
  use.clock = std::max(use.clock, clock);
  // After the owner's exit an access cannot be ordered before it (the exit
  // was analysed after everything it is ordered after); the check stays
  // general all the same.
  if (w.exited && !use.reported && use.clock > w.exit_clock.Get(static_cast<vc::ThreadId>(tid))) {
    use.reported = true;
    EmitLifetime(w, key, use);
  }
}

void Detector::Impl::WindowExit(BlockState& bs, uint32_t block, unsigned warp, uint32_t lanes, uint32_t site,
                                uint64_t index) {
  if (lanes == 0) return;
  WindowLifetime& w = window_lifetimes[block];
  std::lock_guard<std::mutex> lock(w.mu);
  bs.clocks.warp(warp).JoinInto(lanes, w.exit_clock);
  if (bs.live_threads != static_cast<uint32_t>(std::popcount(lanes))) return;  // others still run
  w.exited = true;
  const unsigned lane = static_cast<unsigned>(std::countr_zero(lanes));
  w.exit = Describe(bs.clocks.warp(warp).tid(lane), site, Op::kExit);
  w.exit.record_index = index;
  // Keys in a fixed order: the report does not depend on the hash map's.
  std::vector<std::pair<WindowLifetime::Key, WindowLifetime::Use*>> late;
  for (auto& [key, use] : w.remote) {
    if (!use.reported && use.clock > w.exit_clock.Get(static_cast<vc::ThreadId>(key.tid))) late.push_back({key, &use});
  }
  std::sort(late.begin(), late.end(), [](const auto& x, const auto& y) {
    return std::tuple(x.first.tid, x.first.site, x.first.op) < std::tuple(y.first.tid, y.first.site, y.first.op);
  });
  for (auto& [key, use] : late) {
    use->reported = true;
    EmitLifetime(w, key, *use);
  }
}

}  // namespace barracuda::detector
