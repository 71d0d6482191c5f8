// Handler selection: the decoder asks each instruction family, in turn, for the
// handler of a decoded instruction. A family picks a handler specialised for the
// instruction's exact types and modifiers (so nothing is switched on per lane)
// and may fill Inst::aux / Inst::imm.
//
// Contract of a selector:
//   true           it implements the instruction; inst.fn is set.
//   false          not one of its opcodes (the decoder asks the next family).
//   error status   one of its opcodes in a form it does not implement
//                  (Unimplemented, message "<opcode as written>: <what is missing>");
//                  the decoder adds the module name and PTX line.
// Operands are already decoded (Inst::ops, positional); the decoder has set
// Inst::aux to the access classification (AccessClassBits below) for memory
// and fence instructions.
#ifndef BARRACUDA_PTX_EMULATOR_CORE_HANDLERS_H_
#define BARRACUDA_PTX_EMULATOR_CORE_HANDLERS_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ptx_emulator/core/exec_form.h"
#include "ptx_rewriter/ir.h"

namespace barracuda::emu {

// The selector error for an instruction form a family does not implement
// ("<opcode with modifiers>: <what>"): the launch fails with
// cudaErrorNotSupported and the run is incomplete.
inline absl::Status UnimplementedForm(const ptx::Instruction& ir, std::string_view what) {
  std::string text(ir.opcode_name());
  for (const auto& m : ir.modifiers) text += m;
  return absl::UnimplementedError(text + ": " + std::string(what));
}

using Selector = absl::StatusOr<bool> (*)(const ptx::Instruction& ir, Inst& inst);

// ops/integer_ops.cpp: add sub mul mad mul24 mad24 sad div rem abs neg min max
//   addc subc madc (carry via a per-warp carry flag), dp2a dp4a
absl::StatusOr<bool> SelectIntegerOp(const ptx::Instruction& ir, Inst& inst);
// ops/video_ops.cpp: vadd vsub vabsdiff vmin vmax vshl vshr vmad vset and the
//   SIMD vadd2/4 vsub2/4 vavrg2/4 vabsdiff2/4 vmin2/4 vmax2/4 vset2/4 (operand
//   selectors from ptx::Operand::select; Inst::imm/aux hold the decoded form)
absl::StatusOr<bool> SelectVideoOp(const ptx::Instruction& ir, Inst& inst);
// ops/bit_ops.cpp: and or xor not cnot lop3 shl shr shf bfe bfi bfind brev clz
//   popc prmt bmsk szext, mov (values, vectors pack/unpack, predicates, symbol
//   addresses incl. Opnd::kAddress kFrame), selp slct setp set (integer and
//   float compares), testp? (no: float family)
absl::StatusOr<bool> SelectBitOp(const ptx::Instruction& ir, Inst& inst);
// ops/float_ops.cpp: f16/f16x2/bf16/bf16x2/f32/f64 add sub mul fma mad div rcp
//   sqrt rsqrt sin cos lg2 ex2 tanh min max abs neg copysign testp
absl::StatusOr<bool> SelectFloatOp(const ptx::Instruction& ir, Inst& inst);
// ops/conversion_ops.cpp: cvt (every int/float pair, rounding, saturation, ftz,
//   f16/bf16 packs, fp8 e4m3x2/e5m2x2 pairs), cvt.pack
absl::StatusOr<bool> SelectConversionOp(const ptx::Instruction& ir, Inst& inst);
// ops/memory_ops.cpp, ops/atomic_ops.cpp, ops/address_ops.cpp: ld ldu st atom red
//   cvta isspacep prefetch prefetchu fence membar applypriority discard
absl::StatusOr<bool> SelectMemoryOp(const ptx::Instruction& ir, Inst& inst);
// ops/warp_ops.cpp: shfl vote match redux activemask elect
absl::StatusOr<bool> SelectWarpOp(const ptx::Instruction& ir, Inst& inst);
// ops/warp_ops.cpp: bar.warp.sync's kWarpSync record per group of lanes naming
// one mask (selected by SelectControlOp as exec/barriers.cpp's handler).
void WarpSyncRecord(const Inst& inst, WarpCtx& ctx, uint32_t exec);
// The arrival of lanes `exec` naming `members` at bar.warp.sync `inst`; with
// members on other paths still to come, the payload names them all. Logged
// when a group begins to wait (its register operands may be in a callee's
// frame under -G: `members` is given).
void WarpSyncArrival(const Inst& inst, WarpCtx& ctx, uint32_t members, uint32_t exec);
// ops/async_copy_ops.cpp: cp.async (ca/cg), commit_group, wait_group, wait_all,
//   cp.async.mbarrier.arrive; ops/mbarrier_ops.cpp: mbarrier.*
absl::StatusOr<bool> SelectAsyncCopyOp(const ptx::Instruction& ir, Inst& inst);
absl::StatusOr<bool> SelectMbarrierOp(const ptx::Instruction& ir, Inst& inst);
// ops/hint_ops.cpp: griddepcontrol, setmaxnreg, createpolicy (nothing to do here)
absl::StatusOr<bool> SelectHintOp(const ptx::Instruction& ir, Inst& inst);
// ops/tensor_core_ops.cpp (+ tensor_*.cpp): wmma.load/.store/.mma, mma.sync,
//   ldmatrix, stmatrix, movmatrix
absl::StatusOr<bool> SelectTensorOp(const ptx::Instruction& ir, Inst& inst);
// ops/texture_ops.cpp: tex tld4 txq suld sust suq on texture/surface objects
absl::StatusOr<bool> SelectTextureOp(const ptx::Instruction& ir, Inst& inst);
// exec/control_ops.cpp: bra brx call ret exit trap brkpt bar barrier
//   (sync/arrive/red, bar.warp.sync) nanosleep pmevent
absl::StatusOr<bool> SelectControlOp(const ptx::Instruction& ir, Inst& inst);

// The families in the order the decoder tries them.
inline constexpr Selector kSelectors[] = {
    SelectControlOp, SelectMemoryOp,  SelectWarpOp,      SelectIntegerOp,   SelectBitOp,
    SelectFloatOp,   SelectConversionOp, SelectAsyncCopyOp, SelectMbarrierOp, SelectTensorOp,
    SelectHintOp,    SelectTextureOp,    SelectVideoOp,
};

// Inst::aux for memory/fence instructions: the access classification from
// ptx_rewriter/sync_inference.h, packed.
//   bits 0..7   protocol::Op (kRead/kWrite/kAtomic/kAcquire/kRelease/kAcqRel/kFence),
//               0xff = not logged (local/param/const space, proxy fences)
//   bits 8..11  protocol::Scope
//   bits 16..23 protocol flag bits (kFlagLoad/kFlagStore/kFlagVolatile)
inline constexpr uint32_t kAuxNotLogged = 0xff;
constexpr uint32_t PackAccessClass(uint8_t op, uint8_t scope, uint8_t flags) {
  return uint32_t{op} | (uint32_t{scope} & 0xf) << 8 | uint32_t{flags} << 16;
}
constexpr uint8_t AccessOp(uint32_t aux) { return static_cast<uint8_t>(aux & 0xff); }
constexpr uint8_t AccessScope(uint32_t aux) { return static_cast<uint8_t>((aux >> 8) & 0xf); }
constexpr uint8_t AccessFlags(uint32_t aux) { return static_cast<uint8_t>((aux >> 16) & 0xff); }

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_CORE_HANDLERS_H_
