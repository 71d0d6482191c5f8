// wmma.mma and mma.sync: gather A, B and C from the lanes' fragments into
// matrices (tensor_layouts.h), multiply (tensor_numerics.h), scatter D.
// Every input is read before any output is written: d may name the c (or a)
// registers, as nvcc's accumulate-in-place code does.
#include <cinttypes>
#include <cstdio>

#include "ptx_emulator/ops/mem_access.h"
#include "ptx_emulator/ops/tensor_desc.h"
#include "ptx_emulator/ops/tensor_numerics.h"

namespace barracuda::emu::tensor {

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

bool RequireWholeWarp(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (exec == kFullMask) return true;
  const uint32_t missing = ~exec;
  ctx.Raise(FaultKind::kUnsupported, inst, Lane(missing), 0,
            mem::InstText(inst) + ": executed by lanes " + Hex(exec) +
                ", not the whole warp: a .sync.aligned matrix instruction must be executed by all 32 lanes "
                "(undefined behaviour on a GPU)");
  return false;
}

namespace {

MmaMath MathOf(const Desc& d) {
  MmaMath math;
  math.a = d.a;
  math.b = d.b;
  math.c = d.c;
  math.d = d.d;
  math.satfinite = d.satfinite;
  math.rounding = static_cast<fp::RoundMode>(d.rounding);
  return math;
}

// The largest operand of one product: 32 x 16 (wmma m32n8k16 A, mma m16n8k32 A).
constexpr uint32_t kMaxCells = 512;

}  // namespace

void WmmaMma(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (!RequireWholeWarp(inst, ctx, exec)) return;
  const Desc d = Unpack(inst.imm);
  const WmmaMatrix fa = WmmaFragment(d.m, d.n, d.k, Operand::kA, d.a);
  const WmmaMatrix fb = WmmaFragment(d.m, d.n, d.k, Operand::kB, d.b);
  const WmmaMatrix fc = WmmaFragment(d.m, d.n, d.k, Operand::kC, d.c);
  const WmmaMatrix fd = WmmaFragment(d.m, d.n, d.k, Operand::kC, d.d);
  LaneElements in_a, in_b, in_c;
  ReadFragment(ctx, mem::ValueRefs(inst.ops[1], ctx), d.a, fa.per_lane, in_a);
  ReadFragment(ctx, mem::ValueRefs(inst.ops[2], ctx), d.b, fb.per_lane, in_b);
  ReadFragment(ctx, mem::ValueRefs(inst.ops[3], ctx), d.c, fc.per_lane, in_c);
  uint64_t a[kMaxCells], b[kMaxCells], c[kMaxCells], out[kMaxCells];
  uint32_t lane, i;
  for (uint32_t r = 0; r < d.m; ++r)
    for (uint32_t col = 0; col < d.k; ++col) {
      WmmaHolder(fa, Operand::kA, d.a_col, r, col, lane, i);
      a[r * d.k + col] = in_a.bits[lane][i];
    }
  for (uint32_t r = 0; r < d.k; ++r)
    for (uint32_t col = 0; col < d.n; ++col) {
      WmmaHolder(fb, Operand::kB, d.b_col, r, col, lane, i);
      b[r * d.n + col] = in_b.bits[lane][i];
    }
  for (uint32_t r = 0; r < d.m; ++r)
    for (uint32_t col = 0; col < d.n; ++col) {
      WmmaHolder(fc, Operand::kC, false, r, col, lane, i);
      c[r * d.n + col] = in_c.bits[lane][i];
    }
  Multiply(MathOf(d), d.m, d.n, d.k, a, b, c, out);
  LaneElements res;
  for (uint32_t l = 0; l < kLanes; ++l)
    for (uint32_t e = 0; e < fd.per_lane; ++e) {
      uint32_t r, col;
      WmmaPlace(fd, Operand::kC, false, l, e, r, col);
      res.bits[l][e] = out[r * d.n + col];
    }
  WriteFragment(ctx, mem::ValueRefs(inst.ops[0], ctx), d.d, fd.per_lane, res, exec);
}

void MmaSync(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (!RequireWholeWarp(inst, ctx, exec)) return;
  const Desc d = Unpack(inst.imm);
  MmaShape s;
  s.m = d.m, s.n = d.n, s.k = d.k;
  s.a = d.a, s.b = d.b, s.c = d.c;
  s.a_col = d.a_col, s.b_col = d.b_col;
  s.groups = d.m == 8 && d.k == 4 && d.a == Elem::kF16 ? 4 : 1;
  MmaShape sd = s;
  sd.c = d.d;  // D's layout (m8n8k4 .f16: depends on its own type)
  const uint32_t na = MmaElements(s, Operand::kA), nb = MmaElements(s, Operand::kB),
                 nc = MmaElements(s, Operand::kC);
  LaneElements in_a, in_b, in_c;
  ReadFragment(ctx, mem::ValueRefs(inst.ops[1], ctx), d.a, na, in_a);
  ReadFragment(ctx, mem::ValueRefs(inst.ops[2], ctx), d.b, nb, in_b);
  ReadFragment(ctx, mem::ValueRefs(inst.ops[3], ctx), d.c, nc, in_c);
  // Computation g's matrices at offset g * (cells of one); 4 computations of
  // 8 x 8 x 4 for m8n8k4 .f16, otherwise 1.
  const uint32_t ca = s.m * s.k, cb = s.k * s.n, cc = s.m * s.n;
  uint64_t a[kMaxCells], b[kMaxCells], c[kMaxCells], out[kMaxCells];
  for (uint32_t l = 0; l < kLanes; ++l) {
    for (uint32_t e = 0; e < na; ++e) {
      const Place p = MmaPlace(s, Operand::kA, l, e);
      a[p.group * ca + p.row * s.k + p.col] = in_a.bits[l][e];
    }
    for (uint32_t e = 0; e < nb; ++e) {
      const Place p = MmaPlace(s, Operand::kB, l, e);
      b[p.group * cb + p.row * s.n + p.col] = in_b.bits[l][e];
    }
    for (uint32_t e = 0; e < nc; ++e) {
      const Place p = MmaPlace(s, Operand::kC, l, e);
      c[p.group * cc + p.row * s.n + p.col] = in_c.bits[l][e];
    }
  }
  const MmaMath math = MathOf(d);
  for (uint32_t g = 0; g < s.groups; ++g)
    Multiply(math, s.m, s.n, s.k, a + g * ca, b + g * cb, c + g * cc, out + g * cc);
  LaneElements res;
  for (uint32_t l = 0; l < kLanes; ++l)
    for (uint32_t e = 0; e < nc; ++e) {
      const Place p = MmaPlace(sd, Operand::kC, l, e);
      res.bits[l][e] = out[p.group * cc + p.row * s.n + p.col];
    }
  WriteFragment(ctx, mem::ValueRefs(inst.ops[0], ctx), d.d, nc, res, exec);
}

}  // namespace barracuda::emu::tensor
