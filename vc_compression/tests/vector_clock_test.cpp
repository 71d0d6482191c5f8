#include "vc_compression/vector_clock.h"

#include <catch2/catch.hpp>
#include <random>

#include "vc_compression/tests/dense_clock_model.h"

namespace barracuda::vc {
namespace {

using testing::Dense;

TEST_CASE("VectorClock bottom and point updates", "[vc]") {
  VectorClock v;
  CHECK(v.IsBottom());
  CHECK(v.Get(12345) == 0);
  v.Set(7, 3);
  CHECK(v.Get(7) == 3);
  CHECK(v.Get(6) == 0);
  CHECK(v.Get(8) == 0);
  CHECK(v.piece_count() == 3);
  v.Increment(7);
  CHECK(v.Get(7) == 4);
  CHECK(v.Covers(Epoch(7, 4)));
  CHECK_FALSE(v.Covers(Epoch(7, 5)));
  CHECK(v.Covers(Epoch(100, 0)));
  v.Set(7, 0);
  CHECK(v.IsBottom());
}

TEST_CASE("VectorClock ranges at the ends of the tid space", "[vc]") {
  VectorClock v;
  v.SetRange(0, VectorClock::kTidEnd, 5);
  CHECK(v.piece_count() == 1);
  CHECK(v.Get(0xffffffffu) == 5);
  v.RaiseRange(0xfffffff0u, VectorClock::kTidEnd, 9);
  CHECK(v.Get(0xffffffffu) == 9);
  CHECK(v.Get(0xffffffefu) == 5);
  CHECK(v.MaxIn(0, 100) == 5);
  CHECK(v.MaxIn(0, VectorClock::kTidEnd) == 9);
}

TEST_CASE("VectorClock agrees with dense vectors on random operations", "[vc][property]") {
  std::mt19937_64 rng(42);
  constexpr uint32_t kN = 48;
  for (int trial = 0; trial < 300; ++trial) {
    VectorClock a, b;
    Dense da(kN, 0), db(kN, 0);
    for (int step = 0; step < 60; ++step) {
      uint32_t lo = static_cast<uint32_t>(rng() % kN);
      uint32_t hi = lo + 1 + static_cast<uint32_t>(rng() % (kN - lo));
      Clock c = static_cast<Clock>(rng() % 6);
      VectorClock& x = rng() % 2 ? a : b;
      Dense& dx = &x == &a ? da : db;
      switch (rng() % 5) {
        case 0:
          x.SetRange(lo, hi, c);
          for (uint32_t u = lo; u < hi; ++u) dx[u] = c;
          break;
        case 1:
          x.RaiseRange(lo, hi, c);
          for (uint32_t u = lo; u < hi; ++u) dx[u] = std::max(dx[u], c);
          break;
        case 2:
          x.Set(lo, c);
          dx[lo] = c;
          break;
        case 3:
          a.Join(b);
          testing::DenseClocks::Max(da, db);
          break;
        default:
          b.Join(a);
          testing::DenseClocks::Max(db, da);
          break;
      }
      REQUIRE(testing::ToDense(a, kN) == da);
      REQUIRE(testing::ToDense(b, kN) == db);
      REQUIRE(a.MaxIn(kN, VectorClock::kTidEnd) == 0);
      bool le = true;
      for (uint32_t u = 0; u < kN; ++u) le = le && da[u] <= db[u];
      REQUIRE(a.LessOrEqual(b) == le);
      REQUIRE((a == b) == (da == db));
      Clock mx = 0;
      for (uint32_t u = lo; u < hi; ++u) mx = std::max(mx, da[u]);
      REQUIRE(a.MaxIn(lo, hi) == mx);
    }
  }
}

}  // namespace
}  // namespace barracuda::vc
