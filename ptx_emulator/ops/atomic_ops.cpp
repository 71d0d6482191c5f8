// atom / red on global, shared and generic addresses, with real host atomics:
// blocks run on several host threads, so an atomic in the emulated program is
// an atomic read-modify-write on the host (fetch_add & co. where C++ has one,
// a compare-exchange loop otherwise). Lanes of one warp instruction apply in
// ascending lane order (a GPU leaves the order unspecified).
//
// Semantics (PTX ISA, atom): inc: old >= b ? 0 : old + 1; dec: (old == 0 ||
// old > b) ? b : old - 1; cas: old == b ? c : old; f32 add rounds to nearest
// and flushes subnormal inputs and results to sign-preserving zero; f64 add
// and .noftz f16/bf16(x2) adds keep subnormals; f32/f64 min/max return the
// non-NaN operand when one is NaN. d receives the old value (zero-extended).
//
// Vector forms (sm_90: atom.global.add.v4.f32, atom.global.max.noftz.v8.bf16,
// red.global.add.noftz.v2.f16x2 & co.; CUDA's atomicAdd(float4*, float4)):
// the PTX ISA makes each element an atomic operation of its own, not the
// vector, so each element is one host read-modify-write and one record of the
// element's size, as a vector load is. f16/bf16 min/max (vector forms and
// cp.reduce.async.bulk) return one of the operands exactly.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/ops/fp_format.h"
#include "ptx_emulator/ops/mem_access.h"

namespace barracuda::emu::mem {
namespace {

using ptx::AtomOp;

// Value types of the atomic forms; Bits is the unsigned type of the same width.
struct F16Tag {};
struct Bf16Tag {};
struct F16x2Tag {};
struct Bf16x2Tag {};

template <typename T> struct Repr { using Bits = std::make_unsigned_t<T>; };
template <> struct Repr<float> { using Bits = uint32_t; };
template <> struct Repr<double> { using Bits = uint64_t; };
template <> struct Repr<F16Tag> { using Bits = uint16_t; };
template <> struct Repr<Bf16Tag> { using Bits = uint16_t; };
template <> struct Repr<F16x2Tag> { using Bits = uint32_t; };
template <> struct Repr<Bf16x2Tag> { using Bits = uint32_t; };

float FlushF32(float f) { return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f; }

uint16_t AddHalf(uint16_t a, uint16_t b, bool bf16) {
  const double x = bf16 ? fp::Bf16ToF32(a) : fp::F16ToF32(a);
  const double y = bf16 ? fp::Bf16ToF32(b) : fp::F16ToF32(b);
  double s, e;
  fp::TwoSum(x, y, s, e);
  if (std::isnan(s) || std::isinf(s)) e = 0;
  return static_cast<uint16_t>(bf16 ? fp::RoundDouble<fp::Bf16Format>(s, e, fp::RoundMode::kRn, fp::kCanonicalNanBf16)
                                    : fp::RoundDouble<fp::F16Format>(s, e, fp::RoundMode::kRn, fp::kCanonicalNanF16));
}

template <typename F>
F MinMaxFloat(F a, F b, bool is_max) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return is_max ? (std::signbit(a) ? b : a) : (std::signbit(a) ? a : b);  // -0 < +0
  return is_max ? std::max(a, b) : std::min(a, b);
}

// add, min or max of two f16/bf16 values (bits). min/max pick one operand, so
// its bits are returned unchanged.
template <AtomOp OP>
uint16_t HalfOp(uint16_t a, uint16_t b, bool bf16) {
  if constexpr (OP == AtomOp::kAdd) {
    return AddHalf(a, b, bf16);
  } else {
    static_assert(OP == AtomOp::kMin || OP == AtomOp::kMax);
    const float x = bf16 ? fp::Bf16ToF32(a) : fp::F16ToF32(a);
    const float y = bf16 ? fp::Bf16ToF32(b) : fp::F16ToF32(b);
    const float m = MinMaxFloat(x, y, OP == AtomOp::kMax);
    return std::bit_cast<uint32_t>(m) == std::bit_cast<uint32_t>(x) ? a : b;
  }
}

// The new value of a location holding `old` (bits) after operation OP with b, c.
template <AtomOp OP, typename T>
typename Repr<T>::Bits Apply(typename Repr<T>::Bits old, typename Repr<T>::Bits b, typename Repr<T>::Bits c) {
  using B = typename Repr<T>::Bits;
  if constexpr (OP == AtomOp::kCas) {
    return old == b ? c : old;
  } else if constexpr (OP == AtomOp::kExch) {
    return b;
  } else if constexpr (OP == AtomOp::kAnd) {
    return old & b;
  } else if constexpr (OP == AtomOp::kOr) {
    return old | b;
  } else if constexpr (OP == AtomOp::kXor) {
    return old ^ b;
  } else if constexpr (OP == AtomOp::kInc) {
    return old >= b ? B{0} : static_cast<B>(old + 1);
  } else if constexpr (OP == AtomOp::kDec) {
    return (old == 0 || old > b) ? b : static_cast<B>(old - 1);
  } else if constexpr (std::is_same_v<T, F16Tag> || std::is_same_v<T, Bf16Tag>) {
    return HalfOp<OP>(old, b, std::is_same_v<T, Bf16Tag>);
  } else if constexpr (std::is_same_v<T, F16x2Tag> || std::is_same_v<T, Bf16x2Tag>) {
    constexpr bool kBf = std::is_same_v<T, Bf16x2Tag>;
    const uint32_t lo = HalfOp<OP>(static_cast<uint16_t>(old), static_cast<uint16_t>(b), kBf);
    const uint32_t hi = HalfOp<OP>(static_cast<uint16_t>(old >> 16), static_cast<uint16_t>(b >> 16), kBf);
    return lo | hi << 16;
  } else if constexpr (std::is_floating_point_v<T>) {
    const T x = std::bit_cast<T>(old), y = std::bit_cast<T>(b);
    if constexpr (OP == AtomOp::kAdd) {
      if constexpr (std::is_same_v<T, float>) return std::bit_cast<B>(FlushF32(FlushF32(x) + FlushF32(y)));
      return std::bit_cast<B>(x + y);
    } else {
      return std::bit_cast<B>(MinMaxFloat(x, y, OP == AtomOp::kMax));
    }
  } else {
    const T x = static_cast<T>(old), y = static_cast<T>(b);
    if constexpr (OP == AtomOp::kAdd) return static_cast<B>(static_cast<B>(x) + static_cast<B>(y));
    if constexpr (OP == AtomOp::kMin) return static_cast<B>(std::min(x, y));
    if constexpr (OP == AtomOp::kMax) return static_cast<B>(std::max(x, y));
  }
}

// One lane's read-modify-write; returns the old value.
template <AtomOp OP, typename T>
typename Repr<T>::Bits Rmw(uint8_t* p, typename Repr<T>::Bits b, typename Repr<T>::Bits c) {
  using B = typename Repr<T>::Bits;
  std::atomic_ref<B> ref(*reinterpret_cast<B*>(p));
  constexpr auto kOrder = std::memory_order_seq_cst;
  if constexpr (std::is_integral_v<T> && OP == AtomOp::kAdd) {
    return ref.fetch_add(b, kOrder);
  } else if constexpr (OP == AtomOp::kAnd) {
    return ref.fetch_and(b, kOrder);
  } else if constexpr (OP == AtomOp::kOr) {
    return ref.fetch_or(b, kOrder);
  } else if constexpr (OP == AtomOp::kXor) {
    return ref.fetch_xor(b, kOrder);
  } else if constexpr (OP == AtomOp::kExch) {
    return ref.exchange(b, kOrder);
  } else if constexpr (OP == AtomOp::kCas) {
    B expected = b;
    ref.compare_exchange_strong(expected, c, kOrder);
    return expected;  // the old value either way
  } else {
    B old = ref.load(std::memory_order_relaxed);
    while (!ref.compare_exchange_weak(old, Apply<OP, T>(old, b, c), kOrder, std::memory_order_relaxed)) {
    }
    return old;
  }
}

// atom (kResult: ops = d, [a], b[, c]) and red (ops = [a], b); d and b are
// vectors of n elements in the vector forms (n = 1 otherwise).
template <AtomOp OP, typename T, bool kResult>
void Atomic(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  using B = typename Repr<T>::Bits;
  constexpr uint32_t kSize = sizeof(B);
  constexpr uint32_t kMaxElements = 8;
  const int a_index = kResult ? 1 : 0;
  const Opnd& b_op = inst.ops[a_index + 1];
  const uint32_t n = b_op.kind == Opnd::Kind::kVector ? b_op.count : 1;
  const uint32_t total = kSize * n;  // a vector is aligned to its whole size, as ld.vN is
  const AddressOperand a = MakeAddress(inst.ops[a_index], ctx);
  const Space space = static_cast<Space>(inst.imm);
  const uint8_t op = AccessOp(inst.aux);
  const bool trace = ctx.tracer != nullptr && op != kAuxNotLogged;
  uint8_t* ptr[kLanes];
  LaneAccesses acc;
  bool ok = true;
  ForLanes(exec, [&](uint32_t l) {
    if (!ok) return;
    const uint64_t addr = SpaceAddress(space, a.At(l));
    if (addr % total != 0) {
      RaiseMisaligned(ctx, inst, l, addr, total, space, /*write=*/true);
      ok = false;
      return;
    }
    Where where;
    uint64_t log;
    ptr[l] = Resolve(ctx, inst, space, a.frame, l, addr, total, true, where, log);
    if (ptr[l] == nullptr) {
      ok = false;
      return;
    }
    if (trace) acc.Add(l, where, log);
  });
  if (!ok) return;
  const ValueRef* b_refs = mem::ValueRefs(b_op, ctx);
  const uint64_t* bv[kMaxElements];
  for (uint32_t k = 0; k < n; ++k) bv[k] = ctx.Src(b_refs[k]);
  const uint64_t* cv = OP == AtomOp::kCas ? ctx.Src(inst.ops[a_index + 2].ref) : bv[0];
  uint64_t* d[kMaxElements] = {};
  if constexpr (kResult) {
    const ValueRef* d_refs = mem::ValueRefs(inst.ops[0], ctx);
    for (uint32_t k = 0; k < n; ++k) d[k] = ctx.Dst(d_refs[k]);
  }
  auto run = [&] {
    ForLanes(exec, [&](uint32_t l) {
      // A lane reads all of b before writing d (the two may share registers).
      B old[kMaxElements];
      for (uint32_t k = 0; k < n; ++k)
        old[k] = Rmw<OP, T>(ptr[l] + kSize * k, static_cast<B>(bv[k][l]), static_cast<B>(cv[l]));
      if constexpr (kResult)
        for (uint32_t k = 0; k < n; ++k) d[k][l] = old[k];
    });
  };
  if (!trace) {
    run();
    return;
  }
  protocol::Record records[2 * kMaxElements];
  int count = 0;
  for (uint32_t k = 0; k < n; ++k) {
    for (int s = 0; s < 2; ++s) {
      const uint32_t mask = s == 0 ? acc.global_mask : acc.shared_mask;
      if (mask == 0) continue;
      protocol::Record& r = records[count++];
      r = MakeRecord(inst, ctx, mask, s == 0 ? protocol::Space::kGlobal : protocol::Space::kShared, kSize);
      for (uint32_t m = mask; m; m &= m - 1) r.addr[Lane(m)] = acc.log[Lane(m)] + uint64_t{kSize} * k;
    }
  }
  if (IsStrong(op)) {
    // Stamp and read-modify-write together (see ReleaseMutex); every atomic is
    // strong and may continue a release sequence.
    std::lock_guard<std::mutex> lock(ReleaseMutex());
    for (int i = 0; i < count; ++i) records[i].stamp = ctx.tracer->Stamp();
    run();
  } else {
    run();
    if (IsAcquire(op))
      for (int i = 0; i < count; ++i) records[i].stamp = ctx.tracer->Stamp();
  }
  for (int i = 0; i < count; ++i) ctx.tracer->Emit(records[i]);
}

template <AtomOp OP, typename T>
Handler Pick(bool result) {
  return result ? &Atomic<OP, T, true> : &Atomic<OP, T, false>;
}

template <typename T>
Handler ForType(AtomOp op, bool result) {
  using ptx::AtomOp;
  if constexpr (std::is_same_v<T, F16Tag> || std::is_same_v<T, Bf16Tag> || std::is_same_v<T, F16x2Tag> ||
                std::is_same_v<T, Bf16x2Tag>) {
    switch (op) {  // min/max: the vector forms' .noftz min and max
      case AtomOp::kAdd: return Pick<AtomOp::kAdd, T>(result);
      case AtomOp::kMin: return Pick<AtomOp::kMin, T>(result);
      case AtomOp::kMax: return Pick<AtomOp::kMax, T>(result);
      default: return nullptr;
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case AtomOp::kAdd: return Pick<AtomOp::kAdd, T>(result);
      case AtomOp::kMin: return Pick<AtomOp::kMin, T>(result);
      case AtomOp::kMax: return Pick<AtomOp::kMax, T>(result);
      case AtomOp::kExch: return Pick<AtomOp::kExch, T>(result);
      default: return nullptr;
    }
  } else if constexpr (std::is_same_v<T, uint16_t>) {
    return op == AtomOp::kCas ? Pick<AtomOp::kCas, T>(result) : nullptr;
  } else {
    switch (op) {
      case AtomOp::kAdd: return Pick<AtomOp::kAdd, T>(result);
      case AtomOp::kMin: return Pick<AtomOp::kMin, T>(result);
      case AtomOp::kMax: return Pick<AtomOp::kMax, T>(result);
      case AtomOp::kInc: return std::is_unsigned_v<T> ? Pick<AtomOp::kInc, T>(result) : nullptr;
      case AtomOp::kDec: return std::is_unsigned_v<T> ? Pick<AtomOp::kDec, T>(result) : nullptr;
      case AtomOp::kCas: return Pick<AtomOp::kCas, T>(result);
      case AtomOp::kExch: return Pick<AtomOp::kExch, T>(result);
      case AtomOp::kAnd: return Pick<AtomOp::kAnd, T>(result);
      case AtomOp::kOr: return Pick<AtomOp::kOr, T>(result);
      case AtomOp::kXor: return Pick<AtomOp::kXor, T>(result);
      default: return nullptr;
    }
  }
}

template <AtomOp OP, typename T>
void ReduceElement(uint8_t* dst, const uint8_t* src) {
  using B = typename Repr<T>::Bits;
  B b;
  std::memcpy(&b, src, sizeof b);
  Rmw<OP, T>(dst, b, B{});
}

template <typename T>
ElementReduce ReduceFor(AtomOp op) {
  if constexpr (std::is_same_v<T, F16Tag> || std::is_same_v<T, Bf16Tag>) {
    switch (op) {
      case AtomOp::kAdd: return &ReduceElement<AtomOp::kAdd, T>;
      case AtomOp::kMin: return &ReduceElement<AtomOp::kMin, T>;
      case AtomOp::kMax: return &ReduceElement<AtomOp::kMax, T>;
      default: return nullptr;
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    return op == AtomOp::kAdd ? &ReduceElement<AtomOp::kAdd, T> : nullptr;
  } else {
    switch (op) {
      case AtomOp::kAdd: return &ReduceElement<AtomOp::kAdd, T>;
      case AtomOp::kMin: return &ReduceElement<AtomOp::kMin, T>;
      case AtomOp::kMax: return &ReduceElement<AtomOp::kMax, T>;
      case AtomOp::kInc: return std::is_unsigned_v<T> ? &ReduceElement<AtomOp::kInc, T> : nullptr;
      case AtomOp::kDec: return std::is_unsigned_v<T> ? &ReduceElement<AtomOp::kDec, T> : nullptr;
      case AtomOp::kAnd: return &ReduceElement<AtomOp::kAnd, T>;
      case AtomOp::kOr: return &ReduceElement<AtomOp::kOr, T>;
      case AtomOp::kXor: return &ReduceElement<AtomOp::kXor, T>;
      default: return nullptr;
    }
  }
}

}  // namespace

ElementReduce SelectElementReduce(AtomOp op, ptx::Type type) {
  switch (type) {
    case ptx::Type::kB32:
    case ptx::Type::kU32: return ReduceFor<uint32_t>(op);
    case ptx::Type::kS32: return ReduceFor<int32_t>(op);
    case ptx::Type::kB64:
    case ptx::Type::kU64: return ReduceFor<uint64_t>(op);
    case ptx::Type::kS64: return ReduceFor<int64_t>(op);
    case ptx::Type::kF32: return ReduceFor<float>(op);
    case ptx::Type::kF64: return ReduceFor<double>(op);
    case ptx::Type::kF16: return ReduceFor<F16Tag>(op);
    case ptx::Type::kBf16: return ReduceFor<Bf16Tag>(op);
    default: return nullptr;
  }
}

absl::StatusOr<bool> SelectAtomicOp(const ptx::Instruction& ir, Inst& inst) {
  if (ir.op != ptx::Opcode::kAtom && ir.op != ptx::Opcode::kRed) return false;
  const ptx::ModifierInfo& m = ir.info;
  const bool result = ir.op == ptx::Opcode::kAtom;
  const Space space = SpaceOf(m.space);
  if (space != Space::kGeneric && space != Space::kGlobal && space != Space::kShared)
    return mem::UnimplementedForm(ir, "atomics address global, shared or generic memory only");
  if (m.num_types != 1) return mem::UnimplementedForm(ir, "exactly one type modifier expected");
  const bool cas = m.atom_op == AtomOp::kCas;
  const size_t need = (result ? 3 : 2) + (cas ? 1 : 0);
  if (inst.num_ops < need) return mem::UnimplementedForm(ir, "missing operands");
  const int a_index = result ? 1 : 0;
  if (inst.ops[a_index].kind != Opnd::Kind::kAddress) return mem::UnimplementedForm(ir, "address operand expected");
  const uint32_t width = m.vector_width;
  if (width != 1) {
    // PTX ISA, atom: .v2/.v4 of .f32 (add) and of .f16x2/.bf16x2, .v2/.v4/.v8
    // of .f16/.bf16 (add, min, max); global memory (or a generic address of it).
    const ptx::Type t = m.type();
    const bool f32 = t == ptx::Type::kF32, packed = t == ptx::Type::kF16x2 || t == ptx::Type::kBf16x2,
               half = t == ptx::Type::kF16 || t == ptx::Type::kBf16;
    const bool op_ok = m.atom_op == AtomOp::kAdd || (!f32 && (m.atom_op == AtomOp::kMin || m.atom_op == AtomOp::kMax));
    if (!(f32 || packed || half) || !op_ok || (width != 2 && width != 4 && !(half && width == 8)))
      return mem::UnimplementedForm(ir, "no such vector atomic (PTX has .v2/.v4 f32 add, f16x2/bf16x2 and "
                                        ".v2/.v4/.v8 f16/bf16 add/min/max)");
    if (space == Space::kShared) return mem::UnimplementedForm(ir, "vector atomics address global memory only");
    if (inst.ops[a_index + 1].kind != Opnd::Kind::kVector || inst.ops[a_index + 1].count != width ||
        (result && (inst.ops[0].kind != Opnd::Kind::kVector || inst.ops[0].count != width)))
      return mem::UnimplementedForm(ir, "vector operands must match the .vN modifier");
  } else {
    for (size_t i = a_index + 1; i < need; ++i)
      if (inst.ops[i].kind != Opnd::Kind::kValue) return mem::UnimplementedForm(ir, "value operand expected");
    if (result && inst.ops[0].kind != Opnd::Kind::kValue && inst.ops[0].kind != Opnd::Kind::kSink)
      return mem::UnimplementedForm(ir, "destination register expected");
  }
  Handler h = nullptr;
  switch (m.type()) {
    case ptx::Type::kB32:
    case ptx::Type::kU32: h = ForType<uint32_t>(m.atom_op, result); break;
    case ptx::Type::kS32: h = ForType<int32_t>(m.atom_op, result); break;
    case ptx::Type::kB64:
    case ptx::Type::kU64: h = ForType<uint64_t>(m.atom_op, result); break;
    case ptx::Type::kS64: h = ForType<int64_t>(m.atom_op, result); break;
    case ptx::Type::kF32: h = ForType<float>(m.atom_op, result); break;
    case ptx::Type::kF64: h = ForType<double>(m.atom_op, result); break;
    case ptx::Type::kB16:
    case ptx::Type::kU16: h = ForType<uint16_t>(m.atom_op, result); break;
    case ptx::Type::kF16: h = ForType<F16Tag>(m.atom_op, result); break;
    case ptx::Type::kBf16: h = ForType<Bf16Tag>(m.atom_op, result); break;
    case ptx::Type::kF16x2: h = ForType<F16x2Tag>(m.atom_op, result); break;
    case ptx::Type::kBf16x2: h = ForType<Bf16x2Tag>(m.atom_op, result); break;
    default: break;
  }
  // .b32/.b64 forms of add/min/max/inc/dec (outside the PTX grammar) are read as unsigned.
  if (h == nullptr) return mem::UnimplementedForm(ir, "operation not defined for this type");
  inst.fn = h;
  inst.imm = static_cast<uint64_t>(space);
  return true;
}

}  // namespace barracuda::emu::mem
