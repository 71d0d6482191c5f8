// Warp primitives: shfl(.sync), vote(.sync), match.sync, redux.sync,
// activemask, elect.sync, and bar.warp.sync's record.
//
// The participating lanes of a primitive are its member mask restricted to
// the lanes executing it; lanes naming different masks in one instruction are
// handled as separate groups (SplitByMemberMask), lanes of a partial warp that
// do not exist are never members.
// On a GPU, naming a lane that does not execute the primitive is undefined
// (Volta+ waits for it; a SIMT-stack interpreter cannot): the emulator takes
// the values of the executing members only, and a shfl whose source lane is
// not an executing member reads the lane's own value.
//
// Each .sync primitive and bar.warp.sync emits one kWarpSync record when
// tracing, mask = member mask & live lanes (emu brief "Records"), per group of
// lanes naming one mask; executing lanes outside the mask they name are the
// record's strays (undefined in PTX; the detector reports them).
//
// `d|p` destinations (shfl, elect) are Opnd::kPredPair with `ref` = the value
// register (kNoRef for `_`) and `index2` = the predicate slot (kNoPred for
// `_`); a plain value destination is kValue.
#include <algorithm>

#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/core/warp_context.h"
#include "ptx_emulator/ops/mem_access.h"

namespace barracuda::emu {
namespace {

using mem::ForLanes;

// Member mask operand (kNoRef: none, i.e. the deprecated non-.sync forms).
inline uint32_t MemberMask(const Inst& inst, const WarpCtx& ctx, uint32_t exec, int index) {
  if (index < 0 || exec == 0) return kFullMask;
  return static_cast<uint32_t>(ctx.Src(inst.ops[index].ref)[Lane(exec)]);
}

using Handler = void (*)(const Inst&, WarpCtx&, uint32_t);

// The lanes of one warp instruction may name different member masks: CUB's
// 16-lane logical warps run one convergent shfl with 0x0000ffff in the low half
// and 0xffff0000 in the high half. Then `self` runs once per distinct mask,
// with exec = the lanes naming it, and this returns true; false when every
// executing lane names the same mask (the handler goes on as usual).
bool SplitByMemberMask(const Inst& inst, WarpCtx& ctx, uint32_t exec, int index, Handler self) {
  if (index < 0 || exec == 0) return false;
  const uint64_t* m = ctx.Src(inst.ops[index].ref);
  const auto first = static_cast<uint32_t>(m[Lane(exec)]);
  bool uniform = true;
  ForLanes(exec, [&](uint32_t l) { uniform = uniform && static_cast<uint32_t>(m[l]) == first; });
  if (uniform) return false;
  for (uint32_t rest = exec; rest != 0 && !ctx.faulted();) {
    const auto mask = static_cast<uint32_t>(m[Lane(rest)]);
    uint32_t group = 0;
    ForLanes(rest, [&](uint32_t l) { group |= static_cast<uint32_t>(m[l]) == mask ? 1u << l : 0; });
    self(inst, ctx, group);
    rest &= ~group;
  }
  return true;
}

// `exec`: the lanes executing the primitive and naming `members`.
// `arrived`: the members logged by this record; `member_mask`: every member
// when some are still to come (0: all are here).
void EmitWarpSync(const Inst& inst, WarpCtx& ctx, uint32_t members, uint32_t exec, uint32_t arrived,
                  uint32_t member_mask) {
  if (ctx.tracer == nullptr || !inst.info.sync) return;
  protocol::Record r{};
  r.header.op = static_cast<uint8_t>(protocol::Op::kWarpSync);
  r.header.active_mask = arrived;
  r.warp_sync.member_mask = member_mask;
  r.warp_sync.strays = exec & ~members;
  r.header.warp_id = ctx.warp_global;
  r.header.site_id = inst.site;
  ctx.tracer->Emit(r);
}
void EmitWarpSync(const Inst& inst, WarpCtx& ctx, uint32_t members, uint32_t exec) {
  EmitWarpSync(inst, ctx, members, exec, members & ctx.live, 0);
}

// Destination of a `d` or `d|p` operand.
struct ValuePredDst {
  uint64_t* value = nullptr;  // nullptr: `_`
  uint32_t* pred = nullptr;   // nullptr: none
};
ValuePredDst Destination(const Opnd& o, WarpCtx& ctx) {
  ValuePredDst d;
  if (o.kind == Opnd::Kind::kPredPair) {
    if (o.ref != kNoRef) d.value = ctx.Dst(o.ref);
    if (o.index2 != kNoPred) d.pred = &ctx.preds[o.index2];
  } else if (o.kind == Opnd::Kind::kValue || o.kind == Opnd::Kind::kSink) {
    d.value = ctx.Dst(o.ref);
  }
  return d;
}

inline void WritePred(uint32_t* p, uint32_t exec, uint32_t bits) {
  if (p) *p = (*p & ~exec) | (bits & exec);
}

// ---------------------------------------------------------------- shfl
// ops: d[|p], a, b, c[, membermask]; imm = index of membermask or -1.
template <ptx::ShflMode kMode>
void Shfl(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (SplitByMemberMask(inst, ctx, exec, static_cast<int>(static_cast<int64_t>(inst.imm)), &Shfl<kMode>)) return;
  const uint32_t members = MemberMask(inst, ctx, exec, static_cast<int>(static_cast<int64_t>(inst.imm)));
  const uint32_t sources = members & exec;
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  const uint64_t* b = ctx.Src(inst.ops[2].ref);
  const uint64_t* c = ctx.Src(inst.ops[3].ref);
  uint64_t in[kLanes];
  std::copy(a, a + kLanes, in);  // d may be a
  const ValuePredDst dst = Destination(inst.ops[0], ctx);
  uint32_t pbits = 0;
  ForLanes(exec, [&](uint32_t l) {
    const int lane = static_cast<int>(l);
    const int bval = static_cast<int>(b[l] & 0x1f);
    const int clamp = static_cast<int>(c[l] & 0x1f);
    const int seg = static_cast<int>((c[l] >> 8) & 0x1f);
    const int max_lane = (lane & seg) | (clamp & ~seg);
    const int min_lane = lane & seg;
    int j;
    bool p;
    if constexpr (kMode == ptx::ShflMode::kUp) {
      j = lane - bval;
      p = j >= max_lane;
    } else if constexpr (kMode == ptx::ShflMode::kDown) {
      j = lane + bval;
      p = j <= max_lane;
    } else if constexpr (kMode == ptx::ShflMode::kBfly) {
      j = lane ^ bval;
      p = j <= max_lane;
    } else {
      j = min_lane | (bval & ~seg);
      p = j <= max_lane;
    }
    if (!p) j = lane;
    const bool present = j >= 0 && j < 32 && ((sources >> j) & 1) != 0;
    if (dst.value) dst.value[l] = present ? in[j] & 0xffffffffu : in[l] & 0xffffffffu;
    if (p) pbits |= 1u << l;
  });
  WritePred(dst.pred, exec, pbits);
  EmitWarpSync(inst, ctx, members, exec);
}

// ---------------------------------------------------------------- vote
// ops: d, {!}a[, membermask]; d a predicate (all/any/uni) or a b32 (ballot).
template <ptx::VoteMode kMode>
void Vote(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (SplitByMemberMask(inst, ctx, exec, static_cast<int>(static_cast<int64_t>(inst.imm)), &Vote<kMode>)) return;
  const uint32_t members = MemberMask(inst, ctx, exec, static_cast<int>(static_cast<int64_t>(inst.imm)));
  const uint32_t set = members & exec;
  const Opnd& src = inst.ops[1];
  uint32_t truth;
  if (src.kind == Opnd::Kind::kPred) {
    truth = ctx.preds[src.index];
    if (src.negated) truth = ~truth;
  } else {  // an immediate 0/1
    truth = ctx.Src(src.ref)[0] != 0 ? kFullMask : 0;
  }
  truth &= set;
  if constexpr (kMode == ptx::VoteMode::kBallot) {
    uint64_t* d = ctx.Dst(inst.ops[0].ref);
    ForLanes(exec, [&](uint32_t l) { d[l] = truth; });
  } else {
    bool r;
    if constexpr (kMode == ptx::VoteMode::kAll) r = truth == set;
    else if constexpr (kMode == ptx::VoteMode::kAny) r = truth != 0;
    else r = truth == set || truth == 0;
    WritePred(&ctx.preds[inst.ops[0].index], exec, r ? kFullMask : 0);
  }
  EmitWarpSync(inst, ctx, members, exec);
}

// ---------------------------------------------------------------- match
// ops: d[|p], a, membermask.
template <bool kAll, bool k64>
void Match(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (SplitByMemberMask(inst, ctx, exec, 2, &Match<kAll, k64>)) return;
  const uint32_t members = MemberMask(inst, ctx, exec, 2);
  const uint32_t set = members & exec;
  const uint64_t width = k64 ? ~uint64_t{0} : 0xffffffffu;
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  uint64_t in[kLanes];
  std::copy(a, a + kLanes, in);
  const ValuePredDst dst = Destination(inst.ops[0], ctx);
  if constexpr (kAll) {
    bool same = true;
    const uint64_t first = set ? in[Lane(set)] & width : 0;
    for (uint32_t m = set; m; m &= m - 1) same = same && (in[Lane(m)] & width) == first;
    if (dst.value) ForLanes(exec, [&](uint32_t l) { dst.value[l] = same ? set : 0; });
    WritePred(dst.pred, exec, same ? kFullMask : 0);
  } else {
    if (dst.value) {
      ForLanes(exec, [&](uint32_t l) {
        uint32_t eq = 0;
        for (uint32_t m = set; m; m &= m - 1)
          if ((in[Lane(m)] & width) == (in[l] & width)) eq |= 1u << Lane(m);
        dst.value[l] = eq;
      });
    }
  }
  EmitWarpSync(inst, ctx, members, exec);
}

// ---------------------------------------------------------------- redux
// ops: d, a, membermask.
template <ptx::AtomOp kOp, bool kSigned>
void Redux(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (SplitByMemberMask(inst, ctx, exec, 2, &Redux<kOp, kSigned>)) return;
  const uint32_t members = MemberMask(inst, ctx, exec, 2);
  const uint32_t set = members & exec;
  const uint64_t* a = ctx.Src(inst.ops[1].ref);
  uint32_t acc = 0;
  bool first = true;
  for (uint32_t m = set; m; m &= m - 1) {
    const uint32_t v = static_cast<uint32_t>(a[Lane(m)]);
    if (first) {
      acc = v;
      first = false;
      continue;
    }
    if constexpr (kOp == ptx::AtomOp::kAdd) acc += v;
    else if constexpr (kOp == ptx::AtomOp::kAnd) acc &= v;
    else if constexpr (kOp == ptx::AtomOp::kOr) acc |= v;
    else if constexpr (kOp == ptx::AtomOp::kXor) acc ^= v;
    else if constexpr (kSigned) {
      const int32_t x = static_cast<int32_t>(acc), y = static_cast<int32_t>(v);
      acc = static_cast<uint32_t>(kOp == ptx::AtomOp::kMin ? std::min(x, y) : std::max(x, y));
    } else {
      acc = kOp == ptx::AtomOp::kMin ? std::min(acc, v) : std::max(acc, v);
    }
  }
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  ForLanes(exec, [&](uint32_t l) { d[l] = acc; });
  EmitWarpSync(inst, ctx, members, exec);
}

// ---------------------------------------------------------------- others
void Activemask(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  uint64_t* d = ctx.Dst(inst.ops[0].ref);
  const uint32_t active = ctx.active & ctx.live;
  ForLanes(exec, [&](uint32_t l) { d[l] = active; });
}

// ops: d|p, membermask. The leader is the lowest executing member.
void Elect(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (SplitByMemberMask(inst, ctx, exec, 1, &Elect)) return;
  const uint32_t members = MemberMask(inst, ctx, exec, 1);
  const uint32_t set = members & exec;
  const ValuePredDst dst = Destination(inst.ops[0], ctx);
  const uint32_t leader = set ? Lane(set) : 0;
  if (dst.value) ForLanes(exec, [&](uint32_t l) { dst.value[l] = leader; });
  WritePred(dst.pred, exec, set ? 1u << leader : 0);
  EmitWarpSync(inst, ctx, members, exec);
}

}  // namespace

// bar.warp.sync membermask: the record (exec/barriers.cpp BarWarpSyncHandler
// first makes a group wait for members on other paths). When the members reached it in groups (each side of a divergent branch at
// its own __syncwarp), each group logs its own arrival and names every live
// member in the payload, as the device logger does (protocol.h
// WarpSyncPayload): the detector joins them once all have arrived.
void WarpSyncRecord(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (exec == 0 || SplitByMemberMask(inst, ctx, exec, 0, &WarpSyncRecord)) return;
  WarpSyncArrival(inst, ctx, MemberMask(inst, ctx, exec, 0), exec);
}

void WarpSyncArrival(const Inst& inst, WarpCtx& ctx, uint32_t members, uint32_t exec) {
  // Present: the lanes running this instruction, whichever mask they name
  // (the logger's callers of its record call).
  const uint32_t present = (ctx.active & ctx.live) | exec;
  if ((members & ctx.live & ~present) == 0) {
    EmitWarpSync(inst, ctx, members, exec);
  } else {
    EmitWarpSync(inst, ctx, members, exec, members & present, members & ctx.live);
  }
}

namespace {

bool IsValue(const Opnd& o) { return o.kind == Opnd::Kind::kValue; }
bool IsValueOrPair(const Opnd& o) {
  return o.kind == Opnd::Kind::kValue || o.kind == Opnd::Kind::kPredPair || o.kind == Opnd::Kind::kSink;
}

absl::StatusOr<bool> SelectShfl(const ptx::Instruction& ir, Inst& inst) {
  const bool sync = ir.info.sync;
  if (inst.num_ops != (sync ? 5 : 4)) return mem::UnimplementedForm(ir, "expected d[|p], a, b, c[, membermask]");
  if (!IsValueOrPair(inst.ops[0])) return mem::UnimplementedForm(ir, "register destination expected");
  for (int i = 1; i < inst.num_ops; ++i)
    if (!IsValue(inst.ops[i])) return mem::UnimplementedForm(ir, "register or immediate operand expected");
  if (ptx::TypeSize(ir.info.type()) != 4) return mem::UnimplementedForm(ir, "only .b32 shuffles exist");
  switch (ir.info.shfl) {
    case ptx::ShflMode::kUp: inst.fn = &Shfl<ptx::ShflMode::kUp>; break;
    case ptx::ShflMode::kDown: inst.fn = &Shfl<ptx::ShflMode::kDown>; break;
    case ptx::ShflMode::kBfly: inst.fn = &Shfl<ptx::ShflMode::kBfly>; break;
    case ptx::ShflMode::kIdx: inst.fn = &Shfl<ptx::ShflMode::kIdx>; break;
    default: return mem::UnimplementedForm(ir, "mode .up/.down/.bfly/.idx expected");
  }
  inst.imm = static_cast<uint64_t>(sync ? int64_t{4} : int64_t{-1});
  return true;
}

absl::StatusOr<bool> SelectVote(const ptx::Instruction& ir, Inst& inst) {
  const bool sync = ir.info.sync;
  if (inst.num_ops != (sync ? 3 : 2)) return mem::UnimplementedForm(ir, "expected d, {!}a[, membermask]");
  if (inst.ops[1].kind != Opnd::Kind::kPred && !IsValue(inst.ops[1]))
    return mem::UnimplementedForm(ir, "predicate source expected");
  if (sync && !IsValue(inst.ops[2])) return mem::UnimplementedForm(ir, "member mask expected");
  const bool ballot = ir.info.vote == ptx::VoteMode::kBallot;
  if (ballot ? !IsValue(inst.ops[0]) : inst.ops[0].kind != Opnd::Kind::kPred)
    return mem::UnimplementedForm(ir, ballot ? "b32 destination expected" : "predicate destination expected");
  switch (ir.info.vote) {
    case ptx::VoteMode::kAll: inst.fn = &Vote<ptx::VoteMode::kAll>; break;
    case ptx::VoteMode::kAny: inst.fn = &Vote<ptx::VoteMode::kAny>; break;
    case ptx::VoteMode::kUni: inst.fn = &Vote<ptx::VoteMode::kUni>; break;
    case ptx::VoteMode::kBallot: inst.fn = &Vote<ptx::VoteMode::kBallot>; break;
    default: return mem::UnimplementedForm(ir, "mode .all/.any/.uni/.ballot expected");
  }
  inst.imm = static_cast<uint64_t>(sync ? int64_t{2} : int64_t{-1});
  return true;
}

absl::StatusOr<bool> SelectMatch(const ptx::Instruction& ir, Inst& inst) {
  if (inst.num_ops != 3 || !IsValueOrPair(inst.ops[0]) || !IsValue(inst.ops[1]) || !IsValue(inst.ops[2]))
    return mem::UnimplementedForm(ir, "expected d[|p], a, membermask");
  const uint32_t size = ptx::TypeSize(ir.info.type());
  if (size != 4 && size != 8) return mem::UnimplementedForm(ir, ".b32 or .b64 expected");
  const bool all = ir.HasModifier(".all");
  if (!all && !ir.HasModifier(".any")) return mem::UnimplementedForm(ir, ".any or .all expected");
  if (all) inst.fn = size == 8 ? &Match<true, true> : &Match<true, false>;
  else inst.fn = size == 8 ? &Match<false, true> : &Match<false, false>;
  return true;
}

absl::StatusOr<bool> SelectRedux(const ptx::Instruction& ir, Inst& inst) {
  if (inst.num_ops != 3 || !IsValue(inst.ops[0]) || !IsValue(inst.ops[1]) || !IsValue(inst.ops[2]))
    return mem::UnimplementedForm(ir, "expected d, a, membermask");
  const ptx::Type t = ir.info.type();
  const bool is_signed = t == ptx::Type::kS32;
  switch (ir.info.atom_op) {
    case ptx::AtomOp::kAdd:
      if (t == ptx::Type::kU32 || t == ptx::Type::kS32) return inst.fn = &Redux<ptx::AtomOp::kAdd, false>, true;
      break;
    case ptx::AtomOp::kMin:
      if (t == ptx::Type::kU32 || t == ptx::Type::kS32)
        return inst.fn = is_signed ? &Redux<ptx::AtomOp::kMin, true> : &Redux<ptx::AtomOp::kMin, false>, true;
      break;
    case ptx::AtomOp::kMax:
      if (t == ptx::Type::kU32 || t == ptx::Type::kS32)
        return inst.fn = is_signed ? &Redux<ptx::AtomOp::kMax, true> : &Redux<ptx::AtomOp::kMax, false>, true;
      break;
    case ptx::AtomOp::kAnd:
      if (t == ptx::Type::kB32) return inst.fn = &Redux<ptx::AtomOp::kAnd, false>, true;
      break;
    case ptx::AtomOp::kOr:
      if (t == ptx::Type::kB32) return inst.fn = &Redux<ptx::AtomOp::kOr, false>, true;
      break;
    case ptx::AtomOp::kXor:
      if (t == ptx::Type::kB32) return inst.fn = &Redux<ptx::AtomOp::kXor, false>, true;
      break;
    default:
      break;
  }
  return mem::UnimplementedForm(ir, "operation/type not implemented (add/min/max .u32/.s32, and/or/xor .b32)");
}

}  // namespace

absl::StatusOr<bool> SelectWarpOp(const ptx::Instruction& ir, Inst& inst) {
  switch (ir.op) {
    case ptx::Opcode::kShfl: return SelectShfl(ir, inst);
    case ptx::Opcode::kVote: return SelectVote(ir, inst);
    case ptx::Opcode::kMatch: return SelectMatch(ir, inst);
    case ptx::Opcode::kRedux: return SelectRedux(ir, inst);
    case ptx::Opcode::kActivemask:
      if (inst.num_ops != 1 || !IsValue(inst.ops[0])) return mem::UnimplementedForm(ir, "expected d");
      inst.fn = &Activemask;
      return true;
    case ptx::Opcode::kElect:
      if (inst.num_ops != 2 || !IsValueOrPair(inst.ops[0]) || !IsValue(inst.ops[1]))
        return mem::UnimplementedForm(ir, "expected d|p, membermask");
      inst.fn = &Elect;
      return true;
    default:
      return false;
  }
}

}  // namespace barracuda::emu
