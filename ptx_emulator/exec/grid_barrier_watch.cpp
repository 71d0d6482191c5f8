// Barrier divergence at grid scope (deterministic rounds, cooperative
// launches): cooperative groups' grid.sync() is a software barrier, an
// atomicAdd on the launch's grid workspace word and a spin on it. When some
// blocks exit without calling it, the others spin for ever (on a GPU too).
// The emulator knows the word, so it can tell this apart from a slow barrier:
// every warp still resident is done, waits at a block barrier, or is stopped
// at a serial operation on the word, and the word has not changed for
// kGridStallRounds rounds. Then the launch fails as a deadlock naming the
// blocks that wait and how many exited without arriving.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "ptx_emulator/exec/fault_status.h"
#include "ptx_emulator/exec/launch_runner.h"
#include "ptx_emulator/exec/serial_phase.h"

namespace barracuda::emu {
namespace {

// Rounds with every resident warp stuck on an unchanged word. A real barrier
// changes the word within a round of its last arrival; 256 rounds of spinning
// cost milliseconds.
constexpr uint32_t kGridStallRounds = 256;

// Whether `w` is stopped before a serial operation that addresses [lo, hi).
bool PendingOnWord(Warp& w, uint64_t lo, uint64_t hi) {
  if (!w.serial_pending) return false;
  const std::optional<PendingAccess> pending = PendingMemoryAccess(w, w.frame().fn->code[w.top().pc]);
  if (!pending) return false;
  const uint64_t a = pending->address.At(static_cast<uint32_t>(__builtin_ctz(pending->exec)));
  return a >= lo && a < hi;
}

}  // namespace

bool LaunchRunner::WatchGridBarrier(std::span<Worker> slots, uint64_t admitted) {
  if (grid_workspace_ == 0) return true;
  const uint64_t lo = grid_workspace_, hi = grid_workspace_ + 8;
  uint64_t word = 0;
  std::memcpy(&word, reinterpret_cast<const void*>(grid_workspace_), sizeof word);
  bool stuck = word == grid_word_;
  grid_word_ = word;
  uint64_t resident = 0;
  for (Worker& s : slots) {
    for (Block* b : s.resident) {
      ++resident;
      for (const auto& wp : b->warps) {
        Warp& w = *wp;
        if (!stuck) break;
        stuck = w.state == WarpState::kDone || w.state == WarpState::kWaitingBarrier || PendingOnWord(w, lo, hi);
      }
    }
  }
  // Every block arrived (none exited): the barrier opens by itself.
  stuck = stuck && resident != 0 && resident < admitted;
  grid_stall_rounds_ = stuck ? grid_stall_rounds_ + 1 : 0;
  if (grid_stall_rounds_ < kGridStallRounds) return true;
  std::string waiting;
  uint64_t listed = 0;
  const Block* first = nullptr;
  for (Worker& s : slots) {
    for (Block* b : s.resident) {
      if (first == nullptr) first = b;
      if (listed++ < 8) absl::StrAppend(&waiting, listed == 1 ? "" : ", ", "(", b->coord.x, ",", b->coord.y, ",", b->coord.z, ")");
    }
  }
  if (listed > 8) absl::StrAppend(&waiting, " and ", listed - 8, " more");
  SetError(FaultStatus(
      FaultKind::kDeadlock,
      absl::StrCat("barrier divergence at grid scope: grid.sync() (the cooperative grid barrier) is waited on by ",
                   resident, resident == 1 ? " block " : " blocks ", waiting, ", but ", admitted - resident,
                   admitted - resident == 1 ? " block" : " blocks",
                   " of the grid exited without reaching it [", Coordinates(*first, nullptr, 0), "]")));
  return false;
}

}  // namespace barracuda::emu
