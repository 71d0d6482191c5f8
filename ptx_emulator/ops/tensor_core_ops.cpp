// Tensor-core family selection: wmma.load / wmma.store / wmma.mma, mma.sync,
// ldmatrix, stmatrix, movmatrix. Reads the modifiers (shape, layouts, types,
// space, .xN, .trans, .satfinite, rounding), checks the combination against
// the PTX ISA's tables, and packs what the handlers need into Inst::imm
// (tensor_desc.h). Forms the emulator does not implement (sub-byte and
// single-bit wmma, mma.sp, fp8/fp6/fp4 mma, block scaling, .m16n16 / .m8n16
// ldmatrix, .b8 ldmatrix/stmatrix, ...) are Unimplemented, never run wrong.
#include <array>
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/ops/mem_access.h"
#include "ptx_emulator/ops/tensor_desc.h"

namespace barracuda::emu {
namespace {

using tensor::Desc;
using tensor::Elem;
using tensor::Operand;

// What the modifiers say, before validation.
struct Modifiers {
  std::vector<std::string_view> words;  // unrecognised (wmma's .load/.a/..., mma's .sp, ...)
  std::vector<bool> layouts;            // .row / .col in order, true = .col
  std::vector<Elem> types;              // type modifiers in order (kNone: a type the family lacks)
  uint32_t m = 0, n = 0, k = 0;         // .mMnNkK (k = 0 for .mMnN)
  uint32_t matrices = 0;                // .x1 / .x2 / .x4
  bool trans = false;
  bool satfinite = false;
  fp::RoundMode rounding = fp::RoundMode::kRn;
  bool rounding_given = false;
};

Elem ElemOf(ptx::Type t) {
  switch (t) {
    case ptx::Type::kF16: return Elem::kF16;
    case ptx::Type::kBf16: return Elem::kBf16;
    case ptx::Type::kTf32: return Elem::kTf32;
    case ptx::Type::kF32: return Elem::kF32;
    case ptx::Type::kF64: return Elem::kF64;
    case ptx::Type::kS8: return Elem::kS8;
    case ptx::Type::kU8: return Elem::kU8;
    case ptx::Type::kS32: return Elem::kS32;
    case ptx::Type::kE4m3: return Elem::kE4m3;
    case ptx::Type::kE5m2: return Elem::kE5m2;
    default: return Elem::kNone;
  }
}

// ".m16n8k16" -> 16, 8, 16; ".m8n8" -> 8, 8, 0.
bool ParseShape(std::string_view s, Modifiers& out) {
  if (s.size() < 5 || s[0] != '.' || s[1] != 'm') return false;
  const char* p = s.data() + 2;
  const char* end = s.data() + s.size();
  uint32_t v[3] = {0, 0, 0};
  const char tags[3] = {'\0', 'n', 'k'};
  for (int i = 0; i < 3 && p < end; ++i) {
    if (i > 0) {
      if (*p != tags[i]) return false;
      ++p;
    }
    auto [next, ec] = std::from_chars(p, end, v[i]);
    if (ec != std::errc() || next == p) return false;
    p = next;
  }
  if (p != end || v[0] == 0 || v[1] == 0) return false;
  out.m = v[0], out.n = v[1], out.k = v[2];
  return true;
}

Modifiers Parse(const ptx::Instruction& ir) {
  Modifiers m;
  for (const std::string& text : ir.modifiers) {
    const std::string_view s = text;
    if (s == ".sync" || s == ".aligned") continue;
    if (s == ".row" || s == ".col") {
      m.layouts.push_back(s == ".col");
    } else if (s == ".x1" || s == ".x2" || s == ".x4") {
      m.matrices = static_cast<uint32_t>(s[2] - '0');
    } else if (s == ".trans") {
      m.trans = true;
    } else if (s == ".satfinite") {
      m.satfinite = true;
    } else if (s == ".rn" || s == ".rz" || s == ".rm" || s == ".rp") {
      m.rounding = s == ".rn" ? fp::RoundMode::kRn
                   : s == ".rz" ? fp::RoundMode::kRz
                   : s == ".rm" ? fp::RoundMode::kRm
                                : fp::RoundMode::kRp;
      m.rounding_given = true;
    } else if (ptx::LookupType(s) != ptx::Type::kNone) {
      m.types.push_back(ElemOf(ptx::LookupType(s)));
    } else if (s == ".global" || s == ".shared" || s == ".shared::cta") {
      continue;  // ir.info.space
    } else if (!ParseShape(s, m)) {
      m.words.push_back(s);
    }
  }
  return m;
}

bool SpaceOk(const ptx::Instruction& ir, bool global_allowed) {
  const ptx::StateSpace s = ir.info.space;
  return s == ptx::StateSpace::kNone || s == ptx::StateSpace::kShared ||
         (global_allowed && s == ptx::StateSpace::kGlobal);
}

// A fragment operand: a vector of `registers` registers (or one plain register).
bool FragmentOperand(const Opnd& o, uint32_t registers) {
  if (o.kind == Opnd::Kind::kVector) return o.count == registers;
  return registers == 1 && o.kind == Opnd::Kind::kValue && RefKind(o.ref) == kRefRegister;
}
bool SourceFragment(const Opnd& o, uint32_t registers) {
  if (o.kind == Opnd::Kind::kVector) return o.count == registers;
  return registers == 1 && o.kind == Opnd::Kind::kValue;
}

std::string Expect(std::string_view what, uint32_t registers) {
  return std::string(what) + ": a vector of " + std::to_string(registers) + " register" +
         (registers == 1 ? "" : "s") + " expected";
}

// ---------------------------------------------------------------- wmma
bool IsWmmaShape(uint32_t m, uint32_t n, uint32_t k) {
  return (m == 16 && n == 16 && k == 16) || (m == 32 && n == 8 && k == 16) || (m == 8 && n == 32 && k == 16) ||
         (m == 16 && n == 16 && k == 8) || (m == 8 && n == 8 && k == 4);
}
// m16n16k16, m32n8k16, m8n32k16 (the only k = 16 wmma shapes).
bool IsHalfShape(uint32_t, uint32_t, uint32_t k) { return k == 16; }

// Which element types a wmma shape takes for operand A/B (`multiplicand`) or C/D.
bool WmmaTypeOk(uint32_t m, uint32_t n, uint32_t k, bool multiplicand, Elem e) {
  if (k == 4) return e == Elem::kF64;                       // m8n8k4
  if (k == 8) return e == (multiplicand ? Elem::kTf32 : Elem::kF32);  // m16n16k8
  if (!IsHalfShape(m, n, k)) return false;
  if (multiplicand) return e == Elem::kF16 || e == Elem::kBf16 || e == Elem::kS8 || e == Elem::kU8;
  return e == Elem::kF16 || e == Elem::kF32 || e == Elem::kS32;
}

absl::StatusOr<bool> SelectWmmaMove(const ptx::Instruction& ir, Inst& inst, const Modifiers& m, bool store) {
  // wmma.load.{a,b,c} / wmma.store.d: the words are the verb and the matrix.
  if (m.words.size() != 2) return UnimplementedForm(ir, "unknown modifier");
  const std::string_view which = m.words[1];
  Operand op;
  if (!store && which == ".a") {
    op = Operand::kA;
  } else if (!store && which == ".b") {
    op = Operand::kB;
  } else if ((!store && which == ".c") || (store && which == ".d")) {
    op = Operand::kC;
  } else {
    return UnimplementedForm(ir, store ? "matrix .d expected" : "matrix .a, .b or .c expected");
  }
  if (m.layouts.size() != 1) return UnimplementedForm(ir, "one layout (.row or .col) expected");
  if (!IsWmmaShape(m.m, m.n, m.k)) return UnimplementedForm(ir, "shape not implemented (sub-byte, single-bit)");
  if (m.types.size() != 1 || m.types[0] == Elem::kNone)
    return UnimplementedForm(ir, "type not implemented (sub-byte, single-bit)");
  const Elem e = m.types[0];
  if (!WmmaTypeOk(m.m, m.n, m.k, op != Operand::kC, e)) return UnimplementedForm(ir, "type and shape do not combine");
  if (!SpaceOk(ir, true)) return UnimplementedForm(ir, "state space (.global, .shared or generic expected)");
  if (m.trans || m.satfinite || m.matrices || m.rounding_given) return UnimplementedForm(ir, "unexpected modifier");
  const tensor::WmmaMatrix f = tensor::WmmaFragment(m.m, m.n, m.k, op, e);
  const int data = store ? 1 : 0, address = store ? 0 : 1;
  if (inst.num_ops < 2 || inst.num_ops > 3) return UnimplementedForm(ir, "operands: fragment, address [, stride]");
  if (inst.ops[address].kind != Opnd::Kind::kAddress) return UnimplementedForm(ir, "address operand expected");
  if (!(store ? SourceFragment(inst.ops[data], f.registers) : FragmentOperand(inst.ops[data], f.registers)))
    return UnimplementedForm(ir, Expect("fragment", f.registers));
  if (inst.num_ops == 3 && inst.ops[2].kind != Opnd::Kind::kValue)
    return UnimplementedForm(ir, "stride: a register or an immediate expected");
  Desc d;
  d.m = static_cast<uint8_t>(m.m), d.n = static_cast<uint8_t>(m.n), d.k = static_cast<uint8_t>(m.k);
  d.a = e;
  d.operand = static_cast<uint8_t>(op);
  d.a_col = m.layouts[0];
  inst.imm = tensor::Pack(d);
  inst.fn = store ? &tensor::WmmaStore : &tensor::WmmaLoad;
  return true;
}

// The decoded form of a wmma.mma / mma.sync whose operands were checked.
bool SetMma(Inst& inst, const Modifiers& m, Elem a, Elem b, Elem c, Elem d, Handler handler) {
  Desc desc;
  desc.m = static_cast<uint8_t>(m.m), desc.n = static_cast<uint8_t>(m.n), desc.k = static_cast<uint8_t>(m.k);
  desc.a = a, desc.b = b, desc.c = c, desc.d = d;
  desc.a_col = m.layouts[0];
  desc.b_col = m.layouts[1];
  desc.satfinite = m.satfinite;
  desc.rounding = static_cast<uint8_t>(m.rounding);
  inst.imm = tensor::Pack(desc);
  inst.fn = handler;
  return true;
}

absl::StatusOr<bool> SelectWmmaMma(const ptx::Instruction& ir, Inst& inst, const Modifiers& m) {
  if (m.words.size() != 1) return UnimplementedForm(ir, "modifier not implemented (single-bit .xor/.and.popc)");
  if (m.layouts.size() != 2) return UnimplementedForm(ir, "two layouts (.alayout.blayout) expected");
  if (!IsWmmaShape(m.m, m.n, m.k)) return UnimplementedForm(ir, "shape not implemented (sub-byte, single-bit)");
  Elem a, b, c, d;
  if (m.types.size() == 2) {  // .dtype.ctype, .f16 multiplicands
    a = b = Elem::kF16;
    d = m.types[0], c = m.types[1];
  } else if (m.types.size() == 4) {
    d = m.types[0], a = m.types[1], b = m.types[2], c = m.types[3];
  } else {
    return UnimplementedForm(ir, "types: .dtype.ctype or .dtype.atype.btype.ctype expected");
  }
  const bool f16 = a == Elem::kF16 && b == Elem::kF16 && (c == Elem::kF16 || c == Elem::kF32) &&
                   (d == Elem::kF16 || d == Elem::kF32) && IsHalfShape(m.m, m.n, m.k);
  const bool bf16 = a == Elem::kBf16 && b == Elem::kBf16 && c == Elem::kF32 && d == Elem::kF32 &&
                    IsHalfShape(m.m, m.n, m.k);
  const bool tf32 = a == Elem::kTf32 && b == Elem::kTf32 && c == Elem::kF32 && d == Elem::kF32 && m.k == 8;
  const bool f64 = a == Elem::kF64 && b == Elem::kF64 && c == Elem::kF64 && d == Elem::kF64 && m.k == 4;
  const bool integer = (a == Elem::kS8 || a == Elem::kU8) && b == a && c == Elem::kS32 && d == Elem::kS32 &&
                       IsHalfShape(m.m, m.n, m.k);
  if (!(f16 || bf16 || tf32 || f64 || integer))
    return UnimplementedForm(ir, "type combination not implemented (sub-byte, single-bit) or invalid for the shape");
  if (m.satfinite && !integer) return UnimplementedForm(ir, ".satfinite on floating-point wmma (removed in PTX 6.5)");
  if (m.rounding_given && !f64) return UnimplementedForm(ir, "rounding modifier on a non-.f64 wmma");
  if (m.trans || m.matrices) return UnimplementedForm(ir, "unexpected modifier");
  if (inst.num_ops != 4) return UnimplementedForm(ir, "operands d, a, b, c expected");
  const uint32_t regs[4] = {
      tensor::WmmaFragment(m.m, m.n, m.k, Operand::kC, d).registers,
      tensor::WmmaFragment(m.m, m.n, m.k, Operand::kA, a).registers,
      tensor::WmmaFragment(m.m, m.n, m.k, Operand::kB, b).registers,
      tensor::WmmaFragment(m.m, m.n, m.k, Operand::kC, c).registers,
  };
  static constexpr const char* kNames[4] = {"d", "a", "b", "c"};
  for (int i = 0; i < 4; ++i)
    if (!(i == 0 ? FragmentOperand(inst.ops[i], regs[i]) : SourceFragment(inst.ops[i], regs[i])))
      return UnimplementedForm(ir, Expect(kNames[i], regs[i]));
  return SetMma(inst, m, a, b, c, d, &tensor::WmmaMma);
}

absl::StatusOr<bool> SelectWmma(const ptx::Instruction& ir, Inst& inst) {
  const Modifiers m = Parse(ir);
  if (m.words.empty()) return UnimplementedForm(ir, ".load, .store or .mma expected");
  if (m.words[0] == ".load") return SelectWmmaMove(ir, inst, m, false);
  if (m.words[0] == ".store") return SelectWmmaMove(ir, inst, m, true);
  if (m.words[0] == ".mma") return SelectWmmaMma(ir, inst, m);
  return UnimplementedForm(ir, ".load, .store or .mma expected");
}

// ---------------------------------------------------------------- mma.sync
// The (shape, multiplicand, accumulator) combinations of the ISA's mma
// tables that CUDA emits for sm_75..sm_90 (dense; fp8 of sm_89; no fp6/fp4,
// no sub-byte).
bool MmaCombination(const Modifiers& m, Elem a, Elem b, Elem c, Elem d) {
  // .f16 multiplicands: C and D of one type, except that m8n8k4 may widen
  // .f16 C to .f32 D (ptxas: ".dtype must be .f32 when .ctype is .f32").
  const bool quad_pairs = m.m == 8 && m.k == 4;
  const bool half_acc = (c == Elem::kF16 || c == Elem::kF32) && (d == Elem::kF16 || d == Elem::kF32) &&
                        (c == d || (quad_pairs && c == Elem::kF16));
  const bool f16 = a == Elem::kF16 && b == Elem::kF16 && half_acc;
  const bool bf16 = a == Elem::kBf16 && b == Elem::kBf16 && c == Elem::kF32 && d == Elem::kF32;
  const bool tf32 = a == Elem::kTf32 && b == Elem::kTf32 && c == Elem::kF32 && d == Elem::kF32;
  const bool f64 = a == Elem::kF64 && b == Elem::kF64 && c == Elem::kF64 && d == Elem::kF64;
  const bool i8 = (a == Elem::kS8 || a == Elem::kU8) && (b == Elem::kS8 || b == Elem::kU8) && c == Elem::kS32 &&
                  d == Elem::kS32;
  // .e4m3 / .e5m2 (either mix), .f32 or .f16 C and D of one type (sm_89).
  const auto is_fp8 = [](Elem e) { return e == Elem::kE4m3 || e == Elem::kE5m2; };
  const bool fp8 = is_fp8(a) && is_fp8(b) && c == d && (d == Elem::kF32 || d == Elem::kF16);
  const uint32_t shape = m.m * 10000 + m.n * 100 + m.k;
  switch (shape) {
    case 80804: return f16 || f64;                 // m8n8k4
    case 160804: return tf32 || f64;               // m16n8k4
    case 160808: return f16 || bf16 || tf32 || f64;  // m16n8k8
    case 160816: return f16 || bf16 || i8 || fp8 || f64;  // m16n8k16
    case 160832: return i8 || fp8;                        // m16n8k32
    case 80816: return i8;                         // m8n8k16
    default: return false;
  }
}

absl::StatusOr<bool> SelectMma(const ptx::Instruction& ir, Inst& inst) {
  const Modifiers m = Parse(ir);
  if (!m.words.empty())
    return UnimplementedForm(ir, "modifier not implemented (mma.sp, .kind, block scaling, single-bit .xor/.and.popc)");
  if (m.types.size() != 4) return UnimplementedForm(ir, "types .dtype.atype.btype.ctype expected");
  const Elem d = m.types[0], a = m.types[1], b = m.types[2], c = m.types[3];
  if (m.layouts.size() != 2) return UnimplementedForm(ir, "layouts .alayout.blayout expected");
  if (!MmaCombination(m, a, b, c, d))
    return UnimplementedForm(ir, "shape and types not implemented (fp6/fp4, sub-byte, single-bit) or invalid");
  const bool quad_pairs = m.m == 8 && m.k == 4 && a == Elem::kF16;
  if (!quad_pairs && (m.layouts[0] || !m.layouts[1])) return UnimplementedForm(ir, "only .row.col exists for this shape");
  const bool integer = tensor::IsIntElem(a);
  if (m.satfinite && !integer) return UnimplementedForm(ir, ".satfinite on floating-point mma");
  if (m.rounding_given && a != Elem::kF64) return UnimplementedForm(ir, "rounding modifier on a non-.f64 mma");
  if (m.trans || m.matrices) return UnimplementedForm(ir, "unexpected modifier");
  if (inst.num_ops != 4) return UnimplementedForm(ir, "operands d, a, b, c expected");
  tensor::MmaShape s;
  s.m = static_cast<uint8_t>(m.m), s.n = static_cast<uint8_t>(m.n), s.k = static_cast<uint8_t>(m.k);
  s.groups = quad_pairs ? 4 : 1;
  s.a = a, s.b = b, s.c = c;
  const uint32_t regs[4] = {
      tensor::RegisterCount(d, tensor::MmaElements(s, Operand::kC)),
      tensor::RegisterCount(a, tensor::MmaElements(s, Operand::kA)),
      tensor::RegisterCount(b, tensor::MmaElements(s, Operand::kB)),
      tensor::RegisterCount(c, tensor::MmaElements(s, Operand::kC)),
  };
  static constexpr const char* kNames[4] = {"d", "a", "b", "c"};
  for (int i = 0; i < 4; ++i)
    if (!(i == 0 ? FragmentOperand(inst.ops[i], regs[i]) : SourceFragment(inst.ops[i], regs[i])))
      return UnimplementedForm(ir, Expect(kNames[i], regs[i]));
  return SetMma(inst, m, a, b, c, d, &tensor::MmaSync);
}

// ---------------------------------------------------------------- ldmatrix & co
absl::StatusOr<bool> SelectMatrixMove(const ptx::Instruction& ir, Inst& inst) {
  const Modifiers m = Parse(ir);
  const bool mov = ir.op == ptx::Opcode::kMovmatrix;
  const bool store = ir.op == ptx::Opcode::kStmatrix;
  if (!m.words.empty()) return UnimplementedForm(ir, "modifier not implemented");
  if (!(m.m == 8 && m.n == 8 && m.k == 0)) return UnimplementedForm(ir, "shape not implemented (only .m8n8)");
  if (m.types.size() != 1 || ir.info.type() != ptx::Type::kB16)
    return UnimplementedForm(ir, "type not implemented (only .b16)");
  if (m.satfinite || m.rounding_given || !m.layouts.empty()) return UnimplementedForm(ir, "unexpected modifier");
  if (mov) {
    if (!m.trans || m.matrices) return UnimplementedForm(ir, "movmatrix.sync.aligned.m8n8.trans.b16 expected");
    if (inst.num_ops != 2 || !FragmentOperand(inst.ops[0], 1) || !SourceFragment(inst.ops[1], 1) ||
        inst.ops[1].kind != Opnd::Kind::kValue || inst.ops[0].kind != Opnd::Kind::kValue)
      return UnimplementedForm(ir, "operands d, a (registers) expected");
    inst.fn = &tensor::Movmatrix;
    return true;
  }
  if (m.matrices == 0) return UnimplementedForm(ir, ".x1, .x2 or .x4 expected");
  if (!SpaceOk(ir, false)) return UnimplementedForm(ir, "state space (.shared or generic expected)");
  if (inst.num_ops != 2) return UnimplementedForm(ir, "operands: fragment and address expected");
  const int data = store ? 1 : 0, address = store ? 0 : 1;
  if (inst.ops[address].kind != Opnd::Kind::kAddress) return UnimplementedForm(ir, "address operand expected");
  if (!(store ? SourceFragment(inst.ops[data], m.matrices) : FragmentOperand(inst.ops[data], m.matrices)))
    return UnimplementedForm(ir, Expect("fragment", m.matrices));
  Desc d;
  d.m = static_cast<uint8_t>(m.matrices);
  d.trans = m.trans;
  inst.imm = tensor::Pack(d);
  inst.fn = store ? &tensor::Stmatrix : &tensor::Ldmatrix;
  return true;
}

}  // namespace

absl::StatusOr<bool> SelectTensorOp(const ptx::Instruction& ir, Inst& inst) {
  switch (ir.op) {
    case ptx::Opcode::kWmma: return SelectWmma(ir, inst);
    case ptx::Opcode::kMma: return SelectMma(ir, inst);
    case ptx::Opcode::kLdmatrix:
    case ptx::Opcode::kStmatrix:
    case ptx::Opcode::kMovmatrix: return SelectMatrixMove(ir, inst);
    case ptx::Opcode::kWgmma: return tensor::SelectWgmmaOp(ir, inst);
    default: return false;
  }
}

}  // namespace barracuda::emu
