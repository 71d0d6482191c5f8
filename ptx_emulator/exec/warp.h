// Warp, call-frame, SIMT-stack and block state of the interpreter.
//
// A Warp derives from WarpCtx (what instruction handlers see) and adds what
// only exec/ touches: call frames, each with its own SIMT stack, the
// instruction count that drives %clock, and the scheduling state. Blocks own
// their warps, the shared window and the named barriers.
//
// SIMT stack (per call frame), entries (pc, reconvergence pc, mask):
//   divergent branch at entry E with reconvergence point R:
//     E.pc = R; push else side {fallthrough, R}; push then side {taken, R}
//   the top entry pops when its pc reaches its reconvergence pc or its mask
//   becomes empty (lanes exited / returned); a popped then side emits kElse, a
//   popped else side kFi, so every kIf has exactly one kElse and one kFi.
// Invariants: every entry's mask is a subset of `live`; the entry at
// CallFrame::cur of the innermost frame is what runs (the top one unless the
// frame is `its`).
//
// Barriers in divergent code (sm_70+ independent thread scheduling): when the
// lanes of one entry reach bar.sync/bar.red while other lanes of the warp can
// still run, the entry is deferred (kDeferred, pc at the barrier) and another
// entry runs; lanes waiting at a reconvergence point for a deferred or parked
// entry are forked off (kFork) to run past it. When nothing else can run, the
// deferred entries arrive (kParked, pc after the barrier) and the warp waits
// until a release unparks them. A frame with waiting entries or forks is in
// `its` mode: entries are inserted above the running one (`cur`), several
// leaves may be runnable, and a finished entry is erased only when no entry
// opened after it is still open (creation order `seq`), which keeps the
// kIf/kElse/kFi records nested. exec/README.md states the semantics.
#ifndef BARRACUDA_PTX_EMULATOR_EXEC_WARP_H_
#define BARRACUDA_PTX_EMULATOR_EXEC_WARP_H_

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "ptx_emulator/core/device.h"
#include "ptx_emulator/core/warp_context.h"

namespace barracuda::emu {

inline constexpr uint32_t kNoReconvPc = 0xffffffffu;    // base entries: never reconverge
inline constexpr uint32_t kExitReconvPc = 0xfffffffeu;  // reconverge when the lanes leave
inline constexpr uint32_t kMaxBarriers = 16;
inline constexpr uint32_t kMaxCallDepth = 4096;

struct SimtEntry {
  enum class Kind : uint8_t {
    kBase,   // bottom of a frame's stack
    kThen,   // runs first after a split; popping it emits kElse
    kElse,   // runs second; popping it emits kFi
    kSplit,  // serialisation of an indirect call with several targets: no records
    kFork,   // lanes that run past a reconvergence point while others wait at a barrier: no records
  };
  enum class Wait : uint8_t {
    kNone,
    kDeferred,  // reached bar.sync/bar.red (pc = the barrier), arrives when nothing else of the warp can run
    kParked,    // arrived at `barrier` (pc = after it), runs again when the barrier releases
    kYielded,   // looped kSpinYield times while other lanes waited: runs again when nothing else can
  };
  uint32_t pc = 0;
  uint32_t reconv = kNoReconvPc;
  uint32_t mask = 0;
  Kind kind = Kind::kBase;
  uint32_t pending_if = 0;  // brx.idx nesting: header mask of a kIf to emit when this entry first runs
  uint32_t site = protocol::kNoSite;  // the splitting branch (for kElse/kFi records)
  uint32_t seq = 0;                   // creation order, maintained while the frame is `its`
  Wait wait = Wait::kNone;
  uint8_t barrier = 0;                // kParked: the barrier id
  uint32_t spins = 0;                 // backward branches taken since the last yield check
};

// Independent thread scheduling guarantees forward progress to every thread
// (sm_70+): lanes spinning on a lock that another lane of their warp holds
// must let it run. An entry that took this many backward branches while other
// lanes of its frame could run gives way to them (SpinCheck).
inline constexpr uint32_t kSpinYield = 1024;

struct CallFrame {
  const Function* fn = nullptr;
  std::vector<uint64_t> regs;   // fn->num_registers * 32
  std::vector<uint32_t> preds;  // fn->num_predicates
  uint32_t frame_base = 0;
  // alloca (control_ops.cpp): each lane's stack pointer, a local-window offset
  // at or above the frame's end; meaningful once `dynamic` is set (before the
  // first alloca it is frame_base + fn->frame_bytes). Callees start above it;
  // a return frees what the frame allocated, as the frame goes away.
  std::array<uint32_t, kLanes> stack_top{};
  bool dynamic = false;
  uint32_t call_site = 0;       // index in the caller's call_sites (for ret copies)
  std::vector<SimtEntry> stack;
  uint32_t cur = 0;             // the running entry (stack.size() - 1 unless `its`)
  uint32_t next_seq = 0;        // `its`: the next SimtEntry::seq
  bool its = false;             // entries wait at barriers or run out of stack order (slow path)
  // Resets the frame to one base entry for `mask` starting at pc 0.
  void ResetStack(uint32_t mask) {
    stack.clear();
    stack.push_back(SimtEntry{0, kNoReconvPc, mask, SimtEntry::Kind::kBase, 0, protocol::kNoSite});
    cur = 0;
    its = false;
  }
};

enum class WarpState : uint8_t { kRunnable, kWaitingBarrier, kDone };

// Events a handler reports to the interpreter loop (Warp::events).
enum WarpEvent : uint32_t {
  kEventStackChanged = 1u << 0,  // push/pop/frame change/lanes removed: renormalise
  kEventBlocked = 1u << 1,       // waits at a barrier: end the turn
  kEventYield = 1u << 2,         // nanosleep: end the turn
};

struct Block;
struct Cluster;  // exec/cluster.h
class RunQueue;

struct Warp : WarpCtx {
  Block* block = nullptr;
  const Device* device = nullptr;  // function table for calls
  std::vector<CallFrame> frames;  // [0, depth) live; deeper ones kept for reuse
  uint32_t depth = 0;
  uint32_t cur_pc = 0;            // pc of the instruction being run
  uint32_t events = 0;
  WarpState state = WarpState::kRunnable;
  bool queued = false;            // in the worker's run queue
  bool force_arrive = false;      // a deferred barrier arrives now (no second deferral)
  uint32_t warp_sync_logged = 0;  // lanes waiting at a bar.warp.sync whose arrival is already logged
  bool serial_gate = false;       // deterministic rounds, parallel phase: stop before an Inst::serial
  bool serial_pending = false;    // stopped there; the serial phase runs that instruction
  uint32_t run_index = 0;         // position in the run queue
  uint32_t wait_barrier = 0;      // kWaitingBarrier: barrier id and PTX line
  uint32_t wait_line = 0;
  uint64_t executed = 0;          // warp instructions run (drives %clock & co.)
  uint32_t spin_turns = 0;        // consecutive turns spent spinning on an mbarrier phase (spin_watch.cpp)
  uint64_t thread_executed = 0;   // active lanes summed over those instructions (statistics)
  std::vector<uint64_t> sreg_table;  // [SpecialReg * 32 + lane]

  CallFrame& frame() { return frames[depth - 1]; }
  // The running entry of the innermost frame.
  SimtEntry& top() {
    CallFrame& f = frames[depth - 1];
    return f.stack[f.cur];
  }
  // Points the WarpCtx fields at the innermost frame.
  void BindFrame() {
    CallFrame& f = frames[depth - 1];
    regs = f.regs.data();
    preds = f.preds.data();
    consts = f.fn->constants.data();
    function = f.fn;
    frame_base = f.frame_base;
  }
  void Emit(protocol::Op op, uint32_t mask, uint32_t site) const;
};

struct BarrierState {
  uint32_t arrived = 0;  // threads arrived in the current generation
  uint32_t count = 0;    // expected threads; 0 = every live thread of the block
  uint32_t popc = 0;     // bar.red accumulators over arrived threads
  bool all = true;
  bool any = false;
  // bar.red destinations are kept as (frame, offset): other lanes of the warp
  // may call functions (growing Warp::frames) while these wait.
  static constexpr uint32_t kNoDst = 0xffffffffu;
  struct Waiter {
    Warp* warp;
    uint32_t mask;
    uint32_t frame;     // index in Warp::frames of the destination registers
    uint32_t dst_reg;   // bar.red into a register: offset in CallFrame::regs (kNoDst otherwise)
    uint32_t dst_pred;  // bar.red into a predicate: index in CallFrame::preds (kNoDst otherwise)
    ptx::BoolOp op;
  };
  std::vector<Waiter> waiters;
};

struct Block {
  uint32_t linear = 0;
  Dim3 coord;
  std::unique_ptr<uint8_t[]> shared;
  uint32_t shared_bytes = 0;
  std::vector<std::unique_ptr<Warp>> warps;
  BarrierState barriers[kMaxBarriers];
  uint32_t live_threads = 0;
  uint32_t runnable_warps = 0;
  uint32_t done_warps = 0;
  RunQueue* queue = nullptr;      // the owning worker's run queue
  uint8_t* local_region = nullptr;  // this block's local windows (nullptr: kernel uses none)
  // Added for clusters (exec/cluster.h): the block's cluster and its rank in it.
  Cluster* cluster = nullptr;
  uint32_t cluster_rank = 0;
};

// Runs `warp` for at most `budget` instructions or until it blocks, yields,
// finishes or faults (exec/interpreter.cpp).
void RunWarp(Warp& warp, uint32_t budget);

// Pops finished entries/frames (emitting kElse/kFi, pending kIf), sets
// state = kDone when nothing is left (exec/simt_stack.cpp).
void NormalizeStack(Warp& warp);
// Lanes leave the kernel: removed from every entry of every frame and from
// `live`; emits kExit; re-checks whole-block barriers.
void ExitLanes(Warp& warp, uint32_t lanes);
// Lanes of the innermost frame that wait (in a lower stack entry) at an
// unguarded exit, or at ret of the kernel, exit now. A GPU with independent
// thread scheduling lets them leave while their warp's other side waits at a
// barrier; without this, `if (i >= n) return; __syncthreads();` would wait for
// them forever.
void ExitParkedLanes(Warp& warp);
// Pushes `e` directly above the running entry of the innermost frame and
// makes it the running entry.
void PushEntry(Warp& warp, const SimtEntry& e);
// The running entry waits at a barrier: kDeferred (not arrived) or kParked
// (arrived at `barrier`). The frame turns `its`.
void WaitAt(Warp& warp, SimtEntry::Wait wait, uint32_t barrier);
// Whether a barrier reached by the running entry without all the warp's live
// lanes is deferred: other lanes of the innermost frame can still run (they
// are in no waiting entry), or other entries are deferred already (they all
// arrive together once nothing can run; the halves of a fork deferred at the
// same instruction merge into one arrival).
bool DeferBarrier(const Warp& warp);
// The running entry took a backward branch: every kSpinYield of them, it
// yields (kYielded) if other lanes of the innermost frame can run. The frame
// turns `its`; the waiting lanes are forked past their reconvergence point.
void SpinCheck(Warp& warp, SimtEntry& entry);
// A barrier released: every entry of `warp` parked at `barrier` runs again.
void UnparkEntries(Warp& warp, uint32_t barrier);
// Whether some frame of `warp` is in `its` mode (entries wait or were forked).
inline bool AnyItsFrame(const Warp& warp) {
  for (uint32_t d = 0; d < warp.depth; ++d)
    if (warp.frames[d].its) return true;
  return false;
}
// Splits the top entry: then side `then_mask` at then_pc runs first, the rest
// of the top mask at else_pc after; both reconverge at `reconv`.
void Diverge(Warp& warp, uint32_t then_mask, uint32_t then_pc, uint32_t else_pc, uint32_t reconv, uint32_t site);
// Whole-block barriers may complete when the live thread count drops.
void RecheckBarriers(Block& block);

// Deterministic clock: cycles per warp instruction.
inline constexpr uint64_t kCyclesPerInstruction = 4;
void RefreshClocks(Warp& warp);

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_EXEC_WARP_H_
