// Where the elements of tensor-core fragments live: which lane and which
// element of its registers holds matrix element (row, col), for mma.sync
// (the PTX ISA's documented layouts, "Matrix Fragments for mma.mXnYkZ"), for
// wmma (whose layout the ISA leaves unspecified: the emulator's own mapping,
// below) and for ldmatrix / stmatrix / movmatrix.
//
// A fragment element is addressed as (lane, i): element i of the lane's
// fragment, counted from the low bits of the first register (a .f16x2
// register holds elements 2j and 2j+1, a .b32 of .s8 four of them).
#ifndef BARRACUDA_PTX_EMULATOR_OPS_TENSOR_LAYOUTS_H_
#define BARRACUDA_PTX_EMULATOR_OPS_TENSOR_LAYOUTS_H_

#include <cstdint>

namespace barracuda::emu::tensor {

// Element types of tensor-core operands.
enum class Elem : uint8_t { kNone, kF16, kBf16, kTf32, kF32, kF64, kS8, kU8, kS32, kE4m3, kE5m2 };
uint32_t ElemBytes(Elem e);
const char* ElemName(Elem e);
inline bool IsIntElem(Elem e) { return e == Elem::kS8 || e == Elem::kU8 || e == Elem::kS32; }

// The three operands of D = A * B + C (D shares C's layout).
enum class Operand : uint8_t { kA, kB, kC };

// One element's place in the matrices of an mma.sync: `group` is the
// independent MMA computation it belongs to (m8n8k4 .f16 runs four, one per
// quad pair; every other shape one), row/col its position in that
// computation's A (M x K), B (K x N) or C/D (M x N).
struct Place {
  uint8_t group = 0;
  uint8_t row = 0;
  uint8_t col = 0;
};

// An mma.sync shape with its operand types, as the layout figures need it.
struct MmaShape {
  uint8_t m = 0, n = 0, k = 0;
  uint8_t groups = 1;  // independent computations per warp
  Elem a = Elem::kNone, b = Elem::kNone, c = Elem::kNone;  // c: the accumulator type (C and D alike)
  bool a_col = false, b_col = false;  // m8n8k4 .f16: .col alayout / blayout
};

// Elements per lane of an mma.sync operand (0: no such layout in the ISA).
uint32_t MmaElements(const MmaShape& s, Operand op);
// The ISA's fragment layout: where element i of `lane`'s fragment of `op` sits.
Place MmaPlace(const MmaShape& s, Operand op, uint32_t lane, uint32_t i);

// ---------------------------------------------------------------- wmma
// The wmma fragment layout is unspecified by the ISA ("the register arguments
// hold unspecified fragments"); programs see fragments only through
// wmma.load / wmma.store, wmma.mma and element-wise operations, so any
// mapping used consistently by the three is correct. The emulator's:
//
//   A and B: element i of lane l is the matrix element at index
//       j = (l * S + i) mod E
//     in the operand's MEMORY order (row-major for .row, column-major for
//     .col; wmma.mma's .alayout/.blayout must match the loads', ISA
//     "wmma.mma"), where S = elements per lane and E = rows * cols. So a lane
//     holds a run of consecutive elements of one or two rows (columns), and
//     loads/stores move whole runs. The .f16 A/B fragments hold twice or four
//     times the matrix (8 registers of .f16x2 per lane for 128 or 256
//     elements); then lanes S..31 hold copies, and wmma.mma reads the first.
//   C and D: element i of lane l is the element at row-major index l * S + i
//     (whatever the load's or store's layout: C may be loaded .col and D
//     stored .row).
struct WmmaMatrix {
  uint32_t rows = 0, cols = 0;  // the operand's matrix: A M x K, B K x N, C/D M x N
  uint32_t per_lane = 0;        // S
  Elem elem = Elem::kNone;
  uint32_t registers = 0;       // registers of the fragment (64-bit for .f64, else 32-bit)
};
// The fragment of operand `op` of a wmma shape (m, n, k) with element type
// `e`; per_lane 0 when the combination does not exist.
WmmaMatrix WmmaFragment(uint32_t m, uint32_t n, uint32_t k, Operand op, Elem e);
// Row and column of element i of lane `lane` (`col_major`: the A/B operand's layout).
void WmmaPlace(const WmmaMatrix& f, Operand op, bool col_major, uint32_t lane, uint32_t i, uint32_t& row,
               uint32_t& col);
// The lane and element holding (row, col) (for A/B: the first copy).
void WmmaHolder(const WmmaMatrix& f, Operand op, bool col_major, uint32_t row, uint32_t col, uint32_t& lane,
                uint32_t& i);

// ---------------------------------------------------------------- ldmatrix & co
// One 8x8 matrix of 16-bit elements in registers (ISA "ldmatrix", Figure
// "ldmatrix fragment layout"): lane l holds row l / 4, columns 2 * (l % 4)
// and 2 * (l % 4) + 1, the first in the low half of its register. In
// memory, row r of matrix q starts at the address of lane 8 q + r.
inline uint32_t MatrixRowOf(uint32_t lane) { return lane / 4; }
inline uint32_t MatrixColOf(uint32_t lane, uint32_t half) { return 2 * (lane % 4) + half; }

}  // namespace barracuda::emu::tensor

#endif  // BARRACUDA_PTX_EMULATOR_OPS_TENSOR_LAYOUTS_H_
