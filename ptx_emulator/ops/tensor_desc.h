// The tensor-core family's decoded form: what SelectTensorOp
// (tensor_core_ops.cpp) learns from an instruction's modifiers, packed into
// Inst::imm (Inst::aux stays the access classification of the memory
// forms), and the handlers it picks (tensor_mma.cpp, tensor_moves.cpp).
#ifndef BARRACUDA_PTX_EMULATOR_OPS_TENSOR_DESC_H_
#define BARRACUDA_PTX_EMULATOR_OPS_TENSOR_DESC_H_

#include <bit>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

#include "ptx_emulator/core/exec_form.h"
#include "ptx_emulator/core/warp_context.h"
#include "ptx_emulator/ops/fp_format.h"
#include "ptx_emulator/ops/tensor_layouts.h"

namespace barracuda::emu::tensor {

struct Desc {
  uint8_t m = 0, n = 0, k = 0;
  Elem a = Elem::kNone;  // wmma.load/.store: the element type of the matrix moved
  Elem b = Elem::kNone;
  Elem c = Elem::kNone;
  Elem d = Elem::kNone;
  uint8_t operand : 2 = 0;   // wmma.load/.store: Operand (kC for .c and .d)
  uint8_t a_col : 1 = 0;     // .col alayout (wmma.load/.store: the matrix's layout)
  uint8_t b_col : 1 = 0;     // .col blayout
  uint8_t satfinite : 1 = 0;
  uint8_t trans : 1 = 0;     // ldmatrix / stmatrix .trans
  uint8_t rounding : 2 = 0;  // fp::RoundMode kRn..kRp (.f64 mma)
};
static_assert(sizeof(Desc) == 8, "Desc must fit Inst::imm");

inline uint64_t Pack(const Desc& d) { return std::bit_cast<uint64_t>(d); }
inline Desc Unpack(uint64_t imm) { return std::bit_cast<Desc>(imm); }

// ldmatrix / stmatrix: the matrix count (.x1/.x2/.x4) is Desc::m.

// Handlers (ops are positional as in PTX).
void WmmaLoad(const Inst& inst, WarpCtx& ctx, uint32_t exec);   // d{vector}, [p] {, stride}
void WmmaStore(const Inst& inst, WarpCtx& ctx, uint32_t exec);  // [p], s{vector} {, stride}
void WmmaMma(const Inst& inst, WarpCtx& ctx, uint32_t exec);    // d, a, b, c
void MmaSync(const Inst& inst, WarpCtx& ctx, uint32_t exec);    // d, a, b, c
void Ldmatrix(const Inst& inst, WarpCtx& ctx, uint32_t exec);   // d{vector}, [p]
void Stmatrix(const Inst& inst, WarpCtx& ctx, uint32_t exec);   // [p], s{vector}
void Movmatrix(const Inst& inst, WarpCtx& ctx, uint32_t exec);  // d, a
// wgmma (tensor_wgmma.cpp): fence, commit_group, wait_group (inst.imm = N),
// mma_async (inst.imm: its form); SelectWgmmaOp decodes them.
void WgmmaFence(const Inst& inst, WarpCtx& ctx, uint32_t exec);
void WgmmaCommit(const Inst& inst, WarpCtx& ctx, uint32_t exec);
void WgmmaWait(const Inst& inst, WarpCtx& ctx, uint32_t exec);
void WgmmaMma(const Inst& inst, WarpCtx& ctx, uint32_t exec);
absl::StatusOr<bool> SelectWgmmaOp(const ptx::Instruction& ir, Inst& inst);

// Shared by the handlers.
// Registers holding `elements` elements of type e (64-bit registers for .f64).
inline uint32_t RegisterCount(Elem e, uint32_t elements) {
  const uint32_t bytes = ElemBytes(e);
  return bytes == 8 ? elements : elements * bytes / 4;
}
// .sync.aligned matrix instructions are collective over the whole warp; a
// GPU's behaviour is undefined when some lanes do not execute them (or have
// exited), so the emulator stops the warp instead of guessing. False: raised.
bool RequireWholeWarp(const Inst& inst, WarpCtx& ctx, uint32_t exec);
std::string Hex(uint64_t v);

}  // namespace barracuda::emu::tensor

#endif  // BARRACUDA_PTX_EMULATOR_OPS_TENSOR_DESC_H_
