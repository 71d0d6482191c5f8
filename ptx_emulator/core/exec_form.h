// The executable form of PTX: what the decoder (decode/) produces from the IR
// once per module, and what the interpreter (exec/) runs. No strings are looked
// at while running: every operand is a small integer reference resolved at
// decode time, every instruction carries a handler chosen for its exact types.
//
// Registers are 64-bit slots stored lane-major per warp (slot s, lane l at
// [s * 32 + l]), so a handler runs one instruction over 32 lanes in a tight loop.
// Immediates are "constant registers" (the same value in all 32 lanes, in a
// per-function read-only table), special registers (%tid.x, ...) live in a
// per-warp table; a ValueRef says which of the three a source reads. Predicates
// are separate: one 32-bit lane mask per predicate register.
//
// Ownership: this header is the contract between decode/, exec/ and ops/. Add
// fields at the end of a struct with a comment; never change the meaning of an
// existing one.
#ifndef BARRACUDA_PTX_EMULATOR_CORE_EXEC_FORM_H_
#define BARRACUDA_PTX_EMULATOR_CORE_EXEC_FORM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "device_logger/protocol.h"
#include "ptx_rewriter/instruction_modifiers.h"
#include "ptx_rewriter/ir.h"
#include "ptx_rewriter/opcodes.h"

namespace barracuda::emu {

inline constexpr uint32_t kLanes = 32;
inline constexpr uint32_t kFullMask = 0xffffffffu;

// ------------------------------------------------------------------ value refs
// A 32-bit reference to a 32-lane array of 64-bit values.
//   bits 31..30 = 00: register slot of the running frame
//                 01: constant (Function::constants)
//                 10: special register (WarpCtx::sregs, see SpecialReg)
using ValueRef = uint32_t;
inline constexpr uint32_t kRefKindShift = 30;
inline constexpr uint32_t kRefIndexMask = (1u << kRefKindShift) - 1;
inline constexpr uint32_t kRefRegister = 0u << kRefKindShift;
inline constexpr uint32_t kRefConstant = 1u << kRefKindShift;
inline constexpr uint32_t kRefSpecial = 2u << kRefKindShift;
inline constexpr ValueRef kNoRef = 0xffffffffu;
constexpr ValueRef RegisterRef(uint32_t slot) { return kRefRegister | slot; }
constexpr ValueRef ConstantRef(uint32_t index) { return kRefConstant | index; }
constexpr ValueRef SpecialRef(uint32_t id) { return kRefSpecial | id; }
constexpr uint32_t RefKind(ValueRef r) { return r & ~kRefIndexMask; }
constexpr uint32_t RefIndex(ValueRef r) { return r & kRefIndexMask; }

// Special registers, one per (name, component). Values per lane live in the
// warp's sreg table; kClock/kClock64/kGlobalTimer are refreshed by the
// interpreter before an instruction with Inst::reads_dynamic_sreg runs
// (deterministic: derived from the warp's executed-instruction count).
enum class SpecialReg : uint32_t {
  kTidX, kTidY, kTidZ, kNtidX, kNtidY, kNtidZ,
  kCtaidX, kCtaidY, kCtaidZ, kNctaidX, kNctaidY, kNctaidZ,
  kLaneId, kWarpId, kNwarpId, kSmId, kNsmId, kGridId,
  kLanemaskEq, kLanemaskLe, kLanemaskLt, kLanemaskGe, kLanemaskGt,
  kClock, kClock64, kGlobalTimer, kGlobalTimerLo, kGlobalTimerHi,
  kClusterIdX, kClusterIdY, kClusterIdZ, kNclusterIdX, kNclusterIdY, kNclusterIdZ,
  kClusterCtaidX, kClusterCtaidY, kClusterCtaidZ, kClusterNctaidX, kClusterNctaidY, kClusterNctaidZ,
  kClusterCtarank, kClusterNctarank, kIsExplicitCluster,
  kDynamicSmemSize, kTotalSmemSize, kAggrSmemSize,
  kEnvReg0,  // %envreg0..31 follow (all zero)
  kCount = kEnvReg0 + 32,
};

// ------------------------------------------------------------------ operands
// One PTX operand, decoded. Positional: Inst::ops[i] is the i-th PTX operand
// (destinations first, as written).
struct Opnd {
  enum class Kind : uint8_t {
    kNone,
    kValue,     // a register, immediate, special register or constant symbol value: `ref`
    kPred,      // predicate register: `index` = predicate slot; `negated` for !p
    kPredPair,  // setp d|q: `index` = first slot, `index2` = second (kNoPred for `_`)
    kVector,    // { a, b, ... }: `count` refs at Function::vector_refs[index ...]
                // (a `_` element is kSinkSlot, a scratch register)
    kAddress,   // [base + offset]; see AddrBase. [tensorMap, {c0, ...}] (cp.async.bulk.tensor)
                // also has `count` coordinate refs at Function::vector_refs[index ...]
    kLabel,     // branch target: `index` = pc in the function
    kFunction,  // direct call target / function symbol: `index` = Program function index
    kSink,      // `_` as a whole operand
  };
  // Where an address operand's base comes from.
  enum class AddrBase : uint8_t {
    kRegister,     // `ref` holds a per-lane address in the instruction's state space
    kAbsolute,     // no register: the address is `offset` (global/const symbol after
                   // loading: a host address; shared symbol: the offset in the block
                   // window; kernel .param symbol: offset in the parameter buffer)
    kFrame,        // .local or function .param symbol: `offset` into the lane's local
                   // window, relative to the running frame's base (WarpCtx::frame_base)
  };
  Kind kind = Kind::kNone;
  bool negated = false;
  AddrBase base = AddrBase::kRegister;
  uint8_t count = 0;
  ValueRef ref = kNoRef;
  uint32_t index = 0;
  uint32_t index2 = 0;
  int64_t offset = 0;
};
inline constexpr uint32_t kNoPred = 0xffffffffu;

// Extern functions with no PTX body that the emulator implements itself.
enum class Builtin : uint8_t {
  kNone, kVprintf, kAssertFail, kMalloc, kFree, kGraphSetConditional,
  // The CUDA device runtime (dynamic parallelism, core/device_launches.h):
  kCdpGetParameterBuffer,  // __cudaCDP2GetParameterBufferV2(func, grid, block, shared)
  kCdpLaunchDevice,        // __cudaCDP2LaunchDeviceV2[_ptsz](buffer, stream)
  kCdpNoError,             // __cudaCDP2GetLastError / PeekAtLastError: cudaSuccess
  kCdpGetDevice,           // __cudaCDP2GetDevice(int*): device 0
  kCdpStreamCreate,        // __cudaCDP2StreamCreateWithFlags(stream*, flags): a handle
  kCdpStreamDestroy,       // __cudaCDP2StreamDestroy(stream): cudaSuccess
  kDeviceRuntimeUnsupported,  // any other device-runtime entry: a fault naming the call when reached
};

// A function symbol used as a value (`mov.u64 %rd, f;` for indirect calls) is
// this tag | function index: never a valid data address.
inline constexpr uint64_t kFunctionPointerTag = 0xfff0000000000000ull;

struct Inst;
struct WarpCtx;
// A handler runs one instruction for the lanes in `exec` (active lanes whose
// guard predicate holds; may be 0 only for control instructions, which also see
// the unguarded mask in WarpCtx::active).
using Handler = void (*)(const Inst& inst, WarpCtx& ctx, uint32_t exec);

inline constexpr int kMaxOperands = 6;

struct Inst {
  Handler fn = nullptr;
  uint32_t guard = kNoPred;     // predicate slot, kNoPred when unguarded
  bool guard_negated = false;
  bool reads_dynamic_sreg = false;  // refresh %clock & co. before running
  // Deterministic rounds (exec/deterministic_rounds.cpp): the instruction may
  // communicate with other blocks (global or generic atomics, strong loads and
  // stores, device printf/malloc/free), so it runs in the round's serial phase.
  bool serial = false;
  // For a serial instruction with a generic address: 1 + the index of its
  // address operand; it runs at once when every lane addresses its block's
  // shared window (nothing another block can see). 0: always serial.
  uint8_t serial_address = 0;
  // For a serial memory instruction (global or generic): 1 + the index of its
  // address operand, for conflict recording (exec/serial_phase.h). 0: none.
  uint8_t address_operand = 0;
  uint8_t num_ops = 0;
  ptx::Opcode opcode = ptx::Opcode::kUnknown;
  Opnd ops[kMaxOperands];
  ptx::ModifierInfo info;       // types, space, semantics, scope, rounding, ...
  uint32_t site = protocol::kNoSite;  // program-wide site id (Module::site_base + local id)
  uint32_t ptx_line = 0;
  int32_t target = -1;          // control: branch target pc / callee function index
  int32_t reconv = -1;          // conditional/multiway branch: reconvergence pc; kReconvAtExit
  uint32_t aux = 0;             // handler-specific (e.g. lop3 immLut, access classification)
  uint64_t imm = 0;             // handler-specific
  const ptx::Instruction* source = nullptr;  // for diagnostics; owned by the Module's IR
};
inline constexpr int32_t kReconvAtExit = -2;

// One PTX function (.entry or .func), decoded.
struct Function {
  std::string name;
  bool is_entry = false;
  uint32_t module = 0;                   // index in Program::modules
  std::vector<Inst> code;                // pc = index
  uint32_t num_registers = 0;            // slots (all .reg of every type except .pred, plus scratch)
  uint32_t num_predicates = 0;
  std::vector<uint64_t> constants;       // [index * 32 + lane], the same value in every lane
  std::vector<ValueRef> vector_refs;     // Opnd::kVector elements
  // Per-thread local window use of one activation: .local variables, then the
  // .param variables of the body (call arguments/returns) and of the signature.
  uint32_t frame_bytes = 0;
  uint32_t frame_align = 16;
  bool uses_alloca = false;  // dynamic stack allocation above the frame (CallFrame::stack_top)
  // Signature: offsets of the parameters / return values in the callee's frame
  // (kFrame addresses), for call/ret to copy; for an .entry, offsets in the
  // kernel parameter buffer.
  struct Param { uint32_t offset = 0; uint32_t size = 0; uint32_t align = 1; };
  std::vector<Param> params;
  std::vector<Param> returns;
  uint32_t param_buffer_bytes = 0;       // .entry: total parameter buffer size
  uint32_t static_shared_bytes = 0;      // .entry: extent of the .shared variables it reaches (decode/README.md)
  uint32_t max_threads = 1024;           // .entry: from .maxntid/.reqntid, else 1024
  // A .func whose body is a bar.warp.sync of its one 4-byte parameter (loaded
  // from .param, then ret): -G builds' __syncwarp(mask). A divergent call to it
  // waits in the caller's frame like the instruction (exec/control_ops.cpp).
  bool warp_sync_wrapper = false;
  const ptx::Function* source = nullptr;

  // brx.idx tables: the instruction's ops[1] is Opnd::kLabel with index = first
  // entry here and count = entries; each entry is a pc.
  std::vector<uint32_t> jump_tables;
  // One entry per call instruction (Inst::aux = index here).
  struct CallSite {
    int32_t callee = -1;               // function index for direct calls; -1 = indirect
    ValueRef callee_ref = kNoRef;      // indirect: register holding a function pointer value
    Builtin builtin = Builtin::kNone;  // extern functions the emulator provides
    std::vector<uint32_t> arg_offsets; // caller-frame offsets of the argument .param symbols
    std::vector<uint32_t> arg_sizes;
    std::vector<uint32_t> ret_offsets; // caller-frame offsets of the return .param symbols
    std::vector<uint32_t> ret_sizes;
    std::string callee_name;  // kDeviceRuntimeUnsupported: the function, for its fault
  };
  std::vector<CallSite> call_sites;
  // Instructions the emulator does not implement, decoded as a fault when
  // reached (Inst::aux = index here): the decoder's message naming it.
  std::vector<std::string> unsupported;
};

// A kernel's thread-block-cluster directives (sm_90): .reqnctapercluster
// (__cluster_dims__), .explicitcluster, .maxclusterrank. Read by the launch
// (exec/launch.cpp, which checks them) and by the runtime's cluster queries.
struct ClusterDirectives {
  bool has_required = false;          // .reqnctapercluster given
  uint64_t required[3] = {1, 1, 1};   // its values as written (the launch rejects 0s)
  bool explicit_cluster = false;      // .explicitcluster or .reqnctapercluster: a cluster launch
  uint64_t max_rank = 0;              // .maxclusterrank; 0: none
};
inline ClusterDirectives ClusterDirectivesOf(const ptx::Function* source) {
  ClusterDirectives c;
  if (source == nullptr) return c;
  for (const ptx::PerformanceDirective& dir : source->directives) {
    if (dir.name == ".explicitcluster") c.explicit_cluster = true;
    if (dir.name == ".maxclusterrank" && !dir.values.empty()) c.max_rank = dir.values[0];
    if (dir.name != ".reqnctapercluster" || dir.values.empty()) continue;
    c.has_required = c.explicit_cluster = true;
    for (size_t i = 0; i < 3; ++i) c.required[i] = i < dir.values.size() ? dir.values[i] : 1;
  }
  return c;
}

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_CORE_EXEC_FORM_H_
