// st.async and red.async (PTX ISA 8.1, sm_90): a store or a reduction into
// the shared memory of a CTA of the cluster, whose completion is signalled by
// a complete-tx on an mbarrier in that CTA:
//   st.async{.weak}{.shared::cluster}{.mbarrier::complete_tx::bytes}{.v2,.v4}.type [a], b, [mbar]
//   red.async.relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.op.type [a], b, [mbar]
// The ISA: the store is a weak memory operation, the reduction a relaxed one
// at cluster scope, and the complete-tx has release semantics at cluster
// scope. Done at issue, like the bulk copies (bulk_copy.h): st.async's bytes
// are an async write of the issuing lane (kWrite | kFlagAsync; generic
// proxy), ordered before other threads only through the mbarrier phase its
// complete-tx (a release with kFlagAsync) feeds; red.async's element is a
// strong read-modify-write of the lane, like cp.reduce.async.bulk's.
#include <cstring>
#include <mutex>

#include "ptx_emulator/core/async_copies.h"
#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/ops/bulk_copy.h"
#include "ptx_emulator/ops/mbarrier_ops.h"
#include "ptx_emulator/ops/mem_access.h"

namespace barracuda::emu {
namespace {

using mem::ForLanes;
using mem::Space;

constexpr uint32_t kReduce = 0x100;  // inst.aux: red.async (inst.imm: the mem::ElementReduce)

// inst.aux: element bytes | kReduce; ops: [a], b (a vector for st.async .v2/.v4), [mbar].
void AsyncStore(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const bool reduce = (inst.aux & kReduce) != 0;
  const uint32_t elem = inst.aux & 0xff;
  const Opnd& value = inst.ops[1];
  const uint32_t elements = value.kind == Opnd::Kind::kVector ? value.count : 1;
  const uint32_t total = elem * elements;
  const mem::AddressOperand a = mem::MakeAddress(inst.ops[0], ctx);
  uint8_t* ptr[kLanes];
  uint64_t log[kLanes];
  bool ok = true;
  ForLanes(exec, [&](uint32_t l) {
    if (!ok) return;
    const uint64_t addr = mem::SpaceAddress(Space::kShared, a.At(l));
    if (addr % total != 0) {
      mem::RaiseMisaligned(ctx, inst, l, addr, total);
      ok = false;
      return;
    }
    mem::Where where;
    ptr[l] = mem::Resolve(ctx, inst, Space::kShared, false, l, addr, total, true, where, log[l]);
    if (ptr[l] == nullptr) ok = false;
  });
  if (!ok) return;
  uint8_t* bar[kLanes];
  uint64_t bar_log[kLanes];
  if (!mbar::ResolveObjects(inst, ctx, exec, inst.ops[2], Space::kShared, bar, bar_log)) return;
  const ValueRef* refs = mem::ValueRefs(value, ctx);
  const uint64_t* values[4];
  for (uint32_t k = 0; k < elements; ++k) values[k] = ctx.Src(refs[k]);
  uint32_t bytes[kLanes] = {};
  const bool trace = ctx.tracer != nullptr;
  protocol::Record r = mem::MakeRecord(inst, ctx, exec, protocol::Space::kShared, total,
                                       reduce ? protocol::Op::kAtomic : protocol::Op::kWrite,
                                       reduce ? protocol::kFlagLoad | protocol::kFlagStore : protocol::kFlagAsync,
                                       reduce ? protocol::Scope::kCluster : protocol::Scope::kNone);
  ForLanes(exec, [&](uint32_t l) {
    bytes[l] = total;
    r.addr[l] = log[l];
    if (!reduce) {
      for (uint32_t k = 0; k < elements; ++k)
        mem::StoreBytes(ptr[l] + k * elem, elem, values[k][l], std::memory_order_relaxed);
      if (trace) {
        if (!ctx.async) ctx.async = std::make_unique<AsyncCopies>();
        ++ctx.async->lane[l].records;  // the write is one of the lane's async records
      }
    }
  });
  if (reduce) {
    const auto fn = reinterpret_cast<mem::ElementReduce>(inst.imm);
    // Stamp and read-modify-write together, as atom does (mem::ReleaseMutex).
    std::lock_guard<std::mutex> lock(mem::ReleaseMutex());
    if (trace) r.stamp = ctx.tracer->Stamp();
    ForLanes(exec, [&](uint32_t l) {
      uint8_t operand[8];
      std::memcpy(operand, &values[0][l], sizeof operand);  // little-endian: the low `elem` bytes
      fn(ptr[l], operand);
    });
  }
  if (trace) ctx.tracer->Emit(r);
  bulk::CompleteTx(inst, ctx, exec, bar, bar_log, bytes);
}

}  // namespace

absl::StatusOr<bool> SelectAsyncStoreOp(const ptx::Instruction& ir, Inst& inst) {
  const bool reduce = ir.op == ptx::Opcode::kRed;
  if (!ir.HasModifier(".mbarrier::complete_tx::bytes"))
    return mem::UnimplementedForm(ir, "st.async / red.async complete on an mbarrier (mbarrier::complete_tx::bytes)");
  if (inst.num_ops < 3 || inst.ops[0].kind != Opnd::Kind::kAddress || inst.ops[2].kind != Opnd::Kind::kAddress ||
      (inst.ops[1].kind != Opnd::Kind::kValue && inst.ops[1].kind != Opnd::Kind::kVector))
    return mem::UnimplementedForm(ir, "[a], b, [mbar] expected");
  const ptx::Type type = ir.info.type();
  const uint32_t elem = ptx::TypeSize(type);
  const uint32_t elements = inst.ops[1].kind == Opnd::Kind::kVector ? inst.ops[1].count : 1;
  if ((elem != 4 && elem != 8) || (elements != 1 && elements != 2 && elements != 4) || elem * elements > 16 ||
      (reduce && elements != 1))
    return mem::UnimplementedForm(ir, "a 32- or 64-bit type, .v2 or .v4 of at most 16 bytes expected");
  inst.fn = &AsyncStore;
  inst.aux = elem;
  if (reduce) {
    const mem::ElementReduce fn = mem::SelectElementReduce(ir.info.atom_op, type);
    if (fn == nullptr) return mem::UnimplementedForm(ir, "reduction not defined for this operation and type");
    inst.aux |= kReduce;
    inst.imm = reinterpret_cast<uint64_t>(fn);
  }
  return true;
}

}  // namespace barracuda::emu
