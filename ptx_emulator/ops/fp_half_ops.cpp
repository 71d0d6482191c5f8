// f16, f16x2, bf16, bf16x2: add sub mul fma (.rn, .ftz, .sat, .relu), neg abs,
// min max (.ftz .NaN .xorsign.abs), ex2.approx, tanh.approx.
//
// Each element is widened exactly to double; the exact result of add/sub/fma
// is carried as an error-free pair (TwoSum; products of halves are exact in
// double) and rounded once to the element format (RoundDouble), so every
// result is correctly rounded to nearest-even, with no double rounding.
// NaN results are the canonical 0x7fff. x2 forms apply the operation to the
// low and high halves independently (element 0 in bits 0..15).
// ex2/tanh.approx are evaluated in double and rounded once (PTX bounds:
// ex2 rel 2^-9.9 (f16) / 2^-7 (bf16), tanh abs 2^-10.987 / 2^-8).
#include <cmath>

#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/ops/fp_arith.h"

namespace barracuda::emu::fp {
namespace {

struct F16 {
  using Fmt = F16Format;
  static constexpr uint16_t kNan = kCanonicalNanF16;
  static constexpr uint16_t kOne = 0x3c00;
  static double ToDouble(uint16_t h) { return F16ToF32(h); }
  static uint16_t Flush(uint16_t h) { return FlushF16(h); }
  static bool IsNan(uint16_t h) { return IsNanF16(h); }
};
struct Bf16 {
  using Fmt = Bf16Format;
  static constexpr uint16_t kNan = kCanonicalNanBf16;
  static constexpr uint16_t kOne = 0x3f80;
  static double ToDouble(uint16_t h) { return Bf16ToF32(h); }
  static uint16_t Flush(uint16_t h) { return FlushBf16(h); }
  static bool IsNan(uint16_t h) { return IsNanBf16(h); }
};

enum Clamp : int { kNoClamp = 0, kSat = 1, kRelu = 2 };

template <typename H, bool kFtz>
uint16_t InH(uint16_t h) {
  return kFtz ? H::Flush(h) : h;
}

// Final rounding + .ftz/.sat/.relu of an exact result s + e.
template <typename H, bool kFtz, int kClamp>
uint16_t Finish(double s, double e) {
  uint16_t r = static_cast<uint16_t>(RoundDouble<typename H::Fmt>(s, e, RoundMode::kRn, H::kNan));
  if (kFtz) r = H::Flush(r);
  if (kClamp == kSat) {
    if (H::IsNan(r) || (r & 0x8000)) return 0;  // NaN, negatives and -0 -> +0
    return r > H::kOne ? H::kOne : r;
  }
  if (kClamp == kRelu) {
    if (H::IsNan(r)) return H::kNan;
    if (r & 0x8000) return 0;
  }
  return r;
}

struct HAdd {
  static void Exact(double a, double b, double& s, double& e) { TwoSum(a, b, s, e); }
};
struct HSub {
  static void Exact(double a, double b, double& s, double& e) { TwoSum(a, -b, s, e); }
};
struct HMul {
  static void Exact(double a, double b, double& s, double& e) {
    s = a * b;  // 11x11 (or 8x8) significant bits: exact in double
    e = 0;
  }
};

template <typename Op, typename H, bool kFtz, int kClamp>
struct HArith2 {
  static uint16_t Run(uint16_t a, uint16_t b) {
    double s, e;
    Op::Exact(H::ToDouble(InH<H, kFtz>(a)), H::ToDouble(InH<H, kFtz>(b)), s, e);
    return Finish<H, kFtz, kClamp>(s, e);
  }
};
template <typename H, bool kFtz, int kClamp>
struct HFma {
  static uint16_t Run(uint16_t a, uint16_t b, uint16_t c) {
    const double p = H::ToDouble(InH<H, kFtz>(a)) * H::ToDouble(InH<H, kFtz>(b));  // exact
    double s, e;
    TwoSum(p, H::ToDouble(InH<H, kFtz>(c)), s, e);
    if (std::isnan(s) || std::isinf(s)) e = 0;
    return Finish<H, kFtz, kClamp>(s, e);
  }
};

template <bool kMax, typename H, bool kFtz, bool kNaN, bool kXorAbs>
struct HMinMax {
  static uint16_t Run(uint16_t a, uint16_t b) {
    a = InH<H, kFtz>(a);
    b = InH<H, kFtz>(b);
    const uint16_t sign = (a ^ b) & 0x8000;
    if (kXorAbs) {
      a &= 0x7fff;
      b &= 0x7fff;
    }
    const bool na = H::IsNan(a), nb = H::IsNan(b);
    uint16_t r;
    if (na || nb) {
      if (kNaN || (na && nb)) return H::kNan;  // .xorsign/.abs do not apply to NaN results
      r = na ? b : a;
    } else {
      const double x = H::ToDouble(a), y = H::ToDouble(b);
      if (x == y) r = ((a & 0x8000) != 0) == kMax ? b : a;  // -0 < +0
      else r = (kMax ? x > y : x < y) ? a : b;
    }
    if (kXorAbs) r = static_cast<uint16_t>((r & 0x7fff) | sign);
    return r;
  }
};

template <typename H, bool kFtz>
struct HNeg {
  static uint16_t Run(uint16_t a) { return static_cast<uint16_t>(InH<H, kFtz>(a) ^ 0x8000); }
};
template <typename H, bool kFtz>
struct HAbs {
  static uint16_t Run(uint16_t a) { return static_cast<uint16_t>(InH<H, kFtz>(a) & 0x7fff); }
};
template <typename H, bool kFtz, bool kTanh>
struct HApprox {
  static uint16_t Run(uint16_t a) {
    const double x = H::ToDouble(InH<H, kFtz>(a));
    return Finish<H, kFtz, kNoClamp>(kTanh ? std::tanh(x) : std::exp2(x), 0.0);
  }
};

// Element ops lifted to a 64-bit register value: one element, or two packed.
template <typename E, bool kX2>
struct Pack1 {
  static uint64_t Run(uint64_t a) {
    const uint64_t lo = E::Run(static_cast<uint16_t>(a));
    if constexpr (!kX2) return lo;
    return lo | uint64_t{E::Run(static_cast<uint16_t>(a >> 16))} << 16;
  }
};
template <typename E, bool kX2>
struct Pack2 {
  static uint64_t Run(uint64_t a, uint64_t b) {
    const uint64_t lo = E::Run(static_cast<uint16_t>(a), static_cast<uint16_t>(b));
    if constexpr (!kX2) return lo;
    return lo | uint64_t{E::Run(static_cast<uint16_t>(a >> 16), static_cast<uint16_t>(b >> 16))} << 16;
  }
};
template <typename E, bool kX2>
struct Pack3 {
  static uint64_t Run(uint64_t a, uint64_t b, uint64_t c) {
    const uint64_t lo = E::Run(static_cast<uint16_t>(a), static_cast<uint16_t>(b), static_cast<uint16_t>(c));
    if constexpr (!kX2) return lo;
    return lo | uint64_t{E::Run(static_cast<uint16_t>(a >> 16), static_cast<uint16_t>(b >> 16),
                                static_cast<uint16_t>(c >> 16))} << 16;
  }
};

// Runtime flags -> template instantiation.
template <typename Op, typename H, bool kX2, bool kFtz>
Handler PickArith2(int clamp) {
  return clamp == kSat ? &Binary<Pack2<HArith2<Op, H, kFtz, kSat>, kX2>>
                       : &Binary<Pack2<HArith2<Op, H, kFtz, kNoClamp>, kX2>>;
}
template <typename Op, typename H, bool kX2>
Handler PickArith2(bool ftz, int clamp) {
  return ftz ? PickArith2<Op, H, kX2, true>(clamp) : PickArith2<Op, H, kX2, false>(clamp);
}
template <typename H, bool kX2, bool kFtz>
Handler PickFma(int clamp) {
  switch (clamp) {
    case kSat: return &Ternary<Pack3<HFma<H, kFtz, kSat>, kX2>>;
    case kRelu: return &Ternary<Pack3<HFma<H, kFtz, kRelu>, kX2>>;
    default: return &Ternary<Pack3<HFma<H, kFtz, kNoClamp>, kX2>>;
  }
}
template <bool kMax, typename H, bool kX2, bool kFtz>
Handler PickMinMax(bool nan, bool xorabs) {
  if (nan) return xorabs ? &Binary<Pack2<HMinMax<kMax, H, kFtz, true, true>, kX2>>
                         : &Binary<Pack2<HMinMax<kMax, H, kFtz, true, false>, kX2>>;
  return xorabs ? &Binary<Pack2<HMinMax<kMax, H, kFtz, false, true>, kX2>>
                : &Binary<Pack2<HMinMax<kMax, H, kFtz, false, false>, kX2>>;
}

template <typename H, bool kX2>
absl::StatusOr<bool> SelectFor(const ptx::Instruction& ir, Inst& inst, bool ftz) {
  using ptx::Opcode;
  const ptx::ModifierInfo& info = ir.info;
  const bool relu = ir.HasModifier(".relu");
  const int clamp = relu ? kRelu : info.sat ? kSat : kNoClamp;
  if (relu && ir.op != Opcode::kFma) return Unsupported(ir, ".relu is only valid on fma");
  if (relu && info.sat) return Unsupported(ir, ".relu and .sat exclude each other");
  switch (ir.op) {
    case Opcode::kAdd: case Opcode::kSub: case Opcode::kMul: {
      if (!ValueOperands(inst, 3)) return Unsupported(ir, "expected d, a, b");
      if (ir.op == Opcode::kAdd) inst.fn = ftz ? PickArith2<HAdd, H, kX2, true>(clamp) : PickArith2<HAdd, H, kX2, false>(clamp);
      else if (ir.op == Opcode::kSub) inst.fn = ftz ? PickArith2<HSub, H, kX2, true>(clamp) : PickArith2<HSub, H, kX2, false>(clamp);
      else inst.fn = ftz ? PickArith2<HMul, H, kX2, true>(clamp) : PickArith2<HMul, H, kX2, false>(clamp);
      return true;
    }
    case Opcode::kFma: {
      if (!ValueOperands(inst, 4)) return Unsupported(ir, "expected d, a, b, c");
      inst.fn = ftz ? PickFma<H, kX2, true>(clamp) : PickFma<H, kX2, false>(clamp);
      return true;
    }
    case Opcode::kMin: case Opcode::kMax: {
      if (!ValueOperands(inst, 3)) return Unsupported(ir, "expected d, a, b");
      const bool xorsign = ir.HasModifier(".xorsign"), abs = ir.HasModifier(".abs");
      if (xorsign != abs) return Unsupported(ir, ".xorsign and .abs go together");
      const bool nan = ir.HasModifier(".NaN");
      if (ir.op == Opcode::kMax) inst.fn = ftz ? PickMinMax<true, H, kX2, true>(nan, abs) : PickMinMax<true, H, kX2, false>(nan, abs);
      else inst.fn = ftz ? PickMinMax<false, H, kX2, true>(nan, abs) : PickMinMax<false, H, kX2, false>(nan, abs);
      return true;
    }
    case Opcode::kNeg: case Opcode::kAbs: {
      if (!ValueOperands(inst, 2)) return Unsupported(ir, "expected d, a");
      if (ir.op == Opcode::kNeg) inst.fn = ftz ? &Unary<Pack1<HNeg<H, true>, kX2>> : &Unary<Pack1<HNeg<H, false>, kX2>>;
      else inst.fn = ftz ? &Unary<Pack1<HAbs<H, true>, kX2>> : &Unary<Pack1<HAbs<H, false>, kX2>>;
      return true;
    }
    case Opcode::kEx2: case Opcode::kTanh: {
      if (!ValueOperands(inst, 2)) return Unsupported(ir, "expected d, a");
      if (!info.approx) return Unsupported(ir, "only .approx exists");
      if (ir.op == Opcode::kEx2) inst.fn = ftz ? &Unary<Pack1<HApprox<H, true, false>, kX2>> : &Unary<Pack1<HApprox<H, false, false>, kX2>>;
      else inst.fn = &Unary<Pack1<HApprox<H, false, true>, kX2>>;
      return true;
    }
    default:
      return Unsupported(ir, "not available for half-precision types");
  }
}

}  // namespace

absl::StatusOr<bool> SelectHalfOp(const ptx::Instruction& ir, Inst& inst) {
  const ptx::ModifierInfo& info = ir.info;
  if (info.rounding != ptx::Rounding::kNone && info.rounding != ptx::Rounding::kRn)
    return Unsupported(ir, "half-precision arithmetic rounds only .rn");
  if (ir.HasModifier(".oob")) return Unsupported(ir, ".oob (tensor out-of-bounds NaN) is not supported");
  const ptx::Type t = info.type();
  const bool bf16 = t == ptx::Type::kBf16 || t == ptx::Type::kBf16x2;
  const bool x2 = t == ptx::Type::kF16x2 || t == ptx::Type::kBf16x2;
  if (bf16 && info.sat) return Unsupported(ir, ".sat is not valid for bf16");
  if (bf16 && info.ftz && ir.op != ptx::Opcode::kEx2) return Unsupported(ir, ".ftz is not valid for bf16");
  const bool ftz = info.ftz;
  if (bf16) return x2 ? SelectFor<Bf16, true>(ir, inst, ftz) : SelectFor<Bf16, false>(ir, inst, ftz);
  return x2 ? SelectFor<F16, true>(ir, inst, ftz) : SelectFor<F16, false>(ir, inst, ftz);
}

}  // namespace barracuda::emu::fp
