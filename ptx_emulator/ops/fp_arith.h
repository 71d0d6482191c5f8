// Operand decoding and result encoding of f32/f64 arithmetic lanes, shared by
// the round-to-nearest handlers (float_ops.cpp) and the directed-rounding ones
// (fp_directed.cpp). Everything here is resolved at compile time per handler.
#ifndef BARRACUDA_PTX_EMULATOR_OPS_FP_ARITH_H_
#define BARRACUDA_PTX_EMULATOR_OPS_FP_ARITH_H_

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "absl/status/statusor.h"
#include "ptx_emulator/core/exec_form.h"
#include "ptx_emulator/ops/fp_format.h"
#include "ptx_emulator/ops/fp_lanes.h"
#include "ptx_rewriter/ir.h"

namespace barracuda::emu::fp {

// Source value of a lane; .ftz flushes f32 subnormal inputs.
template <typename T, bool kFtz>
BARRACUDA_FP_INLINE T In(uint64_t v) {
  if constexpr (std::is_same_v<T, float>) {
    return kFtz ? FlushF32(F32(v)) : F32(v);
  } else {
    return F64(v);
  }
}

// Result encoding: .sat clamps to [0, 1] with NaN (and -0) -> +0; .ftz
// flushes f32 subnormal results; f32 NaNs become the canonical NaN (as the
// GPU returns); f64 NaNs keep their payload (PTX: payloads are supported for
// double precision).
template <typename T, bool kFtz, bool kSat>
BARRACUDA_FP_INLINE uint64_t Out(T r) {
  if constexpr (kSat) r = r > T(0) ? (r < T(1) ? r : T(1)) : T(0);
  if constexpr (std::is_same_v<T, float>) {
    if constexpr (kFtz) r = FlushF32(r);
    return r != r ? uint64_t{kCanonicalNanF32} : Bits(r);
  } else {
    return Bits(r);
  }
}

struct AddOp {
  template <typename T>
  BARRACUDA_FP_INLINE static T Apply(T a, T b) { return a + b; }
};
struct SubOp {
  template <typename T>
  BARRACUDA_FP_INLINE static T Apply(T a, T b) { return a - b; }
};
struct MulOp {
  template <typename T>
  BARRACUDA_FP_INLINE static T Apply(T a, T b) { return a * b; }
};
struct DivOp {
  template <typename T>
  BARRACUDA_FP_INLINE static T Apply(T a, T b) { return a / b; }
};
struct FmaOp {
  template <typename T>
  BARRACUDA_FP_INLINE static T Apply(T a, T b, T c) { return std::fma(a, b, c); }
};
struct RcpOp {
  template <typename T>
  BARRACUDA_FP_INLINE static T Apply(T a) { return T(1) / a; }
};
struct SqrtOp {
  template <typename T>
  BARRACUDA_FP_INLINE static T Apply(T a) { return std::sqrt(a); }
};

// Directed-rounding (.rz/.rm/.rp) f32/f64 add sub mul fma div rcp sqrt
// (fp_directed.cpp). Sets inst.fn and inst.aux (the <cfenv> mode).
enum class DirectedOp : uint8_t { kAdd, kSub, kMul, kFma, kDiv, kRcp, kSqrt };
void SelectDirected(DirectedOp op, bool f64, bool ftz, bool sat, RoundMode mode, Inst& inst);

// f16 / bf16 / f16x2 / bf16x2 arithmetic (fp_half_ops.cpp).
absl::StatusOr<bool> SelectHalfOp(const ptx::Instruction& ir, Inst& inst);

// "add.rz.f32: <what>" as an Unimplemented status (decoder adds file:line).
absl::Status Unsupported(const ptx::Instruction& ir, std::string_view what);
// True if ops[0..n) are all kValue operands (registers/immediates).
bool ValueOperands(const Inst& inst, int n);

}  // namespace barracuda::emu::fp

#endif  // BARRACUDA_PTX_EMULATOR_OPS_FP_ARITH_H_
