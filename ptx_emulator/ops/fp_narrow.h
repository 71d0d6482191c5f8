// The 8-bit floating-point formats of cvt (PTX ISA "Alternate floating-point
// data formats"): encoding and exact decoding, shared by the conversion
// handlers and their tests.
//
//   .e4m3  sign, 4 exponent bits (bias 7), 3 fraction bits. No infinity; the
//          only NaNs are S.1111.111 (0x7f / 0xff); the largest finite value
//          is S.1111.110 = 448.
//   .e5m2  sign, 5 exponent bits (bias 15), 2 fraction bits, IEEE 754 layout:
//          S.11111.00 is infinity, S.11111.{01,10,11} NaN; largest finite
//          S.11110.11 = 57344.
// Both have subnormals (exponent field 0: 0.m * 2^(1 - bias)). Every value of
// either format is exactly an f16 value (and an f32 value).
#ifndef BARRACUDA_PTX_EMULATOR_OPS_FP_NARROW_H_
#define BARRACUDA_PTX_EMULATOR_OPS_FP_NARROW_H_

#include <cstdint>

namespace barracuda::emu::fp {

enum class Narrow8 : uint8_t { kE4m3, kE5m2 };

// The NaN cvt produces in these formats (PTX: "canonical NaN"; the GPU and
// cuda_fp8.hpp's host code give 0x7f for both).
inline constexpr uint8_t kCanonicalNanNarrow8 = 0x7f;

// Exact value of a code (NaN for the NaN codes, +-inf for e5m2's infinities).
float Narrow8ToF32(uint8_t code, Narrow8 fmt);

// cvt.rn.f16x2.{e4m3x2,e5m2x2} on one element: the f16 bits of the code's
// value (exact); NaN gives the canonical f16 NaN 0x7fff. relu: negative
// values and -0 give +0.
uint16_t Narrow8ToF16(uint8_t code, Narrow8 fmt, bool relu);

// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32,f16x2,bf16x2} on one element:
// x (any finite or infinite double; f32/f16/bf16 values are exact) rounded to
// nearest even with the format's subnormals; |x| beyond the largest finite
// value (infinities included) gives the signed largest finite value (.satfinite),
// NaN gives kCanonicalNanNarrow8. relu: a negative result (and -0) gives +0,
// NaN stays NaN.
uint8_t F64ToNarrow8(double x, Narrow8 fmt, bool relu);

}  // namespace barracuda::emu::fp

#endif  // BARRACUDA_PTX_EMULATOR_OPS_FP_NARROW_H_
