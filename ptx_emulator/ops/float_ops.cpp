// f32/f64 floating-point instructions: add sub mul fma mad div rcp sqrt rsqrt
// sin cos lg2 ex2 tanh min max abs neg copysign testp. Half-precision types go
// to fp_half_ops.cpp, directed rounding to fp_directed.cpp.
//
// Exactness: add/sub/mul/fma/mad/div/rcp/sqrt with .rn (or no rounding where
// PTX defaults to .rn) are IEEE results of the host FPU; .ftz flushes f32
// subnormal inputs and results to a zero of the same sign; .sat clamps to
// [0, 1] with NaN -> +0. f32 NaN results are the canonical 0x7fffffff.
//
// Approximate functions are computed in double precision and rounded once to
// f32, i.e. within 1 ulp of the exact value (tests check 2 ulp), which is
// inside every PTX bound (sin/cos abs error 2^-20.5, lg2 2^-22, ex2 2 ulp,
// rcp 1 ulp, sqrt/rsqrt rel 2^-23 / 2^-22.9, tanh rel 2^-11, div.approx/full
// 2 ulp) and keeps the PTX special-value tables (sin(inf) = NaN, lg2(-0) =
// -inf, rsqrt(-0) = -inf, ex2(-inf) = +0, ...). div.approx.f32 returns a
// sign-preserving zero (NaN for an infinite dividend) for 2^126 < |b| < 2^128
// as PTX specifies. rcp/rsqrt.approx.ftz.f64 use the upper 32 bits only and
// zero the lower 32 of the result, canonical NaN 0x7fffffff00000000.
//
// Speed: add/sub/mul/fma .rn f32 and f64 run as AVX2+FMA loops when the CPU
// has them (fp_lanes.h).
#include <cmath>
#include <optional>
#include <string>

#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/ops/fp_arith.h"

namespace barracuda::emu {
namespace fp {

absl::Status Unsupported(const ptx::Instruction& ir, std::string_view what) {
  std::string text(ir.opcode_name());
  for (const std::string& m : ir.modifiers) text += m;
  text += ": ";
  text += what;
  return absl::UnimplementedError(text);
}

bool ValueOperands(const Inst& inst, int n) {
  if (inst.num_ops != n) return false;
  for (int i = 0; i < n; ++i)
    if (inst.ops[i].kind != Opnd::Kind::kValue) return false;
  return true;
}

namespace {

// ------------------------------------------------------------------ lanes

template <typename Op, typename T, bool kFtz, bool kSat>
struct Arith2 {
  BARRACUDA_FP_INLINE static uint64_t Run(uint64_t a, uint64_t b) {
    return Out<T, kFtz, kSat>(Op::Apply(In<T, kFtz>(a), In<T, kFtz>(b)));
  }
};
template <typename Op, typename T, bool kFtz, bool kSat>
struct Arith3 {
  BARRACUDA_FP_INLINE static uint64_t Run(uint64_t a, uint64_t b, uint64_t c) {
    return Out<T, kFtz, kSat>(Op::Apply(In<T, kFtz>(a), In<T, kFtz>(b), In<T, kFtz>(c)));
  }
};
template <typename Op, typename T, bool kFtz>
struct Arith1 {
  BARRACUDA_FP_INLINE static uint64_t Run(uint64_t a) { return Out<T, kFtz, false>(Op::Apply(In<T, kFtz>(a))); }
};

// Approximate f32 functions: evaluated in double, rounded once.
struct SinApprox {
  static float Apply(float x) { return static_cast<float>(std::sin(static_cast<double>(x))); }
};
struct CosApprox {
  static float Apply(float x) { return static_cast<float>(std::cos(static_cast<double>(x))); }
};
struct Lg2Approx {
  static float Apply(float x) { return static_cast<float>(std::log2(static_cast<double>(x))); }
};
struct Ex2Approx {
  static float Apply(float x) { return static_cast<float>(std::exp2(static_cast<double>(x))); }
};
struct TanhApprox {
  static float Apply(float x) { return static_cast<float>(std::tanh(static_cast<double>(x))); }
};
struct RsqrtApprox {
  template <typename T>
  static T Apply(T x) {
    if constexpr (std::is_same_v<T, float>) {
      return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x)));
    } else {
      return 1.0 / std::sqrt(x);
    }
  }
};
struct DivApprox {
  // d = a * (1/b); PTX: for 2^126 < |b| < 2^128 the reciprocal underflows, so
  // the result is a sign-preserving zero, or NaN for an infinite a.
  static float Apply(float a, float b) {
    const float mb = std::fabs(b);
    if (mb > 0x1p126f && mb < INFINITY) {
      if (std::isinf(a)) return NAN;
      return std::signbit(a) != std::signbit(b) ? -0.0f : 0.0f;
    }
    return a / b;
  }
};

// rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64: the operation on the upper 32
// bits of a (1.11.20 format), lower 32 result bits zero.
template <bool kRsqrt>
struct GrossF64 {
  static uint64_t Run(uint64_t a) {
    const uint64_t hi = a & 0xffffffff00000000ull;
    double x = F64(hi);
    if (std::isnan(x)) return 0x7fffffff00000000ull;
    if ((hi & 0x7ff0000000000000ull) == 0) x = std::signbit(x) ? -0.0 : 0.0;  // flush subnormal
    double r = kRsqrt ? 1.0 / std::sqrt(x) : 1.0 / x;
    uint64_t bits = Bits(r);
    if (std::isnan(r)) return 0x7fffffff00000000ull;
    if ((bits & 0x7ff0000000000000ull) == 0) bits &= 0x8000000000000000ull;  // flush subnormal result
    return bits & 0xffffffff00000000ull;
  }
};

// min/max. kAbs: 0 none, 1 .xorsign.abs (two inputs), 2 .abs (three inputs).
template <bool kMax, typename T, bool kFtz, bool kNaN, int kAbs>
struct MinMax {
  BARRACUDA_FP_INLINE static T Pick(T x, T y) {
    if (std::isnan(x) || std::isnan(y)) {
      if (kNaN || (std::isnan(x) && std::isnan(y))) return x + y;  // a NaN
      return std::isnan(x) ? y : x;
    }
    if (x == y) return (std::signbit(x) == kMax) ? y : x;  // -0 < +0
    return (kMax ? x > y : x < y) ? x : y;
  }
  static uint64_t Run(uint64_t a, uint64_t b) {
    T x = In<T, kFtz>(a), y = In<T, kFtz>(b);
    const bool neg = std::signbit(x) != std::signbit(y);
    if constexpr (kAbs != 0) {
      x = std::fabs(x);
      y = std::fabs(y);
    }
    T r = Pick(x, y);
    if constexpr (kAbs == 1) {
      if (!std::isnan(r)) r = std::copysign(r, neg ? T(-1) : T(1));
    }
    return Out<T, kFtz, false>(r);
  }
  static uint64_t Run(uint64_t a, uint64_t b, uint64_t c) {
    T x = In<T, kFtz>(a), y = In<T, kFtz>(b), z = In<T, kFtz>(c);
    if constexpr (kAbs != 0) {
      x = std::fabs(x);
      y = std::fabs(y);
      z = std::fabs(z);
    }
    return Out<T, kFtz, false>(Pick(Pick(x, y), z));
  }
};

template <bool kFtz>
struct AbsF32 {
  static uint64_t Run(uint64_t a) { return Bits(std::fabs(In<float, kFtz>(a))); }
};
template <bool kFtz>
struct NegF32 {
  static uint64_t Run(uint64_t a) { return Bits(-In<float, kFtz>(a)); }
};
struct AbsF64 {  // PTX: a NaN passes through unchanged
  static uint64_t Run(uint64_t a) { return std::isnan(F64(a)) ? a : a & ~(uint64_t{1} << 63); }
};
struct NegF64 {
  static uint64_t Run(uint64_t a) { return a ^ (uint64_t{1} << 63); }
};
// copysign d, a, b: the sign of a, the rest of b.
template <typename T>
struct Copysign {
  static uint64_t Run(uint64_t a, uint64_t b) {
    constexpr uint64_t kSign = std::is_same_v<T, float> ? uint64_t{1} << 31 : uint64_t{1} << 63;
    constexpr uint64_t kMask = std::is_same_v<T, float> ? 0xffffffffull : ~uint64_t{0};
    return ((b & ~kSign) | (a & kSign)) & kMask;
  }
};

enum class TestpKind : uint8_t { kFinite, kInfinite, kNumber, kNotANumber, kNormal, kSubnormal };
template <typename T, TestpKind kKind>
void Testp(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  uint32_t result = 0;
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const T x = In<T, false>(a[l]);
    bool r = false;
    switch (kKind) {
      case TestpKind::kFinite: r = std::isfinite(x); break;
      case TestpKind::kInfinite: r = std::isinf(x); break;
      case TestpKind::kNumber: r = !std::isnan(x); break;
      case TestpKind::kNotANumber: r = std::isnan(x); break;
      case TestpKind::kNormal: r = std::isnormal(x) || x == T(0); break;  // PTX: zeros are normal
      case TestpKind::kSubnormal: r = std::fpclassify(x) == FP_SUBNORMAL; break;
    }
    result |= uint32_t{r} << l;
  }
  uint32_t& p = ctx.preds[inst.ops[0].index];
  p = (p & ~exec) | result;
}

// ------------------------------------------------------------------ selection

template <typename L>
Handler Fast2() {
#ifdef BARRACUDA_FP_HAVE_AVX2_VARIANT
  if (CpuHasAvx2Fma()) return &BinaryAvx2<L>;
#endif
  return &Binary<L>;
}
template <typename L>
Handler Fast3() {
#ifdef BARRACUDA_FP_HAVE_AVX2_VARIANT
  if (CpuHasAvx2Fma()) return &TernaryAvx2<L>;
#endif
  return &Ternary<L>;
}

template <typename Op>
Handler PickArith2(bool f64, bool ftz, bool sat) {
  if (f64) return Fast2<Arith2<Op, double, false, false>>();
  if (ftz) return sat ? Fast2<Arith2<Op, float, true, true>>() : Fast2<Arith2<Op, float, true, false>>();
  return sat ? Fast2<Arith2<Op, float, false, true>>() : Fast2<Arith2<Op, float, false, false>>();
}
Handler PickFma(bool f64, bool ftz, bool sat) {
  if (f64) return Fast3<Arith3<FmaOp, double, false, false>>();
  if (ftz) return sat ? Fast3<Arith3<FmaOp, float, true, true>>() : Fast3<Arith3<FmaOp, float, true, false>>();
  return sat ? Fast3<Arith3<FmaOp, float, false, true>>() : Fast3<Arith3<FmaOp, float, false, false>>();
}
template <typename Op, typename T>
Handler PickUnary(bool ftz) {
  return ftz ? &Unary<Arith1<Op, T, true>> : &Unary<Arith1<Op, T, false>>;
}
template <bool kMax, typename T, bool kFtz, bool kNaN>
Handler PickMinMaxAbs(int abs, bool three) {
  if (three)
    return abs ? &Ternary<MinMax<kMax, T, kFtz, kNaN, 2>> : &Ternary<MinMax<kMax, T, kFtz, kNaN, 0>>;
  return abs ? &Binary<MinMax<kMax, T, kFtz, kNaN, 1>> : &Binary<MinMax<kMax, T, kFtz, kNaN, 0>>;
}
template <bool kMax>
Handler PickMinMax(bool f64, bool ftz, bool nan, int abs, bool three) {
  if (f64) return PickMinMaxAbs<kMax, double, false, false>(0, false);
  if (ftz) return nan ? PickMinMaxAbs<kMax, float, true, true>(abs, three) : PickMinMaxAbs<kMax, float, true, false>(abs, three);
  return nan ? PickMinMaxAbs<kMax, float, false, true>(abs, three) : PickMinMaxAbs<kMax, float, false, false>(abs, three);
}

bool IsHalfType(ptx::Type t) {
  return t == ptx::Type::kF16 || t == ptx::Type::kF16x2 || t == ptx::Type::kBf16 || t == ptx::Type::kBf16x2;
}

std::optional<RoundMode> FloatRounding(ptx::Rounding r) {
  switch (r) {
    case ptx::Rounding::kRn: return RoundMode::kRn;
    case ptx::Rounding::kRz: return RoundMode::kRz;
    case ptx::Rounding::kRm: return RoundMode::kRm;
    case ptx::Rounding::kRp: return RoundMode::kRp;
    default: return std::nullopt;
  }
}

}  // namespace
}  // namespace fp

absl::StatusOr<bool> SelectFloatOp(const ptx::Instruction& ir, Inst& inst) {
  using ptx::Opcode;
  using namespace fp;  // NOLINT: the family's own helpers
  const ptx::ModifierInfo& info = ir.info;
  const ptx::Type t = info.type();
  const bool is_float = t == ptx::Type::kF32 || t == ptx::Type::kF64 || IsHalfType(t);
  switch (ir.op) {
    // Opcodes shared with the integer family: only the float forms are ours.
    case Opcode::kAdd: case Opcode::kSub: case Opcode::kMul: case Opcode::kMad: case Opcode::kDiv:
    case Opcode::kMin: case Opcode::kMax: case Opcode::kAbs: case Opcode::kNeg:
      if (!ptx::IsFloat(t)) return false;
      break;
    case Opcode::kFma: case Opcode::kRcp: case Opcode::kSqrt: case Opcode::kRsqrt: case Opcode::kSin:
    case Opcode::kCos: case Opcode::kLg2: case Opcode::kEx2: case Opcode::kTanh: case Opcode::kCopysign:
    case Opcode::kTestp:
      break;
    default:
      return false;
  }
  if (!is_float) return Unsupported(ir, "type not supported by the emulator");
  if (info.num_types != 1) return Unsupported(ir, "mixed-precision forms are not supported");
  if (IsHalfType(t)) return SelectHalfOp(ir, inst);

  const bool f64 = t == ptx::Type::kF64;
  const bool ftz = info.ftz && !f64;
  const bool sat = info.sat && !f64;
  const ptx::Rounding rounding = info.rounding;
  const std::optional<RoundMode> mode = FloatRounding(rounding);
  if (rounding != ptx::Rounding::kNone && !mode) return Unsupported(ir, "rounding modifier not valid here");
  const bool directed = mode && *mode != RoundMode::kRn;
  if (ir.HasModifier(".oob") || ir.HasModifier(".relu")) return Unsupported(ir, "modifier not supported for f32/f64");

  switch (ir.op) {
    case Opcode::kAdd: case Opcode::kSub: case Opcode::kMul: {
      if (!ValueOperands(inst, 3)) return Unsupported(ir, "expected d, a, b");
      if (info.approx || info.full) return Unsupported(ir, ".approx/.full not valid here");
      const DirectedOp dop = ir.op == Opcode::kAdd ? DirectedOp::kAdd : ir.op == Opcode::kSub ? DirectedOp::kSub : DirectedOp::kMul;
      if (directed) {
        SelectDirected(dop, f64, ftz, sat, *mode, inst);
      } else {
        inst.fn = ir.op == Opcode::kAdd   ? PickArith2<AddOp>(f64, ftz, sat)
                  : ir.op == Opcode::kSub ? PickArith2<SubOp>(f64, ftz, sat)
                                          : PickArith2<MulOp>(f64, ftz, sat);
      }
      return true;
    }
    case Opcode::kFma: case Opcode::kMad: {
      // mad.f32 without rounding (sm_1x syntax) is fma.rn.f32 on sm_20+.
      if (!ValueOperands(inst, 4)) return Unsupported(ir, "expected d, a, b, c");
      if (info.mul != ptx::MulMode::kNone) return Unsupported(ir, ".hi/.lo/.wide are integer forms");
      if (directed) SelectDirected(DirectedOp::kFma, f64, ftz, sat, *mode, inst);
      else inst.fn = PickFma(f64, ftz, sat);
      return true;
    }
    case Opcode::kDiv: {
      if (!ValueOperands(inst, 3)) return Unsupported(ir, "expected d, a, b");
      if (directed) {
        SelectDirected(DirectedOp::kDiv, f64, ftz, false, *mode, inst);
      } else if (mode || f64 || info.full) {
        // .rn, .full (2 ulp in PTX; we give the IEEE quotient), f64 default .rn.
        inst.fn = PickArith2<DivOp>(f64, ftz, false);
      } else {  // .approx, or legacy div.f32 = div.approx.ftz.f32
        const bool legacy_ftz = ftz || !info.approx;
        inst.fn = legacy_ftz ? &Binary<Arith2<DivApprox, float, true, false>>
                             : &Binary<Arith2<DivApprox, float, false, false>>;
      }
      return true;
    }
    case Opcode::kRcp: case Opcode::kSqrt: {
      if (!ValueOperands(inst, 2)) return Unsupported(ir, "expected d, a");
      const bool rcp = ir.op == Opcode::kRcp;
      if (directed) {
        SelectDirected(rcp ? DirectedOp::kRcp : DirectedOp::kSqrt, f64, ftz, false, *mode, inst);
      } else if (f64 && rcp && info.approx) {
        inst.fn = &Unary<GrossF64<false>>;  // rcp.approx.ftz.f64
      } else if (f64) {
        inst.fn = rcp ? PickUnary<RcpOp, double>(false) : PickUnary<SqrtOp, double>(false);
      } else {
        // .approx is the IEEE value here (within PTX's 1 ulp / 2^-23 bounds);
        // legacy rcp.f32 / sqrt.f32 without modifiers meant .approx.ftz.
        const bool f = ftz || (!info.approx && !mode);
        inst.fn = rcp ? PickUnary<RcpOp, float>(f) : PickUnary<SqrtOp, float>(f);
      }
      return true;
    }
    case Opcode::kRsqrt: {
      if (!ValueOperands(inst, 2)) return Unsupported(ir, "expected d, a");
      if (mode) return Unsupported(ir, "rsqrt has only .approx");
      if (f64) inst.fn = info.ftz ? &Unary<GrossF64<true>> : PickUnary<RsqrtApprox, double>(false);
      else inst.fn = PickUnary<RsqrtApprox, float>(ftz || !info.approx);
      return true;
    }
    case Opcode::kSin: case Opcode::kCos: case Opcode::kLg2: case Opcode::kEx2: case Opcode::kTanh: {
      if (!ValueOperands(inst, 2)) return Unsupported(ir, "expected d, a");
      if (f64) return Unsupported(ir, "only .approx.f32 exists");
      if (mode) return Unsupported(ir, "only .approx exists");
      // Legacy forms without .approx meant .approx.ftz (tanh has no .ftz).
      const bool f = ftz || (!info.approx && ir.op != Opcode::kTanh);
      switch (ir.op) {
        case Opcode::kSin: inst.fn = PickUnary<SinApprox, float>(f); break;
        case Opcode::kCos: inst.fn = PickUnary<CosApprox, float>(f); break;
        case Opcode::kLg2: inst.fn = PickUnary<Lg2Approx, float>(f); break;
        case Opcode::kEx2: inst.fn = PickUnary<Ex2Approx, float>(f); break;
        default: inst.fn = PickUnary<TanhApprox, float>(false); break;
      }
      return true;
    }
    case Opcode::kMin: case Opcode::kMax: {
      const bool three = inst.num_ops == 4;
      if (!ValueOperands(inst, three ? 4 : 3)) return Unsupported(ir, "expected d, a, b[, c]");
      const bool xorsign = ir.HasModifier(".xorsign");
      const bool abs = ir.HasModifier(".abs");
      if (xorsign != abs && !three) return Unsupported(ir, ".xorsign and .abs go together");
      if (three && xorsign) return Unsupported(ir, ".xorsign takes two inputs");
      if (f64 && (abs || three || ir.HasModifier(".NaN"))) return Unsupported(ir, "not an f64 form");
      const bool nan = ir.HasModifier(".NaN");
      inst.fn = ir.op == Opcode::kMax ? PickMinMax<true>(f64, ftz, nan, abs ? 1 : 0, three)
                                      : PickMinMax<false>(f64, ftz, nan, abs ? 1 : 0, three);
      return true;
    }
    case Opcode::kAbs: case Opcode::kNeg: {
      if (!ValueOperands(inst, 2)) return Unsupported(ir, "expected d, a");
      if (ir.op == Opcode::kAbs) inst.fn = f64 ? &Unary<AbsF64> : ftz ? &Unary<AbsF32<true>> : &Unary<AbsF32<false>>;
      else inst.fn = f64 ? &Unary<NegF64> : ftz ? &Unary<NegF32<true>> : &Unary<NegF32<false>>;
      return true;
    }
    case Opcode::kCopysign: {
      if (!ValueOperands(inst, 3)) return Unsupported(ir, "expected d, a, b");
      inst.fn = f64 ? &Binary<Copysign<double>> : &Binary<Copysign<float>>;
      return true;
    }
    case Opcode::kTestp: {
      if (inst.num_ops != 2 || inst.ops[0].kind != Opnd::Kind::kPred || inst.ops[1].kind != Opnd::Kind::kValue)
        return Unsupported(ir, "expected p, a");
      static constexpr std::pair<std::string_view, TestpKind> kKinds[] = {
          {".finite", TestpKind::kFinite}, {".infinite", TestpKind::kInfinite},
          {".number", TestpKind::kNumber}, {".notanumber", TestpKind::kNotANumber},
          {".normal", TestpKind::kNormal}, {".subnormal", TestpKind::kSubnormal},
      };
      for (auto [name, kind] : kKinds) {
        if (!ir.HasModifier(name)) continue;
#define BARRACUDA_TESTP_CASE(K) \
  case TestpKind::K: inst.fn = f64 ? &Testp<double, TestpKind::K> : &Testp<float, TestpKind::K>; break;
        switch (kind) {
          BARRACUDA_TESTP_CASE(kFinite)
          BARRACUDA_TESTP_CASE(kInfinite)
          BARRACUDA_TESTP_CASE(kNumber)
          BARRACUDA_TESTP_CASE(kNotANumber)
          BARRACUDA_TESTP_CASE(kNormal)
          BARRACUDA_TESTP_CASE(kSubnormal)
        }
#undef BARRACUDA_TESTP_CASE
        return true;
      }
      return Unsupported(ir, "missing .finite/.infinite/.number/.notanumber/.normal/.subnormal");
    }
    default:
      return false;
  }
}

}  // namespace barracuda::emu
