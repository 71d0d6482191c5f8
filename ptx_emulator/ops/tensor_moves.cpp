// Moves between memory and fragments: wmma.load / wmma.store (the emulator's
// wmma mapping, tensor_layouts.h), ldmatrix / stmatrix (the ISA's row
// address and fragment layout) and movmatrix (register transpose). Memory
// goes through tensor_memory.h (faults, phase store buffer, records).
#include <cstring>

#include "ptx_emulator/ops/mem_access.h"
#include "ptx_emulator/ops/tensor_desc.h"
#include "ptx_emulator/ops/tensor_memory.h"

namespace barracuda::emu::tensor {
namespace {

// Fragment registers <-> the lane's bytes (little-endian, element 0 first).
void BytesToRegisters(WarpCtx& ctx, const ValueRef* refs, uint32_t registers, bool wide, const LaneBytes& data,
                      uint32_t exec) {
  for (uint32_t r = 0; r < registers; ++r) {
    uint64_t* d = ctx.Dst(refs[r]);
    for (uint32_t m = exec; m; m &= m - 1) {
      const uint32_t l = Lane(m);
      uint64_t v = 0;
      std::memcpy(&v, data.bytes[l] + r * (wide ? 8 : 4), wide ? 8 : 4);
      d[l] = v;
    }
  }
}
void RegistersToBytes(const WarpCtx& ctx, const ValueRef* refs, uint32_t registers, bool wide, LaneBytes& data) {
  for (uint32_t r = 0; r < registers; ++r) {
    const uint64_t* s = ctx.Src(refs[r]);
    for (uint32_t l = 0; l < kLanes; ++l) std::memcpy(data.bytes[l] + r * (wide ? 8 : 4), &s[l], wide ? 8 : 4);
  }
}

// wmma.load / wmma.store: the addresses of every lane's fragment elements.
// False after a fault (a misaligned row or column start).
bool WmmaAddresses(const Inst& inst, WarpCtx& ctx, const Desc& d, const WmmaMatrix& f, int address_op,
                   uint64_t (*elem_addr)[kMaxPerLane]) {
  const Operand op = static_cast<Operand>(d.operand);
  const bool col_major = d.a_col;
  const uint32_t bytes = ElemBytes(f.elem);
  const mem::AddressOperand base = mem::MakeAddress(inst.ops[address_op], ctx);
  const uint64_t* stride = inst.num_ops > 2 ? ctx.Src(inst.ops[2].ref) : nullptr;
  // ISA "Matrix Storage for WMMA": the default stride is the leading
  // dimension; every row (column) must start at a multiple of the fragment's
  // size in bytes. Capped at 16 bytes: the CUDA guide's load_matrix_sync
  // allows any ldm that is a multiple of 16 bytes.
  const uint64_t leading = col_major ? f.rows : f.cols;
  const uint32_t frag_bytes = f.per_lane * bytes;
  const uint32_t align = frag_bytes < 16 ? frag_bytes : 16;
  for (uint32_t l = 0; l < kLanes; ++l) {
    const uint64_t p = base.At(l);
    const uint64_t ld = stride ? static_cast<uint32_t>(stride[l]) : leading;
    const uint64_t starts = col_major ? f.cols : f.rows;  // instances of the leading dimension
    for (uint64_t x = 0; x < starts; ++x) {
      const uint64_t start = mem::SpaceAddress(mem::SpaceOf(inst.info.space), p + x * ld * bytes);
      if (start % align != 0) {
        ctx.Raise(FaultKind::kMisalignedAddress, inst, l, start,
                  mem::InstText(inst) + ": misaligned matrix " + (col_major ? "column " : "row ") +
                      std::to_string(x) + " at " + Hex(start) + " in lane " + std::to_string(l) +
                      " (stride " + std::to_string(ld) + " elements): each row or column must start at a multiple "
                      "of " + std::to_string(align) + " bytes");
        return false;
      }
    }
    for (uint32_t i = 0; i < f.per_lane; ++i) {
      uint32_t row, col;
      WmmaPlace(f, op, col_major, l, i, row, col);
      const uint64_t offset = col_major ? uint64_t{col} * ld + row : uint64_t{row} * ld + col;
      elem_addr[l][i] = p + offset * bytes;
    }
  }
  return true;
}

WmmaMatrix FragmentOf(const Desc& d) {
  return WmmaFragment(d.m, d.n, d.k, static_cast<Operand>(d.operand), d.a);
}

// ldmatrix / stmatrix: the lanes that supply row addresses (8 per matrix).
uint32_t AddressLanes(uint32_t matrices) { return matrices == 4 ? kFullMask : (1u << (8 * matrices)) - 1; }

// Element `col` (0..7) of memory row `row` of one 8x8 matrix, as moved by
// ldmatrix/stmatrix: without .trans the fragment holds the memory rows; with
// .trans it holds their transpose. Gives the lane and the half (0: low 16 bits).
void FragmentHolder(bool trans, uint32_t row, uint32_t col, uint32_t& lane, uint32_t& half) {
  const uint32_t fr = trans ? col : row, fc = trans ? row : col;  // the element's place in the fragment
  lane = 4 * fr + fc / 2;
  half = fc % 2;
}

}  // namespace

void WmmaLoad(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (!RequireWholeWarp(inst, ctx, exec)) return;
  const Desc d = Unpack(inst.imm);
  const WmmaMatrix f = FragmentOf(d);
  uint64_t elem_addr[kLanes][kMaxPerLane];
  if (!WmmaAddresses(inst, ctx, d, f, 1, elem_addr)) return;
  CollectiveAccess access;
  access.space = mem::SpaceOf(inst.info.space);
  PlanRuns(exec, f.per_lane, ElemBytes(f.elem), elem_addr, access);
  LaneBytes data;
  if (!CollectiveLoad(inst, ctx, access, data)) return;
  BytesToRegisters(ctx, mem::ValueRefs(inst.ops[0], ctx), f.registers, f.elem == Elem::kF64, data, exec);
}

void WmmaStore(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (!RequireWholeWarp(inst, ctx, exec)) return;
  const Desc d = Unpack(inst.imm);
  const WmmaMatrix f = FragmentOf(d);
  uint64_t elem_addr[kLanes][kMaxPerLane];
  if (!WmmaAddresses(inst, ctx, d, f, 0, elem_addr)) return;
  CollectiveAccess access;
  access.space = mem::SpaceOf(inst.info.space);
  PlanRuns(exec, f.per_lane, ElemBytes(f.elem), elem_addr, access);
  LaneBytes data;
  RegistersToBytes(ctx, mem::ValueRefs(inst.ops[1], ctx), f.registers, f.elem == Elem::kF64, data);
  CollectiveStore(inst, ctx, access, data);
}

// ldmatrix / stmatrix: lanes 8q..8q+7 address the 16-byte rows of matrix q.
CollectiveAccess RowAddresses(const Inst& inst, WarpCtx& ctx, const Opnd& address, uint32_t matrices) {
  CollectiveAccess access;
  access.space = mem::SpaceOf(inst.info.space);
  access.mask = AddressLanes(matrices);
  access.runs = 1;
  access.width = 16;
  const mem::AddressOperand base = mem::MakeAddress(address, ctx);
  for (uint32_t m = access.mask; m; m &= m - 1) access.addr[0][Lane(m)] = base.At(Lane(m));
  return access;
}

// ISA "ldmatrix": lanes 8q..8q+7 give the addresses of rows 0..7 of matrix q
// (16 bytes each, 16-byte aligned); lane l's register q gets row l / 4,
// columns 2 (l % 4) and 2 (l % 4) + 1 of matrix q (of its transpose with .trans).
void Ldmatrix(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (!RequireWholeWarp(inst, ctx, exec)) return;
  const Desc d = Unpack(inst.imm);
  const uint32_t matrices = d.m;
  const CollectiveAccess access = RowAddresses(inst, ctx, inst.ops[1], matrices);
  LaneBytes rows;  // row r of matrix q: the 16 bytes loaded by lane 8q + r
  if (!CollectiveLoad(inst, ctx, access, rows)) return;
  auto element = [&](uint32_t q, uint32_t row, uint32_t col) {
    uint16_t v;
    std::memcpy(&v, rows.bytes[8 * q + row] + 2 * col, 2);
    return uint32_t{v};
  };
  const ValueRef* refs = mem::ValueRefs(inst.ops[0], ctx);
  for (uint32_t q = 0; q < matrices; ++q) {
    uint64_t* dst = ctx.Dst(refs[q]);
    for (uint32_t l = 0; l < kLanes; ++l) {
      const uint32_t r = MatrixRowOf(l), c0 = MatrixColOf(l, 0), c1 = MatrixColOf(l, 1);
      // .trans: fragment element (r, c) is memory element (c, r).
      const uint32_t lo = d.trans ? element(q, c0, r) : element(q, r, c0);
      const uint32_t hi = d.trans ? element(q, c1, r) : element(q, r, c1);
      dst[l] = lo | hi << 16;
    }
  }
}

// ISA "stmatrix": the inverse of ldmatrix (same addresses and layout).
void Stmatrix(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (!RequireWholeWarp(inst, ctx, exec)) return;
  const Desc d = Unpack(inst.imm);
  const uint32_t matrices = d.m;
  const CollectiveAccess access = RowAddresses(inst, ctx, inst.ops[0], matrices);
  const ValueRef* refs = mem::ValueRefs(inst.ops[1], ctx);
  LaneBytes rows;
  for (uint32_t q = 0; q < matrices; ++q) {
    const uint64_t* src = ctx.Src(refs[q]);
    for (uint32_t row = 0; row < 8; ++row)
      for (uint32_t col = 0; col < 8; ++col) {
        uint32_t lane, half;
        FragmentHolder(d.trans, row, col, lane, half);
        const auto v = static_cast<uint16_t>(src[lane] >> (16 * half));
        std::memcpy(rows.bytes[8 * q + row] + 2 * col, &v, 2);
      }
  }
  CollectiveStore(inst, ctx, access, rows);
}

// ISA "movmatrix": d holds the transpose of the 8x8 matrix that a holds, both
// in the ldmatrix fragment layout.
void Movmatrix(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (!RequireWholeWarp(inst, ctx, exec)) return;
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  uint32_t in[kLanes];
  for (uint32_t l = 0; l < kLanes; ++l) in[l] = static_cast<uint32_t>(a[l]);  // d may be a
  uint64_t* dst = ctx.Dst(inst.ops[0].ref);
  for (uint32_t l = 0; l < kLanes; ++l) {
    uint32_t word = 0;
    for (uint32_t h = 0; h < 2; ++h) {
      // D(r, c) = A(c, r).
      uint32_t lane, half;
      FragmentHolder(true, MatrixRowOf(l), MatrixColOf(l, h), lane, half);
      word |= ((in[lane] >> (16 * half)) & 0xffffu) << (16 * h);
    }
    dst[l] = word;
  }
}

}  // namespace barracuda::emu::tensor
