// mbarrier.* (PTX ISA "Parallel Synchronization and Communication
// Instructions: mbarrier"): init, arrive, arrive_drop (each with .expect_tx,
// .noComplete, a count), expect_tx, complete_tx, test_wait / try_wait (state
// or .parity), pending_count, inval; at CTA scope or, through
// .shared::cluster addresses, on a neighbour CTA's object.
//
// The object's encoding is mbarrier_state.h. Every step is one host
// compare-exchange on the 8 bytes, so arrivals from blocks of a cluster run
// on other host threads stay atomic. try_wait does not suspend: it answers
// like test_wait, and the program's retry loop spins (the scheduler ends the
// warp's turn at its quantum, as for any spin loop). A failed wait counts in
// WarpCtx::mbar_failed_waits: exec/spin_watch.h reports a phase that can
// never complete as a deadlock.
//
// Records (host_detector/detector/SEMANTICS.md "mbarrier"): init and inval
// are plain 8-byte writes of the object; an arrive is a release (or, .relaxed,
// a strong) read-modify-write of it at the instruction's scope (.cta by
// default); expect_tx and complete_tx are relaxed read-modify-writes; a
// test_wait / try_wait that finds its phase complete is an acquire load (one
// that does not finds nothing and logs nothing: it orders nothing).
// Arrivals join the object's clock (a release sequence of read-modify-writes),
// so a waiter acquires every arrival of the phase it saw complete.
#include <string>

#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/ops/mbarrier_ops.h"
#include "ptx_emulator/ops/mbarrier_state.h"
#include "ptx_emulator/ops/mem_access.h"

namespace barracuda::emu {
namespace {

using mem::ForLanes;
using mem::Space;
using mem::Where;

enum class MbarOp : uint8_t { kInit, kArrive, kArriveDrop, kExpectTx, kCompleteTx, kTestWait, kPendingCount, kInval };

// Inst::aux of an mbarrier instruction (the decoder's access classification
// does not cover it): the protocol op and scope of its record.
struct Form {
  MbarOp op;
  bool expect_tx = false;  // arrive.expect_tx / arrive_drop.expect_tx
  bool parity = false;     // test_wait.parity / try_wait.parity
  bool relaxed = false;
  protocol::Scope scope = protocol::Scope::kCta;
  Space space = Space::kShared;
};
uint64_t Pack(const Form& f) {
  return uint64_t{static_cast<uint8_t>(f.op)} | uint64_t{f.expect_tx} << 8 | uint64_t{f.parity} << 9 |
         uint64_t{f.relaxed} << 10 | uint64_t{static_cast<uint8_t>(f.scope)} << 12 |
         uint64_t{static_cast<uint8_t>(f.space)} << 16;
}
Form Unpack(uint64_t v) {
  Form f{static_cast<MbarOp>(v & 0xff)};
  f.expect_tx = (v >> 8) & 1;
  f.parity = (v >> 9) & 1;
  f.relaxed = (v >> 10) & 1;
  f.scope = static_cast<protocol::Scope>((v >> 12) & 0xf);
  f.space = static_cast<Space>((v >> 16) & 0xff);
  return f;
}

}  // namespace

namespace mbar {

bool ResolveObjects(const Inst& inst, WarpCtx& ctx, uint32_t exec, const Opnd& address, Space space,
                    uint8_t** ptr, uint64_t* log) {
  const mem::AddressOperand a = mem::MakeAddress(address, ctx);
  bool ok = true;
  ForLanes(exec, [&](uint32_t l) {
    if (!ok) return;
    const uint64_t addr = mem::SpaceAddress(space, a.At(l));
    if ((addr & 7) != 0) {
      mem::RaiseMisaligned(ctx, inst, l, addr, 8);
      ok = false;
      return;
    }
    Where where;
    ptr[l] = mem::Resolve(ctx, inst, space, a.frame, l, addr, 8, true, where, log[l]);
    if (ptr[l] == nullptr) {
      ok = false;
    } else if (where != Where::kShared) {
      ctx.Raise(FaultKind::kIllegalAddress, inst, l, addr,
                "an mbarrier object must be in shared memory (" + mem::InstText(inst) + ")");
      ok = false;
    }
  });
  return ok;
}

void EmitObjectRecord(const Inst& inst, WarpCtx& ctx, uint32_t mask, const uint64_t* log, protocol::Op op,
                      uint8_t flags, protocol::Scope scope, bool stamp) {
  if (ctx.tracer == nullptr || mask == 0) return;
  protocol::Record r = mem::MakeRecord(inst, ctx, mask, protocol::Space::kShared, 8, op, flags, scope);
  for (uint32_t m = mask; m; m &= m - 1) r.addr[Lane(m)] = log[Lane(m)];
  if (stamp) r.stamp = ctx.tracer->Stamp();
  ctx.tracer->Emit(r);
}

}  // namespace mbar

namespace {

const uint64_t* ValueOr(const Inst& inst, WarpCtx& ctx, int i) {
  return i < inst.num_ops && inst.ops[i].kind == Opnd::Kind::kValue ? ctx.Src(inst.ops[i].ref) : nullptr;
}

void MbarrierHandler(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  const Form f = Unpack(inst.imm);
  if (f.op == MbarOp::kPendingCount) {  // d, state: no memory
    const uint64_t* s = ctx.Src(inst.ops[1].ref);
    uint64_t* d = ctx.Dst(inst.ops[0].ref);
    ForLanes(exec, [&](uint32_t l) { d[l] = mbar::Pending(s[l]); });
    return;
  }
  // Operand layout: init/expect_tx/complete_tx/inval: [a], value?;
  // arrive*/test_wait/try_wait: d, [a], value?.
  const bool has_dst = f.op == MbarOp::kArrive || f.op == MbarOp::kArriveDrop || f.op == MbarOp::kTestWait;
  const int a_index = has_dst ? 1 : 0;
  uint8_t* ptr[kLanes];
  uint64_t log[kLanes];
  if (!mbar::ResolveObjects(inst, ctx, exec, inst.ops[a_index], f.space, ptr, log)) return;
  const uint64_t* value = ValueOr(inst, ctx, a_index + 1);
  const bool trace = ctx.tracer != nullptr;
  using protocol::Op;
  constexpr uint8_t kRmw = protocol::kFlagLoad | protocol::kFlagStore;
  switch (f.op) {
    case MbarOp::kInit:
    case MbarOp::kInval:
      ForLanes(exec, [&](uint32_t l) {
        const uint32_t count = f.op == MbarOp::kInit ? static_cast<uint32_t>(value[l]) : 0;
        mem::AtomicStore<uint64_t>(ptr[l], f.op == MbarOp::kInit ? mbar::Init(count) : 0);
      });
      if (trace) mbar::EmitObjectRecord(inst, ctx, exec, log, Op::kWrite, 0, protocol::Scope::kNone, false);
      return;
    case MbarOp::kArrive:
    case MbarOp::kArriveDrop:
    case MbarOp::kExpectTx:
    case MbarOp::kCompleteTx: {
      const bool arrive = f.op == MbarOp::kArrive || f.op == MbarOp::kArriveDrop;
      uint64_t* d = has_dst && inst.ops[0].kind == Opnd::Kind::kValue ? ctx.Dst(inst.ops[0].ref) : nullptr;
      const Op op = arrive && !f.relaxed ? Op::kRelease : Op::kAtomic;
      auto run = [&] {
        ForLanes(exec, [&](uint32_t l) {
          // arrive{, count}, arrive.expect_tx tx (one arrival), expect_tx tx, complete_tx tx.
          uint32_t arrivals = 0;
          int32_t tx = 0;
          if (arrive) {
            arrivals = value != nullptr && !f.expect_tx ? static_cast<uint32_t>(value[l]) : 1;
            if (f.expect_tx) tx = static_cast<int32_t>(value[l]);
          } else {
            tx = static_cast<int32_t>(value[l]) * (f.op == MbarOp::kCompleteTx ? -1 : 1);
          }
          const uint64_t token = mbar::AtomicStep(ptr[l], arrivals, f.op == MbarOp::kArriveDrop, tx);
          if (d != nullptr) d[l] = token;
        });
      };
      if (!trace) {
        run();
        return;
      }
      // Stamped with the step (mem::ReleaseMutex): the arrival's stamp is
      // before any waiter's that sees the phase it completes.
      std::lock_guard<std::mutex> lock(mem::ReleaseMutex());
      mbar::EmitObjectRecord(inst, ctx, exec, log, op, kRmw, f.scope, true);
      run();
      return;
    }
    case MbarOp::kTestWait: {
      uint32_t done = 0;
      ForLanes(exec, [&](uint32_t l) {
        const uint64_t object = mem::AtomicLoad<uint64_t>(ptr[l], std::memory_order_acquire);
        const uint32_t parity = f.parity ? static_cast<uint32_t>(value[l]) : mbar::Parity(value[l]);
        if (mbar::PhaseDone(object, parity)) done |= 1u << l;
      });
      // waitComplete is a predicate (or a register in older forms).
      if (inst.ops[0].kind == Opnd::Kind::kPred) {
        uint32_t& p = ctx.preds[inst.ops[0].index];
        p = (p & ~exec) | done;
      } else if (inst.ops[0].kind == Opnd::Kind::kValue) {
        uint64_t* d = ctx.Dst(inst.ops[0].ref);
        ForLanes(exec, [&](uint32_t l) { d[l] = (done >> l) & 1; });
      }
      if (done == 0 && exec != 0) {
        ++ctx.mbar_failed_waits;
        ctx.mbar_wait_object = ptr[Lane(exec)];
        ctx.mbar_wait_line = inst.ptx_line;
      } else {
        ctx.mbar_failed_waits = 0;
      }
      if (trace && done != 0)
        mbar::EmitObjectRecord(inst, ctx, done, log, f.relaxed ? Op::kAtomic : Op::kAcquire, protocol::kFlagLoad,
                               f.scope, true);
      return;
    }
    case MbarOp::kPendingCount:
      return;
  }
}

}  // namespace

absl::StatusOr<bool> SelectMbarrierOp(const ptx::Instruction& ir, Inst& inst) {
  if (ir.op != ptx::Opcode::kMbarrier) return false;
  if (ir.modifiers.empty()) return mem::UnimplementedForm(ir, "no operation");
  const std::string& what = ir.modifiers[0];
  Form f{MbarOp::kInit};
  if (what == ".init") {
    f.op = MbarOp::kInit;
  } else if (what == ".arrive") {
    f.op = MbarOp::kArrive;
  } else if (what == ".arrive_drop") {
    f.op = MbarOp::kArriveDrop;
  } else if (what == ".expect_tx") {
    f.op = MbarOp::kExpectTx;
  } else if (what == ".complete_tx") {
    f.op = MbarOp::kCompleteTx;
  } else if (what == ".test_wait" || what == ".try_wait") {
    f.op = MbarOp::kTestWait;
  } else if (what == ".pending_count") {
    f.op = MbarOp::kPendingCount;
  } else if (what == ".inval") {
    f.op = MbarOp::kInval;
  } else {
    return mem::UnimplementedForm(ir, "unknown mbarrier operation");
  }
  f.expect_tx = what != ".expect_tx" && ir.HasModifier(".expect_tx");
  f.parity = ir.HasModifier(".parity");
  f.relaxed = ir.info.sem == ptx::MemSemantics::kRelaxed;
  if (ir.info.scope == ptx::Scope::kCluster) f.scope = protocol::Scope::kCluster;
  switch (ir.info.space) {
    case ptx::StateSpace::kShared:
    case ptx::StateSpace::kSharedCluster: f.space = Space::kShared; break;
    case ptx::StateSpace::kNone:
    case ptx::StateSpace::kGeneric: f.space = Space::kGeneric; break;
    default: return mem::UnimplementedForm(ir, "an mbarrier object is in shared memory");
  }
  const int need = f.op == MbarOp::kInit || f.op == MbarOp::kExpectTx || f.op == MbarOp::kCompleteTx ? 2
                   : f.op == MbarOp::kInval                                                          ? 1
                   : f.op == MbarOp::kPendingCount                                                   ? 2
                   : f.op == MbarOp::kTestWait                                                       ? 3
                   : f.expect_tx                                                                     ? 3
                                                                                                     : 2;
  if (inst.num_ops < need) return mem::UnimplementedForm(ir, "missing operands");
  const bool has_dst = f.op == MbarOp::kArrive || f.op == MbarOp::kArriveDrop || f.op == MbarOp::kTestWait;
  if (f.op != MbarOp::kPendingCount && inst.ops[has_dst ? 1 : 0].kind != Opnd::Kind::kAddress)
    return mem::UnimplementedForm(ir, "address operand expected");
  inst.fn = &MbarrierHandler;
  inst.imm = Pack(f);
  return true;
}

}  // namespace barracuda::emu
