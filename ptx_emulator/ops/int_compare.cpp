// setp / set: one instantiation per (operand kind, comparison); the boolean
// combination with the optional predicate c is applied on whole lane masks
// afterwards, so the per-lane loop only compares.
//
// Float comparisons: eq ne lt le gt ge are ordered (false when either operand
// is NaN; `ne` included), equ neu ltu leu gtu geu are true when either is NaN,
// num = neither is NaN, nan = either is. .ftz flushes subnormal f32 (f16)
// inputs to zero of the same sign before comparing.
#include "ptx_emulator/ops/int_compare.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "ptx_emulator/ops/int_lanes.h"

namespace barracuda::emu {
namespace {

using namespace intops;  // NOLINT: the family's own helpers
using ptx::BoolOp;
using ptx::CmpOp;
using ptx::Type;

// ------------------------------------------------------------------ operand kinds

template <class T> struct IntKind {
  using V = T;
  static V Get(uint64_t x) { return static_cast<T>(x); }
};
template <bool kFtz> struct F32Kind {
  using V = float;
  static float Get(uint64_t x) {
    float f = std::bit_cast<float>(static_cast<uint32_t>(x));
    if (kFtz && std::fpclassify(f) == FP_SUBNORMAL) f = std::copysign(0.0f, f);
    return f;
  }
};
struct F64Kind {
  using V = double;
  static double Get(uint64_t x) { return std::bit_cast<double>(x); }
};
inline float HalfToFloat(uint16_t h) {
  const bool neg = h >> 15;
  const int exp = (h >> 10) & 0x1f;
  const int man = h & 0x3ff;
  float v;
  if (exp == 0) v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31) v = man ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else v = std::ldexp(static_cast<float>(man | 0x400), exp - 25);
  return neg ? -v : v;
}
template <bool kFtz> struct F16Kind {
  using V = float;
  static float Get(uint64_t x) {
    uint16_t h = static_cast<uint16_t>(x);
    if (kFtz && (h & 0x7c00) == 0) h &= 0x8000;  // subnormal half -> signed zero
    return HalfToFloat(h);
  }
};
struct Bf16Kind {
  using V = float;
  static float Get(uint64_t x) { return std::bit_cast<float>(static_cast<uint32_t>(x & 0xffff) << 16); }
};

template <CmpOp C, class V>
bool Compare(V a, V b) {
  if constexpr (std::is_floating_point_v<V>) {
    switch (C) {
      case CmpOp::kEq: return a == b;
      case CmpOp::kNe: return a < b || a > b;
      case CmpOp::kLt: return a < b;
      case CmpOp::kLe: return a <= b;
      case CmpOp::kGt: return a > b;
      case CmpOp::kGe: return a >= b;
      case CmpOp::kEqu: return !(a < b || a > b);
      case CmpOp::kNeu: return a != b;
      case CmpOp::kLtu: return !(a >= b);
      case CmpOp::kLeu: return !(a > b);
      case CmpOp::kGtu: return !(a <= b);
      case CmpOp::kGeu: return !(a < b);
      case CmpOp::kNum: return !std::isnan(a) && !std::isnan(b);
      case CmpOp::kNan: return std::isnan(a) || std::isnan(b);
      default: return false;  // lo/ls/hi/hs: integer-only, refused at selection
    }
  } else {
    using U = std::make_unsigned_t<V>;
    switch (C) {
      case CmpOp::kEq: return a == b;
      case CmpOp::kNe: return a != b;
      case CmpOp::kLt: return a < b;
      case CmpOp::kLe: return a <= b;
      case CmpOp::kGt: return a > b;
      case CmpOp::kGe: return a >= b;
      case CmpOp::kLo: return U(a) < U(b);
      case CmpOp::kLs: return U(a) <= U(b);
      case CmpOp::kHi: return U(a) > U(b);
      case CmpOp::kHs: return U(a) >= U(b);
      default: return false;  // float-only comparisons, refused at selection
    }
  }
}

uint32_t Combine(BoolOp op, uint32_t t, uint32_t c) {
  switch (op) {
    case BoolOp::kAnd: return t & c;
    case BoolOp::kOr: return t | c;
    case BoolOp::kXor: return t ^ c;
    default: return t;
  }
}

// p = t BOOLOP c, q = t_q BOOLOP c (t_q = !t for scalar types, the high-half
// result for x2 types).
void FinishSetp(const Inst& inst, WarpCtx& ctx, uint32_t exec, uint32_t t, uint32_t tq) {
  const BoolOp op = inst.info.bool_op;
  const uint32_t c = op != BoolOp::kNone ? PredMask(inst.ops[3], ctx) : 0;
  const Opnd& d = inst.ops[0];
  WritePred(ctx, d.index, exec, Combine(op, t, c));
  if (d.kind == Opnd::Kind::kPredPair) WritePred(ctx, d.index2, exec, Combine(op, tq, c));
}

template <class K, CmpOp C>
struct Setp {
  static void Run(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
    const uint64_t* a = ctx.Src(inst.ops[1].ref);
    const uint64_t* b = ctx.Src(inst.ops[2].ref);
    const uint32_t t = MaskLanes(exec, [&](uint32_t l) { return Compare<C>(K::Get(a[l]), K::Get(b[l])); });
    FinishSetp(inst, ctx, exec, t, ~t);
  }
};
template <class K, CmpOp C>
struct SetpX2 {
  static void Run(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
    const uint64_t* a = ctx.Src(inst.ops[1].ref);
    const uint64_t* b = ctx.Src(inst.ops[2].ref);
    const uint32_t lo = MaskLanes(exec, [&](uint32_t l) { return Compare<C>(K::Get(a[l]), K::Get(b[l])); });
    const uint32_t hi = MaskLanes(exec, [&](uint32_t l) { return Compare<C>(K::Get(a[l] >> 16), K::Get(b[l] >> 16)); });
    FinishSetp(inst, ctx, exec, lo, hi);
  }
};
template <class K, CmpOp C, uint32_t kTrue>
struct SetH {
  static void Run(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
    const uint64_t* a = ctx.Src(inst.ops[1].ref);
    const uint64_t* b = ctx.Src(inst.ops[2].ref);
    uint32_t t = MaskLanes(exec, [&](uint32_t l) { return Compare<C>(K::Get(a[l]), K::Get(b[l])); });
    const BoolOp op = inst.info.bool_op;
    if (op != BoolOp::kNone) t = Combine(op, t, PredMask(inst.ops[3], ctx));
    uint64_t* d = ctx.Dst(inst.ops[0].ref);
    ForLanes(exec, [&](uint32_t l) { d[l] = ((t >> l) & 1) ? kTrue : 0u; });
  }
};
template <class K, CmpOp C> using SetInt = SetH<K, C, 0xffffffffu>;
template <class K, CmpOp C> using SetF32 = SetH<K, C, 0x3f800000u>;
// Half-precision destinations (cuda_fp16.hpp's hsin, hexp, __hisnan use them):
// all ones for .u16/.s16, 1.0 for .f16 / .bf16.
template <class K, CmpOp C> using SetInt16 = SetH<K, C, 0xffffu>;
template <class K, CmpOp C> using SetF16 = SetH<K, C, 0x3c00u>;
template <class K, CmpOp C> using SetBf16 = SetH<K, C, 0x3f80u>;
// set.CmpOp{.BoolOp}.f16x2.f16x2 / .bf16x2.bf16x2: each half compared and
// combined with c on its own, 1.0 or 0.0 in that half.
template <class K, CmpOp C, uint32_t kTrue>
struct SetX2H {
  static void Run(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
    const uint64_t* a = ctx.Src(inst.ops[1].ref);
    const uint64_t* b = ctx.Src(inst.ops[2].ref);
    uint32_t lo = MaskLanes(exec, [&](uint32_t l) { return Compare<C>(K::Get(a[l]), K::Get(b[l])); });
    uint32_t hi = MaskLanes(exec, [&](uint32_t l) { return Compare<C>(K::Get(a[l] >> 16), K::Get(b[l] >> 16)); });
    const BoolOp op = inst.info.bool_op;
    if (op != BoolOp::kNone) {
      const uint32_t c = PredMask(inst.ops[3], ctx);
      lo = Combine(op, lo, c);
      hi = Combine(op, hi, c);
    }
    uint64_t* d = ctx.Dst(inst.ops[0].ref);
    ForLanes(exec, [&](uint32_t l) { d[l] = (((lo >> l) & 1) ? kTrue : 0u) | (((hi >> l) & 1) ? kTrue << 16 : 0u); });
  }
};
template <class K, CmpOp C> using SetF16X2 = SetX2H<K, C, 0x3c00u>;
template <class K, CmpOp C> using SetBf16X2 = SetX2H<K, C, 0x3f80u>;

template <template <class, CmpOp> class H, class K>
Handler ByCmp(CmpOp c) {
  switch (c) {
#define BARRACUDA_CMP_CASE(name) \
  case CmpOp::name: return &H<K, CmpOp::name>::Run;
    BARRACUDA_CMP_CASE(kEq) BARRACUDA_CMP_CASE(kNe) BARRACUDA_CMP_CASE(kLt) BARRACUDA_CMP_CASE(kLe)
    BARRACUDA_CMP_CASE(kGt) BARRACUDA_CMP_CASE(kGe)
#undef BARRACUDA_CMP_CASE
    default: break;
  }
  if constexpr (std::is_floating_point_v<typename K::V>) {
    switch (c) {
#define BARRACUDA_CMP_CASE(name) \
  case CmpOp::name: return &H<K, CmpOp::name>::Run;
      BARRACUDA_CMP_CASE(kEqu) BARRACUDA_CMP_CASE(kNeu) BARRACUDA_CMP_CASE(kLtu) BARRACUDA_CMP_CASE(kLeu)
      BARRACUDA_CMP_CASE(kGtu) BARRACUDA_CMP_CASE(kGeu) BARRACUDA_CMP_CASE(kNum) BARRACUDA_CMP_CASE(kNan)
#undef BARRACUDA_CMP_CASE
      default: return nullptr;
    }
  } else {
    switch (c) {
#define BARRACUDA_CMP_CASE(name) \
  case CmpOp::name: return &H<K, CmpOp::name>::Run;
      BARRACUDA_CMP_CASE(kLo) BARRACUDA_CMP_CASE(kLs) BARRACUDA_CMP_CASE(kHi) BARRACUDA_CMP_CASE(kHs)
#undef BARRACUDA_CMP_CASE
      default: return nullptr;
    }
  }
}

// The handler for source type `t` (scalar kinds), or nullptr.
template <template <class, CmpOp> class H>
Handler ByType(Type t, bool ftz, CmpOp c) {
  switch (t) {
    case Type::kB16: case Type::kU16: return ByCmp<H, IntKind<uint16_t>>(c);
    case Type::kS16: return ByCmp<H, IntKind<int16_t>>(c);
    case Type::kB32: case Type::kU32: return ByCmp<H, IntKind<uint32_t>>(c);
    case Type::kS32: return ByCmp<H, IntKind<int32_t>>(c);
    case Type::kB64: case Type::kU64: return ByCmp<H, IntKind<uint64_t>>(c);
    case Type::kS64: return ByCmp<H, IntKind<int64_t>>(c);
    case Type::kF32: return ftz ? ByCmp<H, F32Kind<true>>(c) : ByCmp<H, F32Kind<false>>(c);
    case Type::kF64: return ByCmp<H, F64Kind>(c);
    case Type::kF16: return ftz ? ByCmp<H, F16Kind<true>>(c) : ByCmp<H, F16Kind<false>>(c);
    case Type::kBf16: return ByCmp<H, Bf16Kind>(c);
    default: return nullptr;
  }
}

}  // namespace

absl::StatusOr<bool> SelectCompareOp(const ptx::Instruction& ir, Inst& inst) {
  const auto& info = inst.info;
  const bool setp = ir.op == ptx::Opcode::kSetp;
  const bool has_c = info.bool_op != BoolOp::kNone;
  if (info.cmp == CmpOp::kNone) return UnimplementedForm(ir, "missing comparison");
  if (inst.num_ops != (has_c ? 4 : 3) || !AllValues(inst, 1, 2))
    return UnimplementedForm(ir, has_c ? "expected d, a, b, c" : "expected d, a, b");
  if (has_c && inst.ops[3].kind != Opnd::Kind::kPred && inst.ops[3].kind != Opnd::Kind::kValue)
    return UnimplementedForm(ir, "c must be a predicate");
  Handler h = nullptr;
  if (setp) {
    const Opnd& d = inst.ops[0];
    if (d.kind != Opnd::Kind::kPred && d.kind != Opnd::Kind::kPredPair)
      return UnimplementedForm(ir, "destination must be a predicate");
    const Type t = info.type();
    if (t == Type::kF16x2 || t == Type::kBf16x2) {
      if (d.kind != Opnd::Kind::kPredPair) return UnimplementedForm(ir, "x2 compares need a p|q destination");
      h = t == Type::kBf16x2 ? ByCmp<SetpX2, Bf16Kind>(info.cmp)
                             : (info.ftz ? ByCmp<SetpX2, F16Kind<true>>(info.cmp) : ByCmp<SetpX2, F16Kind<false>>(info.cmp));
    } else {
      h = ByType<Setp>(t, info.ftz, info.cmp);
    }
  } else {
    if (inst.ops[0].kind != Opnd::Kind::kValue) return UnimplementedForm(ir, "destination must be a register");
    const Type dt = info.type(), st = info.type2();
    if (dt == Type::kU32 || dt == Type::kS32) h = ByType<SetInt>(st, info.ftz, info.cmp);
    else if (dt == Type::kF32) h = ByType<SetF32>(st, info.ftz, info.cmp);
    else if (dt == Type::kU16 || dt == Type::kS16) h = ByType<SetInt16>(st, info.ftz, info.cmp);
    else if (dt == Type::kF16) h = ByType<SetF16>(st, info.ftz, info.cmp);
    else if (dt == Type::kBf16) h = ByType<SetBf16>(st, info.ftz, info.cmp);
    else if (dt == Type::kF16x2 && st == Type::kF16x2)
      h = info.ftz ? ByCmp<SetF16X2, F16Kind<true>>(info.cmp) : ByCmp<SetF16X2, F16Kind<false>>(info.cmp);
    else if (dt == Type::kBf16x2 && st == Type::kBf16x2) h = ByCmp<SetBf16X2, Bf16Kind>(info.cmp);
    else return UnimplementedForm(ir, "destination type must be .u32, .s32, .f32, .u16, .s16, .f16, .bf16 or x2 with its source");
  }
  if (h == nullptr) return UnimplementedForm(ir, "unsupported type/comparison combination");
  inst.fn = h;
  return true;
}

}  // namespace barracuda::emu
