// The logging of the collective matrix moves: ldmatrix / stmatrix .m8n8 and
// wmma.load / wmma.store (README.md "Matrix loads and stores").
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "ptx_rewriter/instrument/function_rewriter.h"

namespace barracuda::ptx::logging_pass {
namespace {

// ldmatrix / stmatrix: .x1 / .x2 / .x4 (0: none of them).
uint32_t MatrixCount(const Instruction& in) {
  if (in.HasModifier(".x1")) return 1;
  if (in.HasModifier(".x2")) return 2;
  if (in.HasModifier(".x4")) return 4;
  return 0;
}

// A wmma.load / wmma.store as the emulator decodes it
// (ptx_emulator/ops/tensor_core_ops.cpp, tensor_layouts.cpp "wmma").
struct WmmaForm {
  bool store = false;
  bool c = false;          // the accumulator (C / D): row-major fragment order whatever the layout
  bool col_major = false;  // .col
  uint32_t rows = 0, cols = 0;
  uint32_t per_lane = 0;   // S: elements per lane
  uint32_t elem_bytes = 0;
  int address = 0;         // operand index of the address
};

std::optional<WmmaForm> ParseWmma(const Instruction& in) {
  if (in.modifiers.size() < 2) return std::nullopt;
  WmmaForm f;
  const std::string& verb = in.modifiers[0];
  const std::string& which = in.modifiers[1];
  if (verb == ".load" && (which == ".a" || which == ".b" || which == ".c")) {
    f.address = 1;
  } else if (verb == ".store" && which == ".d") {
    f.store = true;
  } else {
    return std::nullopt;
  }
  f.c = which == ".c" || which == ".d";
  uint32_t m = 0, n = 0, k = 0, layouts = 0;
  uint32_t bytes = 0;
  bool multiplicand_f16 = false;
  for (size_t i = 2; i < in.modifiers.size(); ++i) {
    const std::string& mod = in.modifiers[i];
    if (mod == ".row" || mod == ".col") {
      f.col_major = mod == ".col";
      ++layouts;
    } else if (mod == ".m16n16k16") {
      m = 16, n = 16, k = 16;
    } else if (mod == ".m32n8k16") {
      m = 32, n = 8, k = 16;
    } else if (mod == ".m8n32k16") {
      m = 8, n = 32, k = 16;
    } else if (mod == ".m16n16k8") {
      m = 16, n = 16, k = 8;
    } else if (mod == ".m8n8k4") {
      m = 8, n = 8, k = 4;
    } else if (mod == ".f16" || mod == ".bf16") {
      bytes = 2;
      multiplicand_f16 = mod == ".f16";
    } else if (mod == ".tf32" || mod == ".f32" || mod == ".s32") {
      bytes = 4;
    } else if (mod == ".f64") {
      bytes = 8;
    } else if (mod == ".s8" || mod == ".u8") {
      bytes = 1;
    }
  }
  if (layouts != 1 || m == 0 || bytes == 0) return std::nullopt;
  f.rows = which == ".b" ? k : m;
  f.cols = which == ".a" ? k : n;
  const uint32_t cells = f.rows * f.cols;
  if (cells % 32 != 0) return std::nullopt;
  // .f16 multiplicands: always 8 .f16x2 registers (the emulator's WmmaFragment).
  f.per_lane = multiplicand_f16 && !f.c ? 16 : cells / 32;
  f.elem_bytes = bytes;
  const size_t want = in.operands.size();
  if (want < 2 || want > 3 || !in.operands[f.address].is_address()) return std::nullopt;
  return f;
}

}  // namespace

Action DecideMatrix(const Instruction& in, const AccessClass& c) {
  if (c.kind == Kind::kNone) return Action::kNone;  // wmma.mma: registers only
  if (in.op == Opcode::kWmma)
    return in.opaque || !InstSpaceOf(in.info.space) || !ParseWmma(in) ? Action::kNotCovered : Action::kWmma;
  if (in.opaque || !InstSpaceOf(in.info.space) || !in.HasModifier(".m8n8") || MatrixCount(in) == 0)
    return Action::kNotCovered;
  return Action::kMatrix;
}

// ---- Matrix loads and stores (ptx_emulator/ops/tensor_moves.cpp,
// tensor_memory.cpp): weak kRead / kWrite records, one per run of bytes.

// ldmatrix / stmatrix .m8n8.xM: lanes 0 .. 8M-1 each move the 16-byte row at
// their address: one 16-byte access per such lane.
absl::Status FunctionRewriter::Matrix(const Instruction& in, size_t stmt, std::string& before) const {
  const AccessClass& c = classes_[stmt];
  const Operand* addr = nullptr;
  for (const Operand& o : in.operands)
    if (addr == nullptr && o.is_address()) addr = &o;
  if (addr == nullptr) return Error(in, "no address operand");
  auto address = AddressText(in, *addr);
  if (!address.ok()) return address.status();
  const uint32_t desc =
      abi::PackDesc(ProtocolOp(c.kind), ProtocolFlags(c), 16, *InstSpaceOf(in.info.space), ProtocolScope(c.scope));
  const uint32_t matrices = MatrixCount(in);
  before += *address;
  std::string guard;
  if (matrices < 4) {
    before += Cat("mov.u32 ", snippet::kTmp32, ", %laneid;\nsetp.lt.u32 ", snippet::kPred, ", ", snippet::kTmp32,
                  ", ", 8 * matrices, ";\n");
    guard = std::string(snippet::kPred);
  }
  before += snippet::Call(abi::kLogAccess,
                          {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))}, Arg{64, std::string(snippet::kAddr)}}, {},
                          guard);
  return absl::OkStatus();
}

// wmma.load / wmma.store: the emulator's fragment mapping (tensor_layouts.h
// "wmma"; the GPU's own is unspecified): element i of lane l is, for A / B,
// element (l S + i) mod (rows cols) in the operand's memory order, for C / D
// row-major element l S + i. The emulator moves each lane's elements in the
// widest runs (16, 8, 4, 2 bytes) that are contiguous and aligned in every lane
// (tensor_memory.h PlanRuns); since it faults unless every row (column) starts
// at a multiple of min(S * element size, 16) bytes, that choice depends only
// on the form, and is made here. Per run: the lanes compute their run's
// address from %laneid and log one access (global, then shared records).
absl::Status FunctionRewriter::Wmma(const Instruction& in, size_t stmt, std::string& before) const {
  const AccessClass& c = classes_[stmt];
  const WmmaForm f = *ParseWmma(in);
  const uint32_t cells = f.rows * f.cols;
  const uint32_t bytes = f.elem_bytes;
  const uint32_t total = f.per_lane * bytes;
  // Memory coordinates of element i of lane l: x (row of a row-major, column
  // of a column-major layout) and y within it.
  auto place = [&](uint32_t l, uint32_t i, uint32_t& x, uint32_t& y) {
    if (f.c) {
      const uint32_t j = l * f.per_lane + i, row = j / f.cols, col = j % f.cols;
      x = f.col_major ? col : row;
      y = f.col_major ? row : col;
      return;
    }
    const uint32_t j = (l * f.per_lane + i) % cells, minor = f.col_major ? f.rows : f.cols;
    x = j / minor;
    y = j % minor;
  };
  uint32_t width = bytes;
  for (uint32_t w = 16; w > bytes; w /= 2) {
    if (total % w != 0) continue;
    const uint32_t per_run = w / bytes;
    bool fits = true;
    for (uint32_t l = 0; l < 32 && fits; ++l)
      for (uint32_t first = 0; first < f.per_lane && fits; first += per_run) {
        uint32_t x0, y0;
        place(l, first, x0, y0);
        if ((y0 * bytes) % w != 0) fits = false;
        for (uint32_t t = 1; t < per_run && fits; ++t) {
          uint32_t x, y;
          place(l, first + t, x, y);
          fits = x == x0 && y == y0 + t;
        }
      }
    if (fits) {
      width = w;
      break;
    }
  }
  const uint32_t per_run = width / bytes;
  auto address = AddressText(in, in.operands[f.address]);
  if (!address.ok()) return address.status();
  const std::string a(snippet::kAddr), base(snippet::kTensorBase), off(snippet::kTensorOffset),
      x(snippet::kTensorX), y(snippet::kTensorY), ld(snippet::kTensorLd), lane(snippet::kTmp32);
  before += *address + Cat("mov.b64 ", base, ", ", a, ";\n");
  if (in.operands.size() > 2) {
    auto stride = U32Text(in, in.operands[2], ld);
    if (!stride.ok()) return stride.status();
    before += *stride;
  } else {
    before += Cat("mov.u32 ", ld, ", ", f.col_major ? f.rows : f.cols, ";\n");
  }
  before += Cat("mov.u32 ", lane, ", %laneid;\nmul.lo.u32 ", lane, ", ", lane, ", ", f.per_lane, ";\n");
  const uint32_t desc = abi::PackDesc(ProtocolOp(c.kind), ProtocolFlags(c), static_cast<uint8_t>(width),
                                      *InstSpaceOf(in.info.space), ProtocolScope(c.scope));
  uint32_t shift = 0;
  while ((1u << shift) < bytes) ++shift;
  for (uint32_t i = 0; i < f.per_lane; i += per_run) {
    // j = l S + i (mod cells for A / B) -> (x, y).
    before += Cat("add.u32 ", x, ", ", lane, ", ", i, ";\n");
    if (!f.c) before += Cat("rem.u32 ", x, ", ", x, ", ", cells, ";\n");
    const uint32_t minor = f.c ? f.cols : (f.col_major ? f.rows : f.cols);
    before += Cat("rem.u32 ", y, ", ", x, ", ", minor, ";\ndiv.u32 ", x, ", ", x, ", ", minor, ";\n");
    // C / D: (row, col) = (x, y); a column-major layout stores it at (col, row).
    const std::string& mx = f.c && f.col_major ? y : x;
    const std::string& my = f.c && f.col_major ? x : y;
    before += Cat("cvt.u64.u32 ", off, ", ", my, ";\nmad.wide.u32 ", off, ", ", mx, ", ", ld, ", ", off, ";\n");
    if (shift != 0) before += Cat("shl.b64 ", off, ", ", off, ", ", shift, ";\n");
    before += Cat("add.s64 ", a, ", ", base, ", ", off, ";\n");
    before += snippet::Call(abi::kLogAccess, {Arg{32, Cat(desc)}, Arg{32, Cat(Site(stmt))}, Arg{64, a}});
  }
  return absl::OkStatus();
}

}  // namespace barracuda::ptx::logging_pass
