// Shared by the memory-family handlers (memory_ops.cpp, atomic_ops.cpp,
// address_ops.cpp): address-space resolution per lane, race-free element
// access to device memory, and record building.
//
// Address spaces are as in ptx_emulator/README (emu brief "Address spaces"):
// global/const addresses are host addresses in the DeviceMemory arena, shared
// ones offsets in the block window, local ones offsets in the lane's window,
// kernel .param ones offsets in the parameter buffer. `.shared::cluster`
// addresses and generic addresses may also name another CTA of the cluster's
// window (distributed shared memory, ops/cluster_windows.h).
//
// Global and shared memory are touched only through relaxed std::atomic_ref
// (every access is naturally aligned, misaligned ones fault first): blocks run
// on several host threads and racy CUDA programs must not make the emulator
// itself a racy C++ program. On x86-64 a relaxed atomic load/store is a plain
// mov, so this costs nothing.
#ifndef BARRACUDA_PTX_EMULATOR_OPS_MEM_ACCESS_H_
#define BARRACUDA_PTX_EMULATOR_OPS_MEM_ACCESS_H_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "device_logger/protocol.h"
#include "ptx_emulator/core/device_memory.h"
#include "ptx_emulator/core/exec_form.h"
#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/core/warp_context.h"

namespace barracuda::emu::mem {

// The instruction's state space, as the handlers see it.
enum class Space : uint8_t { kGeneric, kGlobal, kShared, kLocal, kParam, kConst };
// Where one lane's access really went.
enum class Where : uint8_t { kGlobal, kShared, kLocal, kParam, kConst };

Space SpaceOf(ptx::StateSpace s);
std::string SpaceName(Space s);

using emu::ForLanes;  // core/warp_context.h

// Per-lane address of an Opnd::kAddress operand (or a plain value operand,
// for cvta/isspacep sources) in the instruction's own space, before resolution.
struct AddressOperand {
  const uint64_t* base = nullptr;  // per-lane register values; nullptr: none
  uint64_t add = 0;                // offset (+ frame_base for kFrame)
  bool frame = false;              // kFrame: a local-window offset
  uint64_t At(uint32_t lane) const { return (base ? base[lane] : 0) + add; }
};
inline AddressOperand MakeAddress(const Opnd& o, const WarpCtx& ctx) {
  AddressOperand a;
  if (o.kind == Opnd::Kind::kValue) {
    a.base = ctx.Src(o.ref);
    return a;
  }
  a.add = static_cast<uint64_t>(o.offset);
  switch (o.base) {
    case Opnd::AddrBase::kRegister: a.base = ctx.Src(o.ref); break;
    case Opnd::AddrBase::kAbsolute: break;
    case Opnd::AddrBase::kFrame: a.add += ctx.frame_base, a.frame = true; break;
  }
  return a;
}

// The registers of a value operand: a vector's elements ({a, b, ...}), or the
// one register.
inline const ValueRef* ValueRefs(const Opnd& o, const WarpCtx& ctx) {
  return o.kind == Opnd::Kind::kVector ? ctx.function->vector_refs.data() + o.index : &o.ref;
}

// Shared and local addresses are 32-bit: hardware computes them modulo 2^32,
// so a 32-bit register holding a negative index plus a positive offset
// (s[t - n + 40]: 0xffffffc4 + 64) lands at 4, not at 0x100000004.
// .shared::cluster ranks are encoded below bit 32 (cluster_windows.h).
constexpr uint64_t SpaceAddress(Space space, uint64_t addr) {
  return space == Space::kShared || space == Space::kLocal ? static_cast<uint32_t>(addr) : addr;
}

// Resolves lane `lane`'s access of `size` bytes at `addr` in `space`. On
// success returns the host pointer and sets `where`/`log` (the record address:
// host address for global, SharedAddress for shared); on failure raises the
// fault on ctx and returns nullptr. `frame`: the address came from a kFrame
// operand (.param of a function body lives in the local window).
uint8_t* Resolve(WarpCtx& ctx, const Inst& inst, Space space, bool frame, uint32_t lane, uint64_t addr,
                 uint32_t size, bool write, Where& where, uint64_t& log);

// Fault helpers (messages name the instruction, the lane and the address).
// space/write: what the access was, for memcheck-style reports.
void RaiseMisaligned(WarpCtx& ctx, const Inst& inst, uint32_t lane, uint64_t addr, uint32_t size,
                     Space space = Space::kGeneric, bool write = false);
std::string InstText(const Inst& inst);

// ---- element access (size 1, 2, 4, 8; 16: Load16 / Store16)
template <typename T>
inline T AtomicLoad(const uint8_t* p, std::memory_order o = std::memory_order_relaxed) {
  return std::atomic_ref<T>(*reinterpret_cast<T*>(const_cast<uint8_t*>(p))).load(o);
}
template <typename T>
inline void AtomicStore(uint8_t* p, T v, std::memory_order o = std::memory_order_relaxed) {
  std::atomic_ref<T>(*reinterpret_cast<T*>(p)).store(v, o);
}
inline uint64_t LoadBytes(const uint8_t* p, uint32_t size, std::memory_order o) {
  switch (size) {
    case 1: return AtomicLoad<uint8_t>(p, o);
    case 2: return AtomicLoad<uint16_t>(p, o);
    case 4: return AtomicLoad<uint32_t>(p, o);
    default: return AtomicLoad<uint64_t>(p, o);
  }
}
inline void StoreBytes(uint8_t* p, uint32_t size, uint64_t v, std::memory_order o) {
  switch (size) {
    case 1: AtomicStore<uint8_t>(p, static_cast<uint8_t>(v), o); break;
    case 2: AtomicStore<uint16_t>(p, static_cast<uint16_t>(v), o); break;
    case 4: AtomicStore<uint32_t>(p, static_cast<uint32_t>(v), o); break;
    default: AtomicStore<uint64_t>(p, v, o); break;
  }
}

// 16 aligned bytes in one host access. PTX's model lets a vector access be
// element-wise, but GPUs make an aligned 16-byte access single-copy atomic and
// CUB relies on it (the 16-byte tile descriptors of decoupled look-back for
// 8-byte values): a torn {status, value} read gives a wrong prefix. Aligned
// SSE loads/stores are single-copy atomic on x86-64 CPUs with AVX (Intel SDM
// 8.1.1, AMD APM 7.3.2); elsewhere two 8-byte halves (low first).
inline void Load16(const uint8_t* p, uint64_t& lo, uint64_t& hi, std::memory_order o) {
#if defined(__SSE2__)
  if ((reinterpret_cast<uintptr_t>(p) & 15) != 0) {  // a window whose host base is not 16-aligned
    lo = AtomicLoad<uint64_t>(p, o);
    hi = AtomicLoad<uint64_t>(p + 8, o);
    return;
  }
  const __m128i v = _mm_load_si128(reinterpret_cast<const __m128i*>(p));
  std::atomic_signal_fence(std::memory_order_seq_cst);  // the compiler keeps it one access, in place
  lo = static_cast<uint64_t>(_mm_cvtsi128_si64(v));
  hi = static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v)));
  if (o != std::memory_order_relaxed) std::atomic_thread_fence(std::memory_order_acquire);
#else
  lo = AtomicLoad<uint64_t>(p, o);
  hi = AtomicLoad<uint64_t>(p + 8, o);
#endif
}
inline void Store16(uint8_t* p, uint64_t lo, uint64_t hi, std::memory_order o) {
#if defined(__SSE2__)
  if ((reinterpret_cast<uintptr_t>(p) & 15) != 0) {
    AtomicStore<uint64_t>(p, lo, o);
    AtomicStore<uint64_t>(p + 8, hi, o);
    return;
  }
  if (o != std::memory_order_relaxed) std::atomic_thread_fence(std::memory_order_release);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  _mm_store_si128(reinterpret_cast<__m128i*>(p),
                  _mm_set_epi64x(static_cast<int64_t>(hi), static_cast<int64_t>(lo)));
  std::atomic_signal_fence(std::memory_order_seq_cst);
#else
  AtomicStore<uint64_t>(p, lo, o);
  AtomicStore<uint64_t>(p + 8, hi, o);
#endif
}

// ---- records
// Releases (and acquire-releases) take their stamp and perform their access
// under this lock when tracing, so that an acq_rel read-modify-write's one stamp
// is after every release it observed and before every acquire that observes
// it (a release stamps before its store, an acquire after its load). Only
// taken when tracing.
std::mutex& ReleaseMutex();

inline bool IsRelease(uint8_t op) {
  return op == static_cast<uint8_t>(protocol::Op::kRelease) || op == static_cast<uint8_t>(protocol::Op::kAcqRel);
}
inline bool IsAcquire(uint8_t op) { return op == static_cast<uint8_t>(protocol::Op::kAcquire); }
inline bool IsSync(uint8_t op) { return IsRelease(op) || IsAcquire(op); }
// Strong accesses (kAtomic: relaxed, volatile, atom/red) take part in release
// and acquire patterns with fences, decided by the detector at run time
// (host_detector/detector/SEMANTICS.md), so they are stamped like synchronisation:
// writes and read-modify-writes before they become visible (under the release
// lock), loads after they observed.
inline bool IsStrong(uint8_t op) { return IsSync(op) || op == static_cast<uint8_t>(protocol::Op::kAtomic); }

// The lanes' resolved accesses of one warp instruction, for records.
struct LaneAccesses {
  uint32_t global_mask = 0;
  uint32_t shared_mask = 0;
  uint64_t log[kLanes];
  void Add(uint32_t lane, Where w, uint64_t address) {
    if (w == Where::kGlobal) {
      global_mask |= 1u << lane;
    } else if (w == Where::kShared) {
      shared_mask |= 1u << lane;
    } else {
      return;
    }
    log[lane] = address;
  }
};

// A record header for a memory access by `mask` lanes in `space`.
protocol::Record MakeRecord(const Inst& inst, const WarpCtx& ctx, uint32_t mask, protocol::Space space,
                            uint32_t access_size);
// The same with the operation, flags and scope given (instructions whose
// record is not the decoder's access classification: cp.async, mbarrier).
// kAsyncProxyFlags marks an access of the async proxy (bulk copies, TMA, wgmma
// operands in shared memory).
protocol::Record MakeRecord(const Inst& inst, const WarpCtx& ctx, uint32_t mask, protocol::Space space,
                            uint32_t access_size, protocol::Op op, uint8_t flags, protocol::Scope scope);
inline constexpr uint8_t kAsyncProxyFlags = protocol::kFlagAsync | protocol::kFlagAsyncProxy;

using emu::UnimplementedForm;  // core/handlers.h

// Selectors of the files of the family; SelectMemoryOp asks them in turn.
absl::StatusOr<bool> SelectAtomicOp(const ptx::Instruction& ir, Inst& inst);   // atomic_ops.cpp
// One element of a bulk reduction (cp.reduce.async.bulk): *dst = op(*dst,
// *src) as an atomic read-modify-write on the host, with atom's numerics;
// nullptr for an operation the element type does not have (f32 and f64: add only).
using ElementReduce = void (*)(uint8_t* dst, const uint8_t* src);
ElementReduce SelectElementReduce(ptx::AtomOp op, ptx::Type type);  // atomic_ops.cpp
absl::StatusOr<bool> SelectAddressOp(const ptx::Instruction& ir, Inst& inst);  // address_ops.cpp

}  // namespace barracuda::emu::mem

#endif  // BARRACUDA_PTX_EMULATOR_OPS_MEM_ACCESS_H_
