// What an instruction handler sees of the warp running it.
//
// exec/ owns the full warp state (SIMT stack, call frames, scheduling) and
// derives its Warp from WarpCtx; handlers in ops/ use only what is here. The
// interpreter keeps the register/predicate pointers and frame_base current for
// the running call frame.
#ifndef BARRACUDA_PTX_EMULATOR_CORE_WARP_CONTEXT_H_
#define BARRACUDA_PTX_EMULATOR_CORE_WARP_CONTEXT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "ptx_emulator/core/async_copies.h"
#include "ptx_emulator/core/exec_form.h"

namespace barracuda::emu {

class DeviceMemory;
class Tracer;
class PhaseStoreBuffer;

// Why a warp stopped with an error. Mirrors the cudaError_t a GPU would give.
enum class FaultKind : uint8_t {
  kNone,
  kIllegalAddress,     // cudaErrorIllegalAddress
  kMisalignedAddress,  // cudaErrorMisalignedAddress
  kInvalidPc,          // cudaErrorIllegalInstruction (bad indirect branch/call target)
  kTrap,               // trap / brkpt: cudaErrorIllegalInstruction
  kAssert,             // __assertfail: cudaErrorAssert
  kUnsupported,        // an instruction form the emulator does not implement
  kDeadlock,           // no warp can make progress (reported by the scheduler)
  kStackOverflow,      // call depth / local window exhausted
  kTimeout,            // the launch outran ScheduleOptions::kernel_timeout_s: cudaErrorLaunchTimeout
};

// What a memory fault was: the access that faulted (memcheck-style reports).
enum class MemoryError : uint8_t {
  kNone,            // not a memory access fault
  kOutOfBounds,     // global: outside every live allocation (a redzone, a gap); outside
                    // the block's shared window, the thread's local window, the parameters
  kUseAfterFree,    // global: inside an allocation that was freed
  kInvalidAddress,  // no state space holds the address (null, unmapped)
  kMisaligned,      // not aligned to the access size
  kReadOnly,        // a write to constant memory or kernel parameters
};
enum class AccessKind : uint8_t { kRead, kWrite };

struct Fault {
  FaultKind kind = FaultKind::kNone;
  uint32_t lane = 0;
  uint64_t address = 0;
  std::string message;  // human-readable, names the instruction and its PTX line
  uint32_t site = 0xffffffffu;  // the instruction's program-wide site id (protocol::kNoSite: none)
  uint32_t ptx_line = 0;
  // Memory faults only (memory != kNone).
  MemoryError memory = MemoryError::kNone;
  AccessKind access = AccessKind::kRead;
  uint8_t space = 0;  // ptx_emulator/ops/mem_access.h mem::Space
  uint32_t size = 0;  // bytes of the access
};

// Added by exec/ (thread-block clusters): the shared windows of the CTAs of
// one cluster, indexed by %cluster_ctarank, as handlers of distributed shared
// memory (mapa, getctarank, .shared::cluster and generic accesses into a
// neighbour's window) see them. Every CTA of a launch has the same window size
// (WarpCtx::shared_bytes). A .shared::cluster address names the executing
// CTA's window with its plain .shared::cta offset, and rank r's window with
// ClusterSharedAddress(r, offset) (ops/address_ops.cpp).
inline constexpr uint32_t kMaxClusterCtas = 16;
struct ClusterWindows {
  uint32_t size = 1;                           // CTAs in the cluster
  uint8_t* base[kMaxClusterCtas] = {};         // shared window of each rank
  uint32_t block_linear[kMaxClusterCtas] = {};  // grid-linear block id of each rank
  // Ranks whose CTA has exited. The emulator keeps every window until the
  // whole cluster retires, but a program may not touch an exited CTA's shared
  // memory (CUDA Programming Guide, "Distributed Shared Memory": a block must
  // not exit before the cluster's accesses to its memory are done), so such
  // an access faults as a use after free (ops/mem_access.cpp).
  uint32_t exited = 0;
};
inline constexpr uint32_t kClusterWindowShift = 24;  // windows are < 16 MiB
constexpr uint64_t ClusterSharedAddress(uint32_t rank, uint32_t offset) {
  return (uint64_t{rank} + 1) << kClusterWindowShift | offset;
}

struct WarpCtx {
  // ---- the running call frame (kept current by exec/)
  uint64_t* regs = nullptr;          // [slot * 32 + lane]
  const uint64_t* consts = nullptr;  // the running Function's constants
  uint64_t* sregs = nullptr;         // [SpecialReg * 32 + lane], per warp
  uint32_t* preds = nullptr;         // one lane mask per predicate slot
  const Function* function = nullptr;
  uint32_t frame_base = 0;           // offset of the frame in each lane's local window

  // ---- masks
  uint32_t active = 0;     // SIMT stack-top mask, before the guard
  uint32_t exists = 0;     // lanes that exist (the last warp of a block may be partial)
  uint32_t live = 0;       // lanes not yet exited

  // ---- identity
  uint32_t warp_in_block = 0;
  uint32_t block_linear = 0;
  uint32_t warp_global = 0;         // protocol warp_id
  uint32_t threads_per_block = 0;

  // ---- memory windows (host addresses); address spaces per ptx StateSpace
  uint8_t* shared_base = nullptr;   // this block's shared window
  uint32_t shared_bytes = 0;        // static + dynamic
  uint8_t* local_base = nullptr;    // lane l's window starts at local_base + l * local_stride
  uint32_t local_stride = 0;
  const uint8_t* param_base = nullptr;  // kernel parameter buffer (read-only)
  uint32_t param_bytes = 0;
  DeviceMemory* memory = nullptr;   // global allocations (validity checks, attribution)
  // Deterministic rounds, parallel phase: the slot's buffered global stores
  // (core/phase_store_buffer.h); nullptr otherwise.
  PhaseStoreBuffer* store_buffer = nullptr;

  // ---- tracing: nullptr when off (the only cost of tracing off is this test)
  Tracer* tracer = nullptr;

  // ---- errors: the first fault stops the warp and fails the launch
  Fault fault;
  bool faulted() const { return fault.kind != FaultKind::kNone; }
  void Raise(FaultKind kind, const Inst& inst, uint32_t lane, uint64_t address, std::string what);
  // A memory access that faulted: Raise, plus what the access was.
  void RaiseMemory(MemoryError error, const Inst& inst, uint32_t lane, uint64_t address, uint32_t size,
                   uint8_t space, AccessKind access, std::string what);

  // ---- operand access (resolved once per instruction, not per lane)
  const uint64_t* Src(ValueRef r) const {
    const uint32_t i = RefIndex(r) * kLanes;
    switch (RefKind(r)) {
      case kRefRegister: return regs + i;
      case kRefConstant: return consts + i;
      default: return sregs + i;
    }
  }
  uint64_t* Dst(ValueRef r) { return regs + RefIndex(r) * kLanes; }  // only registers are written
  uint8_t* LocalWindow(uint32_t lane) { return local_base + static_cast<size_t>(lane) * local_stride; }

  // ---- added by ops/ (integer family): the PTX condition-code carry flag
  // (CC.CF) of each lane, as a lane mask. add.cc/sub.cc/mad.cc write it,
  // addc/subc/madc read it. Per warp, not per frame: PTX does not preserve CC
  // across calls.
  uint32_t carry = 0;

  // ---- added by exec/ (clusters): this block's cluster; nullptr (handler
  // tests) means a cluster of one CTA.
  const ClusterWindows* cluster = nullptr;

  // ---- added by ops/ (asynchronous copies): the lanes' cp.async copies not
  // yet completed (core/async_copies.h); made at the warp's first cp.async.
  // exec/ completes a lane's copies when it exits.
  std::unique_ptr<AsyncCopies> async;

  // ---- added by ops/ (mbarrier): test_wait / try_wait that found no lane's
  // phase complete, counted until one finds a phase complete; the object
  // (host address) and PTX line of the last. exec/ tells a warp that only
  // spins on a phase from one that works between its waits (spin_watch.cpp).
  uint64_t mbar_failed_waits = 0;
  const uint8_t* mbar_wait_object = nullptr;
  uint32_t mbar_wait_line = 0;
};

// Lanes of `mask` in ascending order: for (uint32_t m = mask; m; m &= m - 1) { lane = Lane(m); }
inline uint32_t Lane(uint32_t m) { return static_cast<uint32_t>(__builtin_ctz(m)); }

// Runs f(lane) for each lane of `exec`, ascending. The full-mask case is a
// plain counted loop the compiler can unroll/vectorise: that is the common
// case in non-divergent code (the 300 M thread-instructions/s target).
template <typename F>
inline void ForLanes(uint32_t exec, F&& f) {
  if (exec == kFullMask) {
    for (uint32_t l = 0; l < kLanes; ++l) f(l);
  } else {
    for (uint32_t m = exec; m; m &= m - 1) f(Lane(m));
  }
}

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_CORE_WARP_CONTEXT_H_
