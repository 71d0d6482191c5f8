// Bit and data-movement instructions: and or xor not cnot (values and
// predicates), lop3, shl shr shf, bfe bfi bfind brev clz popc prmt bmsk szext,
// mov (values, special registers, predicates, vector pack/unpack, symbol and
// function addresses), selp slct; setp/set are in int_compare.cpp.
//
// Shift amounts are unsigned 32-bit; amounts >= the width clamp as PTX says
// (shl/shr.u give 0, shr.s gives the sign fill), never C++ undefined shifts.
#include <bit>
#include <cmath>
#include <cstdint>

#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/ops/int_compare.h"
#include "ptx_emulator/ops/int_lanes.h"

namespace barracuda::emu {
namespace {

using namespace intops;  // NOLINT: the family's own helpers
using ptx::Opcode;
using ptx::Type;

// ------------------------------------------------------------------ logic

template <class T> struct And { using A = T; using B = T; static T F(T a, T b) { return a & b; } };
template <class T> struct Or { using A = T; using B = T; static T F(T a, T b) { return a | b; } };
template <class T> struct Xor { using A = T; using B = T; static T F(T a, T b) { return a ^ b; } };
template <class T> struct Not { using A = T; static T F(T a) { return static_cast<T>(~a); } };
template <class T> struct Cnot { using A = T; static T F(T a) { return a == 0 ? T{1} : T{0}; } };

enum class PredLogic { kAnd, kOr, kXor, kNot, kMov };
template <PredLogic kOp>
void PredOp(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint32_t a = PredMask(inst.ops[1], ctx);
  uint32_t r;
  if constexpr (kOp == PredLogic::kNot) r = ~a;
  else if constexpr (kOp == PredLogic::kMov) r = a;
  else {
    const uint32_t b = PredMask(inst.ops[2], ctx);
    r = kOp == PredLogic::kAnd ? (a & b) : kOp == PredLogic::kOr ? (a | b) : (a ^ b);
  }
  WritePred(ctx, inst.ops[0].index, exec, r);
}

// lop3.b32 d, a, b, c, immLut: LUT bit (a<<2 | b<<1 | c) gives the result bit.
// Shannon expansion on c, b, a with the LUT bits as all-ones/zero masks:
// branch-free and the same code for every LUT.
void Lop3(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  uint32_t m[8];
  for (int i = 0; i < 8; ++i) m[i] = ((inst.imm >> i) & 1) ? ~0u : 0u;
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = ctx.Src(inst.ops[2].ref);
  const uint64_t* c = ctx.Src(inst.ops[3].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  ForLanesStore(exec, d, [&](uint32_t l) -> uint64_t {
    const uint32_t x = static_cast<uint32_t>(a[l]), y = static_cast<uint32_t>(b[l]), z = static_cast<uint32_t>(c[l]);
    const uint32_t g00 = (z & m[1]) | (~z & m[0]), g01 = (z & m[3]) | (~z & m[2]);
    const uint32_t g10 = (z & m[5]) | (~z & m[4]), g11 = (z & m[7]) | (~z & m[6]);
    const uint32_t f0 = (y & g01) | (~y & g00), f1 = (y & g11) | (~y & g10);
    return (x & f1) | (~x & f0);
  });
}

// ------------------------------------------------------------------ shifts

template <class T> struct Shl {
  using A = T; using B = uint32_t;
  static T F(T a, uint32_t n) { return n >= kBits<T> ? T{0} : Wrap<T>(UArith<T>(a) << n); }
};
template <class T> struct Shr {
  using A = T; using B = uint32_t;
  static T F(T a, uint32_t n) {
    if constexpr (std::is_signed_v<T>) return n >= kBits<T> ? (a < 0 ? T{-1} : T{0}) : static_cast<T>(a >> n);
    return n >= kBits<T> ? T{0} : static_cast<T>(a >> n);
  }
};

// shf.{l,r}.{clamp,wrap}.b32 d, a, b, c: shift the 64-bit [b:a].
template <bool kLeft, bool kClamp> struct Shf {
  using A = uint32_t; using B = uint32_t; using C = uint32_t;
  static uint32_t F(uint32_t a, uint32_t b, uint32_t c) {
    const uint32_t n = kClamp ? (c < 32 ? c : 32) : (c & 31);
    const uint64_t v = uint64_t{b} << 32 | a;
    return kLeft ? static_cast<uint32_t>((v << n) >> 32) : static_cast<uint32_t>(v >> n);
  }
};

// ------------------------------------------------------------------ bit fields

template <class T> struct Bfe {
  using A = T; using B = uint32_t; using C = uint32_t;
  static T F(T a, uint32_t b, uint32_t c) {
    using U = Unsigned<T>;
    constexpr uint32_t kN = kBits<T>;
    const uint32_t pos = b & 0xff, len = c & 0xff;
    if (len == 0) return T{0};
    const U ua = static_cast<U>(a);
    bool sbit = false;
    if constexpr (std::is_signed_v<T>) sbit = (ua >> std::min(pos + len - 1, kN - 1)) & 1;
    if (pos >= kN) return sbit ? static_cast<T>(~U{0}) : T{0};
    const uint32_t e = std::min(len, kN - pos);  // bits taken from a
    U field = static_cast<U>(ua >> pos);
    if (e < kN) {
      const U mask = static_cast<U>((U{1} << e) - 1);
      field = static_cast<U>(sbit ? (field | ~mask) : (field & mask));
    }
    return static_cast<T>(field);
  }
};
template <class T> struct Bfi {
  using A = T; using B = T; using C = uint32_t; using D = uint32_t;
  static T F(T a, T b, uint32_t c, uint32_t d) {
    constexpr uint32_t kN = kBits<T>;
    const uint32_t pos = c & 0xff, len = d & 0xff;
    if (len == 0 || pos >= kN) return b;
    const uint32_t e = std::min(len, kN - pos);
    const T field = e == kN ? static_cast<T>(~T{0}) : static_cast<T>((T{1} << e) - 1);
    const T mask = static_cast<T>(field << pos);
    return static_cast<T>((b & ~mask) | ((a << pos) & mask));
  }
};
// bfind: bit position of the most significant non-sign bit; 0xffffffff if none.
template <class T, bool kShiftAmt> struct Bfind {
  using A = T;
  static uint32_t F(T a) {
    using U = Unsigned<T>;
    U u = static_cast<U>(a);
    if constexpr (std::is_signed_v<T>) u = a < 0 ? static_cast<U>(~u) : u;
    if (u == 0) return 0xffffffffu;
    const uint32_t pos = kBits<T> - 1 - static_cast<uint32_t>(std::countl_zero(u));
    return kShiftAmt ? kBits<T> - 1 - pos : pos;
  }
};
template <class T> struct Clz {
  using A = T;
  static uint32_t F(T a) { return static_cast<uint32_t>(std::countl_zero(a)); }
};
template <class T> struct Popc {
  using A = T;
  static uint32_t F(T a) { return static_cast<uint32_t>(std::popcount(a)); }
};
template <class T> struct Brev {
  using A = T;
  static T F(T a) {
    uint64_t v = a;
    v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
    v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
    v = ((v >> 4) & 0x0f0f0f0f0f0f0f0full) | ((v & 0x0f0f0f0f0f0f0f0full) << 4);
    v = ((v >> 8) & 0x00ff00ff00ff00ffull) | ((v & 0x00ff00ff00ff00ffull) << 8);
    v = ((v >> 16) & 0x0000ffff0000ffffull) | ((v & 0x0000ffff0000ffffull) << 16);
    v = (v >> 32) | (v << 32);
    return static_cast<T>(v >> (64 - kBits<T>));
  }
};

// prmt.b32{.mode} d, a, b, c: bytes of [b:a] (a = bytes 0..3) picked by c.
enum class PrmtMode { kDefault, kF4e, kB4e, kRc8, kEcl, kEcr, kRc16 };
// Selector of result byte i: bits 2..0 = source byte, bit 3 = sign replicate
// (default mode only).
template <PrmtMode kMode>
uint32_t PrmtSel(uint32_t c, uint32_t i) {
  const uint32_t s = c & 3;
  if constexpr (kMode == PrmtMode::kDefault) return (c >> (4 * i)) & 0xf;
  else if constexpr (kMode == PrmtMode::kF4e) return (s + i) & 7;
  else if constexpr (kMode == PrmtMode::kB4e) return (s + 8 - i) & 7;
  else if constexpr (kMode == PrmtMode::kRc8) return s;
  else if constexpr (kMode == PrmtMode::kEcl) return i > s ? i : s;
  else if constexpr (kMode == PrmtMode::kEcr) return i < s ? i : s;
  else return 2 * (s & 1) + (i & 1);
}
inline uint32_t PrmtByte(uint64_t src, uint32_t sel) {
  const uint32_t byte = static_cast<uint32_t>(src >> (8 * (sel & 7))) & 0xff;
  return (sel & 8) ? (0u - (byte >> 7)) & 0xff : byte;  // sign replicate
}
// The selector is usually an immediate: decode it once per instruction then.
template <PrmtMode kMode>
void Prmt(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = ctx.Src(inst.ops[2].ref);
  const uint64_t* c = ctx.Src(inst.ops[3].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  if (RefKind(inst.ops[3].ref) == kRefConstant) {
    uint32_t sel[4];
    for (uint32_t i = 0; i < 4; ++i) sel[i] = PrmtSel<kMode>(static_cast<uint32_t>(c[0]), i);
    ForLanesStore(exec, d, [&](uint32_t l) -> uint64_t {
      const uint64_t src = b[l] << 32 | static_cast<uint32_t>(a[l]);
      return PrmtByte(src, sel[0]) | PrmtByte(src, sel[1]) << 8 | PrmtByte(src, sel[2]) << 16 |
             PrmtByte(src, sel[3]) << 24;
    });
    return;
  }
  ForLanesStore(exec, d, [&](uint32_t l) -> uint64_t {
    const uint64_t src = b[l] << 32 | static_cast<uint32_t>(a[l]);
    const uint32_t cl = static_cast<uint32_t>(c[l]);
    uint32_t r = 0;
    for (uint32_t i = 0; i < 4; ++i) r |= PrmtByte(src, PrmtSel<kMode>(cl, i)) << (8 * i);
    return r;
  });
}

// bmsk.{clamp,wrap}.b32 d, a (start), b (width).
template <bool kClamp> struct Bmsk {
  using A = uint32_t; using B = uint32_t;
  static uint32_t F(uint32_t a, uint32_t b) {
    const uint32_t a1 = a & 0x1f, b1 = b & 0x1f, sum = a1 + b1;
    uint32_t mask0 = ~0u << a1;
    uint32_t mask1 = sum >= 32 ? 0 : ~0u << sum;
    bool overflow = sum >= 32;
    if (kClamp) {
      if (a >= 32) overflow = true, mask0 = 0;
      if (b >= 32) overflow = true;
    }
    if (overflow) mask1 = 0;
    else if (b1 == 0) mask1 = ~0u;
    return mask0 & ~mask1;
  }
};
// szext.{clamp,wrap}.{u32,s32} d, a, b: extend the low b bits of a.
template <bool kClamp, bool kSigned> struct Szext {
  using A = uint32_t; using B = uint32_t;
  static uint32_t F(uint32_t a, uint32_t b) {
    const uint32_t b1 = b & 0x1f;
    const bool too_large = kClamp && b >= 32;
    const uint32_t mask = too_large ? 0 : ~0u << b1;
    const uint32_t sign_pos = (b1 - 1) & 0x1f;
    const bool sign = kSigned && b1 != 0 && !too_large && ((a >> sign_pos) & 1);
    return (a & ~mask) | (sign ? mask : 0);
  }
};

// ------------------------------------------------------------------ mov & select

template <class T> struct MovOp { using A = T; static T F(T a) { return a; } };

// A symbol/function value: the same in every lane (or base register + offset).
void MovAddress(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const Opnd& s = inst.ops[1];
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  if (s.base == Opnd::AddrBase::kRegister) {
    const uint64_t* r = ctx.Src(s.ref);
    ForLanes(exec, [&](uint32_t l) { d[l] = r[l] + static_cast<uint64_t>(s.offset); });
    return;
  }
  const uint64_t v = s.base == Opnd::AddrBase::kFrame ? ctx.frame_base + static_cast<uint64_t>(s.offset)
                                                       : static_cast<uint64_t>(s.offset);
  ForLanes(exec, [&](uint32_t l) { d[l] = v; });
}
void MovFunction(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t v = kFunctionPointerTag | inst.ops[1].index;
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  ForLanes(exec, [&](uint32_t l) { d[l] = v; });
}

// mov.bN d, {e0, e1, ...}: element i fills bits [i*w, (i+1)*w), w = N / count.
template <class T>
void MovPack(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const Opnd& v = inst.ops[1];
  const uint32_t n = v.count;
  const uint32_t w = kBits<T> / n;
  const uint64_t emask = w >= 64 ? ~0ull : (1ull << w) - 1;
  const uint64_t* src[8];
  for (uint32_t i = 0; i < n; ++i) src[i] = ctx.Src(ctx.function->vector_refs[v.index + i]);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  ForLanes(exec, [&](uint32_t l) {
    uint64_t r = 0;
    for (uint32_t i = 0; i < n; ++i) r |= (src[i][l] & emask) << (i * w);
    d[l] = Store(static_cast<T>(r));
  });
}
// mov.bN {e0, e1, ...}, s: the reverse.
template <class T>
void MovUnpack(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const Opnd& v = inst.ops[0];
  const uint32_t n = v.count;
  const uint32_t w = kBits<T> / n;
  const uint64_t emask = w >= 64 ? ~0ull : (1ull << w) - 1;
  uint64_t* dst[8];
  for (uint32_t i = 0; i < n; ++i) dst[i] = ctx.Dst(ctx.function->vector_refs[v.index + i]);
  const uint64_t* s = ctx.Src(inst.ops[1].ref);
  ForLanes(exec, [&](uint32_t l) {
    const uint64_t x = Load<T>(s[l]);
    for (uint32_t i = 0; i < n; ++i) dst[i][l] = (x >> (i * w)) & emask;
  });
}

template <class T>
void Selp(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = ctx.Src(inst.ops[2].ref);
  const uint32_t c = PredMask(inst.ops[3], ctx);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  ForLanesStore(exec, d, [&](uint32_t l) { return Store(Load<T>(((c >> l) & 1) ? a[l] : b[l])); });
}

// slct.T.s32 d, a, b, c: c >= 0 ? a : b. slct.T.f32: the same on a float c
// (-0 selects a, NaN selects b); .ftz flushes a subnormal c to zero first, so
// a negative subnormal selects a.
template <class T, bool kFloat, bool kFtz>
void Slct(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = ctx.Src(inst.ops[2].ref);
  const uint64_t* c = ctx.Src(inst.ops[3].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  ForLanes(exec, [&](uint32_t l) {
    bool take_a;
    if constexpr (kFloat) {
      uint32_t bits = static_cast<uint32_t>(c[l]);
      if (kFtz && (bits & 0x7f800000u) == 0) bits &= 0x80000000u;
      take_a = std::bit_cast<float>(bits) >= 0.0f;
    } else {
      take_a = static_cast<int32_t>(c[l]) >= 0;
    }
    d[l] = Store(Load<T>(take_a ? a[l] : b[l]));
  });
}

// ------------------------------------------------------------------ selection

template <template <class> class Op, template <class> class Apply>
Handler PickInt(Type t) {
  return DispatchInt(t, [](auto tag) -> Handler { return Apply<Op<decltype(tag)>>::fn; });
}
template <class Op> struct A1 { static constexpr Handler fn = &Apply1<Op>; };
template <class Op> struct A2 { static constexpr Handler fn = &Apply2<Op>; };
template <class Op> struct A3 { static constexpr Handler fn = &Apply3<Op>; };
template <class Op> struct A4 { static constexpr Handler fn = &Apply4<Op>; };

bool Is32or64(Type t) { return ptx::TypeSize(t) == 4 || ptx::TypeSize(t) == 8; }
bool IsPredOpnd(const Opnd& o) { return o.kind == Opnd::Kind::kPred; }

absl::StatusOr<Handler> SelectLogic(const ptx::Instruction& ir, Inst& inst, Type t) {
  const bool binary = ir.op != Opcode::kNot && ir.op != Opcode::kCnot;
  const int n = binary ? 3 : 2;
  if (inst.num_ops < n) return UnimplementedForm(ir, "missing operands");
  if (t == Type::kPred) {
    if (ir.op == Opcode::kCnot || !IsPredOpnd(inst.ops[0])) return UnimplementedForm(ir, "predicate form");
    switch (ir.op) {
      case Opcode::kAnd: return Handler{&PredOp<PredLogic::kAnd>};
      case Opcode::kOr: return Handler{&PredOp<PredLogic::kOr>};
      case Opcode::kXor: return Handler{&PredOp<PredLogic::kXor>};
      default: return Handler{&PredOp<PredLogic::kNot>};
    }
  }
  if (!AllValues(inst, 0, n)) return UnimplementedForm(ir, "expected register/immediate operands");
  Handler h = nullptr;
  switch (ir.op) {
    case Opcode::kAnd: h = PickInt<And, A2>(t); break;
    case Opcode::kOr: h = PickInt<Or, A2>(t); break;
    case Opcode::kXor: h = PickInt<Xor, A2>(t); break;
    case Opcode::kNot: h = PickInt<Not, A1>(t); break;
    default: h = PickInt<Cnot, A1>(t); break;
  }
  if (!h) return UnimplementedForm(ir, "unsupported type");
  return h;
}

absl::StatusOr<Handler> SelectMov(const ptx::Instruction& ir, Inst& inst, Type t) {
  if (inst.num_ops < 2) return UnimplementedForm(ir, "missing operands");
  const Opnd& d = inst.ops[0];
  const Opnd& s = inst.ops[1];
  if (t == Type::kPred || d.kind == Opnd::Kind::kPred) {
    if (d.kind != Opnd::Kind::kPred) return UnimplementedForm(ir, "predicate destination expected");
    if (s.kind != Opnd::Kind::kPred && s.kind != Opnd::Kind::kValue) return UnimplementedForm(ir, "predicate source");
    return Handler{&PredOp<PredLogic::kMov>};
  }
  if (d.kind == Opnd::Kind::kVector) {
    if (s.kind != Opnd::Kind::kValue || d.count == 0 || d.count > 8 || ptx::TypeSize(t) * 8 % d.count)
      return UnimplementedForm(ir, "vector unpack shape");
    if (Handler h = DispatchBits(t, [](auto tag) -> Handler { return &MovUnpack<decltype(tag)>; })) return h;
    return UnimplementedForm(ir, "unsupported type");
  }
  if (d.kind != Opnd::Kind::kValue) return UnimplementedForm(ir, "destination kind");
  switch (s.kind) {
    case Opnd::Kind::kValue:
      if (Handler h = DispatchBits(t, [](auto tag) -> Handler { return &Apply1<MovOp<decltype(tag)>>; })) return h;
      return UnimplementedForm(ir, "unsupported type");
    case Opnd::Kind::kVector:
      if (s.count == 0 || s.count > 8 || ptx::TypeSize(t) * 8 % s.count) return UnimplementedForm(ir, "vector pack shape");
      if (Handler h = DispatchBits(t, [](auto tag) -> Handler { return &MovPack<decltype(tag)>; })) return h;
      return UnimplementedForm(ir, "unsupported type");
    case Opnd::Kind::kAddress: return Handler{&MovAddress};
    case Opnd::Kind::kFunction: return Handler{&MovFunction};
    default: return UnimplementedForm(ir, "source kind");
  }
}

absl::StatusOr<Handler> SelectBits(const ptx::Instruction& ir, Inst& inst) {
  const auto& info = inst.info;
  const Type t = info.type();
  auto need = [&](int n) -> absl::Status {
    if (!AllValues(inst, 0, n)) return UnimplementedForm(ir, "expected " + std::to_string(n) + " register/immediate operands");
    return absl::OkStatus();
  };
  const bool clamp = ir.HasModifier(".clamp");
  const bool wrap = ir.HasModifier(".wrap");
  switch (ir.op) {
    case Opcode::kAnd: case Opcode::kOr: case Opcode::kXor: case Opcode::kNot: case Opcode::kCnot:
      return SelectLogic(ir, inst, t);
    case Opcode::kMov: return SelectMov(ir, inst, t);
    case Opcode::kLop3: {
      if (inst.num_ops != 5 || !AllValues(inst, 0, 5)) return UnimplementedForm(ir, "only the d, a, b, c, immLut form");
      if (t != Type::kB32) return UnimplementedForm(ir, "needs .b32");
      if (ir.operands.size() < 5 || ir.operands[4].kind != ptx::Operand::Kind::kImmediate)
        return UnimplementedForm(ir, "immLut must be an immediate");
      inst.imm = static_cast<uint64_t>(ir.operands[4].value) & 0xff;
      return Handler{&Lop3};
    }
    case Opcode::kShl:
    case Opcode::kShr: {
      if (auto s = need(3); !s.ok()) return s;
      Handler h = ir.op == Opcode::kShl ? PickInt<Shl, A2>(t) : PickInt<Shr, A2>(t);
      if (h) return h;
      return UnimplementedForm(ir, "unsupported type");
    }
    case Opcode::kShf: {
      if (auto s = need(4); !s.ok()) return s;
      const bool left = ir.HasModifier(".l");
      if (!left && !ir.HasModifier(".r")) return UnimplementedForm(ir, "needs .l or .r");
      if (clamp == wrap) return UnimplementedForm(ir, "needs .clamp or .wrap");
      if (left) return clamp ? Handler{&Apply3<Shf<true, true>>} : Handler{&Apply3<Shf<true, false>>};
      return clamp ? Handler{&Apply3<Shf<false, true>>} : Handler{&Apply3<Shf<false, false>>};
    }
    case Opcode::kBfe: {
      if (auto s = need(4); !s.ok()) return s;
      if (!Is32or64(t)) return UnimplementedForm(ir, "needs a 32/64-bit type");
      if (Handler h = PickInt<Bfe, A3>(t)) return h;
      return UnimplementedForm(ir, "unsupported type");
    }
    case Opcode::kBfi: {
      if (auto s = need(5); !s.ok()) return s;
      if (!Is32or64(t)) return UnimplementedForm(ir, "needs a 32/64-bit type");
      Handler h = ptx::TypeSize(t) == 4 ? Handler{&Apply4<Bfi<uint32_t>>} : Handler{&Apply4<Bfi<uint64_t>>};
      return h;
    }
    case Opcode::kBfind: {
      if (auto s = need(2); !s.ok()) return s;
      const bool sa = ir.HasModifier(".shiftamt");
      Handler h = sa ? DispatchInt(t, [](auto tag) -> Handler { return &Apply1<Bfind<decltype(tag), true>>; })
                     : DispatchInt(t, [](auto tag) -> Handler { return &Apply1<Bfind<decltype(tag), false>>; });
      if (h && Is32or64(t)) return h;
      return UnimplementedForm(ir, "needs a 32/64-bit type");
    }
    case Opcode::kClz:
    case Opcode::kPopc:
    case Opcode::kBrev: {
      if (auto s = need(2); !s.ok()) return s;
      if (!Is32or64(t)) return UnimplementedForm(ir, "needs a 32/64-bit type");
      const bool w = ptx::TypeSize(t) == 8;
      if (ir.op == Opcode::kClz) return w ? Handler{&Apply1<Clz<uint64_t>>} : Handler{&Apply1<Clz<uint32_t>>};
      if (ir.op == Opcode::kPopc) return w ? Handler{&Apply1<Popc<uint64_t>>} : Handler{&Apply1<Popc<uint32_t>>};
      return w ? Handler{&Apply1<Brev<uint64_t>>} : Handler{&Apply1<Brev<uint32_t>>};
    }
    case Opcode::kPrmt: {
      if (auto s = need(4); !s.ok()) return s;
      if (ir.HasModifier(".f4e")) return Handler{&Prmt<PrmtMode::kF4e>};
      if (ir.HasModifier(".b4e")) return Handler{&Prmt<PrmtMode::kB4e>};
      if (ir.HasModifier(".rc8")) return Handler{&Prmt<PrmtMode::kRc8>};
      if (ir.HasModifier(".ecl")) return Handler{&Prmt<PrmtMode::kEcl>};
      if (ir.HasModifier(".ecr")) return Handler{&Prmt<PrmtMode::kEcr>};
      if (ir.HasModifier(".rc16")) return Handler{&Prmt<PrmtMode::kRc16>};
      if (info.unclassified) return UnimplementedForm(ir, "unknown mode");
      return Handler{&Prmt<PrmtMode::kDefault>};
    }
    case Opcode::kBmsk: {
      if (auto s = need(3); !s.ok()) return s;
      if (clamp == wrap) return UnimplementedForm(ir, "needs .clamp or .wrap");
      return clamp ? Handler{&Apply2<Bmsk<true>>} : Handler{&Apply2<Bmsk<false>>};
    }
    case Opcode::kSzext: {
      if (auto s = need(3); !s.ok()) return s;
      if (clamp == wrap) return UnimplementedForm(ir, "needs .clamp or .wrap");
      if (t != Type::kU32 && t != Type::kS32) return UnimplementedForm(ir, "needs .u32 or .s32");
      const bool sg = t == Type::kS32;
      if (clamp) return sg ? Handler{&Apply2<Szext<true, true>>} : Handler{&Apply2<Szext<true, false>>};
      return sg ? Handler{&Apply2<Szext<false, true>>} : Handler{&Apply2<Szext<false, false>>};
    }
    case Opcode::kSelp: {
      if (inst.num_ops != 4 || !AllValues(inst, 0, 3)) return UnimplementedForm(ir, "expected d, a, b, c");
      if (inst.ops[3].kind != Opnd::Kind::kPred && inst.ops[3].kind != Opnd::Kind::kValue)
        return UnimplementedForm(ir, "c must be a predicate");
      if (Handler h = DispatchBits(t, [](auto tag) -> Handler { return &Selp<decltype(tag)>; })) return h;
      return UnimplementedForm(ir, "unsupported type");
    }
    case Opcode::kSlct: {
      if (auto s = need(4); !s.ok()) return s;
      const Type ct = info.type2();
      if (ct != Type::kS32 && ct != Type::kF32) return UnimplementedForm(ir, "c must be .s32 or .f32");
      Handler h = ct != Type::kF32 ? DispatchBits(t, [](auto tag) -> Handler { return &Slct<decltype(tag), false, false>; })
                  : info.ftz       ? DispatchBits(t, [](auto tag) -> Handler { return &Slct<decltype(tag), true, true>; })
                                   : DispatchBits(t, [](auto tag) -> Handler { return &Slct<decltype(tag), true, false>; });
      if (h) return h;
      return UnimplementedForm(ir, "unsupported type");
    }
    default: return Handler{nullptr};
  }
}

}  // namespace

absl::StatusOr<bool> SelectBitOp(const ptx::Instruction& ir, Inst& inst) {
  if (ir.op == Opcode::kSetp || ir.op == Opcode::kSet) return SelectCompareOp(ir, inst);
  auto h = SelectBits(ir, inst);
  if (!h.ok()) return h.status();
  if (*h == nullptr) return false;
  inst.fn = *h;
  return true;
}

}  // namespace barracuda::emu
