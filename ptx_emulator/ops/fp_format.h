// Bit-level floating-point helpers shared by the float and conversion
// families: register encodings, flush-to-zero, canonical NaNs, exact
// half/bfloat16 widening, and one correctly rounded narrowing routine
// (RoundToFormat) used for every conversion that C++ cannot do natively
// (f16/bf16/tf32 targets, directed rounding of int->float and f64->f32).
//
// Register encoding (core/warp_context.h): a 64-bit slot holds f64 bits, or
// f32 bits in the low 32, or f16/bf16 bits in the low 16; x2 packs hold the
// element 0 in the low half. Writers zero-extend.
#ifndef BARRACUDA_PTX_EMULATOR_OPS_FP_FORMAT_H_
#define BARRACUDA_PTX_EMULATOR_OPS_FP_FORMAT_H_

#include <bit>
#include <cmath>
#include <cstdint>

namespace barracuda::emu::fp {

// Rounding of a floating-point result (integer rounding of cvt is separate).
enum class RoundMode : uint8_t { kRn, kRz, kRm, kRp, kRna };

// Canonical NaNs the GPU produces (PTX leaves f32/f16 NaN payloads
// unspecified; hardware returns these).
inline constexpr uint32_t kCanonicalNanF32 = 0x7fffffffu;
inline constexpr uint16_t kCanonicalNanF16 = 0x7fff;
inline constexpr uint16_t kCanonicalNanBf16 = 0x7fff;

inline float F32(uint64_t v) { return std::bit_cast<float>(static_cast<uint32_t>(v)); }
inline double F64(uint64_t v) { return std::bit_cast<double>(v); }
inline uint64_t Bits(float f) { return std::bit_cast<uint32_t>(f); }
inline uint64_t Bits(double d) { return std::bit_cast<uint64_t>(d); }

// Flush a subnormal to a zero of the same sign (.ftz); other values unchanged.
inline float FlushF32(float f) {
  const uint32_t b = std::bit_cast<uint32_t>(f);
  return (b & 0x7f800000u) == 0 ? std::bit_cast<float>(b & 0x80000000u) : f;
}
inline uint16_t FlushF16(uint16_t h) { return (h & 0x7c00) == 0 ? static_cast<uint16_t>(h & 0x8000) : h; }
inline uint16_t FlushBf16(uint16_t h) { return (h & 0x7f80) == 0 ? static_cast<uint16_t>(h & 0x8000) : h; }

inline bool IsNanF16(uint16_t h) { return (h & 0x7fff) > 0x7c00; }
inline bool IsNanBf16(uint16_t h) { return (h & 0x7fff) > 0x7f80; }

// Exact widening.
inline float Bf16ToF32(uint16_t h) { return std::bit_cast<float>(static_cast<uint32_t>(h) << 16); }
inline float F16ToF32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  uint32_t man = h & 0x3ff;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | man << 13);  // inf / NaN
  if (exp != 0) return std::bit_cast<float>(sign | (exp + 112) << 23 | man << 13);
  if (man == 0) return std::bit_cast<float>(sign);
  // Subnormal: value = man * 2^-24, exact in f32.
  const float mag = static_cast<float>(man) * 0x1p-24f;
  return sign ? -mag : mag;
}

// Rounds the exact value (-1)^neg * (sig + sticky) * 2^exp, where `sticky`
// means "plus something in (0, 1)", to the binary format with kExp exponent
// bits and kMan fraction bits (IEEE layout, with infinities). sig must be
// nonzero. satfinite: overflow gives the largest finite value instead of inf.
template <int kExp, int kMan>
uint64_t RoundToFormat(bool neg, uint64_t sig, int exp, bool sticky, RoundMode mode, bool satfinite = false) {
  static_assert(1 + kExp + kMan <= 64);
  constexpr int kBias = (1 << (kExp - 1)) - 1;
  constexpr int kEmin = 1 - kBias;
  constexpr int kEmax = kBias;
  constexpr uint64_t kManMask = (uint64_t{1} << kMan) - 1;
  const uint64_t sign = neg ? uint64_t{1} << (kExp + kMan) : 0;
  const int msb = 63 - std::countl_zero(sig);
  const int e = msb + exp;  // exponent of the leading bit
  int lsb_exp = (e < kEmin ? kEmin : e) - kMan;
  const int shift = lsb_exp - exp;  // bits of sig below the target's last place
  uint64_t q;
  bool above_half = false, at_half = false, below_half = sticky;  // the discarded part
  if (shift <= 0) {
    q = sig << -shift;  // exact (fits: q < 2^(kMan+1))
  } else if (shift > 64) {
    q = 0;
    below_half = true;
  } else {
    const uint64_t rem = shift == 64 ? sig : sig & ((uint64_t{1} << shift) - 1);
    q = shift == 64 ? 0 : sig >> shift;
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rem > half || (rem == half && sticky)) above_half = true;
    else if (rem == half) at_half = true;
    else below_half = rem != 0 || sticky;
  }
  const bool inexact = above_half || at_half || below_half;
  bool up = false;
  switch (mode) {
    case RoundMode::kRn: up = above_half || (at_half && (q & 1)); break;
    case RoundMode::kRna: up = above_half || at_half; break;
    case RoundMode::kRz: break;
    case RoundMode::kRm: up = neg && inexact; break;
    case RoundMode::kRp: up = !neg && inexact; break;
  }
  q += up;
  if (q >> (kMan + 1)) {  // carried into a new binade
    q >>= 1;
    ++lsb_exp;
  }
  const bool normal = (q >> kMan) != 0;
  const int biased = normal ? lsb_exp + kMan + kBias : 0;
  if (normal && lsb_exp + kMan > kEmax) {
    const uint64_t max_finite = sign | (uint64_t{2 * kBias} << kMan) | kManMask;
    const uint64_t inf = sign | (uint64_t{2 * kBias + 1} << kMan);
    if (satfinite) return max_finite;
    switch (mode) {
      case RoundMode::kRn:
      case RoundMode::kRna: return inf;
      case RoundMode::kRz: return max_finite;
      case RoundMode::kRm: return neg ? inf : max_finite;
      case RoundMode::kRp: return neg ? max_finite : inf;
    }
  }
  return sign | static_cast<uint64_t>(biased) << kMan | (q & kManMask);
}

// Decomposes a finite nonzero double into (neg, sig, exp) with value sig*2^exp.
struct Decomposed {
  bool neg;
  uint64_t sig;
  int exp;
};
inline Decomposed Decompose(double d) {
  const uint64_t b = std::bit_cast<uint64_t>(d);
  const bool neg = b >> 63;
  const int biased = static_cast<int>((b >> 52) & 0x7ff);
  const uint64_t man = b & ((uint64_t{1} << 52) - 1);
  if (biased == 0) return {neg, man, -1074};
  return {neg, man | uint64_t{1} << 52, biased - 1075};
}

// A target format for RoundDouble: f16 (5,10), bf16 (8,7), f32 (8,23), tf32
// as f32 with 10 fraction bits.
template <int kExp, int kMan>
struct Format {
  static constexpr int kExpBits = kExp;
  static constexpr int kManBits = kMan;
  static constexpr uint64_t kInf = uint64_t{(1u << kExp) - 1} << kMan;
  static constexpr uint64_t kSign = uint64_t{1} << (kExp + kMan);
};
using F16Format = Format<5, 10>;
using Bf16Format = Format<8, 7>;
using F32Format = Format<8, 23>;

// Rounds the exact value s + e (s, e doubles with |e| <= ulp(s)/2, e.g. an
// error-free TwoSum pair; e = 0 for an exact s) to a format with fewer than 52
// fraction bits. NaN -> `nan`, infinities stay infinite (or max finite with
// satfinite). Zero keeps the sign of s.
template <typename Fmt>
uint64_t RoundDouble(double s, double e, RoundMode mode, uint64_t nan, bool satfinite = false) {
  if (std::isnan(s)) return nan;
  if (std::isinf(s)) {
    const uint64_t sign = std::signbit(s) ? Fmt::kSign : 0;
    return satfinite ? sign | (Fmt::kInf - (uint64_t{1} << Fmt::kManBits)) | ((uint64_t{1} << Fmt::kManBits) - 1)
                     : sign | Fmt::kInf;
  }
  if (s == 0) return std::signbit(s) ? Fmt::kSign : 0;
  Decomposed d = Decompose(s);
  bool sticky = false;
  if (e != 0) {
    sticky = true;
    // The value lies strictly between two doubles adjacent to s; no boundary
    // of a narrower format lies in that open interval, so any value in it
    // rounds alike: represent "slightly below |s|" as (sig*2^8 - 1) + sticky.
    if (std::signbit(e) != std::signbit(s)) {
      d.sig = (d.sig << 8) - 1;
      d.exp -= 8;
    }
  }
  return RoundToFormat<Fmt::kExpBits, Fmt::kManBits>(d.neg, d.sig, d.exp, sticky, mode, satfinite);
}

// Error-free transformation: s = fl(a + b), a + b = s + e exactly (RN mode).
inline void TwoSum(double a, double b, double& s, double& e) {
  s = a + b;
  const double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}

inline uint16_t F32ToF16(float f, RoundMode mode = RoundMode::kRn, bool satfinite = false) {
  return static_cast<uint16_t>(RoundDouble<F16Format>(f, 0.0, mode, kCanonicalNanF16, satfinite));
}
inline uint16_t F32ToBf16(float f, RoundMode mode = RoundMode::kRn, bool satfinite = false) {
  return static_cast<uint16_t>(RoundDouble<Bf16Format>(f, 0.0, mode, kCanonicalNanBf16, satfinite));
}

}  // namespace barracuda::emu::fp

#endif  // BARRACUDA_PTX_EMULATOR_OPS_FP_FORMAT_H_
