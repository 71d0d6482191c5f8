// Table-driven checks of one-instruction rows on the integer harness
// (integer_harness.h), for the Catch2 tests of the integer/bit families.
#ifndef BARRACUDA_PTX_EMULATOR_TESTS_INTEGER_TABLE_H_
#define BARRACUDA_PTX_EMULATOR_TESTS_INTEGER_TABLE_H_

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "ptx_emulator/tests/integer_harness.h"

namespace barracuda::emu::testing {

// One table row: an instruction over %d = f(%a, %b, %c) and its plain C++
// reference on the raw 64-bit register values (the reference truncates its
// inputs and returns the zero-extended result).
struct Row {
  std::string ptx;
  int arity;
  uint64_t (*ref)(uint64_t a, uint64_t b, uint64_t c);
};

// Runs a row over all edge combinations and random inputs, 32 lanes at a
// time; every fourth batch runs under a partial mask and checks that the
// inactive lanes keep their old destination value. Bit-exact.
inline void CheckRow(const Row& row, uint64_t seed = 1) {
  INFO(row.ptx);
  OneInst x(row.ptx);
  REQUIRE(x.status().ok());
  REQUIRE(x.ok());
  static const char* kSrc[] = {"%a", "%b", "%c"};
  Inputs in(seed);
  const size_t n = Inputs::Samples(row.arity);
  uint64_t in_vals[3][kLanes] = {};
  size_t failures = 0;
  for (size_t base = 0, batch = 0; base < n; base += kLanes, ++batch) {
    for (uint32_t l = 0; l < kLanes; ++l)
      for (int k = 0; k < row.arity; ++k) in_vals[k][l] = in.Get(base + l, k, row.arity);
    for (int k = 0; k < row.arity; ++k)
      if (x.HasReg(kSrc[k]))
        for (uint32_t l = 0; l < kLanes; ++l) x.Reg(kSrc[k], l) = in_vals[k][l];
    const uint32_t exec = batch % 4 == 3 ? 0x9a5c3e71u ^ static_cast<uint32_t>(batch) : kFullMask;
    for (uint32_t l = 0; l < kLanes; ++l) x.Reg("%d", l) = 0x5e5e5e5e5e5e5e5eull;
    // Registers may alias (%d can also be a source in some rows): set sources last.
    for (int k = 0; k < row.arity; ++k)
      if (x.HasReg(kSrc[k]))
        for (uint32_t l = 0; l < kLanes; ++l) x.Reg(kSrc[k], l) = in_vals[k][l];
    x.Run(exec);
    for (uint32_t l = 0; l < kLanes; ++l) {
      const uint64_t got = x.Reg("%d", l);
      const uint64_t want = ((exec >> l) & 1) ? row.ref(in_vals[0][l], in_vals[1][l], in_vals[2][l])
                                              : 0x5e5e5e5e5e5e5e5eull;
      if (got != want && failures++ < 3) {
        INFO("lane " << l << " a=0x" << std::hex << in_vals[0][l] << " b=0x" << in_vals[1][l] << " c=0x"
                     << in_vals[2][l] << " got=0x" << got << " want=0x" << want);
        CHECK(got == want);
      }
    }
  }
  CHECK(failures == 0);
}

}  // namespace barracuda::emu::testing

#endif  // BARRACUDA_PTX_EMULATOR_TESTS_INTEGER_TABLE_H_
