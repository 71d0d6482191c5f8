// The proxy fences (fence.proxy.async) of one launch, per thread, and the
// test they serve: is a generic-proxy write ordered before an async-proxy
// access (a bulk copy or TMA: protocol kFlagAsyncProxy)?
//
// PTX ISA, "Async proxy": accessing one location through two proxies needs a
// cross-proxy fence. A generic write W of thread u is ordered before an
// async-proxy access issued by t when a proxy fence F lies on the causality
// path from W to the issue. The detector checks the two places F can be
// without a second clock per synchronisation location
// (SEMANTICS.md "Proxies"):
//   - u fenced after W, and t is ordered after that fence: some fence of u at
//     local clock f with w <= f <= t's clock of u (a fence increments u's
//     clock, so accesses at clock <= f precede it);
//   - t fenced after it was ordered after W: t's clock at its last fence
//     covers (u, w).
// A fence by a third thread between them is not seen (a false "proxy" race
// there; documented).
//
// Written when fence records are analysed, read by other blocks' workers:
// one mutex, taken only by fences and by the proxy test of async-proxy
// accesses (rare next to plain accesses).
#ifndef BARRACUDA_HOST_DETECTOR_DETECTOR_PROXY_FENCES_H_
#define BARRACUDA_HOST_DETECTOR_DETECTOR_PROXY_FENCES_H_

#include <algorithm>
#include <mutex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "vc_compression/vector_clock.h"

namespace barracuda::detector {

class ProxyFences {
 public:
  // Thread t fenced at local clock `at` knowing `knowledge` (its clock then).
  void Note(vc::ThreadId t, vc::Clock at, vc::VectorClock knowledge) {
    std::lock_guard<std::mutex> lock(mu_);
    Fences& f = by_thread_[t];
    if (f.at.empty() || f.at.back() < at) f.at.push_back(at);
    f.knowledge = std::move(knowledge);
  }

  // Is the generic write (u, w) ordered before an access of thread t through
  // a proxy fence? `known_of_u`: t's clock entry for u at the access.
  bool Orders(vc::ThreadId u, vc::Clock w, vc::ThreadId t, vc::Clock known_of_u) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = by_thread_.find(t); it != by_thread_.end() && w <= it->second.knowledge.Get(u)) return true;
    auto it = by_thread_.find(u);
    if (it == by_thread_.end()) return false;
    const std::vector<vc::Clock>& at = it->second.at;
    auto f = std::lower_bound(at.begin(), at.end(), w);
    return f != at.end() && *f <= known_of_u;
  }

  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    by_thread_.clear();
  }

 private:
  struct Fences {
    std::vector<vc::Clock> at;  // ascending local clocks of the thread's fences
    vc::VectorClock knowledge;  // the thread's clock at its last fence
  };
  mutable std::mutex mu_;
  absl::flat_hash_map<vc::ThreadId, Fences> by_thread_;
};

}  // namespace barracuda::detector

#endif  // BARRACUDA_HOST_DETECTOR_DETECTOR_PROXY_FENCES_H_
