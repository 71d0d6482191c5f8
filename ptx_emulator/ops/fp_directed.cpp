// Directed rounding (.rz/.rm/.rp) for f32/f64 add sub mul fma div rcp sqrt:
// the host FPU computes the exactly rounded result in the requested mode
// (<cfenv>), switched once per warp instruction. These forms are rare in nvcc
// output (__fadd_rz & co.), so they stay off the round-to-nearest fast path.
//
// The compiler must not move the arithmetic across fesetround: operands and
// results pass through Opaque (an empty asm with a memory clobber, ordered
// with the fesetround calls), and this file is built with -frounding-math.
#include <cfenv>

#include "ptx_emulator/ops/fp_arith.h"

namespace barracuda::emu::fp {
namespace {

template <typename T>
BARRACUDA_FP_INLINE T Opaque(T v) {
  asm volatile("" : "+m"(v) : : "memory");
  return v;
}

class RoundingScope {
 public:
  explicit RoundingScope(int mode) : old_(std::fegetround()) { std::fesetround(mode); }
  ~RoundingScope() { std::fesetround(old_); }
  RoundingScope(const RoundingScope&) = delete;
  RoundingScope& operator=(const RoundingScope&) = delete;

 private:
  int old_;
};

template <int kArity, typename Op, typename T, bool kFtz, bool kSat>
void Directed(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = kArity > 1 ? ctx.Src(inst.ops[2].ref) : nullptr;
  const uint64_t* c = kArity > 2 ? ctx.Src(inst.ops[3].ref) : nullptr;
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  RoundingScope scope(static_cast<int>(inst.aux));
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    T r;
    if constexpr (kArity == 1) {
      r = Opaque(Op::Apply(Opaque(In<T, kFtz>(a[l]))));
    } else if constexpr (kArity == 2) {
      r = Opaque(Op::Apply(Opaque(In<T, kFtz>(a[l])), Opaque(In<T, kFtz>(b[l]))));
    } else {
      r = Opaque(Op::Apply(Opaque(In<T, kFtz>(a[l])), Opaque(In<T, kFtz>(b[l])), Opaque(In<T, kFtz>(c[l]))));
    }
    d[l] = Out<T, kFtz, kSat>(r);
  }
}

template <int kArity, typename Op>
Handler Pick(bool f64, bool ftz, bool sat) {
  if (f64) return &Directed<kArity, Op, double, false, false>;
  if (ftz) return sat ? &Directed<kArity, Op, float, true, true> : &Directed<kArity, Op, float, true, false>;
  return sat ? &Directed<kArity, Op, float, false, true> : &Directed<kArity, Op, float, false, false>;
}

}  // namespace

void SelectDirected(DirectedOp op, bool f64, bool ftz, bool sat, RoundMode mode, Inst& inst) {
  switch (mode) {
    case RoundMode::kRz: inst.aux = FE_TOWARDZERO; break;
    case RoundMode::kRm: inst.aux = FE_DOWNWARD; break;
    case RoundMode::kRp: inst.aux = FE_UPWARD; break;
    default: inst.aux = FE_TONEAREST; break;
  }
  switch (op) {
    case DirectedOp::kAdd: inst.fn = Pick<2, AddOp>(f64, ftz, sat); break;
    case DirectedOp::kSub: inst.fn = Pick<2, SubOp>(f64, ftz, sat); break;
    case DirectedOp::kMul: inst.fn = Pick<2, MulOp>(f64, ftz, sat); break;
    case DirectedOp::kDiv: inst.fn = Pick<2, DivOp>(f64, ftz, false); break;
    case DirectedOp::kFma: inst.fn = Pick<3, FmaOp>(f64, ftz, sat); break;
    case DirectedOp::kRcp: inst.fn = Pick<1, RcpOp>(f64, ftz, false); break;
    case DirectedOp::kSqrt: inst.fn = Pick<1, SqrtOp>(f64, ftz, false); break;
  }
}

}  // namespace barracuda::emu::fp
