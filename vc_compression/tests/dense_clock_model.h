// Plain per-thread vector clocks (a dense N x N matrix) with the same operations
// as the compressed clocks, including the barrier relabelling documented in
// block_clocks.h. The property test replays random operations on both.
#ifndef BARRACUDA_VC_COMPRESSION_TESTS_DENSE_CLOCK_MODEL_H_
#define BARRACUDA_VC_COMPRESSION_TESTS_DENSE_CLOCK_MODEL_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "vc_compression/vector_clock.h"

namespace barracuda::vc::testing {

using Dense = std::vector<Clock>;

class DenseClocks {
 public:
  explicit DenseClocks(uint32_t threads) : c_(threads, Dense(threads, 0)) {
    for (uint32_t t = 0; t < threads; ++t) c_[t][t] = 1;
  }
  uint32_t size() const { return static_cast<uint32_t>(c_.size()); }
  const Dense& operator[](uint32_t t) const { return c_[t]; }

  void Increment(uint32_t t) { ++c_[t][t]; }
  void JoinIncrement(const std::vector<uint32_t>& set) {
    Dense vc(size(), 0);
    for (uint32_t t : set) Max(vc, c_[t]);
    for (uint32_t t : set) {
      c_[t] = vc;
      ++c_[t][t];
    }
  }
  void Acquire(uint32_t t, const Dense& s) { Max(c_[t], s); }
  // bar.arrive: the clock joins the generation's released clock, then inc_t.
  void Arrive(uint32_t t, Dense& released) {
    Max(released, c_[t]);
    ++c_[t][t];
  }
  // Barrier completion with relabelling: waiters get the join of their clocks
  // and what arrivals released; each waiter is seen at m and moves to m+1.
  void Barrier(const std::vector<uint32_t>& sync, const Dense& released) {
    Dense vc = released;
    Clock m = 0;
    for (uint32_t t : sync) {
      Max(vc, c_[t]);
      m = std::max(m, c_[t][t]);
    }
    for (uint32_t t : sync) vc[t] = m;
    for (uint32_t t : sync) {
      c_[t] = vc;
      c_[t][t] = m + 1;
    }
  }
  static void Max(Dense& a, const Dense& b) {
    for (size_t i = 0; i < a.size(); ++i) a[i] = std::max(a[i], b[i]);
  }

 private:
  std::vector<Dense> c_;
};

inline Dense ToDense(const VectorClock& v, uint32_t n) {
  Dense d(n, 0);
  v.ForEachPiece([&](uint64_t first, uint64_t end, Clock value) {
    for (uint64_t u = first; u < end && u < n; ++u) d[u] = value;
  });
  return d;
}

inline VectorClock FromDense(const Dense& d) {
  VectorClock v;
  for (uint32_t u = 0; u < d.size(); ++u) {
    if (d[u] != 0) v.Set(u, d[u]);
  }
  return v;
}

}  // namespace barracuda::vc::testing

#endif  // BARRACUDA_VC_COMPRESSION_TESTS_DENSE_CLOCK_MODEL_H_
