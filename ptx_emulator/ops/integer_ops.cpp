// Integer arithmetic: add sub mul mad mul24 mad24 sad div rem abs neg min max,
// the carry chain (add.cc addc sub.cc subc mad.cc madc), dp2a dp4a, and the
// packed .u16x2/.s16x2 forms of add sub min max.
//
// Each PTX form gets its own instantiation (type and mode are template
// parameters), so the per-lane code is straight-line arithmetic.
//
// Division by zero is undefined in PTX; here (and as on NVIDIA GPUs for the
// unsigned case) x / 0 is all ones for every type and x % 0 is x. Signed
// MIN / -1 is MIN and MIN % -1 is 0. Neither ever traps the emulator.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/ops/int_lanes.h"

namespace barracuda::emu {
namespace {

using namespace intops;  // NOLINT: the family's own helpers
using ptx::Opcode;
using ptx::Type;

// ------------------------------------------------------------------ handlers

template <class Op>
void IntUnary(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  using T = typename Op::In;
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  ForLanesStore(exec, d, [&](uint32_t l) { return Store(Op::F(Load<T>(a[l]))); });
}

template <class Op>
void IntBinary(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  using T = typename Op::In;
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = ctx.Src(inst.ops[2].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  ForLanesStore(exec, d, [&](uint32_t l) { return Store(Op::F(Load<T>(a[l]), Load<T>(b[l]))); });
}

template <class Op>
void Ternary(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  using T = typename Op::In;
  using C = typename Op::CIn;
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = ctx.Src(inst.ops[2].ref);
  const uint64_t* c = ctx.Src(inst.ops[3].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  ForLanesStore(exec, d, [&](uint32_t l) { return Store(Op::F(Load<T>(a[l]), Load<T>(b[l]), Load<C>(c[l]))); });
}

// ------------------------------------------------------------------ operations

template <class T>
struct Wider;  // the .wide result type
template <> struct Wider<uint8_t> { using type = uint32_t; };
template <> struct Wider<int8_t> { using type = int32_t; };
template <> struct Wider<uint16_t> { using type = uint32_t; };
template <> struct Wider<int16_t> { using type = int32_t; };
template <> struct Wider<uint32_t> { using type = uint64_t; };
template <> struct Wider<int32_t> { using type = int64_t; };
template <> struct Wider<uint64_t> { using type = unsigned __int128; };
template <> struct Wider<int64_t> { using type = __int128; };

template <class T>
T MulHi(T a, T b) {
  using W = typename Wider<T>::type;
  return static_cast<T>((static_cast<W>(a) * static_cast<W>(b)) >> kBits<T>);
}

template <class T> struct Add {
  using In = T;
  static T F(T a, T b) { return Wrap<T>(UArith<T>(a) + UArith<T>(b)); }
};
template <class T> struct Sub {
  using In = T;
  static T F(T a, T b) { return Wrap<T>(UArith<T>(a) - UArith<T>(b)); }
};
int32_t Saturate32(int64_t v) {
  return static_cast<int32_t>(std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(),
                                                  std::numeric_limits<int32_t>::max()));
}
struct AddSat {
  using In = int32_t;
  static int32_t F(int32_t a, int32_t b) { return Saturate32(int64_t{a} + b); }
};
struct SubSat {
  using In = int32_t;
  static int32_t F(int32_t a, int32_t b) { return Saturate32(int64_t{a} - b); }
};
template <class T> struct MulLo {
  using In = T;
  static T F(T a, T b) { return Wrap<T>(UArith<T>(a) * UArith<T>(b)); }
};
template <class T> struct MulHiOp {
  using In = T;
  static T F(T a, T b) { return MulHi(a, b); }
};
template <class T> struct MulWide {
  using In = T;
  using W = typename Wider<T>::type;
  static W F(T a, T b) { return static_cast<W>(static_cast<W>(a) * static_cast<W>(b)); }
};
template <class T> struct MadLo {
  using In = T;
  using CIn = T;
  static T F(T a, T b, T c) { return Wrap<T>(UArith<T>(a) * UArith<T>(b) + UArith<T>(c)); }
};
template <class T> struct MadHi {
  using In = T;
  using CIn = T;
  static T F(T a, T b, T c) { return Wrap<T>(UArith<T>(MulHi(a, b)) + UArith<T>(c)); }
};
template <class T> struct MadWide {
  using In = T;
  using W = typename Wider<T>::type;
  using CIn = W;
  static W F(T a, T b, W c) {
    using UW = std::make_unsigned_t<W>;
    return static_cast<W>(static_cast<UW>(static_cast<W>(a) * static_cast<W>(b)) + static_cast<UW>(c));
  }
};
struct MadHiSat {  // mad.hi.sat.s32
  using In = int32_t;
  using CIn = int32_t;
  static int32_t F(int32_t a, int32_t b, int32_t c) { return Saturate32(int64_t{MulHi(a, b)} + c); }
};

// mul24/mad24: the low 24 bits of a and b, sign- or zero-extended; .lo keeps
// bits 31..0 of the 48-bit product, .hi bits 47..16.
template <class T>
int64_t Ext24(T v) {
  const uint32_t u = static_cast<uint32_t>(v) & 0xffffffu;
  if constexpr (std::is_signed_v<T>) return static_cast<int32_t>(u << 8) >> 8;
  return u;
}
template <class T, bool kHi>
T Mul24(T a, T b) {
  const int64_t p = Ext24(a) * Ext24(b);
  return static_cast<T>(static_cast<uint32_t>(static_cast<uint64_t>(p) >> (kHi ? 16 : 0)));
}
template <class T, bool kHi> struct Mul24Op {
  using In = T;
  static T F(T a, T b) { return Mul24<T, kHi>(a, b); }
};
template <class T, bool kHi, bool kSat> struct Mad24Op {
  using In = T;
  using CIn = T;
  static T F(T a, T b, T c) {
    if constexpr (kSat) return Saturate32(int64_t{Mul24<T, kHi>(a, b)} + c);
    return Wrap<T>(UArith<T>(Mul24<T, kHi>(a, b)) + UArith<T>(c));
  }
};

template <class T> struct Sad {
  using In = T;
  using CIn = T;
  static T F(T a, T b, T c) {
    const UArith<T> diff = a < b ? UArith<T>(b) - UArith<T>(a) : UArith<T>(a) - UArith<T>(b);
    return Wrap<T>(UArith<T>(c) + diff);
  }
};

template <class T> struct Div {
  using In = T;
  static T F(T a, T b) {
    if (b == 0) return static_cast<T>(~Unsigned<T>{0});
    if constexpr (std::is_signed_v<T>)
      if (b == -1) return Wrap<T>(UArith<T>(0) - UArith<T>(a));  // MIN / -1 wraps to MIN
    return static_cast<T>(a / b);
  }
};
template <class T> struct Rem {
  using In = T;
  static T F(T a, T b) {
    if (b == 0) return a;
    if constexpr (std::is_signed_v<T>)
      if (b == -1) return 0;
    return static_cast<T>(a % b);
  }
};

template <class T> struct Abs {
  using In = T;
  static T F(T a) {
    if constexpr (std::is_signed_v<T>) return a < 0 ? Wrap<T>(UArith<T>(0) - UArith<T>(a)) : a;
    return a;  // abs of an unsigned/bit type: the value (PTX only defines signed types)
  }
};
template <class T> struct Neg {
  using In = T;
  static T F(T a) { return Wrap<T>(UArith<T>(0) - UArith<T>(a)); }
};
template <class T, bool kRelu> struct Min {
  using In = T;
  static T F(T a, T b) {
    T r = a < b ? a : b;
    if constexpr (kRelu) r = r < 0 ? T{0} : r;
    return r;
  }
};
template <class T, bool kRelu> struct Max {
  using In = T;
  static T F(T a, T b) {
    T r = a > b ? a : b;
    if constexpr (kRelu) r = r < 0 ? T{0} : r;
    return r;
  }
};

// Packed 16x2: Op applied to each half (H = uint16_t or int16_t).
template <template <class> class Op, class H>
struct X2 {
  using In = uint32_t;
  static uint32_t F(uint32_t a, uint32_t b) {
    const H lo = Op<H>::F(static_cast<H>(a), static_cast<H>(b));
    const H hi = Op<H>::F(static_cast<H>(a >> 16), static_cast<H>(b >> 16));
    return uint32_t{static_cast<uint16_t>(lo)} | uint32_t{static_cast<uint16_t>(hi)} << 16;
  }
};
template <class H> using MinPlain = Min<H, false>;
template <class H> using MaxPlain = Max<H, false>;
template <class H> using MinRelu = Min<H, true>;
template <class H> using MaxRelu = Max<H, true>;

// dp4a / dp2a: bytes (and halves) sign- or zero-extended per operand type,
// products accumulated into c modulo 2^32.
template <bool kSigned>
int64_t Byte(uint32_t v, int i) {
  const uint32_t b = (v >> (8 * i)) & 0xff;
  return kSigned ? static_cast<int64_t>(static_cast<int8_t>(b)) : static_cast<int64_t>(b);
}
template <bool kSigned>
int64_t Half(uint32_t v, int i) {
  const uint32_t h = (v >> (16 * i)) & 0xffff;
  return kSigned ? static_cast<int64_t>(static_cast<int16_t>(h)) : static_cast<int64_t>(h);
}
template <bool kSA, bool kSB> struct Dp4a {
  using In = uint32_t;
  using CIn = uint32_t;
  static uint32_t F(uint32_t a, uint32_t b, uint32_t c) {
    int64_t s = 0;
    for (int i = 0; i < 4; ++i) s += Byte<kSA>(a, i) * Byte<kSB>(b, i);
    return c + static_cast<uint32_t>(static_cast<uint64_t>(s));
  }
};
template <bool kSA, bool kSB, bool kHi> struct Dp2a {
  using In = uint32_t;
  using CIn = uint32_t;
  static uint32_t F(uint32_t a, uint32_t b, uint32_t c) {
    constexpr int kSel = kHi ? 2 : 0;
    const int64_t s = Half<kSA>(a, 0) * Byte<kSB>(b, kSel) + Half<kSA>(a, 1) * Byte<kSB>(b, kSel + 1);
    return c + static_cast<uint32_t>(static_cast<uint64_t>(s));
  }
};

// ------------------------------------------------------------------ carry chain
// CC.CF per lane lives in WarpCtx::carry. For subtraction PTX defines the flag
// as a borrow: sub.cc sets it when a < b, subc computes a - (b + CF).
enum class CarryKind { kAdd, kSub, kMadLo, kMadHi };

template <class U, CarryKind kKind, bool kIn, bool kOut>
void CarryOp(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const bool mad = kKind == CarryKind::kMadLo || kKind == CarryKind::kMadHi;
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = ctx.Src(inst.ops[2].ref);
  const uint64_t* c = mad ? ctx.Src(inst.ops[3].ref) : nullptr;
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  const uint32_t carry_in = ctx.carry;
  const uint32_t out = MaskLanes(exec, [&](uint32_t l) {
    const U cin = kIn ? static_cast<U>((carry_in >> l) & 1) : U{0};
    U x = Load<U>(a[l]);
    U y = Load<U>(b[l]);
    U r;
    bool flag;
    if constexpr (kKind == CarryKind::kSub) {
      const U t = static_cast<U>(x - y);
      r = static_cast<U>(t - cin);
      flag = (x < y) | (t < cin);
    } else {
      if constexpr (kKind == CarryKind::kMadLo) {
        x = static_cast<U>(x * y);
        y = Load<U>(c[l]);
      } else if constexpr (kKind == CarryKind::kMadHi) {
        x = MulHi(x, y);
        y = Load<U>(c[l]);
      }
      const U t = static_cast<U>(x + y);
      r = static_cast<U>(t + cin);
      flag = (t < x) | (r < t);
    }
    d[l] = Store(r);
    return flag;
  });
  if constexpr (kOut) ctx.carry = (ctx.carry & ~exec) | out;
}

template <CarryKind kKind, bool kIn, bool kOut>
Handler PickCarry(Type t) {
  // Signedness does not matter for the bit pattern or the carry.
  switch (t) {
    case Type::kU32: case Type::kS32: case Type::kB32: return &CarryOp<uint32_t, kKind, kIn, kOut>;
    case Type::kU64: case Type::kS64: case Type::kB64: return &CarryOp<uint64_t, kKind, kIn, kOut>;
    default: return nullptr;
  }
}

template <CarryKind kKind>
Handler PickCarryIO(bool in, bool out, Type t) {
  if (in) return out ? PickCarry<kKind, true, true>(t) : PickCarry<kKind, true, false>(t);
  return out ? PickCarry<kKind, false, true>(t) : PickCarry<kKind, false, false>(t);
}

// ------------------------------------------------------------------ selection

template <template <class> class Op>
Handler PickBinary(Type t) {
  return DispatchInt(t, [](auto tag) -> Handler { return &IntBinary<Op<decltype(tag)>>; });
}
template <template <class> class Op>
Handler PickTernary(Type t) {
  return DispatchInt(t, [](auto tag) -> Handler { return &Ternary<Op<decltype(tag)>>; });
}
template <template <class> class Op>
Handler PickUnary(Type t) {
  return DispatchInt(t, [](auto tag) -> Handler { return &IntUnary<Op<decltype(tag)>>; });
}
template <template <class> class Op, bool kTernary>
Handler PickWide(Type t) {
  auto pick = [](auto tag) -> Handler {
    if constexpr (kTernary) return &Ternary<Op<decltype(tag)>>;
    else return &IntBinary<Op<decltype(tag)>>;
  };
  switch (t) {
    case Type::kU16: return pick(uint16_t{});
    case Type::kS16: return pick(int16_t{});
    case Type::kU32: return pick(uint32_t{});
    case Type::kS32: return pick(int32_t{});
    default: return nullptr;
  }
}

template <bool kMin, bool kRelu>
Handler PickMinMax(Type t) {
  return DispatchInt(t, [](auto tag) -> Handler {
    using T = decltype(tag);
    if constexpr (kRelu && !std::is_signed_v<T>) return nullptr;
    else if constexpr (kMin) return &IntBinary<Min<T, kRelu>>;
    else return &IntBinary<Max<T, kRelu>>;
  });
}

// The packed 16x2 type named by a modifier (not a ptx::Type): 0 none, 1 u16x2, 2 s16x2.
int Packed16(const ptx::Instruction& ir) {
  if (ir.HasModifier(".u16x2")) return 1;
  if (ir.HasModifier(".s16x2")) return 2;
  return 0;
}

bool Sign(Type t) { return t == Type::kS32; }

template <bool kSA, bool kSB>
Handler PickDp2a(bool hi) {
  return hi ? &Ternary<Dp2a<kSA, kSB, true>> : &Ternary<Dp2a<kSA, kSB, false>>;
}

absl::StatusOr<Handler> SelectArith(const ptx::Instruction& ir, Inst& inst) {
  const auto& info = inst.info;
  const Type t = info.type();
  const int packed = Packed16(ir);
  const bool relu = ir.HasModifier(".relu");
  auto need = [&](int n) -> absl::Status {
    if (!AllValues(inst, 0, n)) return UnimplementedForm(ir, "expected " + std::to_string(n) + " register/immediate operands");
    return absl::OkStatus();
  };

  switch (ir.op) {
    case Opcode::kAdd:
    case Opcode::kSub: {
      const bool add = ir.op == Opcode::kAdd;
      if (auto s = need(3); !s.ok()) return s;
      if (packed) {
        if (info.sat || info.cc) return UnimplementedForm(ir, "packed form with .sat/.cc");
        return add ? Handler{&IntBinary<X2<Add, uint16_t>>} : Handler{&IntBinary<X2<Sub, uint16_t>>};
      }
      if (info.cc) {
        if (info.sat) return UnimplementedForm(ir, ".sat with .cc");
        if (Handler h = add ? PickCarryIO<CarryKind::kAdd>(false, true, t) : PickCarryIO<CarryKind::kSub>(false, true, t))
          return h;
        return UnimplementedForm(ir, ".cc needs a 32/64-bit type");
      }
      if (info.sat) {
        if (t != Type::kS32) return UnimplementedForm(ir, ".sat is only defined for .s32");
        return add ? Handler{&IntBinary<AddSat>} : Handler{&IntBinary<SubSat>};
      }
      if (Handler h = add ? PickBinary<Add>(t) : PickBinary<Sub>(t)) return h;
      return UnimplementedForm(ir, "unsupported type");
    }
    case Opcode::kAddc:
    case Opcode::kSubc: {
      if (auto s = need(3); !s.ok()) return s;
      Handler h = ir.op == Opcode::kAddc ? PickCarryIO<CarryKind::kAdd>(true, info.cc, t)
                                         : PickCarryIO<CarryKind::kSub>(true, info.cc, t);
      if (h) return h;
      return UnimplementedForm(ir, "needs a 32/64-bit type");
    }
    case Opcode::kMul: {
      if (auto s = need(3); !s.ok()) return s;
      Handler h = nullptr;
      switch (info.mul) {
        case ptx::MulMode::kHi: h = PickBinary<MulHiOp>(t); break;
        case ptx::MulMode::kWide:
          h = PickWide<MulWide, false>(t);
          if (!h) return UnimplementedForm(ir, ".wide needs a 16/32-bit type");
          break;
        default: h = PickBinary<MulLo>(t); break;
      }
      if (h) return h;
      return UnimplementedForm(ir, "unsupported type");
    }
    case Opcode::kMad:
    case Opcode::kMadc: {
      if (auto s = need(4); !s.ok()) return s;
      const bool madc = ir.op == Opcode::kMadc;
      if (madc || info.cc) {
        if (info.mul == ptx::MulMode::kWide || info.sat) return UnimplementedForm(ir, "carry form with .wide/.sat");
        Handler h = info.mul == ptx::MulMode::kHi ? PickCarryIO<CarryKind::kMadHi>(madc, info.cc, t)
                                                  : PickCarryIO<CarryKind::kMadLo>(madc, info.cc, t);
        if (h) return h;
        return UnimplementedForm(ir, "carry form needs a 32/64-bit type");
      }
      if (info.sat) {
        if (t != Type::kS32 || info.mul != ptx::MulMode::kHi) return UnimplementedForm(ir, ".sat is only defined for .hi.s32");
        return Handler{&Ternary<MadHiSat>};
      }
      Handler h = nullptr;
      switch (info.mul) {
        case ptx::MulMode::kHi: h = PickTernary<MadHi>(t); break;
        case ptx::MulMode::kWide:
          h = PickWide<MadWide, true>(t);
          if (!h) return UnimplementedForm(ir, ".wide needs a 16/32-bit type");
          break;
        default: h = PickTernary<MadLo>(t); break;
      }
      if (h) return h;
      return UnimplementedForm(ir, "unsupported type");
    }
    case Opcode::kMul24:
    case Opcode::kMad24: {
      const bool mad = ir.op == Opcode::kMad24;
      if (auto s = need(mad ? 4 : 3); !s.ok()) return s;
      const bool hi = info.mul == ptx::MulMode::kHi;
      if (t != Type::kU32 && t != Type::kS32) return UnimplementedForm(ir, "needs .u32 or .s32");
      if (info.sat && !(mad && hi && t == Type::kS32)) return UnimplementedForm(ir, ".sat is only defined for mad24.hi.s32");
      const bool s = t == Type::kS32;
      if (!mad) {
        if (s) return hi ? Handler{&IntBinary<Mul24Op<int32_t, true>>} : Handler{&IntBinary<Mul24Op<int32_t, false>>};
        return hi ? Handler{&IntBinary<Mul24Op<uint32_t, true>>} : Handler{&IntBinary<Mul24Op<uint32_t, false>>};
      }
      if (info.sat) return Handler{&Ternary<Mad24Op<int32_t, true, true>>};
      if (s) return hi ? Handler{&Ternary<Mad24Op<int32_t, true, false>>} : Handler{&Ternary<Mad24Op<int32_t, false, false>>};
      return hi ? Handler{&Ternary<Mad24Op<uint32_t, true, false>>} : Handler{&Ternary<Mad24Op<uint32_t, false, false>>};
    }
    case Opcode::kSad: {
      if (auto s = need(4); !s.ok()) return s;
      if (Handler h = PickTernary<Sad>(t)) return h;
      return UnimplementedForm(ir, "unsupported type");
    }
    case Opcode::kDiv:
    case Opcode::kRem: {
      if (auto s = need(3); !s.ok()) return s;
      if (Handler h = ir.op == Opcode::kDiv ? PickBinary<Div>(t) : PickBinary<Rem>(t)) return h;
      return UnimplementedForm(ir, "unsupported type");
    }
    case Opcode::kAbs:
    case Opcode::kNeg: {
      if (auto s = need(2); !s.ok()) return s;
      if (Handler h = ir.op == Opcode::kAbs ? PickUnary<Abs>(t) : PickUnary<Neg>(t)) return h;
      return UnimplementedForm(ir, "unsupported type");
    }
    case Opcode::kMin:
    case Opcode::kMax: {
      if (auto s = need(3); !s.ok()) return s;
      const bool mn = ir.op == Opcode::kMin;
      if (packed == 1) {
        if (relu) return UnimplementedForm(ir, ".relu is only defined for .s16x2");
        return mn ? Handler{&IntBinary<X2<MinPlain, uint16_t>>} : Handler{&IntBinary<X2<MaxPlain, uint16_t>>};
      }
      if (packed == 2) {
        if (relu) return mn ? Handler{&IntBinary<X2<MinRelu, int16_t>>} : Handler{&IntBinary<X2<MaxRelu, int16_t>>};
        return mn ? Handler{&IntBinary<X2<MinPlain, int16_t>>} : Handler{&IntBinary<X2<MaxPlain, int16_t>>};
      }
      Handler h = relu ? (mn ? PickMinMax<true, true>(t) : PickMinMax<false, true>(t))
                       : (mn ? PickMinMax<true, false>(t) : PickMinMax<false, false>(t));
      if (h) return h;
      return UnimplementedForm(ir, relu ? ".relu needs a signed type" : "unsupported type");
    }
    case Opcode::kDp4a:
    case Opcode::kDp2a: {
      if (auto s = need(4); !s.ok()) return s;
      const Type ta = info.type(), tb = info.type2();
      auto ok = [](Type x) { return x == Type::kU32 || x == Type::kS32; };
      if (!ok(ta) || !ok(tb)) return UnimplementedForm(ir, "operand types must be .u32/.s32");
      if (ir.op == Opcode::kDp4a) {
        if (Sign(ta)) return Sign(tb) ? Handler{&Ternary<Dp4a<true, true>>} : Handler{&Ternary<Dp4a<true, false>>};
        return Sign(tb) ? Handler{&Ternary<Dp4a<false, true>>} : Handler{&Ternary<Dp4a<false, false>>};
      }
      const bool hi = ir.HasModifier(".hi");
      if (!hi && !ir.HasModifier(".lo")) return UnimplementedForm(ir, "needs .lo or .hi");
      if (Sign(ta)) return Sign(tb) ? PickDp2a<true, true>(hi) : PickDp2a<true, false>(hi);
      return Sign(tb) ? PickDp2a<false, true>(hi) : PickDp2a<false, false>(hi);
    }
    default: return Handler{nullptr};
  }
}

bool IsIntegerOpcode(Opcode op) {
  switch (op) {
    case Opcode::kAdd: case Opcode::kSub: case Opcode::kAddc: case Opcode::kSubc: case Opcode::kMul:
    case Opcode::kMad: case Opcode::kMadc: case Opcode::kMul24: case Opcode::kMad24: case Opcode::kSad:
    case Opcode::kDiv: case Opcode::kRem: case Opcode::kAbs: case Opcode::kNeg: case Opcode::kMin:
    case Opcode::kMax: case Opcode::kDp4a: case Opcode::kDp2a:
      return true;
    default:
      return false;
  }
}

}  // namespace

absl::StatusOr<bool> SelectIntegerOp(const ptx::Instruction& ir, Inst& inst) {
  if (!IsIntegerOpcode(ir.op)) return false;
  // The same opcodes on floating-point types belong to the float family.
  const ptx::Type t = inst.info.type();
  if (t != ptx::Type::kNone && ptx::IsFloat(t)) return false;
  if (t == ptx::Type::kNone && !Packed16(ir)) return false;
  auto h = SelectArith(ir, inst);
  if (!h.ok()) return h.status();
  if (*h == nullptr) return false;
  inst.fn = *h;
  return true;
}

}  // namespace barracuda::emu
