// Bulk asynchronous copies other than TMA (PTX ISA "cp.async.bulk"), in the
// async proxy:
//   cp.async.bulk.shared::{cta,cluster}.global.mbarrier::complete_tx::bytes
//       [dst], [src], size, [mbar]{, policy}    global -> shared, mbarrier completion
//   cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
//       [dst], [src], size, [mbar], ctaMask{, policy}   the same into every CTA of ctaMask
//   cp.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}
//       [dst], [src], size{, policy}             shared -> global, bulk async-group
//   cp.async.bulk.commit_group, cp.async.bulk.wait_group{.read} N
//   cp.async.bulk.prefetch.L2 (a cache hint: nothing)
// The shared pieces (bulk_copy.h) serve the TMA copies too.
#include "ptx_emulator/ops/bulk_copy.h"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "ptx_emulator/core/async_copies.h"
#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/core/phase_store_buffer.h"
#include "ptx_emulator/ops/cluster_windows.h"
#include "ptx_emulator/ops/mbarrier_ops.h"
#include "ptx_emulator/ops/mbarrier_state.h"
#include "ptx_emulator/ops/mem_access.h"

namespace barracuda::emu {
namespace bulk {

namespace {
AsyncCopies& State(WarpCtx& ctx) {
  if (!ctx.async) ctx.async = std::make_unique<AsyncCopies>();
  return *ctx.async;
}
// A complete-tx's release of the lane's async records so far.
constexpr uint8_t kTxReleaseFlags = protocol::kFlagLoad | protocol::kFlagStore | protocol::kFlagAsync;

// One lane's complete-tx count: the phase completes when it and the pending
// arrivals reach 0.
void CountTx(uint8_t* bar, uint32_t bytes) { mbar::AtomicStep(bar, 0, false, -static_cast<int32_t>(bytes)); }
}  // namespace

void Transfer(const Inst& inst, WarpCtx& ctx, uint32_t lane, const Span& src, const Span& dst, uint32_t bytes) {
  LaneAsyncCopies& state = State(ctx).lane[lane];
  const bool trace = ctx.tracer != nullptr;
  for (uint32_t off = 0; off < bytes; off += 16) {
    uint8_t* from[kLanes];
    from[lane] = src.host + off;
    // Deterministic rounds: the slot's own buffered stores are what it reads.
    if (ctx.store_buffer != nullptr && src.space == protocol::Space::kGlobal)
      ctx.store_buffer->Redirect(from, 1u << lane, false);
    uint64_t lo, hi;
    mem::Load16(from[lane], lo, hi, std::memory_order_relaxed);
    mem::Store16(dst.host + off, lo, hi, std::memory_order_relaxed);
  }
  if (!trace) return;
  for (const auto& [side, op] : {std::pair{&src, protocol::Op::kRead}, std::pair{&dst, protocol::Op::kWrite}}) {
    for (uint32_t off = 0; off < bytes; off += 16) {
      protocol::Record r =
          mem::MakeRecord(inst, ctx, 1u << lane, side->space, 16, op, mem::kAsyncProxyFlags, protocol::Scope::kNone);
      r.addr[lane] = side->log + off;
      ++state.records;
      ctx.tracer->Emit(r);
    }
  }
}

void CompleteTx(const Inst& inst, WarpCtx& ctx, uint32_t exec, uint8_t* const* bar, const uint64_t* bar_log,
                const uint32_t* bytes, bool release) {
  if (exec == 0) return;
  auto complete = [&] { mem::ForLanes(exec, [&](uint32_t l) { CountTx(bar[l], bytes[l]); }); };
  if (ctx.tracer == nullptr || !release) {
    complete();
    return;
  }
  std::lock_guard<std::mutex> lock(mem::ReleaseMutex());
  mbar::EmitObjectRecord(inst, ctx, exec, bar_log, protocol::Op::kRelease, kTxReleaseFlags, protocol::Scope::kCta,
                         true);
  complete();
}

void ReduceElements(const Inst& inst, WarpCtx& ctx, uint32_t lane, const Span& src, const Span& dst, uint32_t bytes,
                    uint32_t elem, mem::ElementReduce reduce, protocol::Scope scope) {
  for (uint32_t off = 0; off < bytes; off += elem) {
    if (ctx.tracer == nullptr) {
      reduce(dst.host + off, src.host + off);
      continue;
    }
    protocol::Record r = mem::MakeRecord(inst, ctx, 1u << lane, dst.space, elem, protocol::Op::kAtomic,
                                         protocol::kFlagLoad | protocol::kFlagStore, scope);
    r.addr[lane] = dst.log + off;
    {
      // Stamp and read-modify-write together, as atom does (mem::ReleaseMutex).
      std::lock_guard<std::mutex> lock(mem::ReleaseMutex());
      r.stamp = ctx.tracer->Stamp();
      reduce(dst.host + off, src.host + off);
    }
    ctx.tracer->Emit(r);
  }
}

ptx::AtomOp ReduceOpOf(const ptx::Instruction& ir) {
  static constexpr std::pair<const char*, ptx::AtomOp> kOps[] = {
      {".add", ptx::AtomOp::kAdd}, {".min", ptx::AtomOp::kMin}, {".max", ptx::AtomOp::kMax},
      {".inc", ptx::AtomOp::kInc}, {".dec", ptx::AtomOp::kDec}, {".and", ptx::AtomOp::kAnd},
      {".or", ptx::AtomOp::kOr},   {".xor", ptx::AtomOp::kXor}};
  for (const auto& [name, op] : kOps)
    if (ir.HasModifier(name)) return op;
  return ptx::AtomOp::kNone;
}

bool Multicast(const Inst& inst, WarpCtx& ctx, uint32_t l, uint64_t dst_addr, uint64_t bar_addr, uint32_t bytes,
               uint64_t cta_mask, absl::FunctionRef<bool(uint64_t dst)> deliver) {
  mem::ClusterPlace d, b;
  if (!mem::FindClusterShared(ctx, l, dst_addr, bytes, d) || !mem::FindClusterShared(ctx, l, bar_addr, 8, b)) {
    ctx.Raise(FaultKind::kIllegalAddress, inst, l, dst_addr,
              "multicast needs .shared::cluster addresses of a CTA of the cluster (" + mem::InstText(inst) + ")");
    return false;
  }
  const uint32_t own = mem::OwnClusterRank(ctx, l);
  for (uint32_t r = 0; r < mem::ClusterSize(ctx); ++r) {
    if ((cta_mask >> r & 1) == 0) continue;
    const auto at = [&](uint32_t offset) { return r == own ? uint64_t{offset} : ClusterSharedAddress(r, offset); };
    uint8_t* bar[kLanes];
    uint64_t log[kLanes];
    uint32_t n[kLanes] = {};
    mem::Where where;
    bar[l] = mem::Resolve(ctx, inst, mem::Space::kShared, false, l, at(b.offset), 8, true, where, log[l]);
    if (bar[l] == nullptr || !deliver(at(d.offset))) return false;
    n[l] = bytes;
    CompleteTx(inst, ctx, 1u << l, bar, log, n);
  }
  return true;
}

void NoteGroupCopy(WarpCtx& ctx, uint32_t lane, uint32_t reads_end) {
  LaneAsyncCopies& state = State(ctx).lane[lane];
  state.bulk_open.reads_end = std::max(state.bulk_open.reads_end, reads_end);
  state.bulk_open.end = state.records;
}

void EmitObserved(const Inst& inst, WarpCtx& ctx, uint32_t exec, const uint32_t* target) {
  if (ctx.tracer == nullptr || !ctx.async) return;
  protocol::Record r =
      mem::MakeRecord(inst, ctx, 0, protocol::Space::kGlobal, 0, protocol::Op::kAsyncWait, 0, protocol::Scope::kNone);
  mem::ForLanes(exec, [&](uint32_t l) {
    LaneAsyncCopies& lane = ctx.async->lane[l];
    if (target[l] <= lane.observed) return;
    lane.observed = target[l];
    r.header.active_mask |= 1u << l;
    r.addr[l] = target[l];
  });
  if (r.header.active_mask != 0) ctx.tracer->Emit(r);
}

}  // namespace bulk

namespace {

using mem::ForLanes;
using mem::Space;
using mem::Where;

// Lane l's `n` bytes at `addr` of `space` (a space address); false after a fault.
bool ResolveSpan(const Inst& inst, WarpCtx& ctx, uint32_t l, Space space, uint64_t addr, uint32_t n, bool write,
                 bulk::Span* out) {
  Where where;
  out->host = mem::Resolve(ctx, inst, space, false, l, addr, n, write, where, out->log);
  out->space = space == Space::kShared ? protocol::Space::kShared : protocol::Space::kGlobal;
  return out->host != nullptr;
}

// Per lane: the host pointers and record addresses of [dst] and [src] for
// `size[l]` bytes (a non-zero multiple of 16, both 16-aligned); false after a fault.
bool ResolveSpans(const Inst& inst, WarpCtx& ctx, uint32_t exec, Space dst_space, Space src_space,
                  const uint64_t* size, bulk::Span* dst, bulk::Span* src) {
  const mem::AddressOperand d_op = mem::MakeAddress(inst.ops[0], ctx);
  const mem::AddressOperand s_op = mem::MakeAddress(inst.ops[1], ctx);
  bool ok = true;
  ForLanes(exec, [&](uint32_t l) {
    if (!ok) return;
    const uint64_t d = mem::SpaceAddress(dst_space, d_op.At(l)), s = mem::SpaceAddress(src_space, s_op.At(l));
    const uint32_t n = static_cast<uint32_t>(size[l]);
    if (n == 0 || n % 16 != 0 || (d & 15) != 0 || (s & 15) != 0) {
      ctx.Raise(FaultKind::kMisalignedAddress, inst, l, (d & 15) != 0 ? d : s,
                "cp.async.bulk needs 16-byte aligned addresses and a size that is a non-zero multiple of 16 (" +
                    mem::InstText(inst) + ")");
      ok = false;
      return;
    }
    ok = ResolveSpan(inst, ctx, l, dst_space, d, n, true, &dst[l]) &&
         ResolveSpan(inst, ctx, l, src_space, s, n, false, &src[l]);
  });
  return ok;
}

// Global -> shared with mbarrier completion: the copy, then complete-tx of its
// size, which releases the copy's records to whoever waits for the phase.
void CopyToShared(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* size = ctx.Src(inst.ops[2].ref);
  bulk::Span dst[kLanes], src[kLanes];
  if (!ResolveSpans(inst, ctx, exec, Space::kShared, Space::kGlobal, size, dst, src)) return;
  uint8_t* bar[kLanes];
  uint64_t bar_log[kLanes];
  if (!mbar::ResolveObjects(inst, ctx, exec, inst.ops[3], Space::kShared, bar, bar_log)) return;
  uint32_t bytes[kLanes] = {};
  ForLanes(exec, [&](uint32_t l) {
    bytes[l] = static_cast<uint32_t>(size[l]);
    bulk::Transfer(inst, ctx, l, src[l], dst[l], bytes[l]);
  });
  bulk::CompleteTx(inst, ctx, exec, bar, bar_log, bytes);
}

// Global -> shared of every CTA of the cluster whose rank is set in ctaMask
// (.multicast::cluster): the bytes go to dst's CTA-relative offset in each
// such CTA, and each copy's complete-tx to the mbarrier at mbar's offset in
// that CTA (PTX ISA: "the mbarrier signal is also multicast to the same
// CTA-relative offset"). Ranks past the cluster's size are ignored.
void CopyToSharedMulticast(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* size = ctx.Src(inst.ops[2].ref);
  const uint64_t* cta_mask = ctx.Src(inst.ops[4].ref);
  bulk::Span dst[kLanes], src[kLanes];
  if (!ResolveSpans(inst, ctx, exec, Space::kShared, Space::kGlobal, size, dst, src)) return;
  uint8_t* bar[kLanes];
  uint64_t bar_log[kLanes];
  if (!mbar::ResolveObjects(inst, ctx, exec, inst.ops[3], Space::kShared, bar, bar_log)) return;
  const mem::AddressOperand d_op = mem::MakeAddress(inst.ops[0], ctx);
  const mem::AddressOperand b_op = mem::MakeAddress(inst.ops[3], ctx);
  bool ok = true;
  ForLanes(exec, [&](uint32_t l) {
    if (!ok) return;
    const uint32_t n = static_cast<uint32_t>(size[l]);
    ok = bulk::Multicast(inst, ctx, l, mem::SpaceAddress(Space::kShared, d_op.At(l)),
                         mem::SpaceAddress(Space::kShared, b_op.At(l)), n, cta_mask[l], [&](uint64_t to_addr) {
                           bulk::Span to;
                           if (!ResolveSpan(inst, ctx, l, Space::kShared, to_addr, n, true, &to)) return false;
                           bulk::Transfer(inst, ctx, l, src[l], to, n);
                           return true;
                         });
  });
}

// Shared -> global in the lane's open bulk async-group.
void CopyToGlobal(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const uint64_t* size = ctx.Src(inst.ops[2].ref);
  bulk::Span dst[kLanes], src[kLanes];
  if (!ResolveSpans(inst, ctx, exec, Space::kGlobal, Space::kShared, size, dst, src)) return;
  ForLanes(exec, [&](uint32_t l) {
    const uint32_t n = static_cast<uint32_t>(size[l]);
    bulk::Transfer(inst, ctx, l, src[l], dst[l], n);
    const uint32_t records = ctx.async->lane[l].records;
    bulk::NoteGroupCopy(ctx, l, records - (ctx.tracer != nullptr ? n / 16 : 0));
  });
}

void CommitBulkGroup(const Inst&, WarpCtx& ctx, uint32_t exec) {
  if (!ctx.async) ctx.async = std::make_unique<AsyncCopies>();
  ForLanes(exec, [&](uint32_t l) { ctx.async->lane[l].CommitBulkGroup(); });
}

// cp.async.bulk.wait_group{.read} N (inst.imm = N, inst.aux = 1 for .read):
// every bulk async-group but the N most recent has completed (its reads, with
// .read). The emulator's copies are long done; the lane now knows it.
void WaitBulkGroup(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (!ctx.async) return;  // nothing was ever issued
  const bool reads_only = inst.aux == 1;
  uint32_t target[kLanes] = {};
  ForLanes(exec, [&](uint32_t l) {
    target[l] = ctx.async->lane[l].WaitBulkGroups(static_cast<uint32_t>(inst.imm), reads_only);
  });
  bulk::EmitObserved(inst, ctx, exec, target);
}

void Nothing(const Inst&, WarpCtx&, uint32_t) {}

// cp.reduce.async.bulk (inst.imm: the mem::ElementReduce, inst.aux: element
// bytes, | kReduceToShared for the shared::cluster form with its mbarrier).
// Like the copies, done at issue. The source reads are async-proxy reads in
// the lane's async records; each destination element is an atomic
// read-modify-write (a relaxed one at gpu scope, cluster scope in shared
// memory) recorded as the issuing lane's strong access at issue: reductions
// never race with each other, a plain access of the destination does. Not
// modelled: that the reduction lands after the issue (a read of the
// destination by the issuer before its wait is not reported).
constexpr uint32_t kReduceToShared = 0x100;

void ReduceBulk(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const bool to_shared = (inst.aux & kReduceToShared) != 0;
  const uint32_t elem = inst.aux & 0xff;
  const auto reduce = reinterpret_cast<mem::ElementReduce>(inst.imm);
  const uint64_t* size = ctx.Src(inst.ops[2].ref);
  bulk::Span dst[kLanes], src[kLanes];
  if (!ResolveSpans(inst, ctx, exec, to_shared ? Space::kShared : Space::kGlobal, Space::kShared, size, dst, src))
    return;
  uint8_t* bar[kLanes];
  uint64_t bar_log[kLanes];
  if (to_shared && !mbar::ResolveObjects(inst, ctx, exec, inst.ops[3], Space::kShared, bar, bar_log)) return;
  const protocol::Scope scope = to_shared ? protocol::Scope::kCluster : protocol::Scope::kGpu;
  uint32_t bytes[kLanes] = {};
  ForLanes(exec, [&](uint32_t l) {
    const uint32_t n = bytes[l] = static_cast<uint32_t>(size[l]);
    bulk::EmitAccesses(inst, ctx, l, src[l], protocol::Op::kRead, n);
    bulk::ReduceElements(inst, ctx, l, src[l], dst[l], n, elem, reduce, scope);
    if (!to_shared) bulk::NoteGroupCopy(ctx, l, ctx.async ? ctx.async->lane[l].records : 0);
  });
  if (to_shared) bulk::CompleteTx(inst, ctx, exec, bar, bar_log, bytes);
}

}  // namespace

absl::StatusOr<bool> SelectBulkReduceOp(const ptx::Instruction& ir, Inst& inst) {
  // cp.reduce.async.bulk.dst.src.completion{.L2::cache_hint}.op{.noftz}.type
  const bool to_global = ir.modifiers.size() > 4 && ir.modifiers[3] == ".global" && ir.modifiers[4] == ".shared::cta";
  const bool to_shared =
      ir.modifiers.size() > 4 && ir.modifiers[3] == ".shared::cluster" && ir.modifiers[4] == ".shared::cta";
  if (!(to_global && ir.HasModifier(".bulk_group")) && !(to_shared && ir.HasModifier(".mbarrier::complete_tx::bytes")))
    return mem::UnimplementedForm(ir, "cp.reduce.async.bulk: shared::cta to global with bulk_group or to "
                                      "shared::cluster with mbarrier::complete_tx::bytes expected");
  if (inst.num_ops < (to_shared ? 4 : 3) || inst.ops[0].kind != Opnd::Kind::kAddress ||
      inst.ops[1].kind != Opnd::Kind::kAddress || inst.ops[2].kind != Opnd::Kind::kValue ||
      (to_shared && inst.ops[3].kind != Opnd::Kind::kAddress))
    return mem::UnimplementedForm(ir, to_shared ? "[dst], [src], size, [mbar] expected" : "[dst], [src], size expected");
  const ptx::Type type = ir.info.type();
  const mem::ElementReduce reduce = mem::SelectElementReduce(bulk::ReduceOpOf(ir), type);
  if (reduce == nullptr) return mem::UnimplementedForm(ir, "reduction not implemented for this operation and type");
  inst.fn = &ReduceBulk;
  inst.imm = reinterpret_cast<uint64_t>(reduce);
  inst.aux = ptx::TypeSize(type) | (to_shared ? kReduceToShared : 0);
  return true;
}

absl::StatusOr<bool> SelectBulkCopyOp(const ptx::Instruction& ir, Inst& inst) {
  if (ir.HasModifier(".prefetch")) {  // cp.async.bulk.prefetch[.tensor].L2: a cache hint
    inst.fn = &Nothing;
    return true;
  }
  if (ir.HasModifier(".commit_group")) {
    inst.fn = &CommitBulkGroup;
    return true;
  }
  if (ir.HasModifier(".wait_group")) {
    if (ir.operands.size() != 1 || ir.operands[0].kind != ptx::Operand::Kind::kImmediate)
      return mem::UnimplementedForm(ir, "wait_group takes an integer constant");
    inst.fn = &WaitBulkGroup;
    inst.aux = ir.HasModifier(".read") ? 1 : 0;
    inst.imm = static_cast<uint64_t>(ir.operands[0].value);
    return true;
  }
  const bool from_global = ir.modifiers.size() > 3 && ir.modifiers[3] == ".global";
  const bool to_shared = ir.modifiers.size() > 2 &&
                         (ir.modifiers[2] == ".shared::cluster" || ir.modifiers[2] == ".shared::cta");
  const bool to_global = ir.modifiers.size() > 3 && ir.modifiers[2] == ".global" && ir.modifiers[3] == ".shared::cta";
  if (to_shared && from_global && ir.HasModifier(".mbarrier::complete_tx::bytes")) {
    const bool multicast = ir.HasModifier(".multicast::cluster");
    if (inst.num_ops < (multicast ? 5 : 4) || inst.ops[0].kind != Opnd::Kind::kAddress ||
        inst.ops[1].kind != Opnd::Kind::kAddress || inst.ops[2].kind != Opnd::Kind::kValue ||
        inst.ops[3].kind != Opnd::Kind::kAddress || (multicast && inst.ops[4].kind != Opnd::Kind::kValue))
      return mem::UnimplementedForm(ir, multicast ? "[dst], [src], size, [mbar], ctaMask expected"
                                                  : "[dst], [src], size, [mbar] expected");
    if (multicast && ir.modifiers[2] != ".shared::cluster")
      return mem::UnimplementedForm(ir, "multicast copies go to .shared::cluster");
    inst.fn = multicast ? &CopyToSharedMulticast : &CopyToShared;
    return true;
  }
  if (to_global && ir.HasModifier(".bulk_group") && !ir.HasModifier(".cp_mask")) {
    if (inst.num_ops < 3 || inst.ops[0].kind != Opnd::Kind::kAddress || inst.ops[1].kind != Opnd::Kind::kAddress ||
        inst.ops[2].kind != Opnd::Kind::kValue)
      return mem::UnimplementedForm(ir, "[dst], [src], size expected");
    inst.fn = &CopyToGlobal;
    return true;
  }
  return mem::UnimplementedForm(
      ir, "of the bulk asynchronous copies only global-to-shared with mbarrier::complete_tx::bytes and "
          "shared::cta-to-global with bulk_group are implemented (no shared::cluster-to-shared::cta, "
          "byte masks or reductions)");
}

}  // namespace barracuda::emu
