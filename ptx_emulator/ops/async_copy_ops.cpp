// Non-bulk asynchronous copies (PTX ISA "cp.async"): cp.async.{ca,cg} from
// global to shared memory (cp-size 4, 8, 16; src-size and ignore-src
// zero-fill; cache hints and prefetch sizes change nothing here),
// cp.async.commit_group, cp.async.wait_group N, cp.async.wait_all and
// cp.async.mbarrier.arrive[.noinc].
//
// A copy reads its source at issue and writes its destination when it
// completes (core/async_copies.h says when and why). Records
// (host_detector/detector/SEMANTICS.md "Asynchronous copies"): at issue, a
// kRead of the source and a kWrite of the destination with kFlagAsync, the
// access of the lane's copy rather than of the lane; a wait that completes
// copies the lane had not yet observed emits kAsyncWait with, per lane, the
// count of its async records now complete. cp.async.mbarrier.arrive
// completes the lane's copies and arrives on the mbarrier as the copies
// would: a release with kFlagAsync (it releases the copies' writes, which the
// lane itself has not observed).
#include <algorithm>

#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/ops/bulk_copy.h"
#include "ptx_emulator/core/phase_store_buffer.h"
#include "ptx_emulator/ops/mbarrier_ops.h"
#include "ptx_emulator/ops/mbarrier_state.h"
#include "ptx_emulator/ops/mem_access.h"

namespace barracuda::emu {
namespace {

using mem::ForLanes;
using mem::Space;
using mem::Where;

AsyncCopies& State(WarpCtx& ctx) {
  if (!ctx.async) ctx.async = std::make_unique<AsyncCopies>();
  return *ctx.async;
}

// Inst::imm of cp.async: cp-size | operand 3 is src-size (1) / ignore-src (2) << 8.
constexpr uint64_t kSrcSizeOperand = 1, kIgnoreSrcOperand = 2;

protocol::Record AsyncRecord(const Inst& inst, const WarpCtx& ctx, protocol::Op op, protocol::Space space,
                             uint32_t size, uint32_t mask) {
  return mem::MakeRecord(inst, ctx, mask, space, size, op, protocol::kFlagAsync, protocol::Scope::kNone);
}

void CpAsync(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint32_t size = static_cast<uint32_t>(inst.imm & 0xff);
  const uint64_t extra = inst.imm >> 8;
  const mem::AddressOperand dst = mem::MakeAddress(inst.ops[0], ctx);
  const mem::AddressOperand src = mem::MakeAddress(inst.ops[1], ctx);
  const uint64_t* src_size = extra == kSrcSizeOperand ? ctx.Src(inst.ops[3].ref) : nullptr;
  uint32_t ignore = 0;
  if (extra == kIgnoreSrcOperand) {
    const Opnd& p = inst.ops[3];
    ignore = p.negated ? ~ctx.preds[p.index] : ctx.preds[p.index];
  }
  uint8_t* dptr[kLanes];
  uint8_t* sptr[kLanes];
  uint64_t dlog[kLanes], slog[kLanes];
  uint32_t bytes[kLanes];
  uint32_t reading = 0;  // lanes that read their source (src-size > 0)
  bool ok = true;
  ForLanes(exec, [&](uint32_t l) {
    if (!ok) return;
    const uint64_t d = mem::SpaceAddress(Space::kShared, dst.At(l)), s = src.At(l);
    bytes[l] = (ignore >> l & 1) != 0 ? 0 : src_size != nullptr ? static_cast<uint32_t>(src_size[l]) : size;
    if (bytes[l] > size) bytes[l] = size;  // src-size above cp-size: undefined in PTX; read cp-size
    if ((d & (size - 1)) != 0 || (bytes[l] != 0 && (s & (size - 1)) != 0)) {
      mem::RaiseMisaligned(ctx, inst, l, (d & (size - 1)) != 0 ? d : s, size);
      ok = false;
      return;
    }
    Where where;
    dptr[l] = mem::Resolve(ctx, inst, Space::kShared, false, l, d, size, true, where, dlog[l]);
    if (dptr[l] == nullptr) {
      ok = false;
      return;
    }
    if (bytes[l] == 0) return;
    sptr[l] = mem::Resolve(ctx, inst, Space::kGlobal, false, l, s, bytes[l], false, where, slog[l]);
    if (sptr[l] == nullptr) {
      ok = false;
      return;
    }
    reading |= 1u << l;
  });
  if (!ok) return;
  // Deterministic rounds: the slot's own buffered stores are what it reads.
  if (ctx.store_buffer != nullptr && reading != 0) ctx.store_buffer->Redirect(sptr, reading, false);
  AsyncCopies& state = State(ctx);
  const bool trace = ctx.tracer != nullptr;
  ForLanes(exec, [&](uint32_t l) {
    LaneAsyncCopies& lane = state.lane[l];
    PendingCopy c;
    c.dst = dptr[l];
    c.size = static_cast<uint8_t>(size);
    c.group = lane.committed;
    for (uint32_t i = 0; i < bytes[l]; ++i) c.bytes[i] = mem::AtomicLoad<uint8_t>(sptr[l] + i);
    if (trace) lane.records += ((reading >> l) & 1) + 1;
    c.records = lane.records;
    lane.pending.push_back(c);
  });
  if (!trace) return;
  // The source reads, grouped by how many bytes the lanes read (one record
  // has one access size; lanes that zero-fill differ).
  for (uint32_t left = reading; left != 0;) {
    const uint32_t n = bytes[Lane(left)];
    uint32_t mask = 0;
    for (uint32_t m = left; m; m &= m - 1)
      if (bytes[Lane(m)] == n) mask |= 1u << Lane(m);
    protocol::Record r = AsyncRecord(inst, ctx, protocol::Op::kRead, protocol::Space::kGlobal, n, mask);
    for (uint32_t m = mask; m; m &= m - 1) r.addr[Lane(m)] = slog[Lane(m)];
    ctx.tracer->Emit(r);
    left &= ~mask;
  }
  protocol::Record w = AsyncRecord(inst, ctx, protocol::Op::kWrite, protocol::Space::kShared, size, exec);
  for (uint32_t m = exec; m; m &= m - 1) w.addr[Lane(m)] = dlog[Lane(m)];
  ctx.tracer->Emit(w);
}

void CommitGroup(const Inst&, WarpCtx& ctx, uint32_t exec) {
  AsyncCopies& state = State(ctx);
  ForLanes(exec, [&](uint32_t l) { state.lane[l].committed++; });
}

// The lanes tell the detector which of their copies they have now observed.
void EmitObserved(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  uint32_t target[kLanes] = {};
  ForLanes(exec, [&](uint32_t l) { target[l] = ctx.async->lane[l].completed; });
  bulk::EmitObserved(inst, ctx, exec, target);
}

// cp.async.wait_group N (inst.imm = N) / wait_all (inst.aux = 1).
void WaitGroup(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (!ctx.async) return;  // nothing was ever issued
  const bool all = inst.aux == 1;
  ForLanes(exec, [&](uint32_t l) {
    LaneAsyncCopies& lane = ctx.async->lane[l];
    if (all) {
      lane.CompleteBefore(~0u);
    } else if (lane.committed > inst.imm) {
      lane.CompleteBefore(lane.committed - static_cast<uint32_t>(inst.imm));
    }
  });
  EmitObserved(inst, ctx, exec);
}

// cp.async.mbarrier.arrive[.noinc] [a]: without .noinc the object's pending
// count goes up by one before the triggered arrive-on, so the pair leaves it
// unchanged; with .noinc the arrive-on counts as one of the phase's arrivals.
void MbarrierArrive(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const bool noinc = inst.aux == 1;
  uint8_t* ptr[kLanes];
  uint64_t log[kLanes];
  if (!mbar::ResolveObjects(inst, ctx, exec, inst.ops[0], static_cast<Space>(inst.imm), ptr, log)) return;
  AsyncCopies& state = State(ctx);
  ForLanes(exec, [&](uint32_t l) { state.lane[l].CompleteBefore(~0u); });
  auto run = [&] {
    if (noinc) ForLanes(exec, [&](uint32_t l) { mbar::AtomicStep(ptr[l], 1, false, 0); });
  };
  if (ctx.tracer == nullptr) {
    run();
    return;
  }
  std::lock_guard<std::mutex> lock(mem::ReleaseMutex());
  mbar::EmitObjectRecord(inst, ctx, exec, log, protocol::Op::kRelease,
                         protocol::kFlagLoad | protocol::kFlagStore | protocol::kFlagAsync, protocol::Scope::kCta,
                         true);
  run();
}

}  // namespace

absl::StatusOr<bool> SelectAsyncCopyOp(const ptx::Instruction& ir, Inst& inst) {
  if (ir.op != ptx::Opcode::kCp) return false;
  if (!ir.modifiers.empty() && ir.modifiers[0] == ".reduce" && ir.HasModifier(".bulk")) {
    if (ir.HasModifier(".tensor")) return SelectTensorReduceOp(ir, inst);
    return SelectBulkReduceOp(ir, inst);
  }
  if (ir.modifiers.empty() || ir.modifiers[0] != ".async")
    return mem::UnimplementedForm(ir, "only cp.async and cp.reduce.async.bulk are implemented");
  if (ir.info.bulk || ir.HasModifier(".bulk")) {
    if (ir.HasModifier(".tensor") && !ir.HasModifier(".prefetch")) return SelectTensorCopyOp(ir, inst);
    return SelectBulkCopyOp(ir, inst);
  }
  if (ir.HasModifier(".commit_group")) {
    inst.fn = &CommitGroup;
    return true;
  }
  if (ir.HasModifier(".wait_all")) {
    inst.fn = &WaitGroup;
    inst.aux = 1;
    return true;
  }
  if (ir.HasModifier(".wait_group")) {
    if (ir.operands.size() != 1 || ir.operands[0].kind != ptx::Operand::Kind::kImmediate)
      return mem::UnimplementedForm(ir, "wait_group takes an integer constant");
    inst.fn = &WaitGroup;
    inst.aux = 0;
    inst.imm = static_cast<uint64_t>(ir.operands[0].value);
    return true;
  }
  if (ir.HasModifier(".mbarrier")) {
    if (!ir.HasModifier(".arrive") || inst.num_ops != 1 || inst.ops[0].kind != Opnd::Kind::kAddress)
      return mem::UnimplementedForm(ir, "cp.async.mbarrier.arrive [addr] expected");
    inst.fn = &MbarrierArrive;
    inst.aux = ir.HasModifier(".noinc") ? 1 : 0;
    const bool shared = ir.info.space == ptx::StateSpace::kShared || ir.info.space == ptx::StateSpace::kSharedCluster;
    inst.imm = static_cast<uint64_t>(shared ? Space::kShared : Space::kGeneric);
    return true;
  }
  // cp.async.{ca,cg}.shared{::cta}.global{.L2::...} [dst], [src], cp-size{, src-size | ignore-src}{, policy}
  if (ir.operands.size() < 3 || inst.ops[0].kind != Opnd::Kind::kAddress || inst.ops[1].kind != Opnd::Kind::kAddress ||
      ir.operands[2].kind != ptx::Operand::Kind::kImmediate)
    return mem::UnimplementedForm(ir, "[dst], [src], cp-size expected");
  const int64_t size = ir.operands[2].value;
  if (size != 4 && size != 8 && size != 16) return mem::UnimplementedForm(ir, "cp-size must be 4, 8 or 16");
  if (ir.HasModifier(".cg") && size != 16) return mem::UnimplementedForm(ir, "cp.async.cg copies 16 bytes");
  const size_t rest = ir.operands.size() - (ir.info.l2_cache_hint ? 1 : 0);
  uint64_t extra = 0;
  if (rest > 3) {
    extra = inst.ops[3].kind == Opnd::Kind::kPred ? kIgnoreSrcOperand : kSrcSizeOperand;
    if (extra == kSrcSizeOperand && inst.ops[3].kind != Opnd::Kind::kValue)
      return mem::UnimplementedForm(ir, "src-size or ignore-src expected");
  }
  inst.fn = &CpAsync;
  inst.imm = static_cast<uint64_t>(size) | extra << 8;
  return true;
}

}  // namespace barracuda::emu
