// cvta / cvta.to and isspacep: conversions between generic addresses and the
// addresses of a state space (see mem_access.h for the spaces' layout).
//   generic(global/const x) = x            (device addresses are host addresses)
//   generic(shared x)       = shared_base + x
//   generic(local x)        = LocalWindow(lane) + x
//   generic(param x)        = param_base + x for kernel parameters; a function's
//                             .param variables live in the frame (local window)
// The .u32 forms truncate the result to 32 bits.
// mapa / getctarank (sm_90 clusters), with the address forms of
// ops/cluster_windows.h: mapa to the own rank is the identity for a
// .shared::cta offset (a .shared::cluster address of the own CTA equals its
// .shared::cta offset) and maps a generic address to the own window; mapa to
// another rank gives ClusterSharedAddress(rank, offset) (.shared::cluster) or
// that rank's window base + offset (generic). A rank outside the cluster, or
// an address in no CTA's shared window, faults (undefined in PTX).
// cvta.shared of a .shared::cluster address of another rank gives its
// generic address (and cvta.to.shared the reverse).
#include <string>

#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/ops/cluster_windows.h"
#include "ptx_emulator/ops/mem_access.h"

namespace barracuda::emu::mem {
namespace {

// Base of `space`'s window for `lane` as a generic address (0 for global/const).
inline uint64_t WindowBase(WarpCtx& ctx, Space space, bool frame, uint32_t lane) {
  switch (space) {
    case Space::kShared: return reinterpret_cast<uintptr_t>(ctx.shared_base);
    case Space::kLocal: return reinterpret_cast<uintptr_t>(ctx.LocalWindow(lane));
    case Space::kParam:
      if (!frame && (ctx.function == nullptr || ctx.function->is_entry))
        return reinterpret_cast<uintptr_t>(ctx.param_base);
      return reinterpret_cast<uintptr_t>(ctx.LocalWindow(lane));
    default: return 0;
  }
}

template <bool kTo>
void Cvta(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const AddressOperand a = MakeAddress(inst.ops[1], ctx);
  const Space space = static_cast<Space>(inst.imm & 0xff);
  const uint64_t mask = (inst.imm >> 8) != 0 ? 0xffffffffull : ~uint64_t{0};
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  if (space == Space::kGlobal || space == Space::kConst) {
    ForLanes(exec, [&](uint32_t l) { d[l] = a.At(l) & mask; });
    return;
  }
  ForLanes(exec, [&](uint32_t l) {
    const uint64_t base = WindowBase(ctx, space, a.frame, l);
    uint64_t v = kTo ? a.At(l) - base : a.At(l) + base;
    if (space == Space::kShared && ClusterSize(ctx) > 1) {
      // Another CTA's window of the cluster (rare: only after mapa).
      ClusterPlace p;
      if (kTo && v >= ctx.shared_bytes && FindClusterGeneric(ctx, l, a.At(l), 1, p)) {
        v = p.rank == OwnClusterRank(ctx, l) ? p.offset : ClusterSharedAddress(p.rank, p.offset);
      } else if (!kTo && a.At(l) >= ctx.shared_bytes && FindClusterShared(ctx, l, a.At(l), 1, p)) {
        v = reinterpret_cast<uintptr_t>(ClusterHost(ctx, p));
      }
    }
    d[l] = v & mask;
  });
}

// imm: the Space, | kIsspacepCluster for isspacep.shared::cluster, which the
// PTX ISA makes true in the shared memory window of any CTA of the cluster
// (isspacep.shared: the executing CTA's only).
constexpr uint64_t kIsspacepCluster = uint64_t{1} << 8;

void Isspacep(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const AddressOperand a = MakeAddress(inst.ops[1], ctx);
  const Space space = static_cast<Space>(inst.imm & 0xff);
  const bool cluster = (inst.imm & kIsspacepCluster) != 0;
  uint32_t result = 0;
  ForLanes(exec, [&](uint32_t l) {
    const uint64_t addr = a.At(l);
    bool in = false;
    ClusterPlace place;
    switch (space) {
      case Space::kShared:
        in = addr - reinterpret_cast<uintptr_t>(ctx.shared_base) < ctx.shared_bytes ||
             (cluster && FindClusterGeneric(ctx, l, addr, 1, place));
        break;
      case Space::kLocal:
        in = addr - reinterpret_cast<uintptr_t>(ctx.LocalWindow(l)) < ctx.local_stride;
        break;
      case Space::kParam:
        in = ctx.param_base != nullptr && addr - reinterpret_cast<uintptr_t>(ctx.param_base) < ctx.param_bytes;
        break;
      case Space::kGlobal:
      case Space::kConst:
        if (ctx.memory != nullptr && ctx.memory->InRange(addr, 1)) {
          // Module .const variables share the arena with global memory; the
          // allocation says which (a lock, but isspacep is rare).
          auto alloc = ctx.memory->Find(addr);
          const bool is_const = alloc && alloc->kind == DeviceMemory::Kind::kConstVariable;
          in = space == Space::kConst ? is_const : !is_const;
        }
        break;
      case Space::kGeneric:
        break;
    }
    if (in) result |= 1u << l;
  });
  uint32_t& p = ctx.preds[inst.ops[0].index];
  p = (p & ~exec) | result;
}

// ops: d, a, b (b = target CTA rank); imm bit 0: the .u32 form, bit 1: .shared::cluster
// (else a generic address).
void Mapa(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const AddressOperand a = MakeAddress(inst.ops[1], ctx);
  const uint64_t* rank = ctx.Src(inst.ops[2].ref);
  const uint64_t mask = (inst.imm & 1) != 0 ? 0xffffffffull : ~uint64_t{0};
  const bool cluster_space = (inst.imm & 2) != 0;
  const uint32_t size = ClusterSize(ctx);
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    const auto r = static_cast<uint32_t>(rank[l]);
    if (rank[l] >= size) {
      ctx.Raise(FaultKind::kIllegalAddress, inst, l, a.At(l),
                "mapa to CTA rank " + std::to_string(rank[l]) + ": the cluster has " + std::to_string(size) +
                    (size == 1 ? " CTA" : " CTAs"));
      return;
    }
    ClusterPlace p;
    const bool found = cluster_space ? FindClusterShared(ctx, l, a.At(l), 1, p) : FindClusterGeneric(ctx, l, a.At(l), 1, p);
    if (!found) {
      ctx.Raise(FaultKind::kIllegalAddress, inst, l, a.At(l),
                InstText(inst) + ": address is not in the shared memory of a CTA of the cluster");
      return;
    }
    p.rank = r;
    if (!cluster_space) {
      d[l] = reinterpret_cast<uintptr_t>(ClusterHost(ctx, p)) & mask;
    } else {
      d[l] = (r == OwnClusterRank(ctx, l) ? p.offset : ClusterSharedAddress(r, p.offset)) & mask;
    }
  }
}

// ops: d, a: the rank of the CTA whose shared memory `a` is in.
void Getctarank(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const AddressOperand a = MakeAddress(inst.ops[1], ctx);
  const bool cluster_space = (inst.imm & 2) != 0;
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t l = Lane(m);
    ClusterPlace p;
    const bool found = cluster_space ? FindClusterShared(ctx, l, a.At(l), 1, p) : FindClusterGeneric(ctx, l, a.At(l), 1, p);
    if (!found) {
      ctx.Raise(FaultKind::kIllegalAddress, inst, l, a.At(l),
                InstText(inst) + ": address is not in the shared memory of a CTA of the cluster");
      return;
    }
    d[l] = p.rank;
  }
}

bool IsSource(const Opnd& o) { return o.kind == Opnd::Kind::kValue || o.kind == Opnd::Kind::kAddress; }

absl::StatusOr<bool> SelectClusterAddressOp(const ptx::Instruction& ir, Inst& inst) {
  const ptx::ModifierInfo& m = ir.info;
  if (m.space != ptx::StateSpace::kNone && m.space != ptx::StateSpace::kSharedCluster)
    return mem::UnimplementedForm(ir, "only .shared::cluster or generic addresses");
  const ptx::Type t = m.type();
  if (t != ptx::Type::kU32 && t != ptx::Type::kU64 && t != ptx::Type::kB32 && t != ptx::Type::kB64)
    return mem::UnimplementedForm(ir, ".u32 or .u64 expected");
  const bool mapa = ir.op == ptx::Opcode::kMapa;
  if (inst.num_ops != (mapa ? 3 : 2) || inst.ops[0].kind != Opnd::Kind::kValue || !IsSource(inst.ops[1]) ||
      (mapa && inst.ops[2].kind != Opnd::Kind::kValue))
    return mem::UnimplementedForm(ir, mapa ? "expected d, a, b" : "expected d, a");
  inst.fn = mapa ? &Mapa : &Getctarank;
  inst.imm = (ptx::TypeSize(t) == 4 ? 1 : 0) | (m.space == ptx::StateSpace::kSharedCluster ? 2 : 0);
  return true;
}

}  // namespace

absl::StatusOr<bool> SelectAddressOp(const ptx::Instruction& ir, Inst& inst) {
  if (ir.op == ptx::Opcode::kMapa || ir.op == ptx::Opcode::kGetctarank) return SelectClusterAddressOp(ir, inst);
  if (ir.op != ptx::Opcode::kCvta && ir.op != ptx::Opcode::kIsspacep) return false;
  const ptx::ModifierInfo& m = ir.info;
  const Space space = SpaceOf(m.space);
  if (space == Space::kGeneric)
    return mem::UnimplementedForm(ir, "a state space (.global, .shared, .local, .const, .param) is required");
  if (inst.num_ops < 2 || !IsSource(inst.ops[1]))
    return mem::UnimplementedForm(ir, "expected a destination and an address");
  if (ir.op == ptx::Opcode::kIsspacep) {
    if (inst.ops[0].kind != Opnd::Kind::kPred) return mem::UnimplementedForm(ir, "predicate destination expected");
    inst.fn = &Isspacep;
    inst.imm = static_cast<uint64_t>(space) | (m.space == ptx::StateSpace::kSharedCluster ? kIsspacepCluster : 0);
    return true;
  }
  if (inst.ops[0].kind != Opnd::Kind::kValue) return mem::UnimplementedForm(ir, "register destination expected");
  const ptx::Type t = m.type();
  if (t != ptx::Type::kU32 && t != ptx::Type::kU64 && t != ptx::Type::kB32 && t != ptx::Type::kB64 &&
      t != ptx::Type::kS32 && t != ptx::Type::kS64)
    return mem::UnimplementedForm(ir, ".u32 or .u64 expected");
  const bool narrow = ptx::TypeSize(t) == 4;
  inst.fn = m.to ? &Cvta<true> : &Cvta<false>;
  inst.imm = static_cast<uint64_t>(space) | (narrow ? uint64_t{1} << 8 : 0);
  return true;
}

}  // namespace barracuda::emu::mem
