// cvt between every pair of {u8 u16 u32 u64 s8 s16 s32 s64 f16 bf16 f32 f64},
// cvt.{rn,rz}{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b (a -> upper half),
// cvt.{rna,rn,rz}{.satfinite}{.relu}.tf32.f32, cvt.pack.sat,
// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32,f16x2,bf16x2} and
// cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}, the fp6/fp4 pairs
// cvt.rn.satfinite{.relu}.{e2m3x2,e3m2x2,e2m1x2}.f32 and
// cvt.rn{.relu}.f16x2.{e2m3x2,e3m2x2,e2m1x2}, the scale factors
// cvt.{rz,rp}{.satfinite}.ue8m0x2.{f32,bf16x2} and cvt.rn.bf16x2.ue8m0x2
// (fp_narrow.h). Not implemented (refused as unsupported): stochastic
// rounding (.rs, rbits; the x4 forms).
//
// PTX semantics implemented:
// - int -> int: the source is sign/zero-extended from its width, then (with
//   .sat) clamped to the destination range, then truncated.
// - float -> int: integer rounding (.rni .rzi .rmi .rpi; .rzi if none), then
//   clamped to the destination range (always: PTX saturates float->int); NaN
//   gives 0, except 1 << (width-1) when the source is f64 or the destination
//   64-bit.
// - int -> float and narrowing float -> float: correctly rounded in the
//   requested mode (.rn .rz .rm .rp .rna; .rn if none) by RoundToFormat,
//   or by the host FPU where that is the same (.rn into f32/f64).
// - same-size float -> float with integer rounding: round to integral.
// - .ftz flushes f32 subnormal inputs and results; .sat clamps float results
//   to [0, 1] (NaN -> +0); .relu clamps negatives to +0 (NaN -> canonical NaN);
//   .satfinite turns overflow into the largest finite value.
// - Results: signed integers are sign-extended to the 64-bit slot (PTX:
//   "sign-extended to the destination register width"), everything else
//   zero-extended. f32 NaN results are 0x7fffffff, f16/bf16 0x7fff; f64
//   results keep the source NaN's payload.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/ops/fp_arith.h"
#include "ptx_emulator/ops/fp_narrow.h"

namespace barracuda::emu {
namespace fp {
namespace {

using ptx::Type;

constexpr int IntBits(Type t) {
  switch (t) {
    case Type::kU8: case Type::kS8: return 8;
    case Type::kU16: case Type::kS16: return 16;
    case Type::kU32: case Type::kS32: return 32;
    case Type::kU64: case Type::kS64: return 64;
    default: return 0;
  }
}
constexpr bool IntSigned(Type t) { return t == Type::kS8 || t == Type::kS16 || t == Type::kS32 || t == Type::kS64; }
constexpr bool IsInt(Type t) { return IntBits(t) != 0; }
constexpr bool IsFloatKind(Type t) { return t == Type::kF16 || t == Type::kBf16 || t == Type::kF32 || t == Type::kF64; }
constexpr int FloatBits(Type t) { return t == Type::kF64 ? 64 : t == Type::kF32 ? 32 : 16; }
constexpr int Width(Type t) { return IsInt(t) ? IntBits(t) : FloatBits(t); }

// Integer rounding of cvt (float -> int, same-size float -> float).
enum class IntRound : uint8_t { kNone, kRni, kRzi, kRmi, kRpi };

// Inst::aux of a cvt handler.
struct CvtParams {
  RoundMode mode = RoundMode::kRn;
  IntRound irnd = IntRound::kNone;
  bool ftz = false, sat = false, relu = false, satfinite = false;
};
constexpr uint32_t Pack(const CvtParams& p) {
  return uint32_t{static_cast<uint8_t>(p.mode)} | uint32_t{static_cast<uint8_t>(p.irnd)} << 4 | uint32_t{p.ftz} << 8 |
         uint32_t{p.sat} << 9 | uint32_t{p.relu} << 10 | uint32_t{p.satfinite} << 11;
}
constexpr CvtParams Unpack(uint32_t aux) {
  CvtParams p;
  p.mode = static_cast<RoundMode>(aux & 0xf);
  p.irnd = static_cast<IntRound>((aux >> 4) & 0xf);
  p.ftz = (aux >> 8) & 1;
  p.sat = (aux >> 9) & 1;
  p.relu = (aux >> 10) & 1;
  p.satfinite = (aux >> 11) & 1;
  return p;
}

template <Type D>
constexpr uint64_t WidthMask() {
  return Width(D) == 64 ? ~uint64_t{0} : (uint64_t{1} << Width(D)) - 1;
}

// Integer result: truncate to the width, sign-extend signed types to 64 bits.
template <Type D>
uint64_t WriteInt(uint64_t v) {
  constexpr int kBits = IntBits(D);
  if constexpr (kBits == 64) {
    return v;
  } else if constexpr (IntSigned(D)) {
    return static_cast<uint64_t>(static_cast<int64_t>(v << (64 - kBits)) >> (64 - kBits));
  } else {
    return v & WidthMask<D>();
  }
}
template <Type D>
constexpr int64_t SignedMax() {
  return IntBits(D) == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (IntBits(D) - 1)) - 1;
}
template <Type D>
constexpr int64_t SignedMin() {
  return -SignedMax<D>() - 1;
}

// Float source value, exactly, as a double (.ftz flushes an f32 subnormal).
template <Type S>
double ReadFloat(uint64_t a, bool ftz) {
  if constexpr (S == Type::kF64) {
    return F64(a);
  } else if constexpr (S == Type::kF32) {
    return ftz ? FlushF32(F32(a)) : F32(a);
  } else if constexpr (S == Type::kF16) {
    return F16ToF32(static_cast<uint16_t>(a));
  } else {
    return Bf16ToF32(static_cast<uint16_t>(a));
  }
}

template <Type D>
struct FloatFmt;
template <>
struct FloatFmt<Type::kF16> {
  using Fmt = F16Format;
  static constexpr uint64_t kNan = kCanonicalNanF16, kOne = 0x3c00, kSign = 0x8000;
};
template <>
struct FloatFmt<Type::kBf16> {
  using Fmt = Bf16Format;
  static constexpr uint64_t kNan = kCanonicalNanBf16, kOne = 0x3f80, kSign = 0x8000;
};
template <>
struct FloatFmt<Type::kF32> {
  using Fmt = F32Format;
  static constexpr uint64_t kNan = kCanonicalNanF32, kOne = 0x3f800000, kSign = 0x80000000;
};
template <>
struct FloatFmt<Type::kF64> {
  using Fmt = Format<11, 52>;
  static constexpr uint64_t kNan = 0x7fffffffffffffffull, kOne = 0x3ff0000000000000ull, kSign = uint64_t{1} << 63;
};

template <Type D>
bool IsNanBits(uint64_t r) {
  return (r & ~FloatFmt<D>::kSign) > FloatFmt<D>::Fmt::kInf;
}

// .ftz / .sat / .relu on a float result's bits.
template <Type D>
uint64_t FinishFloat(uint64_t r, const CvtParams& p) {
  using F = FloatFmt<D>;
  if constexpr (D == Type::kF32) {
    if (p.ftz && (r & 0x7f800000u) == 0) r &= 0x80000000u;
  }
  if (p.sat) {
    if (IsNanBits<D>(r) || (r & F::kSign)) return 0;  // NaN, negatives, -0 -> +0
    return r > F::kOne ? F::kOne : r;
  }
  if (p.relu) {
    if (IsNanBits<D>(r)) return F::kNan;
    if (r & F::kSign) return 0;
  }
  return r;
}

// Round a double to the float type D.
template <Type D>
uint64_t RoundTo(double x, const CvtParams& p) {
  if constexpr (D == Type::kF64) {
    return Bits(x);
  } else {
    if constexpr (D == Type::kF32) {
      if (p.mode == RoundMode::kRn && !p.satfinite) {
        const float f = static_cast<float>(x);
        return f != f ? uint64_t{kCanonicalNanF32} : Bits(f);
      }
    }
    return RoundDouble<typename FloatFmt<D>::Fmt>(x, 0.0, p.mode, FloatFmt<D>::kNan, p.satfinite);
  }
}

double RoundIntegral(double x, IntRound r) {
  switch (r) {
    case IntRound::kRni: return std::nearbyint(x);  // ties to even in the default mode
    case IntRound::kRmi: return std::floor(x);
    case IntRound::kRpi: return std::ceil(x);
    default: return std::trunc(x);
  }
}

template <Type D, Type S>
struct Cvt {
  static uint64_t Run(uint64_t a, const CvtParams& p) {
    if constexpr (IsInt(D) && IsInt(S)) {
      constexpr int kSrcBits = IntBits(S);
      if constexpr (IntSigned(S)) {
        int64_t v = kSrcBits == 64 ? static_cast<int64_t>(a)
                                   : static_cast<int64_t>(a << (64 - kSrcBits)) >> (64 - kSrcBits);
        if (p.sat) {
          if constexpr (IntSigned(D)) {
            v = v < SignedMin<D>() ? SignedMin<D>() : v > SignedMax<D>() ? SignedMax<D>() : v;
          } else if (v < 0) {
            v = 0;
          } else if (static_cast<uint64_t>(v) > WidthMask<D>()) {
            v = static_cast<int64_t>(WidthMask<D>());
          }
        }
        return WriteInt<D>(static_cast<uint64_t>(v));
      } else {
        uint64_t v = kSrcBits == 64 ? a : a & ((uint64_t{1} << kSrcBits) - 1);
        if (p.sat) {
          const uint64_t hi = IntSigned(D) ? static_cast<uint64_t>(SignedMax<D>()) : WidthMask<D>();
          if (v > hi) v = hi;
        }
        return WriteInt<D>(v);
      }
    } else if constexpr (IsFloatKind(D) && IsInt(S)) {
      constexpr int kSrcBits = IntBits(S);
      bool neg = false;
      uint64_t mag;
      if constexpr (IntSigned(S)) {
        const int64_t v = kSrcBits == 64 ? static_cast<int64_t>(a)
                                         : static_cast<int64_t>(a << (64 - kSrcBits)) >> (64 - kSrcBits);
        if constexpr (D == Type::kF32 || D == Type::kF64) {
          if (p.mode == RoundMode::kRn) {  // the host conversion rounds to nearest even
            using T = std::conditional_t<D == Type::kF32, float, double>;
            return FinishFloat<D>(Bits(static_cast<T>(v)), p);
          }
        }
        neg = v < 0;
        mag = neg ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
      } else {
        mag = kSrcBits == 64 ? a : a & ((uint64_t{1} << kSrcBits) - 1);
        if constexpr (D == Type::kF32 || D == Type::kF64) {
          if (p.mode == RoundMode::kRn) {
            using T = std::conditional_t<D == Type::kF32, float, double>;
            return FinishFloat<D>(Bits(static_cast<T>(mag)), p);
          }
        }
      }
      if (mag == 0) return FinishFloat<D>(0, p);
      using Fmt = typename FloatFmt<D>::Fmt;
      return FinishFloat<D>(RoundToFormat<Fmt::kExpBits, Fmt::kManBits>(neg, mag, 0, false, p.mode, p.satfinite), p);
    } else if constexpr (IsInt(D) && IsFloatKind(S)) {
      double x = ReadFloat<S>(a, p.ftz);
      constexpr int kBits = IntBits(D);
      if (std::isnan(x)) {
        if constexpr (S == Type::kF64 || kBits == 64) return WriteInt<D>(uint64_t{1} << (kBits - 1));
        return 0;
      }
      x = RoundIntegral(x, p.irnd);
      if constexpr (IntSigned(D)) {
        const double lo = -std::ldexp(1.0, kBits - 1), hi = std::ldexp(1.0, kBits - 1);
        if (x <= lo) return WriteInt<D>(static_cast<uint64_t>(SignedMin<D>()));
        if (x >= hi) return WriteInt<D>(static_cast<uint64_t>(SignedMax<D>()));
        return WriteInt<D>(static_cast<uint64_t>(static_cast<int64_t>(x)));
      } else {
        if (x <= 0) return 0;
        if (x >= std::ldexp(1.0, kBits)) return WidthMask<D>();
        return static_cast<uint64_t>(x);
      }
    } else {
      static_assert(IsFloatKind(D) && IsFloatKind(S));
      const double x = ReadFloat<S>(a, p.ftz);
      if constexpr (D == S) {
        if (p.irnd != IntRound::kNone) {
          if (std::isnan(x)) return FinishFloat<D>(FloatFmt<D>::kNan, p);
          return FinishFloat<D>(RoundTo<D>(RoundIntegral(x, p.irnd), p), p);  // exact
        }
        if constexpr (D == Type::kF64) return FinishFloat<D>(a, p);
        else {
          const uint64_t r = a & WidthMask<D>();
          if constexpr (D == Type::kF32) {
            if (p.ftz) return FinishFloat<D>(Bits(FlushF32(F32(r))), p);
          }
          return FinishFloat<D>(IsNanBits<D>(r) ? FloatFmt<D>::kNan : r, p);
        }
      } else {
        if (p.irnd != IntRound::kNone) {  // not PTX (integer rounding needs same sizes); round anyway
          return FinishFloat<D>(RoundTo<D>(std::isnan(x) ? x : RoundIntegral(x, p.irnd), p), p);
        }
        return FinishFloat<D>(RoundTo<D>(x, p), p);  // exact when widening
      }
    }
  }
};

// Fast paths for the conversions nvcc emits in inner loops (index and
// int<->float arithmetic): int -> f32/f64 .rn, f32/f64 -> int .rzi, without
// .ftz/.sat. The same results as Cvt, with no per-lane mode tests.
template <Type D, Type S>
struct CvtFast {
  BARRACUDA_FP_INLINE static uint64_t Run(uint64_t a) {
    if constexpr (IsInt(S)) {
      using T = std::conditional_t<D == Type::kF32, float, double>;
      constexpr int kSrcBits = IntBits(S);
      if constexpr (IntSigned(S)) {
        const int64_t v = kSrcBits == 64 ? static_cast<int64_t>(a)
                                         : static_cast<int64_t>(a << (64 - kSrcBits)) >> (64 - kSrcBits);
        return Bits(static_cast<T>(v));
      } else {
        return Bits(static_cast<T>(kSrcBits == 64 ? a : a & ((uint64_t{1} << kSrcBits) - 1)));
      }
    } else {
      using F = std::conditional_t<S == Type::kF32, float, double>;
      const F x = S == Type::kF32 ? static_cast<F>(F32(a)) : static_cast<F>(F64(a));
      constexpr int kBits = IntBits(D);
      if (x != x) {
        if constexpr (S == Type::kF64 || kBits == 64) return WriteInt<D>(uint64_t{1} << (kBits - 1));
        return 0;
      }
      if constexpr (IntSigned(D)) {
        constexpr F kLo = -static_cast<F>(uint64_t{1} << (kBits - 1)), kHi = static_cast<F>(uint64_t{1} << (kBits - 1));
        if (x <= kLo) return WriteInt<D>(static_cast<uint64_t>(SignedMin<D>()));
        if (x >= kHi) return WriteInt<D>(static_cast<uint64_t>(SignedMax<D>()));
        return WriteInt<D>(static_cast<uint64_t>(static_cast<int64_t>(x)));  // truncates: .rzi
      } else {
        constexpr F kHi = kBits == 64 ? static_cast<F>(18446744073709551616.0) : static_cast<F>(uint64_t{1} << kBits);
        if (!(x > F(-1))) return 0;  // x <= -1 (x in (-1, 0] truncates to 0 below)
        if (x >= kHi) return WidthMask<D>();
        return static_cast<uint64_t>(x);
      }
    }
  }
};

template <Type D, Type S>
void CvtHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  const CvtParams p = Unpack(inst.aux);
  if (exec == kFullMask) {
    uint64_t r[kLanes];
    for (uint32_t l = 0; l < kLanes; ++l) r[l] = Cvt<D, S>::Run(a[l], p);
    std::memcpy(d, r, sizeof r);
    return;
  }
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    d[l] = Cvt<D, S>::Run(a[l], p);
  }
}

// cvt.frnd2{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b: a -> d[31:16], b -> d[15:0].
template <Type D>
void CvtPairHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = ctx.Src(inst.ops[2].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  const CvtParams p = Unpack(inst.aux);
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const uint64_t hi = Cvt<D, Type::kF32>::Run(a[l], p);
    const uint64_t lo = Cvt<D, Type::kF32>::Run(b[l], p);
    d[l] = hi << 16 | lo;
  }
}

// cvt.{rna,rn,rz}{.satfinite}{.relu}.tf32.f32: f32 bits rounded to 10
// fraction bits (the low 13 bits zero).
void CvtTf32Handler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  const CvtParams p = Unpack(inst.aux);
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const double x = F32(a[l]);
    uint64_t r = RoundDouble<Format<8, 10>>(x, 0.0, p.mode, kCanonicalNanF32 >> 13, p.satfinite) << 13;
    if (std::isnan(x)) r = kCanonicalNanF32;
    if (p.relu && !std::isnan(x) && (r & 0x80000000u)) r = 0;
    d[l] = r;
  }
}

// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b: a -> d[15:8], b -> d[7:0].
template <Narrow8 F>
void CvtNarrowPairHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = ctx.Src(inst.ops[2].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  const bool relu = Unpack(inst.aux).relu;
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    d[l] = uint64_t{F64ToNarrow8(F32(a[l]), F, relu)} << PairShift(F) | F64ToNarrow8(F32(b[l]), F, relu);
  }
}

// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f16x2,bf16x2} d, a: a[31:16] ->
// d[15:8], a[15:0] -> d[7:0].
template <Narrow8 F, Type S>
void CvtNarrowFromX2Handler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  const bool relu = Unpack(inst.aux).relu;
  auto half = [](uint64_t h) -> double {
    if constexpr (S == Type::kF16) return F16ToF32(static_cast<uint16_t>(h));
    else return Bf16ToF32(static_cast<uint16_t>(h));
  };
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const uint64_t v = a[l];
    d[l] = uint64_t{F64ToNarrow8(half(v >> 16 & 0xffff), F, relu)} << 8 | F64ToNarrow8(half(v & 0xffff), F, relu);
  }
}

// cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2,e2m3x2,e3m2x2} d, a: a[15:8] -> d[31:16],
// a[7:0] -> d[15:0] (fp6: the low 6 bits of each byte); .e2m1x2: a[7:4] and
// a[3:0].
template <Narrow8 F>
void CvtF16x2FromNarrowHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  const bool relu = Unpack(inst.aux).relu;
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const uint64_t v = a[l];
    d[l] = uint64_t{Narrow8ToF16(static_cast<uint8_t>(v >> PairShift(F)), F, relu)} << 16 |
           Narrow8ToF16(static_cast<uint8_t>(v), F, relu);
  }
}

// cvt.{rz,rp}{.satfinite}.ue8m0x2.f32 d, a, b: a -> d[15:8], b -> d[7:0].
void CvtUe8m0PairHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = ctx.Src(inst.ops[2].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  const CvtParams p = Unpack(inst.aux);
  const bool up = p.mode == RoundMode::kRp;
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    d[l] = uint64_t{F32ToUe8m0(F32(a[l]), up, p.satfinite)} << 8 | F32ToUe8m0(F32(b[l]), up, p.satfinite);
  }
}

// cvt.{rz,rp}{.satfinite}.ue8m0x2.bf16x2 d, a: a[31:16] -> d[15:8], a[15:0] -> d[7:0].
void CvtUe8m0FromBf16x2Handler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  const CvtParams p = Unpack(inst.aux);
  const bool up = p.mode == RoundMode::kRp;
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const uint64_t v = a[l];
    d[l] = uint64_t{Bf16ToUe8m0(static_cast<uint16_t>(v >> 16), up, p.satfinite)} << 8 |
           Bf16ToUe8m0(static_cast<uint16_t>(v), up, p.satfinite);
  }
}

// cvt.rn.bf16x2.ue8m0x2 d, a: a[15:8] -> d[31:16], a[7:0] -> d[15:0].
void CvtBf16x2FromUe8m0Handler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const uint64_t v = a[l];
    d[l] = uint64_t{Ue8m0ToBf16(static_cast<uint8_t>(v >> 8))} << 16 | Ue8m0ToBf16(static_cast<uint8_t>(v));
  }
}

// cvt.pack.sat.{u16,s16}.s32 d, a, b and cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b, c:
// a and b saturated to the narrow type, b in the lowest field, a above it,
// the remaining upper bits from the low bits of c.
template <int kBits, bool kSigned>
void CvtPackHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = ctx.Src(inst.ops[2].ref);
  const uint64_t* c = inst.num_ops > 3 ? ctx.Src(inst.ops[3].ref) : nullptr;
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  constexpr int64_t kMin = kSigned ? -(int64_t{1} << (kBits - 1)) : 0;
  constexpr int64_t kMax = kSigned ? (int64_t{1} << (kBits - 1)) - 1 : (int64_t{1} << kBits) - 1;
  constexpr uint32_t kMask = (uint32_t{1} << kBits) - 1;
  auto sat = [](uint64_t v) {
    const int64_t x = static_cast<int32_t>(static_cast<uint32_t>(v));
    return static_cast<uint32_t>(x < kMin ? kMin : x > kMax ? kMax : x) & kMask;
  };
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    uint32_t r = sat(b[l]) | sat(a[l]) << kBits;
    if constexpr (2 * kBits < 32) {
      if (c) r |= static_cast<uint32_t>(c[l]) << (2 * kBits);
    }
    d[l] = r;
  }
}

#define BARRACUDA_CVT_TYPES(X) \
  X(kU8) X(kU16) X(kU32) X(kU64) X(kS8) X(kS16) X(kS32) X(kS64) X(kF16) X(kBf16) X(kF32) X(kF64)

template <Type D>
Handler PickSource(Type s) {
  switch (s) {
#define BARRACUDA_CVT_SRC(T) \
  case Type::T: return &CvtHandler<D, Type::T>;
    BARRACUDA_CVT_TYPES(BARRACUDA_CVT_SRC)
#undef BARRACUDA_CVT_SRC
    default: return nullptr;
  }
}
Handler PickCvt(Type d, Type s) {
  switch (d) {
#define BARRACUDA_CVT_DST(T) \
  case Type::T: return PickSource<Type::T>(s);
    BARRACUDA_CVT_TYPES(BARRACUDA_CVT_DST)
#undef BARRACUDA_CVT_DST
    default: return nullptr;
  }
}

std::optional<RoundMode> CvtFloatRounding(ptx::Rounding r) {
  switch (r) {
    case ptx::Rounding::kRn: return RoundMode::kRn;
    case ptx::Rounding::kRz: return RoundMode::kRz;
    case ptx::Rounding::kRm: return RoundMode::kRm;
    case ptx::Rounding::kRp: return RoundMode::kRp;
    case ptx::Rounding::kRna: return RoundMode::kRna;
    default: return std::nullopt;
  }
}
IntRound CvtIntRounding(ptx::Rounding r) {
  switch (r) {
    case ptx::Rounding::kRni: return IntRound::kRni;
    case ptx::Rounding::kRzi: return IntRound::kRzi;
    case ptx::Rounding::kRmi: return IntRound::kRmi;
    case ptx::Rounding::kRpi: return IntRound::kRpi;
    default: return IntRound::kNone;
  }
}

std::optional<Narrow8> Narrow8x2(Type t) {
  switch (t) {
    case Type::kE4m3x2: return Narrow8::kE4m3;
    case Type::kE5m2x2: return Narrow8::kE5m2;
    case Type::kE2m3x2: return Narrow8::kE2m3;
    case Type::kE3m2x2: return Narrow8::kE3m2;
    case Type::kE2m1x2: return Narrow8::kE2m1;
    default: return std::nullopt;
  }
}

template <template <Narrow8> class H>
struct PerNarrow {
  static Handler Of(Narrow8 f) {
    switch (f) {
      case Narrow8::kE4m3: return &H<Narrow8::kE4m3>::Run;
      case Narrow8::kE5m2: return &H<Narrow8::kE5m2>::Run;
      case Narrow8::kE2m3: return &H<Narrow8::kE2m3>::Run;
      case Narrow8::kE3m2: return &H<Narrow8::kE3m2>::Run;
      case Narrow8::kE2m1: return &H<Narrow8::kE2m1>::Run;
    }
    return nullptr;
  }
};
template <Narrow8 F>
struct PairH {
  static void Run(const Inst& i, WarpCtx& c, uint32_t e) { CvtNarrowPairHandler<F>(i, c, e); }
};
template <Narrow8 F>
struct DecodeH {
  static void Run(const Inst& i, WarpCtx& c, uint32_t e) { CvtF16x2FromNarrowHandler<F>(i, c, e); }
};

// The narrow pair forms (d or s is .e4m3x2/.e5m2x2/.e2m3x2/.e3m2x2/.e2m1x2):
// fp8 from f32 pairs and f16x2/bf16x2, fp6/fp4 from f32 pairs, all to f16x2.
absl::StatusOr<bool> SelectNarrow(const ptx::Instruction& ir, Inst& inst, const CvtParams& p) {
  const ptx::ModifierInfo& info = ir.info;
  const Type d = info.type(), s = info.type2();
  if (info.rounding != ptx::Rounding::kRn) return Unsupported(ir, "fp8/fp6/fp4 conversions take .rn only");
  if (p.ftz || p.sat) return Unsupported(ir, ".ftz/.sat not valid on fp8/fp6/fp4 conversions");
  if (const auto f = Narrow8x2(d)) {
    if (!p.satfinite) return Unsupported(ir, "conversions to fp8/fp6/fp4 need .satfinite");
    if (s == Type::kF32) {
      if (!ValueOperands(inst, 3)) return Unsupported(ir, "expected d, a, b");
      inst.fn = PerNarrow<PairH>::Of(*f);
    } else if (*f != Narrow8::kE4m3 && *f != Narrow8::kE5m2) {
      return Unsupported(ir, "fp6/fp4 conversions take a pair of .f32 sources");
    } else if (s == Type::kF16x2 || s == Type::kBf16x2) {
      if (!ValueOperands(inst, 2)) return Unsupported(ir, "expected d, a");
      const bool e4 = *f == Narrow8::kE4m3;
      if (s == Type::kF16x2) {
        inst.fn = e4 ? &CvtNarrowFromX2Handler<Narrow8::kE4m3, Type::kF16>
                     : &CvtNarrowFromX2Handler<Narrow8::kE5m2, Type::kF16>;
      } else {
        inst.fn = e4 ? &CvtNarrowFromX2Handler<Narrow8::kE4m3, Type::kBf16>
                     : &CvtNarrowFromX2Handler<Narrow8::kE5m2, Type::kBf16>;
      }
    } else {
      return Unsupported(ir, "fp8 conversions from this type are not supported");
    }
  } else {
    const auto g = Narrow8x2(s);
    if (d != Type::kF16x2 || !g) return Unsupported(ir, "conversion between these types is not supported");
    if (p.satfinite) return Unsupported(ir, ".satfinite not valid on fp8/fp6/fp4 -> f16x2");
    if (!ValueOperands(inst, 2)) return Unsupported(ir, "expected d, a");
    inst.fn = PerNarrow<DecodeH>::Of(*g);
  }
  inst.aux = Pack(p);
  return true;
}

// The scale-factor forms: cvt.{rz,rp}{.satfinite}.ue8m0x2.{f32,bf16x2} and
// cvt.rn.bf16x2.ue8m0x2.
absl::StatusOr<bool> SelectUe8m0(const ptx::Instruction& ir, Inst& inst, const CvtParams& p) {
  const ptx::ModifierInfo& info = ir.info;
  const Type d = info.type(), s = info.type2();
  if (p.ftz || p.sat || p.relu) return Unsupported(ir, ".ftz/.sat/.relu not valid on ue8m0 conversions");
  if (d == Type::kUe8m0x2) {
    if (info.rounding != ptx::Rounding::kRz && info.rounding != ptx::Rounding::kRp)
      return Unsupported(ir, "conversions to ue8m0 take .rz or .rp");
    if (s == Type::kF32) {
      if (!ValueOperands(inst, 3)) return Unsupported(ir, "expected d, a, b");
      inst.fn = &CvtUe8m0PairHandler;
    } else if (s == Type::kBf16x2) {
      if (!ValueOperands(inst, 2)) return Unsupported(ir, "expected d, a");
      inst.fn = &CvtUe8m0FromBf16x2Handler;
    } else {
      return Unsupported(ir, "ue8m0 conversions from this type are not supported");
    }
  } else {
    if (d != Type::kBf16x2 || s != Type::kUe8m0x2) return Unsupported(ir, "conversion between these types is not supported");
    if (info.rounding != ptx::Rounding::kRn || p.satfinite) return Unsupported(ir, "ue8m0 -> bf16x2 is cvt.rn only");
    if (!ValueOperands(inst, 2)) return Unsupported(ir, "expected d, a");
    inst.fn = &CvtBf16x2FromUe8m0Handler;
  }
  inst.aux = Pack(p);
  return true;
}

absl::StatusOr<bool> SelectPack(const ptx::Instruction& ir, Inst& inst) {
  const ptx::ModifierInfo& info = ir.info;
  const Type d = info.type();
  if (info.type2() != Type::kS32) return Unsupported(ir, "cvt.pack takes .s32 sources");
  const int n = d == Type::kU16 || d == Type::kS16 ? 3 : 4;
  if (!ValueOperands(inst, n)) return Unsupported(ir, n == 3 ? "expected d, a, b" : "expected d, a, b, c");
  switch (d) {
    case Type::kU16: inst.fn = &CvtPackHandler<16, false>; break;
    case Type::kS16: inst.fn = &CvtPackHandler<16, true>; break;
    case Type::kU8: inst.fn = &CvtPackHandler<8, false>; break;
    case Type::kS8: inst.fn = &CvtPackHandler<8, true>; break;
    case Type::kU4: inst.fn = &CvtPackHandler<4, false>; break;
    case Type::kS4: inst.fn = &CvtPackHandler<4, true>; break;
    case Type::kU2: inst.fn = &CvtPackHandler<2, false>; break;
    case Type::kS2: inst.fn = &CvtPackHandler<2, true>; break;
    default: return Unsupported(ir, "cvt.pack destination type not supported");
  }
  return true;
}

}  // namespace
}  // namespace fp

absl::StatusOr<bool> SelectConversionOp(const ptx::Instruction& ir, Inst& inst) {
  using namespace fp;  // NOLINT: the family's own helpers
  if (ir.op != ptx::Opcode::kCvt) return false;
  if (ir.HasModifier(".pack")) return SelectPack(ir, inst);
  const ptx::ModifierInfo& info = ir.info;
  if (info.num_types != 2) return Unsupported(ir, "expected a destination and a source type");
  const Type d = info.type(), s = info.type2();
  CvtParams p;
  p.ftz = info.ftz;
  p.relu = ir.HasModifier(".relu");
  p.satfinite = ir.HasModifier(".satfinite");
  p.sat = info.sat && !p.satfinite;
  if (info.rounding == ptx::Rounding::kRs) return Unsupported(ir, "stochastic rounding (.rs) is not supported");
  if (const auto mode = CvtFloatRounding(info.rounding)) p.mode = *mode;
  p.irnd = CvtIntRounding(info.rounding);
  if (Narrow8x2(d) || Narrow8x2(s)) return SelectNarrow(ir, inst, p);
  if (d == Type::kUe8m0x2 || s == Type::kUe8m0x2) return SelectUe8m0(ir, inst, p);
  for (const Type t : {d, s}) {
    switch (t) {
      case Type::kE4m3: case Type::kE5m2: case Type::kE2m1: case Type::kE2m3: case Type::kE3m2:
      case Type::kUe8m0:
        return Unsupported(ir, "scalar fp8/fp6/fp4/ue8m0 conversions do not exist (pairs: .e4m3x2 ...)");
      default: break;
    }
  }

  if (d == Type::kF16x2 || d == Type::kBf16x2) {
    if (s != Type::kF32) return Unsupported(ir, "packed conversions from this type are not supported");
    if (!ValueOperands(inst, 3)) return Unsupported(ir, "expected d, a, b");
    if (p.irnd != IntRound::kNone) return Unsupported(ir, "integer rounding not valid here");
    inst.aux = Pack(p);
    inst.fn = d == Type::kF16x2 ? &CvtPairHandler<Type::kF16> : &CvtPairHandler<Type::kBf16>;
    return true;
  }
  if (!ValueOperands(inst, 2)) return Unsupported(ir, "expected d, a");
  if (d == Type::kTf32) {
    if (s != Type::kF32) return Unsupported(ir, "tf32 converts from f32 only");
    if (p.irnd != IntRound::kNone) return Unsupported(ir, "integer rounding not valid here");
    inst.aux = Pack(p);
    inst.fn = &CvtTf32Handler;
    return true;
  }
  if (IsFloatKind(s) && IsInt(d) && p.irnd == IntRound::kNone) {
    // PTX requires integer rounding here; accept a float rounding spelling.
    switch (info.rounding) {
      case ptx::Rounding::kRn: p.irnd = IntRound::kRni; break;
      case ptx::Rounding::kRm: p.irnd = IntRound::kRmi; break;
      case ptx::Rounding::kRp: p.irnd = IntRound::kRpi; break;
      default: p.irnd = IntRound::kRzi; break;
    }
  }
  if (!p.ftz && !p.sat && !p.satfinite && !p.relu) {
    const bool wide_float = d == Type::kF32 || d == Type::kF64;
    const bool int32_64 = d == Type::kS32 || d == Type::kU32 || d == Type::kS64 || d == Type::kU64;
    Handler fast = nullptr;
#define BARRACUDA_CVT_FAST(DT, ST) \
  if (d == Type::DT && s == Type::ST) fast = &Unary<CvtFast<Type::DT, Type::ST>>;
    if (wide_float && IsInt(s) && p.mode == RoundMode::kRn) {
      BARRACUDA_CVT_FAST(kF32, kS32) BARRACUDA_CVT_FAST(kF32, kU32) BARRACUDA_CVT_FAST(kF32, kS64)
      BARRACUDA_CVT_FAST(kF32, kU64) BARRACUDA_CVT_FAST(kF64, kS32) BARRACUDA_CVT_FAST(kF64, kU32)
      BARRACUDA_CVT_FAST(kF64, kS64) BARRACUDA_CVT_FAST(kF64, kU64)
    }
    if (int32_64 && (s == Type::kF32 || s == Type::kF64) && p.irnd == IntRound::kRzi) {
      BARRACUDA_CVT_FAST(kS32, kF32) BARRACUDA_CVT_FAST(kU32, kF32) BARRACUDA_CVT_FAST(kS64, kF32)
      BARRACUDA_CVT_FAST(kU64, kF32) BARRACUDA_CVT_FAST(kS32, kF64) BARRACUDA_CVT_FAST(kU32, kF64)
      BARRACUDA_CVT_FAST(kS64, kF64) BARRACUDA_CVT_FAST(kU64, kF64)
    }
#undef BARRACUDA_CVT_FAST
    if (fast) {
      inst.aux = Pack(p);
      inst.fn = fast;
      return true;
    }
  }
  const Handler h = PickCvt(d, s);
  if (h == nullptr) return Unsupported(ir, "conversion between these types is not supported");
  inst.aux = Pack(p);
  inst.fn = h;
  return true;
}

}  // namespace barracuda::emu
