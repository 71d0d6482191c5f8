// The runnable warps of one worker, in a stable order between changes.
// O(1) add/remove (swap with the last); deterministic.
#ifndef BARRACUDA_PTX_EMULATOR_EXEC_RUN_QUEUE_H_
#define BARRACUDA_PTX_EMULATOR_EXEC_RUN_QUEUE_H_

#include <cstddef>
#include <span>
#include <vector>

#include "ptx_emulator/exec/warp.h"

namespace barracuda::emu {

class RunQueue {
 public:
  void Add(Warp* w) {
    w->queued = true;
    w->run_index = static_cast<uint32_t>(warps_.size());
    warps_.push_back(w);
  }
  void Remove(Warp* w) {
    Warp* last = warps_.back();
    warps_[w->run_index] = last;
    last->run_index = w->run_index;
    warps_.pop_back();
    w->queued = false;
  }
  bool empty() const { return warps_.empty(); }
  size_t size() const { return warps_.size(); }
  Warp* operator[](size_t i) const { return warps_[i]; }
  std::span<Warp* const> warps() const { return warps_; }

 private:
  std::vector<Warp*> warps_;
};

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_EXEC_RUN_QUEUE_H_
