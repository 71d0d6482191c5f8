// Fragment layouts of the tensor-core instructions (see tensor_layouts.h).
// The mma.sync formulas are the PTX ISA's, section "Matrix Fragments for
// mma.mXnYkZ" (groupID = %laneid >> 2, threadID_in_group = %laneid % 4),
// one case per figure.
#include "ptx_emulator/ops/tensor_layouts.h"

namespace barracuda::emu::tensor {

uint32_t ElemBytes(Elem e) {
  switch (e) {
    case Elem::kF16:
    case Elem::kBf16: return 2;
    case Elem::kS8:
    case Elem::kU8:
    case Elem::kE4m3:
    case Elem::kE5m2: return 1;
    case Elem::kTf32:
    case Elem::kF32:
    case Elem::kS32: return 4;
    case Elem::kF64: return 8;
    case Elem::kNone: break;
  }
  return 0;
}

const char* ElemName(Elem e) {
  switch (e) {
    case Elem::kF16: return ".f16";
    case Elem::kBf16: return ".bf16";
    case Elem::kTf32: return ".tf32";
    case Elem::kF32: return ".f32";
    case Elem::kF64: return ".f64";
    case Elem::kS8: return ".s8";
    case Elem::kU8: return ".u8";
    case Elem::kS32: return ".s32";
    case Elem::kE4m3: return ".e4m3";
    case Elem::kE5m2: return ".e5m2";
    case Elem::kNone: break;
  }
  return "?";
}

uint32_t MmaElements(const MmaShape& s, Operand op) {
  const uint32_t cells = op == Operand::kA ? s.m * s.k : op == Operand::kB ? s.k * s.n : s.m * s.n;
  return cells * s.groups / 32;
}

namespace {

// The multiplicand families whose figures differ for one shape.
enum class Family : uint8_t { kHalf, kWord, kByte };  // f16/bf16; tf32/f64; s8/u8/e4m3/e5m2
Family FamilyOf(Elem e) {
  if (e == Elem::kF16 || e == Elem::kBf16) return Family::kHalf;
  if (ElemBytes(e) == 1) return Family::kByte;
  return Family::kWord;
}

Place Make(uint32_t group, uint32_t row, uint32_t col) {
  return Place{static_cast<uint8_t>(group), static_cast<uint8_t>(row), static_cast<uint8_t>(col)};
}

// m8n8k4 with .f16 multiplicands: four independent 8x8x4 products, one per
// quad pair (lanes 4q..4q+3, the "low group", and 16+4q..16+4q+3, the "high
// group"); the high group holds rows (A, C) or columns (B) 4..7.
Place QuadPairPlace(const MmaShape& s, Operand op, uint32_t lane, uint32_t i) {
  const uint32_t group = (lane >> 2) & 3;
  const uint32_t hi = lane >= 16 ? 4 : 0;
  const uint32_t q = lane % 4;
  switch (op) {
    case Operand::kA:
      return s.a_col ? Make(group, i + hi, q) : Make(group, q + hi, i);
    case Operand::kB:
      return s.b_col ? Make(group, i, q + hi) : Make(group, q, i + hi);
    case Operand::kC:
      if (s.c == Elem::kF16) return Make(group, q + hi, i);
      // .f32 accumulators (Figures "computation 1 and 2 / 3 and 4").
      return Make(group, (lane & 1) + (i & 2) + hi, (i & 4) + (lane & 2) + (i & 1));
  }
  return {};
}

}  // namespace

Place MmaPlace(const MmaShape& s, Operand op, uint32_t lane, uint32_t i) {
  if (s.groups == 4) return QuadPairPlace(s, op, lane, i);
  const uint32_t g = lane >> 2;  // groupID
  const uint32_t t = lane % 4;   // threadID_in_group
  const Family f = FamilyOf(s.a);
  if (op == Operand::kC) {
    if (s.m == 8) return Make(0, g, 2 * t + i);                           // m8n8k4 .f64, m8n8k16
    return Make(0, g + (i >= 2 ? 8 : 0), 2 * t + (i & 1));                // every m16n8kK
  }
  const bool a = op == Operand::kA;
  switch (s.k) {
    case 4:
      if (s.m == 8) return a ? Make(0, g, t) : Make(0, t, g);             // m8n8k4 .f64
      return a ? Make(0, g + 8 * i, t) : Make(0, t, g);                   // m16n8k4 .tf32/.f64
    case 8:
      if (f == Family::kHalf)
        return a ? Make(0, g + (i >= 2 ? 8 : 0), 2 * t + (i & 1)) : Make(0, 2 * t + i, g);
      return a ? Make(0, g + 8 * (i & 1), t + (i >= 2 ? 4 : 0)) : Make(0, t + 4 * i, g);  // .tf32/.f64
    case 16:
      if (s.m == 8) return a ? Make(0, g, 4 * t + i) : Make(0, 4 * t + i, g);  // m8n8k16 .s8/.u8
      switch (f) {
        case Family::kHalf:
          return a ? Make(0, g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + (i >= 4 ? 8 : 0))
                   : Make(0, 2 * t + (i & 1) + (i >= 2 ? 8 : 0), g);
        case Family::kWord:  // .f64
          return a ? Make(0, g + 8 * (i & 1), 4 * (i >> 1) + t) : Make(0, t + 4 * i, g);
        case Family::kByte:
          return a ? Make(0, g + (i >= 4 ? 8 : 0), 4 * t + (i & 3)) : Make(0, 4 * t + i, g);
      }
      break;
    case 32:  // m16n8k32 .s8/.u8
      return a ? Make(0, g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + (i >= 8 ? 16 : 0))
               : Make(0, 4 * t + (i & 3) + (i >= 4 ? 16 : 0), g);
  }
  return {};
}

WmmaMatrix WmmaFragment(uint32_t m, uint32_t n, uint32_t k, Operand op, Elem e) {
  WmmaMatrix f;
  f.elem = e;
  f.rows = op == Operand::kB ? k : m;
  f.cols = op == Operand::kA ? k : n;
  const uint32_t cells = f.rows * f.cols;
  if (cells % 32 != 0 || ElemBytes(e) == 0) return WmmaMatrix{};
  // .f16 multiplicands: always 8 .f16x2 registers (ISA "Matrix Fragments for WMMA").
  f.per_lane = e == Elem::kF16 && op != Operand::kC ? 16 : cells / 32;
  f.registers = e == Elem::kF64 ? f.per_lane : f.per_lane * ElemBytes(e) / 4;
  if (f.registers == 0) return WmmaMatrix{};
  return f;
}

void WmmaPlace(const WmmaMatrix& f, Operand op, bool col_major, uint32_t lane, uint32_t i, uint32_t& row,
               uint32_t& col) {
  const uint32_t cells = f.rows * f.cols;
  if (op == Operand::kC) {
    const uint32_t j = lane * f.per_lane + i;
    row = j / f.cols;
    col = j % f.cols;
    return;
  }
  const uint32_t j = (lane * f.per_lane + i) % cells;
  if (col_major) {
    row = j % f.rows;
    col = j / f.rows;
  } else {
    row = j / f.cols;
    col = j % f.cols;
  }
}

void WmmaHolder(const WmmaMatrix& f, Operand op, bool col_major, uint32_t row, uint32_t col, uint32_t& lane,
                uint32_t& i) {
  const uint32_t j = op != Operand::kC && col_major ? col * f.rows + row : row * f.cols + col;
  lane = j / f.per_lane;
  i = j % f.per_lane;
}

}  // namespace barracuda::emu::tensor
