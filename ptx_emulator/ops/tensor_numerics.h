// The arithmetic of the tensor-core instructions: D = A * B + C on whole
// matrices of raw element bits, and the packing of elements into fragment
// registers. Shared by wmma.mma and mma.sync (tensor_core_ops.cpp), which
// differ only in where the elements come from (tensor_layouts.h).
//
// Rounding (the ISA leaves accumulation order and rounding unspecified for
// every type but .f64; README "Tensor-core instructions"):
//   .f16 / .bf16 / .e4m3 / .e5m2 multiplicands: exact in double (products of
//     11-, 8-, 4- or 3-bit significands); .tf32: the operand's .f32 bits with the low 13 fraction
//     bits ignored (truncated, as the tensor cores read only tf32's 10
//     fraction bits: round with cvt.rna.tf32.f32 first), NaN stays NaN.
//   d[i][j] = round(c[i][j] + a[i][0]*b[0][j] + ... + a[i][K-1]*b[K-1][j]):
//     the sum is formed in double in that order, from c first, and rounded
//     once per instruction to the accumulator type, round to nearest even
//     (NaN results are the canonical NaN).
//   .f64: an exact fused chain d = fma(a[K-1], b[K-1], ... fma(a[0], b[0], c))
//     in the instruction's rounding mode (.rn default, .rz, .rm, .rp).
//   .s8 / .u8: exact; the 32-bit result wraps, or with .satfinite clamps to
//     [INT32_MIN, INT32_MAX].
#ifndef BARRACUDA_PTX_EMULATOR_OPS_TENSOR_NUMERICS_H_
#define BARRACUDA_PTX_EMULATOR_OPS_TENSOR_NUMERICS_H_

#include <cstdint>

#include "ptx_emulator/core/warp_context.h"
#include "ptx_emulator/ops/fp_format.h"
#include "ptx_emulator/ops/tensor_layouts.h"

namespace barracuda::emu::tensor {

inline constexpr uint32_t kMaxPerLane = 16;  // elements of one lane's fragment (wmma .f16 A/B, m16n8k32 A)

// One operand's fragment, per lane, as raw element bits (zero-extended).
struct LaneElements {
  uint64_t bits[kLanes][kMaxPerLane];
};

// Reads `per_lane` elements of type `e` from the registers `refs` (the
// operand's vector) of every lane. Element i of a sub-32-bit type sits at
// bits 8 * bytes * (i % per_register) of register i / per_register.
void ReadFragment(const WarpCtx& ctx, const ValueRef* refs, Elem e, uint32_t per_lane, LaneElements& out);
// Writes them back (the registers of the lanes of `exec`, zero-extended).
void WriteFragment(WarpCtx& ctx, const ValueRef* refs, Elem e, uint32_t per_lane, const LaneElements& in,
                   uint32_t exec);

struct MmaMath {
  Elem a = Elem::kNone, b = Elem::kNone, c = Elem::kNone, d = Elem::kNone;
  bool satfinite = false;
  fp::RoundMode rounding = fp::RoundMode::kRn;  // .f64 only
};

// d = a * b + c for one M x N x K product; a is M x K, b K x N, c and d
// M x N, all row-major raw bits.
void Multiply(const MmaMath& math, uint32_t m, uint32_t n, uint32_t k, const uint64_t* a, const uint64_t* b,
              const uint64_t* c, uint64_t* d);

}  // namespace barracuda::emu::tensor

#endif  // BARRACUDA_PTX_EMULATOR_OPS_TENSOR_NUMERICS_H_
