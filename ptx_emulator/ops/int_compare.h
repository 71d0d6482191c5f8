// setp and set (integer and floating-point compares), part of the bit family:
// SelectBitOp forwards them here.
#ifndef BARRACUDA_PTX_EMULATOR_OPS_INT_COMPARE_H_
#define BARRACUDA_PTX_EMULATOR_OPS_INT_COMPARE_H_

#include "absl/status/statusor.h"
#include "ptx_emulator/core/exec_form.h"
#include "ptx_rewriter/ir.h"

namespace barracuda::emu {

// setp.CmpOp{.BoolOp}{.ftz}.type p[|q], a, b{, {!}c} for b/u/s 16/32/64,
// f32, f64, f16, bf16, f16x2/bf16x2 (p|q = low/high half);
// set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, {!}c} with dtype u32/s32
// (true = 0xffffffff) or f32 (true = 1.0f).
absl::StatusOr<bool> SelectCompareOp(const ptx::Instruction& ir, Inst& inst);

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_OPS_INT_COMPARE_H_
