// Video instructions (PTX ISA "Video Instructions"): the scalar forms vadd vsub
// vabsdiff vmin vmax vshl vshr vmad vset and the SIMD forms vadd2/4 vsub2/4
// vavrg2/4 vabsdiff2/4 vmin2/4 vmax2/4 vset2/4. CUDA's SIMD intrinsics compile
// to some of them (__vsadu4 is vabsdiff4.u32.u32.u32.add).
//
// The handler is a template over the primary operation (and, for the scalar
// forms, the secondary one); the operand selectors, types and flags are decoded
// once into a small form word in Inst::imm (VideoForm / SimdForm below), so the
// lane loop only shifts and masks by precomputed amounts.
//
// Arithmetic follows the specification's pseudo-code literally: parts are
// sign- or zero-extended to 64 bits (the ISA's .s33), the intermediate result
// is exact (128 bits for the shifts), then saturated, combined with c and
// truncated to 32 bits.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>

#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/ops/int_lanes.h"

namespace barracuda::emu {
namespace {

using namespace intops;  // NOLINT: the family's own helpers
using ptx::Opcode;
using i128 = __int128;

// ------------------------------------------------------------------ forms

// One operand part: bits [shift, shift + bits) of the 32-bit register.
struct Part {
  uint8_t shift = 0;
  uint8_t bits = 32;
};

int64_t Extract(uint32_t v, Part p, bool is_signed) {
  const uint32_t x = p.bits == 32 ? v : (v >> p.shift) & ((1u << p.bits) - 1);
  if (!is_signed) return x;
  const uint32_t sign = 1u << (p.bits - 1);
  return static_cast<int64_t>(x ^ sign) - static_cast<int64_t>(sign);
}

// Scalar form (vadd ... vset, vshl/vshr), in Inst::imm.
struct VideoForm {
  Part a, b;
  Part d;            // dsel: bits 32 = whole word (no merge)
  uint8_t flags = 0;  // kASigned | kBSigned | kDSigned | kSat | kClamp
  uint8_t pad = 0;
};
static_assert(sizeof(VideoForm) == 8);
constexpr uint8_t kASigned = 1, kBSigned = 2, kDSigned = 4, kSat = 8, kClamp = 16;

// vmad form, in Inst::imm.
struct MadForm {
  Part a, b;
  uint8_t flags = 0;  // kASigned | kBSigned | kSat | kPo | kNegProduct | kNegC
  uint8_t scale = 0;  // 0, 7, 15
  uint8_t pad[2] = {};
};
static_assert(sizeof(MadForm) == 8);
constexpr uint8_t kPo = 32, kNegProduct = 64, kNegC = 128;

// SIMD form, in Inst::imm: the source element of each of the 2 or 4 lanes of
// Va / Vb (an index into the bytes or half-words of {b, a}), the mask.
struct SimdForm {
  uint8_t asel[4] = {};
  uint8_t bsel[4] = {};
};
static_assert(sizeof(SimdForm) == 8);
// Inst::aux for SIMD: mask bits 0..3, flags from bit 8 (kASigned ... kSat).

i128 Clamp(i128 v, i128 lo, i128 hi) { return std::min(std::max(v, lo), hi); }

// optSaturate: the range of the destination type, or of the merged part.
i128 Saturate(i128 v, bool is_signed, uint8_t bits) {
  if (is_signed) return Clamp(v, -(i128{1} << (bits - 1)), (i128{1} << (bits - 1)) - 1);
  return Clamp(v, 0, (i128{1} << bits) - 1);
}

// ------------------------------------------------------------------ operations

struct OpAdd { static i128 F(int64_t a, int64_t b, uint8_t) { return i128{a} + b; } };
struct OpSub { static i128 F(int64_t a, int64_t b, uint8_t) { return i128{a} - b; } };
struct OpAbsdiff {
  static i128 F(int64_t a, int64_t b, uint8_t) { return a > b ? i128{a} - b : i128{b} - a; }
};
struct OpMin { static i128 F(int64_t a, int64_t b, uint8_t) { return std::min(a, b); } };
struct OpMax { static i128 F(int64_t a, int64_t b, uint8_t) { return std::max(a, b); } };
// vavrg2/4 as the ISA writes it: +1 only when the sum is non-negative, then an
// arithmetic shift (so a negative odd sum rounds down, a positive one up).
struct OpAvrg {
  static i128 F(int64_t a, int64_t b, uint8_t) {
    const int64_t s = a + b;
    return s >= 0 ? (s + 1) >> 1 : s >> 1;
  }
};
// vshl/vshr: b is an unsigned amount, clamped to 32 or wrapped to 5 bits.
int64_t ShiftAmount(int64_t b, uint8_t flags) { return (flags & kClamp) ? std::min<int64_t>(b, 32) : (b & 0x1f); }
struct OpShl { static i128 F(int64_t a, int64_t b, uint8_t f) { return i128{a} * (i128{1} << ShiftAmount(b, f)); } };
struct OpShr { static i128 F(int64_t a, int64_t b, uint8_t f) { return i128{a} >> ShiftAmount(b, f); } };

enum class Cmp { kEq, kNe, kLt, kLe, kGt, kGe };
template <Cmp k>
struct OpSet {
  static i128 F(int64_t a, int64_t b, uint8_t) {
    switch (k) {
      case Cmp::kEq: return a == b;
      case Cmp::kNe: return a != b;
      case Cmp::kLt: return a < b;
      case Cmp::kLe: return a <= b;
      case Cmp::kGt: return a > b;
      case Cmp::kGe: return a >= b;
    }
    return 0;
  }
};

// ------------------------------------------------------------------ handlers

enum class Op2 { kNone, kAdd, kMin, kMax };

// vadd vsub vabsdiff vmin vmax vshl vshr vset, with d, a, b[, c].
template <class Op, Op2 kOp2>
void Scalar(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const VideoForm f = std::bit_cast<VideoForm>(inst.imm);
  const bool a_signed = f.flags & kASigned, b_signed = f.flags & kBSigned, d_signed = f.flags & kDSigned;
  const bool sat = f.flags & kSat;
  const bool merge = f.d.bits != 32;
  const uint8_t sat_bits = f.d.bits;
  const uint32_t keep = merge ? ~(((1u << f.d.bits) - 1) << f.d.shift) : 0;
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = ctx.Src(inst.ops[2].ref);
  const uint64_t* c = inst.num_ops > 3 ? ctx.Src(inst.ops[3].ref) : nullptr;
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  ForLanesStore(exec, d, [&](uint32_t l) {
    const int64_t ta = Extract(static_cast<uint32_t>(a[l]), f.a, a_signed);
    const int64_t tb = Extract(static_cast<uint32_t>(b[l]), f.b, b_signed);
    i128 t = Op::F(ta, tb, f.flags);
    if (sat) t = Saturate(t, d_signed, sat_bits);
    uint32_t r;
    if constexpr (kOp2 != Op2::kNone) {
      // The third operand has the destination's signedness.
      const uint32_t cw = static_cast<uint32_t>(c[l]);
      const i128 cv = d_signed ? i128{static_cast<int32_t>(cw)} : i128{cw};
      if constexpr (kOp2 == Op2::kAdd) t += cv;
      if constexpr (kOp2 == Op2::kMin) t = std::min(t, cv);
      if constexpr (kOp2 == Op2::kMax) t = std::max(t, cv);
      r = static_cast<uint32_t>(t);
    } else if (merge) {
      r = ((static_cast<uint32_t>(t) << f.d.shift) & ~keep) | (static_cast<uint32_t>(c[l]) & keep);
    } else {
      r = static_cast<uint32_t>(t);
    }
    return uint64_t{r};
  });
}

// vmad d, {-}a, {-}b, {-}c: the ISA's 128-bit pseudo-code.
void Mad(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const MadForm f = std::bit_cast<MadForm>(inst.imm);
  const bool a_signed = f.flags & kASigned, b_signed = f.flags & kBSigned;
  const bool neg_product = f.flags & kNegProduct, neg_c = f.flags & kNegC;
  const bool signed_final = a_signed || b_signed || neg_product || neg_c;
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = ctx.Src(inst.ops[2].ref);
  const uint64_t* c = ctx.Src(inst.ops[3].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  ForLanesStore(exec, d, [&](uint32_t l) {
    const int64_t ta = Extract(static_cast<uint32_t>(a[l]), f.a, a_signed);
    const int64_t tb = Extract(static_cast<uint32_t>(b[l]), f.b, b_signed);
    using u128 = unsigned __int128;
    u128 tmp = static_cast<u128>(i128{ta} * tb);
    uint32_t cw = static_cast<uint32_t>(c[l]);
    u128 lsb = 0;
    if (f.flags & kPo) {
      lsb = 1;
    } else if (neg_product) {
      tmp = ~tmp;
      lsb = 1;
    } else if (neg_c) {
      cw = ~cw;
      lsb = 1;
    }
    const u128 c128 = signed_final ? static_cast<u128>(i128{static_cast<int32_t>(cw)}) : u128{cw};
    tmp = tmp + c128 + lsb;
    uint64_t result = static_cast<uint64_t>(tmp >> f.scale);
    if (f.flags & kSat) {
      if (signed_final)
        result = static_cast<uint64_t>(std::clamp<int64_t>(static_cast<int64_t>(result), INT32_MIN, INT32_MAX));
      else
        result = std::min<uint64_t>(result, UINT32_MAX);
    }
    return uint64_t{static_cast<uint32_t>(result)};
  });
}

// vop2 / vop4 / vset2 / vset4: kN lanes of 32/kN bits; kAdd: the accumulate
// form (d = c + the masked lanes), else the merge (masked lanes from t, the
// others from c).
template <class Op, int kN, bool kAdd>
void Simd(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  constexpr uint32_t kBits = 32 / kN;
  [[maybe_unused]] constexpr uint32_t kElem = (1u << kBits) - 1;
  const SimdForm f = std::bit_cast<SimdForm>(inst.imm);
  const uint32_t mask = inst.aux & 0xf;
  const uint8_t flags = static_cast<uint8_t>(inst.aux >> 8);
  const bool a_signed = flags & kASigned, b_signed = flags & kBSigned, d_signed = flags & kDSigned;
  const bool sat = flags & kSat;
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = ctx.Src(inst.ops[2].ref);
  const uint64_t* c = ctx.Src(inst.ops[3].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  ForLanesStore(exec, d, [&](uint32_t l) {
    // Both selectors pick from the 8 bytes / 4 half-words of {b, a}.
    const uint64_t pool = (a[l] & 0xffffffffu) | (b[l] & 0xffffffffu) << 32;
    const uint32_t cw = static_cast<uint32_t>(c[l]);
    uint32_t r = kAdd ? cw : 0;
    for (int i = 0; i < kN; ++i) {
      if (!(mask >> i & 1)) {
        if constexpr (!kAdd) r |= cw & (kElem << (i * kBits));
        continue;
      }
      const Part pa{static_cast<uint8_t>(f.asel[i] * kBits), kBits};
      const Part pb{static_cast<uint8_t>(f.bsel[i] * kBits), kBits};
      const uint32_t wa = static_cast<uint32_t>(pool >> pa.shift), wb = static_cast<uint32_t>(pool >> pb.shift);
      i128 t = Op::F(Extract(wa, Part{0, kBits}, a_signed), Extract(wb, Part{0, kBits}, b_signed), 0);
      if (sat) t = Saturate(t, d_signed, kBits);
      if constexpr (kAdd) r += static_cast<uint32_t>(t);
      else r |= (static_cast<uint32_t>(t) & kElem) << (i * kBits);
    }
    return uint64_t{r};
  });
}

// ------------------------------------------------------------------ selection

struct Modifiers {
  bool types_ok = true;
  bool types[3] = {};  // signedness of the .u32/.s32 modifiers, in order
  int num_types = 0;
  bool sat = false, po = false, clamp = false, wrap = false, add = false;
  Op2 op2 = Op2::kNone;
  int cmp = -1;
  uint8_t scale = 0;
  std::string unknown;
};

Modifiers ReadModifiers(const ptx::Instruction& ir) {
  static constexpr std::string_view kCmp[] = {".eq", ".ne", ".lt", ".le", ".gt", ".ge"};
  Modifiers m;
  for (const std::string& s : ir.modifiers) {
    if (s == ".u32" || s == ".s32") {
      if (m.num_types < 3) m.types[m.num_types] = s == ".s32";
      ++m.num_types;
    } else if (s == ".sat") {
      m.sat = true;
    } else if (s == ".po") {
      m.po = true;
    } else if (s == ".clamp") {
      m.clamp = true;
    } else if (s == ".wrap") {
      m.wrap = true;
    } else if (s == ".shr7" || s == ".shr15") {
      m.scale = s == ".shr7" ? 7 : 15;
    } else if (s == ".add" || s == ".min" || s == ".max") {
      if (m.op2 != Op2::kNone) m.unknown = s;
      m.op2 = s == ".add" ? Op2::kAdd : s == ".min" ? Op2::kMin : Op2::kMax;
    } else if (auto it = std::find(std::begin(kCmp), std::end(kCmp), s); it != std::end(kCmp)) {
      m.cmp = static_cast<int>(it - std::begin(kCmp));
    } else {
      m.unknown = s;
    }
  }
  return m;
}

// A scalar selector (.b0-.b3, .h0, .h1); empty: the whole word.
bool ScalarPart(const std::string& sel, Part& p) {
  if (sel.empty()) return true;
  if (sel.size() != 3) return false;
  const int i = sel[2] - '0';
  if (sel[1] == 'b' && i >= 0 && i <= 3) p = Part{static_cast<uint8_t>(8 * i), 8};
  else if (sel[1] == 'h' && i >= 0 && i <= 1) p = Part{static_cast<uint8_t>(16 * i), 16};
  else return false;
  return true;
}

bool IsVideoOpcode(Opcode op) {
  switch (op) {
    case Opcode::kVadd: case Opcode::kVsub: case Opcode::kVabsdiff: case Opcode::kVmin: case Opcode::kVmax:
    case Opcode::kVshl: case Opcode::kVshr: case Opcode::kVmad: case Opcode::kVset:
    case Opcode::kVadd2: case Opcode::kVsub2: case Opcode::kVavrg2: case Opcode::kVabsdiff2: case Opcode::kVmin2:
    case Opcode::kVmax2: case Opcode::kVset2:
    case Opcode::kVadd4: case Opcode::kVsub4: case Opcode::kVavrg4: case Opcode::kVabsdiff4: case Opcode::kVmin4:
    case Opcode::kVmax4: case Opcode::kVset4:
      return true;
    default:
      return false;
  }
}

template <class Op>
Handler PickScalar(Op2 op2) {
  switch (op2) {
    case Op2::kNone: return &Scalar<Op, Op2::kNone>;
    case Op2::kAdd: return &Scalar<Op, Op2::kAdd>;
    case Op2::kMin: return &Scalar<Op, Op2::kMin>;
    case Op2::kMax: return &Scalar<Op, Op2::kMax>;
  }
  return nullptr;
}

// Calls pick.template operator()<OpSet<k>>() for compare k.
template <class Pick>
Handler ForCmp(int cmp, Pick&& pick) {
  switch (cmp) {
    case 0: return pick(OpSet<Cmp::kEq>{});
    case 1: return pick(OpSet<Cmp::kNe>{});
    case 2: return pick(OpSet<Cmp::kLt>{});
    case 3: return pick(OpSet<Cmp::kLe>{});
    case 4: return pick(OpSet<Cmp::kGt>{});
    case 5: return pick(OpSet<Cmp::kGe>{});
    default: return nullptr;
  }
}

absl::StatusOr<Handler> SelectScalar(const ptx::Instruction& ir, Inst& inst, const Modifiers& m) {
  const bool set = ir.op == Opcode::kVset;
  const bool shift = ir.op == Opcode::kVshl || ir.op == Opcode::kVshr;
  const int want_types = set ? 2 : 3;
  if (m.num_types != want_types) return UnimplementedForm(ir, "expected " + std::to_string(want_types) + " .u32/.s32 types");
  if (m.po || m.scale) return UnimplementedForm(ir, ".po/.shrN belong to vmad");
  if (set && (m.sat || m.cmp < 0)) return UnimplementedForm(ir, set && m.cmp < 0 ? "needs a comparison" : ".sat");
  if (!set && m.cmp >= 0) return UnimplementedForm(ir, "a comparison belongs to vset");
  if (shift) {
    if (m.clamp == m.wrap) return UnimplementedForm(ir, "needs exactly one of .clamp/.wrap");
    if (m.types[2]) return UnimplementedForm(ir, "the shift amount type must be .u32");
  } else if (m.clamp || m.wrap) {
    return UnimplementedForm(ir, ".clamp/.wrap belong to vshl/vshr");
  }
  VideoForm f;
  const int first = set ? 0 : 1;  // vset has no dtype
  if (m.types[first]) f.flags |= kASigned;
  if (m.types[first + 1]) f.flags |= kBSigned;
  if (!set && m.types[0]) f.flags |= kDSigned;
  if (m.sat) f.flags |= kSat;
  if (m.clamp) f.flags |= kClamp;
  if (!ScalarPart(ir.operands[1].select, f.a) || !ScalarPart(ir.operands[2].select, f.b) ||
      !ScalarPart(ir.operands[0].select, f.d))
    return UnimplementedForm(ir, "operand selectors must be .b0-.b3/.h0/.h1");
  const bool merge = f.d.bits != 32;
  const bool three = inst.num_ops == 3;
  if (three && (merge || m.op2 != Op2::kNone)) return UnimplementedForm(ir, "a merge or secondary operation needs c");
  if (!three && inst.num_ops != 4) return UnimplementedForm(ir, "expected 3 or 4 operands");
  if (!three && !merge && m.op2 == Op2::kNone) return UnimplementedForm(ir, "c without a merge or secondary operation");
  if (merge && m.op2 != Op2::kNone) return UnimplementedForm(ir, "a merge with a secondary operation");
  if (!merge) f.d = Part{};
  inst.imm = std::bit_cast<uint64_t>(f);
  switch (ir.op) {
    case Opcode::kVadd: return PickScalar<OpAdd>(m.op2);
    case Opcode::kVsub: return PickScalar<OpSub>(m.op2);
    case Opcode::kVabsdiff: return PickScalar<OpAbsdiff>(m.op2);
    case Opcode::kVmin: return PickScalar<OpMin>(m.op2);
    case Opcode::kVmax: return PickScalar<OpMax>(m.op2);
    case Opcode::kVshl: return PickScalar<OpShl>(m.op2);
    case Opcode::kVshr: return PickScalar<OpShr>(m.op2);
    default: return ForCmp(m.cmp, [&](auto op) { return PickScalar<decltype(op)>(m.op2); });
  }
}

absl::StatusOr<Handler> SelectMad(const ptx::Instruction& ir, Inst& inst, const Modifiers& m) {
  if (m.num_types != 3) return UnimplementedForm(ir, "expected 3 .u32/.s32 types");
  if (m.op2 != Op2::kNone || m.cmp >= 0 || m.clamp || m.wrap) return UnimplementedForm(ir, "not a vmad modifier");
  if (inst.num_ops != 4) return UnimplementedForm(ir, "expected 4 operands");
  MadForm f;
  if (!ScalarPart(ir.operands[1].select, f.a) || !ScalarPart(ir.operands[2].select, f.b))
    return UnimplementedForm(ir, "operand selectors must be .b0-.b3/.h0/.h1");
  if (!ir.operands[0].select.empty() || !ir.operands[3].select.empty())
    return UnimplementedForm(ir, "selectors on d or c");
  const bool neg_product = ir.operands[1].minus != ir.operands[2].minus;
  const bool neg_c = ir.operands[3].minus;
  if (m.po && (ir.operands[1].minus || ir.operands[2].minus || neg_c))
    return UnimplementedForm(ir, "negated operands with .po");
  if (neg_product && neg_c) return UnimplementedForm(ir, "negation of both (a*b) and c");
  if (m.types[1]) f.flags |= kASigned;
  if (m.types[2]) f.flags |= kBSigned;
  if (m.sat) f.flags |= kSat;
  if (m.po) f.flags |= kPo;
  if (neg_product) f.flags |= kNegProduct;
  if (neg_c) f.flags |= kNegC;
  f.scale = m.scale;
  inst.imm = std::bit_cast<uint64_t>(f);
  return Handler{&Mad};
}

// `.hxy` / `.bxyzw`: element i is the digit i places from the right.
bool SimdSelect(const std::string& sel, int n, const char* dflt, uint8_t out[4]) {
  const std::string s = sel.empty() ? std::string(dflt) : sel;
  if (s.size() != static_cast<size_t>(2 + n) || s[1] != (n == 2 ? 'h' : 'b')) return false;
  for (int i = 0; i < n; ++i) {
    const int v = s[s.size() - 1 - i] - '0';
    if (v < 0 || v >= 2 * n) return false;
    out[i] = static_cast<uint8_t>(v);
  }
  return true;
}

// `.h0`, `.h10`, `.b310`, ...: distinct elements in descending order.
bool SimdMask(const std::string& sel, int n, uint32_t& mask) {
  if (sel.empty()) {
    mask = (1u << n) - 1;
    return true;
  }
  if (sel.size() < 3 || sel[1] != (n == 2 ? 'h' : 'b')) return false;
  mask = 0;
  int prev = n;
  for (size_t i = 2; i < sel.size(); ++i) {
    const int v = sel[i] - '0';
    if (v < 0 || v >= prev) return false;
    mask |= 1u << v;
    prev = v;
  }
  return true;
}

template <int kN>
Handler PickSimd(Opcode op, int cmp, bool add) {
  auto pick = [add](auto o) -> Handler {
    using O = decltype(o);
    return add ? Handler{&Simd<O, kN, true>} : Handler{&Simd<O, kN, false>};
  };
  switch (op) {
    case Opcode::kVadd2: case Opcode::kVadd4: return pick(OpAdd{});
    case Opcode::kVsub2: case Opcode::kVsub4: return pick(OpSub{});
    case Opcode::kVavrg2: case Opcode::kVavrg4: return pick(OpAvrg{});
    case Opcode::kVabsdiff2: case Opcode::kVabsdiff4: return pick(OpAbsdiff{});
    case Opcode::kVmin2: case Opcode::kVmin4: return pick(OpMin{});
    case Opcode::kVmax2: case Opcode::kVmax4: return pick(OpMax{});
    default: return ForCmp(cmp, pick);
  }
}

absl::StatusOr<Handler> SelectSimd(const ptx::Instruction& ir, Inst& inst, const Modifiers& m) {
  const bool set = ir.op == Opcode::kVset2 || ir.op == Opcode::kVset4;
  const int n = (ir.op == Opcode::kVadd2 || ir.op == Opcode::kVsub2 || ir.op == Opcode::kVavrg2 ||
                 ir.op == Opcode::kVabsdiff2 || ir.op == Opcode::kVmin2 || ir.op == Opcode::kVmax2 ||
                 ir.op == Opcode::kVset2)
                    ? 2
                    : 4;
  const int want_types = set ? 2 : 3;
  if (m.num_types != want_types) return UnimplementedForm(ir, "expected " + std::to_string(want_types) + " .u32/.s32 types");
  if (m.po || m.scale || m.clamp || m.wrap) return UnimplementedForm(ir, "not a SIMD video modifier");
  if (m.op2 == Op2::kMin || m.op2 == Op2::kMax) return UnimplementedForm(ir, "SIMD forms only accumulate with .add");
  if (set && (m.sat || m.cmp < 0)) return UnimplementedForm(ir, m.cmp < 0 ? "needs a comparison" : ".sat");
  if (!set && m.cmp >= 0) return UnimplementedForm(ir, "a comparison belongs to vset2/vset4");
  const bool add = m.op2 == Op2::kAdd;
  if (add && m.sat) return UnimplementedForm(ir, ".sat with the .add accumulate");
  if (inst.num_ops != 4) return UnimplementedForm(ir, "expected 4 operands");
  if (!ir.operands[3].select.empty()) return UnimplementedForm(ir, "a selector on c");
  SimdForm f;
  uint32_t mask = 0;
  if (!SimdSelect(ir.operands[1].select, n, n == 2 ? ".h10" : ".b3210", f.asel) ||
      !SimdSelect(ir.operands[2].select, n, n == 2 ? ".h32" : ".b7654", f.bsel))
    return UnimplementedForm(ir, n == 2 ? "a/b selectors must be .hxy" : "a/b selectors must be .bxyzw");
  if (!SimdMask(ir.operands[0].select, n, mask)) return UnimplementedForm(ir, "malformed destination mask");
  const int first = set ? 0 : 1;
  uint32_t flags = 0;
  if (m.types[first]) flags |= kASigned;
  if (m.types[first + 1]) flags |= kBSigned;
  if (!set && m.types[0]) flags |= kDSigned;
  if (m.sat) flags |= kSat;
  inst.imm = std::bit_cast<uint64_t>(f);
  inst.aux = mask | flags << 8;
  return n == 2 ? PickSimd<2>(ir.op, m.cmp, add) : PickSimd<4>(ir.op, m.cmp, add);
}

}  // namespace

absl::StatusOr<bool> SelectVideoOp(const ptx::Instruction& ir, Inst& inst) {
  if (!IsVideoOpcode(ir.op)) return false;
  if (inst.num_ops < 3 || !AllValues(inst, 0, inst.num_ops) || ir.operands.size() != inst.num_ops)
    return UnimplementedForm(ir, "expected register/immediate operands");
  if (RefKind(inst.ops[0].ref) != kRefRegister) return UnimplementedForm(ir, "the destination must be a register");
  const Modifiers m = ReadModifiers(ir);
  if (!m.unknown.empty()) return UnimplementedForm(ir, "modifier " + m.unknown);
  for (const ptx::Operand& o : ir.operands)
    if (o.minus && ir.op != Opcode::kVmad) return UnimplementedForm(ir, "operand negation is only defined for vmad");
  absl::StatusOr<Handler> h;
  switch (ir.op) {
    case Opcode::kVmad: h = SelectMad(ir, inst, m); break;
    case Opcode::kVadd: case Opcode::kVsub: case Opcode::kVabsdiff: case Opcode::kVmin: case Opcode::kVmax:
    case Opcode::kVshl: case Opcode::kVshr: case Opcode::kVset: h = SelectScalar(ir, inst, m); break;
    default: h = SelectSimd(ir, inst, m); break;
  }
  if (!h.ok()) return h.status();
  if (*h == nullptr) return UnimplementedForm(ir, "unsupported form");
  inst.fn = *h;
  return true;
}

}  // namespace barracuda::emu
