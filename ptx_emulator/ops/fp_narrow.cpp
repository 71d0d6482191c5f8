// See fp_narrow.h.
#include "ptx_emulator/ops/fp_narrow.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ptx_emulator/ops/fp_format.h"

namespace barracuda::emu::fp {
namespace {

struct Layout {
  int man_bits;       // fraction bits
  int bias;           // exponent bias
  double max_finite;  // largest finite magnitude
  uint8_t max_code;   // its code (sign clear)
};
constexpr Layout Of(Narrow8 fmt) {
  switch (fmt) {
    case Narrow8::kE4m3: return {3, 7, 448.0, 0x7e};
    case Narrow8::kE5m2: return {2, 15, 57344.0, 0x7b};
    case Narrow8::kE2m3: return {3, 1, 7.5, 0x1f};
    case Narrow8::kE3m2: return {2, 3, 28.0, 0x1f};
    case Narrow8::kE2m1: return {1, 1, 6.0, 0x7};
  }
  return {};
}
constexpr bool IsFp8(Narrow8 fmt) { return fmt == Narrow8::kE4m3 || fmt == Narrow8::kE5m2; }

}  // namespace

float Narrow8ToF32(uint8_t code, Narrow8 fmt) {
  const Layout l = Of(fmt);
  const int sign_bit = CodeBits(fmt) - 1;
  code = static_cast<uint8_t>(code & ((2u << sign_bit) - 1));
  const bool neg = (code >> sign_bit) & 1;
  const int field = (code & ((1u << sign_bit) - 1)) >> l.man_bits;
  const int man = code & ((1 << l.man_bits) - 1);
  float mag;
  if (fmt == Narrow8::kE4m3 && (code & 0x7f) == 0x7f) {
    mag = std::numeric_limits<float>::quiet_NaN();
  } else if (fmt == Narrow8::kE5m2 && field == 31) {
    mag = man == 0 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
  } else if (field == 0) {
    mag = std::ldexp(static_cast<float>(man), 1 - l.bias - l.man_bits);
  } else {
    mag = std::ldexp(static_cast<float>((1 << l.man_bits) | man), field - l.bias - l.man_bits);
  }
  return neg ? -mag : mag;
}

uint16_t Narrow8ToF16(uint8_t code, Narrow8 fmt, bool relu) {
  const float v = Narrow8ToF32(code, fmt);
  if (std::isnan(v)) return kCanonicalNanF16;
  if (relu && std::signbit(v)) return 0;
  return F32ToF16(v);  // exact: every value is an f16 value
}

uint8_t F64ToNarrow8(double x, Narrow8 fmt, bool relu) {
  const Layout l = Of(fmt);
  if (std::isnan(x)) return IsFp8(fmt) ? kCanonicalNanNarrow8 : l.max_code;
  const bool neg = std::signbit(x);
  if (relu && neg) return 0;
  const uint8_t sign = neg ? static_cast<uint8_t>(1u << (CodeBits(fmt) - 1)) : 0;
  const double a = std::fabs(x);
  if (a > l.max_finite) {
    // Round to nearest first: values up to half an ulp above the largest
    // finite value round down to it anyway; beyond, .satfinite clamps.
    return sign | l.max_code;
  }
  if (a == 0) return sign;
  const int emin = 1 - l.bias;
  const int e = std::max(std::ilogb(a), emin);       // exponent of a's binade (or the subnormal one)
  const double quantum = std::ldexp(1.0, e - l.man_bits);
  // a / quantum is exact (a power of two); round it to an integer, ties to
  // even, without depending on the FPU's rounding mode.
  const double t = a / quantum;
  const double whole = std::floor(t), frac = t - whole;  // exact
  uint64_t q = static_cast<uint64_t>(whole);
  if (frac > 0.5 || (frac == 0.5 && (q & 1))) ++q;
  // q in [0, 2^(man_bits+1)]: 2^(man_bits+1) carries into the next binade.
  int exp = e;
  if (q >> (l.man_bits + 1)) {
    q >>= 1;
    ++exp;
  }
  if (q == 0) return sign;  // underflow to zero
  const double r = std::ldexp(static_cast<double>(q), exp - l.man_bits);
  if (r > l.max_finite) return sign | l.max_code;
  const bool normal = (q >> l.man_bits) != 0;
  const int field = normal ? exp + l.bias : 0;
  const uint8_t man = static_cast<uint8_t>(q & ((1u << l.man_bits) - 1));
  return sign | static_cast<uint8_t>(field << l.man_bits) | man;
}

uint8_t Bf16ToUe8m0(uint16_t x, bool round_up, bool satfinite) {
  const uint16_t mag = x & 0x7fff;
  unsigned code = mag >> 7;  // the exponent field: 2^(field - 127) <= |x|
  // Up when a fraction remains, for finite values above the smallest code's
  // 2^-127 (the bf16 subnormal 0x0040): those at or below it give code 0.
  if (round_up && (mag & 0x7f) != 0 && mag > 0x0040 && mag < 0x7f80) ++code;
  if (satfinite && mag <= 0x7f80 && code >= 0xff) code = 0xfe;  // not NaN: the largest finite
  return static_cast<uint8_t>(code > 0xff ? 0xff : code);
}

uint8_t F32ToUe8m0(float x, bool round_up, bool satfinite) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  uint16_t b;
  if ((u & 0x7fffffffu) > 0x7f800000u) {
    b = 0x7fff;  // NaN
  } else if (!round_up) {
    b = static_cast<uint16_t>(u >> 16);  // toward zero
  } else {
    const uint32_t mag = u & 0x7fffffffu;  // |x| upward
    b = static_cast<uint16_t>(mag >> 16);
    if (mag < 0x7f800000u && (mag & 0xffffu) != 0) ++b;
  }
  return Bf16ToUe8m0(b, round_up, satfinite);
}

uint16_t Ue8m0ToBf16(uint8_t code) {
  if (code == 0xff) return 0x7fff;
  if (code == 0) return 0x0040;
  return static_cast<uint16_t>(uint16_t{code} << 7);
}

}  // namespace barracuda::emu::fp
