// Random finite fp8 codes for the tensor-core tests (mma.sync and wgmma
// multiplicands): every code but NaN (e4m3 S.1111.111) and, for e5m2, the
// infinities and NaNs (S.11111.xx), which would make whole rows of D NaN.
#ifndef BARRACUDA_PTX_EMULATOR_TESTS_FP8_CODES_H_
#define BARRACUDA_PTX_EMULATOR_TESTS_FP8_CODES_H_

#include <cstdint>
#include <random>

namespace barracuda::emu::testing {

inline uint32_t RandomFiniteE4m3(std::mt19937& rng) {
  const uint32_t v = rng() & 0xff;
  return (v & 0x7f) == 0x7f ? v & 0xf7 : v;
}

inline uint32_t RandomFiniteE5m2(std::mt19937& rng) {
  const uint32_t v = rng() & 0xff;
  return (v & 0x7c) == 0x7c ? v & 0xbf : v;
}

}  // namespace barracuda::emu::testing

#endif  // BARRACUDA_PTX_EMULATOR_TESTS_FP8_CODES_H_
