// Lane loops shared by the float and conversion handlers.
//
// A handler is a lane function L (a struct with static uint64_t Run(...)
// taking the operand slot values of one lane) plugged into one of the loops
// below. With every lane active the loop is a plain 0..31 loop writing a local
// array first, so the compiler can vectorise it even when the destination
// register is also a source (fma d, a, b, d is the matrix-multiply pattern);
// otherwise it walks the set bits of `exec`.
//
// Operand layout: ops[0] is the destination, ops[1..] the sources (kValue).
#ifndef BARRACUDA_PTX_EMULATOR_OPS_FP_LANES_H_
#define BARRACUDA_PTX_EMULATOR_OPS_FP_LANES_H_

#include <cstdint>
#include <cstring>

#include "ptx_emulator/core/warp_context.h"

namespace barracuda::emu::fp {

#define BARRACUDA_FP_INLINE inline __attribute__((always_inline))

template <typename L>
BARRACUDA_FP_INLINE void UnaryLoop(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  if (exec == kFullMask) {
    uint64_t r[kLanes];
    for (uint32_t l = 0; l < kLanes; ++l) r[l] = L::Run(a[l]);
    std::memcpy(d, r, sizeof r);
    return;
  }
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    d[l] = L::Run(a[l]);
  }
}

template <typename L>
BARRACUDA_FP_INLINE void BinaryLoop(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = ctx.Src(inst.ops[2].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  if (exec == kFullMask) {
    uint64_t r[kLanes];
    for (uint32_t l = 0; l < kLanes; ++l) r[l] = L::Run(a[l], b[l]);
    std::memcpy(d, r, sizeof r);
    return;
  }
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    d[l] = L::Run(a[l], b[l]);
  }
}

template <typename L>
BARRACUDA_FP_INLINE void TernaryLoop(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = ctx.Src(inst.ops[2].ref);
  const uint64_t* c = ctx.Src(inst.ops[3].ref);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  if (exec == kFullMask) {
    uint64_t r[kLanes];
    for (uint32_t l = 0; l < kLanes; ++l) r[l] = L::Run(a[l], b[l], c[l]);
    std::memcpy(d, r, sizeof r);
    return;
  }
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    d[l] = L::Run(a[l], b[l], c[l]);
  }
}

// Plain handlers (baseline ISA).
template <typename L>
void Unary(const Inst& inst, WarpCtx& ctx, uint32_t exec) { UnaryLoop<L>(inst, ctx, exec); }
template <typename L>
void Binary(const Inst& inst, WarpCtx& ctx, uint32_t exec) { BinaryLoop<L>(inst, ctx, exec); }
template <typename L>
void Ternary(const Inst& inst, WarpCtx& ctx, uint32_t exec) { TernaryLoop<L>(inst, ctx, exec); }

// The same loops compiled for AVX2+FMA (x86-64 only), chosen at selection time
// when the CPU has them: fma.rn.f32 becomes one vfmadd per 8 lanes instead of
// a libm call per lane. Results are identical (FMA is exact-then-round either way).
#if defined(__x86_64__)
#define BARRACUDA_FP_HAVE_AVX2_VARIANT 1
template <typename L>
__attribute__((target("avx2,fma"))) void BinaryAvx2(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  BinaryLoop<L>(inst, ctx, exec);
}
template <typename L>
__attribute__((target("avx2,fma"))) void TernaryAvx2(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  TernaryLoop<L>(inst, ctx, exec);
}
inline bool CpuHasAvx2Fma() {
  static const bool has = [] {
    __builtin_cpu_init();  // may run before libgcc's constructor (e.g. from another constructor)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return has;
}
#endif

}  // namespace barracuda::emu::fp

#endif  // BARRACUDA_PTX_EMULATOR_OPS_FP_LANES_H_
