// The interpreter loop: direct dispatch through Inst::fn over the top SIMT
// entry's lanes.
//
// Per instruction the fast path is: load the instruction, mask by the guard,
// advance pc, call the handler, one test of events|fault, one compare of the
// pc with the top entry's reconvergence pc / the end of the code. Control
// handlers move the pc themselves (they see it already advanced) and report
// stack changes through Warp::events.
#include "ptx_emulator/exec/warp.h"
#include "ptx_emulator/ops/mem_access.h"

namespace barracuda::emu {

void RefreshClocks(Warp& w) {
  const uint64_t cycles = w.executed * kCyclesPerInstruction;
  const uint64_t ns = w.executed;  // 1 ns per warp instruction: monotonic, deterministic
  uint64_t* s = w.sregs;
  for (uint32_t l = 0; l < kLanes; ++l) {
    s[static_cast<uint32_t>(SpecialReg::kClock) * kLanes + l] = cycles & 0xffffffffu;
    s[static_cast<uint32_t>(SpecialReg::kClock64) * kLanes + l] = cycles;
    s[static_cast<uint32_t>(SpecialReg::kGlobalTimer) * kLanes + l] = ns;
    s[static_cast<uint32_t>(SpecialReg::kGlobalTimerLo) * kLanes + l] = ns & 0xffffffffu;
    s[static_cast<uint32_t>(SpecialReg::kGlobalTimerHi) * kLanes + l] = ns >> 32;
  }
}

namespace {

// A generic-address serial instruction whose active lanes all address the
// block's shared window (or the lane's local window) touches nothing another
// block can see: it need not wait for the serial phase.
bool StaysInBlock(const Inst& in, const Warp& w, uint32_t exec) {
  const mem::AddressOperand a = mem::MakeAddress(in.ops[in.serial_address - 1], w);
  if (a.frame) return true;
  const auto lo = reinterpret_cast<uint64_t>(w.shared_base);
  for (uint32_t m = exec; m; m &= m - 1)
    if (a.At(static_cast<uint32_t>(__builtin_ctz(m))) - lo >= w.shared_bytes) return false;
  return true;
}

}  // namespace

void RunWarp(Warp& w, uint32_t budget) {
  if (w.state != WarpState::kRunnable) return;
  if (w.frame().its) {
    // Entries may have been released (or be waiting) since the last turn: pick what runs.
    NormalizeStack(w);
    if (w.state != WarpState::kRunnable || w.faulted()) return;
  }
  const Inst* code = w.frame().fn->code.data();
  uint32_t size = static_cast<uint32_t>(w.frame().fn->code.size());
  SimtEntry* top = &w.top();
  while (budget != 0) {
    const uint32_t pc = top->pc;
    const Inst& in = code[pc];
    uint32_t exec = top->mask;
    w.active = exec;
    if (in.guard != kNoPred) {
      const uint32_t p = w.preds[in.guard];
      exec &= in.guard_negated ? ~p : p;
    }
    if (__builtin_expect(in.serial & w.serial_gate, 0) && exec != 0 &&
        (in.serial_address == 0 || !StaysInBlock(in, w, exec))) {
      // Deterministic rounds: other blocks may see this one; it waits for the
      // serial phase (pc unchanged, nothing executed).
      w.serial_pending = true;
      return;
    }
    if (in.reads_dynamic_sreg) RefreshClocks(w);
    w.cur_pc = pc;
    top->pc = pc + 1;
    in.fn(in, w, exec);
    ++w.executed;
    w.thread_executed += static_cast<uint32_t>(__builtin_popcount(exec));
    --budget;
    if (__builtin_expect((w.events | static_cast<uint32_t>(w.fault.kind)) != 0, 0)) {
      if (w.faulted()) return;
      const uint32_t ev = w.events;
      w.events = 0;
      if (ev & kEventStackChanged) NormalizeStack(w);
      if (w.state != WarpState::kRunnable || w.faulted() || (ev & (kEventBlocked | kEventYield))) return;
      code = w.frame().fn->code.data();
      size = static_cast<uint32_t>(w.frame().fn->code.size());
      top = &w.top();
      continue;
    }
    if (__builtin_expect(top->pc == top->reconv || top->pc >= size, 0)) {
      NormalizeStack(w);
      if (w.state != WarpState::kRunnable || w.faulted()) return;
      code = w.frame().fn->code.data();
      size = static_cast<uint32_t>(w.frame().fn->code.size());
      top = &w.top();
    }
  }
}

}  // namespace barracuda::emu
