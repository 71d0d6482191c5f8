// The narrow floating-point formats of cvt (PTX ISA "Alternate floating-point
// data formats"): encoding and exact decoding, shared by the conversion
// handlers and their tests.
//
//   .e4m3  sign, 4 exponent bits (bias 7), 3 fraction bits. No infinity; the
//          only NaNs are S.1111.111 (0x7f / 0xff); the largest finite value
//          is S.1111.110 = 448.
//   .e5m2  sign, 5 exponent bits (bias 15), 2 fraction bits, IEEE 754 layout:
//          S.11111.00 is infinity, S.11111.{01,10,11} NaN; largest finite
//          S.11110.11 = 57344.
//   .e2m3  (fp6) sign, 2 exponent bits (bias 1), 3 fraction bits in the low 6
//          bits of a byte; every code finite, largest 7.5.
//   .e3m2  (fp6) sign, 3 exponent bits (bias 3), 2 fraction bits; largest 28.
//   .e2m1  (fp4) sign, 2 exponent bits (bias 1), 1 fraction bit in 4 bits;
//          largest 6.
// All have subnormals (exponent field 0: 0.m * 2^(1 - bias)). Every value of
// each format is exactly an f16 value (and an f32 value).
//   .ue8m0 an unsigned power of two, 2^(code - 127), for scale factors; 0xff
//          is NaN, no zero.
// The rules below are those of the CUDA toolkit's cuda_fp8/fp6/fp4.hpp, whose
// host code stands for the device instructions.
#ifndef BARRACUDA_PTX_EMULATOR_OPS_FP_NARROW_H_
#define BARRACUDA_PTX_EMULATOR_OPS_FP_NARROW_H_

#include <cstdint>

namespace barracuda::emu::fp {

enum class Narrow8 : uint8_t { kE4m3, kE5m2, kE2m3, kE3m2, kE2m1 };

// Bits of one element's code in a packed register (8, 6 in a byte, 4).
constexpr int CodeBits(Narrow8 fmt) {
  return fmt == Narrow8::kE2m1 ? 4 : fmt == Narrow8::kE2m3 || fmt == Narrow8::kE3m2 ? 6 : 8;
}
// Distance between the two elements of a pair register (.e2m1x2: 4 bits;
// the others a byte each).
constexpr int PairShift(Narrow8 fmt) { return fmt == Narrow8::kE2m1 ? 4 : 8; }

// The NaN cvt produces in the fp8 formats (PTX: "canonical NaN"; the GPU and
// cuda_fp8.hpp's host code give 0x7f for both). fp6 and fp4 have no NaN: a
// NaN input gives their positive largest finite value.
inline constexpr uint8_t kCanonicalNanNarrow8 = 0x7f;

// Exact value of a code (bits above CodeBits ignored; NaN for the NaN codes,
// +-inf for e5m2's infinities).
float Narrow8ToF32(uint8_t code, Narrow8 fmt);

// cvt.rn.f16x2.{e4m3x2,e5m2x2,e2m3x2,e3m2x2,e2m1x2} on one element: the f16
// bits of the code's value (exact); NaN gives the canonical f16 NaN 0x7fff.
// relu: negative values and -0 give +0.
uint16_t Narrow8ToF16(uint8_t code, Narrow8 fmt, bool relu);

// cvt.rn.satfinite{.relu}.<format>x2.{f32,f16x2,bf16x2} on one element: x
// (any finite or infinite double; f32/f16/bf16 values are exact) rounded to
// nearest even with the format's subnormals; |x| beyond the largest finite
// value (infinities included) gives the signed largest finite value
// (.satfinite); NaN gives kCanonicalNanNarrow8 (fp8) or the positive largest
// finite value (fp6, fp4). relu: a negative result (and -0) gives +0, NaN
// stays as above.
uint8_t F64ToNarrow8(double x, Narrow8 fmt, bool relu);

// cvt.{rz,rp}{.satfinite}.ue8m0x2.bf16x2 on one element: the exponent field of
// |x| (.rz), plus one when a non-zero fraction remains above 2^-127 (.rp);
// NaN and, without .satfinite, infinity or a carry past 2^127 give 0xff;
// .satfinite turns those non-NaN results into 0xfe.
uint8_t Bf16ToUe8m0(uint16_t x, bool round_up, bool satfinite);
// cvt.{rz,rp}{.satfinite}.ue8m0x2.f32 on one element: x first rounded to
// bf16 toward zero (.rz) or its magnitude upward (.rp), then as above.
uint8_t F32ToUe8m0(float x, bool round_up, bool satfinite);
// cvt.rn.bf16x2.ue8m0x2 on one element: 2^(code - 127) as bf16 (code 0 is the
// subnormal 2^-127 = 0x0040), 0xff the canonical NaN 0x7fff.
uint16_t Ue8m0ToBf16(uint8_t code);

}  // namespace barracuda::emu::fp

#endif  // BARRACUDA_PTX_EMULATOR_OPS_FP_NARROW_H_
