#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <vector>

#include "shadow_memory/key_map.h"

using namespace barracuda::shadow;

namespace {
std::map<VcKey, VcEntry> Contents(const KeyMap& m) {
  std::map<VcKey, VcEntry> out;
  m.ForEach([&](VcKey k, const VcEntry& e) {
    CHECK(out.count(k) == 0);
    out[k] = e;
  });
  return out;
}

// Random inserts, erases and EraseIf against std::map, with keys drawn by
// `draw`; checks Find, size and ForEach after every step.
template <class Draw>
void AgreesWithMap(Draw draw, unsigned seed) {
  std::mt19937_64 rng(seed);
  KeyMap m;
  std::map<VcKey, VcEntry> want;
  const VcEntry common{7, 3, true};
  for (int step = 0; step < 4000; ++step) {
    const VcKey k = draw(rng);
    const unsigned op = rng() % 16;
    if (op < 10) {
      if (want.count(k) != 0) continue;
      const VcEntry e = op < 8 ? common : VcEntry{static_cast<Clock>(1 + rng() % 5), 1, false};
      m.Insert(k, e);
      want[k] = e;
    } else if (op < 15) {
      if (want.empty()) continue;
      auto it = want.lower_bound(k);
      if (it == want.end()) it = want.begin();
      m.Erase(it->first);
      want.erase(it);
    } else {
      const VcKey odd = rng() % 2;
      m.EraseIf([&](VcKey key, const VcEntry&) { return key % 2 == odd && key % 3 == 0; });
      std::erase_if(want, [&](const auto& kv) { return kv.first % 2 == odd && kv.first % 3 == 0; });
    }
    REQUIRE(m.size() == want.size());
    const VcKey probe = draw(rng);
    const VcEntry* got = m.Find(probe);
    REQUIRE((got != nullptr) == (want.count(probe) != 0));
    if (got != nullptr) REQUIRE(*got == want[probe]);
    if (step % 97 == 0) REQUIRE(Contents(m) == want);
  }
  REQUIRE(Contents(m) == want);
  size_t groups = 0;
  m.ForEachGroup([&](const VcEntry&, uint32_t n) { groups += n; });
  REQUIRE(groups == want.size());
}
}  // namespace

TEST_CASE("key map agrees with a map for the thread ids of one launch") {
  AgreesWithMap([](std::mt19937_64& rng) { return VcKey{rng() % 70000}; }, 1);
}

TEST_CASE("key map agrees with a map when keys arrive in descending order") {
  VcKey next = 1 << 20;
  AgreesWithMap([&](std::mt19937_64& rng) { return next -= 1 + rng() % 300; }, 2);
}

TEST_CASE("key map agrees with a map for keys spread over 64 bits") {
  // Reader keys of several kinds (ReaderKey puts the kind above bit 32).
  AgreesWithMap([](std::mt19937_64& rng) { return (VcKey{rng() % 3} << 32) | (rng() % 5000); }, 3);
  AgreesWithMap([](std::mt19937_64& rng) { return VcKey{rng()}; }, 4);
}

TEST_CASE("key map keeps compact pages cheap and spread ones bounded") {
  KeyMap compact;
  for (VcKey t = 0; t < 65536; ++t) compact.Insert(t, VcEntry{1, 1, true});
  // 256 pages of 256 bits: 32 bytes each, at most twice over for the
  // vector's growth.
  CHECK(compact.Bytes() <= sizeof(KeyMap) + 2 * 256 * 32);
  KeyMap spread;
  for (VcKey t = 0; t < 1000; ++t) spread.Insert(t << 20, VcEntry{1, 1, true});
  // One page per key: hash-mapped, not a vector over 2^32 keys.
  CHECK(spread.Bytes() < 1000 * 200);
  for (VcKey t = 0; t < 1000; ++t) spread.Erase(t << 20);
  CHECK(spread.size() == 0);
  CHECK(spread.Bytes() <= sizeof(KeyMap) + 64);
}
