#include "shadow_memory/shadow_memory.h"

namespace barracuda::shadow {

ShadowMemory::ShadowMemory(const ShadowOptions& options)
    : accounting_(options.memory_limit_bytes),
      vcs_(&accounting_),
      global_(&accounting_),
      shared_(&accounting_, &vcs_) {}

void ShadowMemory::BeginLaunch(uint64_t num_blocks, uint32_t shared_window_bytes) {
  if (in_launch_) EndLaunch();
  shared_.BeginLaunch(num_blocks, shared_window_bytes);
  in_launch_ = true;
}

void ShadowMemory::EndLaunch() {
  // Cells go first: after this nothing refers to a pooled clock.
  global_.Reset();
  shared_.EndLaunch();
  vcs_.Reset();
  accounting_.Count(ShadowEvent::kLaunchesReset);
  in_launch_ = false;
}

ShadowStats ShadowMemory::Stats() const {
  ShadowStats s;
  accounting_.Snapshot(&s);
  s.live_global_pages = global_.live_pages();
  s.live_vcs = vcs_.live();
  return s;
}

}  // namespace barracuda::shadow
