// See fp_narrow.h.
#include "ptx_emulator/ops/fp_narrow.h"

#include <algorithm>
#include <cmath>
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
  return fmt == Narrow8::kE4m3 ? Layout{3, 7, 448.0, 0x7e} : Layout{2, 15, 57344.0, 0x7b};
}

}  // namespace

float Narrow8ToF32(uint8_t code, Narrow8 fmt) {
  const Layout l = Of(fmt);
  const bool neg = code & 0x80;
  const int field = (code & 0x7f) >> l.man_bits;
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
  if (relu && (code & 0x80)) return 0;
  return F32ToF16(v);  // exact: every value is an f16 value
}

uint8_t F64ToNarrow8(double x, Narrow8 fmt, bool relu) {
  if (std::isnan(x)) return kCanonicalNanNarrow8;
  const Layout l = Of(fmt);
  const bool neg = std::signbit(x);
  if (relu && neg) return 0;
  const uint8_t sign = neg ? 0x80 : 0;
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

}  // namespace barracuda::emu::fp
