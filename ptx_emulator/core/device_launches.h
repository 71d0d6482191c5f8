// Dynamic parallelism: grids that kernels launch from device code (`<<<>>>`
// in a kernel, CUDA 12+'s device runtime, "CDP2"). nvcc turns such a launch
// into __cudaCDP2GetParameterBufferV2 (a buffer for the child's parameters)
// and __cudaCDP2LaunchDeviceV2 (launch it); the emulator implements both as
// builtins (exec/builtins.cpp) that record the child here, and the runtime
// runs the recorded children once the launching grid has ended
// (runtime/launch.cpp), their own children after them.
//
// Running a child after its parent is one of the executions CDP2 allows: a
// parent can no longer wait for its children (device-side
// cudaDeviceSynchronize is gone), a child sees everything its launching
// thread did before the launch, and the parent grid completes only after
// its children. Children are run in the order (launching block, thread,
// launch of that thread), whatever the order the emulator's workers reached
// the launches in: the same run, and report, every time.
#ifndef BARRACUDA_PTX_EMULATOR_CORE_DEVICE_LAUNCHES_H_
#define BARRACUDA_PTX_EMULATOR_CORE_DEVICE_LAUNCHES_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace barracuda::emu {

struct DeviceLaunch {
  uint32_t kernel = 0;  // function index
  std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  uint32_t shared_bytes = 0;
  uint64_t stream = 0;             // the device-side stream handle given (0: the block's default stream)
  std::vector<uint8_t> params;     // the child's parameter buffer, as the parent filled it
  uint64_t buffer = 0;             // where it was (device memory the runtime frees)
  uint64_t launcher_block = 0;     // grid-linear block of the launching thread
  uint32_t launcher_thread = 0;    // block-linear thread
  uint32_t launcher_sequence = 0;  // earlier launches of that thread
  uint64_t parent_launch = 0;      // launch id of the launching grid
};

class DeviceLaunches {
 public:
  // A parameter buffer handed out for `kernel` (__cudaCDP2GetParameterBufferV2).
  void NoteBuffer(uint64_t buffer, DeviceLaunch pending) {
    std::lock_guard<std::mutex> lock(mu_);
    buffers_[buffer] = std::move(pending);
  }
  // The launch of `buffer` (__cudaCDP2LaunchDeviceV2): false when no buffer
  // was handed out at that address (or it was launched already).
  bool Launch(uint64_t buffer, uint64_t stream, const uint8_t* params, uint64_t block, uint32_t thread,
              uint64_t parent_launch) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = buffers_.find(buffer);
    if (it == buffers_.end()) return false;
    DeviceLaunch l = std::move(it->second);
    buffers_.erase(it);
    l.stream = stream;
    l.buffer = buffer;
    l.params.assign(params, params + l.params.size());
    l.launcher_block = block;
    l.launcher_thread = thread;
    l.parent_launch = parent_launch;
    uint32_t sequence = 0;
    for (const DeviceLaunch& q : queued_)
      sequence += q.launcher_block == block && q.launcher_thread == thread && q.parent_launch == parent_launch;
    l.launcher_sequence = sequence;
    queued_.push_back(std::move(l));
    return true;
  }
  // The launches recorded so far, in launcher order; the queue is emptied.
  // Buffers handed out and never launched are forgotten (their memory is
  // the caller's to free: Buffers()).
  std::vector<DeviceLaunch> Take() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<DeviceLaunch> out = std::move(queued_);
    queued_.clear();
    // A total key (a thread's launches are numbered): std::sort, not
    // stable_sort (libstdc++ 12's warns under clang 19).
    std::sort(out.begin(), out.end(), [](const DeviceLaunch& a, const DeviceLaunch& b) {
      return std::tie(a.parent_launch, a.launcher_block, a.launcher_thread, a.launcher_sequence) <
             std::tie(b.parent_launch, b.launcher_block, b.launcher_thread, b.launcher_sequence);
    });
    return out;
  }
  // Parameter buffers not launched (the runtime frees them after the grid).
  std::vector<uint64_t> TakeUnlaunchedBuffers() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<uint64_t> out;
    for (const auto& [buffer, pending] : buffers_) out.push_back(buffer);
    buffers_.clear();
    return out;
  }

 private:
  std::mutex mu_;
  absl::flat_hash_map<uint64_t, DeviceLaunch> buffers_;
  std::vector<DeviceLaunch> queued_;
};

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_CORE_DEVICE_LAUNCHES_H_
