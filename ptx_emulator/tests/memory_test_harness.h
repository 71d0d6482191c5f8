// Handler-level test harness for the memory and warp families: one warp with
// its own register file, predicates, shared and local windows, a parameter
// buffer, a DeviceMemory for global memory and a collecting tracer. PTX
// instruction text is parsed with ParseInstruction and its operands decoded by
// a small fixed register map (not the real decoder):
//   %rN -> slot N, %rdN -> slot 16+N, %fN -> slot 32+N, %rsN -> slot 48+N,
//   %qN (.b128) -> slots 56+2N, 57+2N; `_` -> slot 63; %pN -> predicate N;
//   immediates -> constants; [reg+off] / [imm] -> addresses.
#ifndef BARRACUDA_PTX_EMULATOR_TESTS_MEMORY_TEST_HARNESS_H_
#define BARRACUDA_PTX_EMULATOR_TESTS_MEMORY_TEST_HARNESS_H_

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ptx_emulator/core/device_memory.h"
#include "ptx_emulator/core/exec_form.h"
#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/core/warp_context.h"
#include "ptx_rewriter/parser.h"

namespace barracuda::emu::testing {

inline constexpr uint32_t kSlots = 64;
inline constexpr uint32_t kSinkSlot = 63;

class WarpHarness {
 public:
  static constexpr uint32_t kSharedBytes = 1024;
  static constexpr uint32_t kLocalStride = 256;
  static constexpr uint32_t kParamBytes = 64;

  WarpHarness() : memory(uint64_t{1} << 30), tracer(&sink, 0, &stamps) {
    regs.assign(kSlots * kLanes, 0);
    sregs.assign(static_cast<size_t>(SpecialReg::kCount) * kLanes, 0);
    shared = static_cast<uint8_t*>(std::aligned_alloc(256, kSharedBytes));
    local = static_cast<uint8_t*>(std::aligned_alloc(256, kLocalStride * kLanes));
    std::fill(shared, shared + kSharedBytes, 0);
    std::fill(local, local + kLocalStride * kLanes, 0);
    std::fill(std::begin(param), std::end(param), 0);
    function.is_entry = true;
    ctx.regs = regs.data();
    ctx.sregs = sregs.data();
    ctx.preds = preds;
    ctx.function = &function;
    ctx.active = ctx.exists = ctx.live = kFullMask;
    ctx.block_linear = 3;
    ctx.warp_global = 7;
    ctx.threads_per_block = 64;
    ctx.shared_base = shared;
    ctx.shared_bytes = kSharedBytes;
    ctx.local_base = local;
    ctx.local_stride = kLocalStride;
    ctx.param_base = param;
    ctx.param_bytes = kParamBytes;
    ctx.memory = &memory;
    sink.OnLaunchBegin(protocol::Record{}, 1);
  }
  ~WarpHarness() {
    std::free(shared);
    std::free(local);
  }
  WarpHarness(const WarpHarness&) = delete;
  WarpHarness& operator=(const WarpHarness&) = delete;

  void Trace(bool on) { ctx.tracer = on ? &tracer : nullptr; }

  // Device memory of `bytes` (zeroed), as a host pointer.
  template <typename T = uint8_t>
  T* Global(uint64_t bytes) {
    auto p = memory.Allocate(bytes, DeviceMemory::Kind::kDevice);
    if (!p.ok()) throw std::runtime_error(std::string(p.status().message()));
    std::memset(*p, 0, bytes);
    return static_cast<T*>(*p);
  }

  // Parses and selects one instruction; `aux` is the access classification
  // the decoder would set. Throws on a parse error; returns the selector's status.
  absl::StatusOr<Inst*> Build(const std::string& text, uint32_t aux = kAuxNotLogged) {
    auto ir = ptx::ParseInstruction(text);
    if (!ir.ok()) throw std::runtime_error("parse: " + std::string(ir.status().message()));
    irs_.push_back(std::make_unique<ptx::Instruction>(*ir));
    const ptx::Instruction& in = *irs_.back();
    insts_.push_back(std::make_unique<Inst>());
    Inst& inst = *insts_.back();
    inst.opcode = in.op;
    inst.info = in.info;
    inst.site = 42;
    inst.ptx_line = 9;
    inst.aux = aux;
    inst.source = &in;
    if (in.guard.present()) {
      inst.guard = PredIndex(in.guard.reg);
      inst.guard_negated = in.guard.negated;
    }
    inst.num_ops = static_cast<uint8_t>(in.operands.size());
    for (size_t i = 0; i < in.operands.size(); ++i) inst.ops[i] = DecodeOperand(in.operands[i]);
    ctx.consts = function.constants.data();
    auto r = SelectMemoryOp(in, inst);
    if (r.ok() && !*r) r = SelectWarpOp(in, inst);
    if (r.ok() && !*r && in.op == ptx::Opcode::kBar && in.info.barrier == ptx::BarrierMode::kWarpSync) {
      // bar.warp.sync's record (its divergent waiting is the interpreter's,
      // exec/barriers.cpp, which needs a whole Warp).
      inst.fn = &WarpSyncRecord;
      r = true;
    }
    if (!r.ok()) return r.status();
    if (!*r) return absl::NotFoundError("no family selected " + text);
    return &inst;
  }
  // Builds (must succeed) and runs for `exec`, honouring a guard like the interpreter.
  Inst& Run(const std::string& text, uint32_t exec = kFullMask, uint32_t aux = kAuxNotLogged) {
    auto inst = Build(text, aux);
    if (!inst.ok()) throw std::runtime_error(std::string(inst.status().message()));
    Inst& i = **inst;
    uint32_t mask = exec;
    if (i.guard != kNoPred) mask &= i.guard_negated ? ~preds[i.guard] : preds[i.guard];
    ctx.active = exec;
    i.fn(i, ctx, mask);
    return i;
  }

  uint64_t& R(uint32_t slot, uint32_t lane) { return regs[slot * kLanes + lane]; }
  void SetAll(uint32_t slot, uint64_t v) {
    for (uint32_t l = 0; l < kLanes; ++l) R(slot, l) = v;
  }
  std::vector<protocol::Record>& Records() { return sink.launches.back().rings[0]; }

  std::vector<uint64_t> regs, sregs;
  uint32_t preds[8] = {};
  Function function;
  uint8_t* shared = nullptr;
  uint8_t* local = nullptr;
  alignas(16) uint8_t param[kParamBytes];
  DeviceMemory memory;
  CollectingSink sink;
  std::atomic<uint64_t> stamps{0};
  Tracer tracer;
  WarpCtx ctx;

  static uint32_t Slot(const std::string& name) {
    auto num = [&](size_t prefix) { return static_cast<uint32_t>(std::stoul(name.substr(prefix))); };
    if (name == "_") return kSinkSlot;
    if (name.rfind("%rd", 0) == 0) return 16 + num(3);
    if (name.rfind("%rs", 0) == 0) return 48 + num(3);
    if (name.rfind("%r", 0) == 0) return num(2);
    if (name.rfind("%f", 0) == 0) return 32 + num(2);
    if (name.rfind("%q", 0) == 0) return 56 + 2 * num(2);
    throw std::runtime_error("harness: unknown register " + name);
  }

 private:
  static uint32_t PredIndex(const std::string& name) {
    if (name.rfind("%p", 0) != 0) throw std::runtime_error("harness: not a predicate " + name);
    return static_cast<uint32_t>(std::stoul(name.substr(2)));
  }
  ValueRef Constant(uint64_t v) {
    const uint32_t index = static_cast<uint32_t>(function.constants.size() / kLanes);
    function.constants.insert(function.constants.end(), kLanes, v);
    return ConstantRef(index);
  }
  ValueRef Value(const ptx::Operand& o) {
    if (o.kind == ptx::Operand::Kind::kImmediate || o.kind == ptx::Operand::Kind::kFloat)
      return Constant(static_cast<uint64_t>(o.value));
    if (o.kind == ptx::Operand::Kind::kSink) return RegisterRef(kSinkSlot);
    return RegisterRef(Slot(o.text));
  }
  Opnd DecodeOperand(const ptx::Operand& o) {
    Opnd r;
    switch (o.kind) {
      case ptx::Operand::Kind::kAddress: {
        r.kind = Opnd::Kind::kAddress;
        const ptx::Operand& base = o.elements[0];
        if (base.kind == ptx::Operand::Kind::kImmediate) {
          r.base = Opnd::AddrBase::kAbsolute;
          r.offset = base.value + o.offset;
        } else {
          r.base = Opnd::AddrBase::kRegister;
          r.ref = RegisterRef(Slot(base.text));
          r.offset = o.offset + base.offset;
        }
        return r;
      }
      case ptx::Operand::Kind::kVector: {
        r.kind = Opnd::Kind::kVector;
        r.index = static_cast<uint32_t>(function.vector_refs.size());
        r.count = static_cast<uint8_t>(o.elements.size());
        for (const auto& e : o.elements) function.vector_refs.push_back(Value(e));
        return r;
      }
      case ptx::Operand::Kind::kPredPair: {
        // shfl/elect `d|p`: ref = the value register, index2 = the predicate.
        r.kind = Opnd::Kind::kPredPair;
        const auto& d = o.elements[0];
        const auto& p = o.elements[1];
        r.ref = d.kind == ptx::Operand::Kind::kSink ? kNoRef : RegisterRef(Slot(d.text));
        r.index = kNoPred;
        r.index2 = p.kind == ptx::Operand::Kind::kSink ? kNoPred : PredIndex(p.text);
        return r;
      }
      case ptx::Operand::Kind::kSink:
        r.kind = Opnd::Kind::kSink;
        r.ref = RegisterRef(kSinkSlot);
        return r;
      case ptx::Operand::Kind::kRegister:
        if (o.text.rfind("%p", 0) == 0) {
          r.kind = Opnd::Kind::kPred;
          r.index = PredIndex(o.text);
          r.negated = o.negated;
          return r;
        }
        [[fallthrough]];
      default:
        r.kind = Opnd::Kind::kValue;
        r.ref = Value(o);
        return r;
    }
  }
  std::deque<std::unique_ptr<ptx::Instruction>> irs_;
  std::deque<std::unique_ptr<Inst>> insts_;
};

// The access classification as the decoder packs it.
inline uint32_t Aux(protocol::Op op, protocol::Scope scope = protocol::Scope::kNone, uint8_t flags = 0) {
  return PackAccessClass(static_cast<uint8_t>(op), static_cast<uint8_t>(scope), flags);
}

}  // namespace barracuda::emu::testing

#endif  // BARRACUDA_PTX_EMULATOR_TESTS_MEMORY_TEST_HARNESS_H_
