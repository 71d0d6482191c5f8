// Test harness of the integer/bit/video families: runs ONE PTX instruction on one
// warp without the decoder or interpreter. The instruction is parsed with
// ptx::ParseInstruction, its operands are decoded here the way the decoder
// does it (registers -> slots, immediates -> constants, %p* -> predicate
// slots, {..} -> Function::vector_refs, p|q -> kPredPair, symbols ->
// kAddress), the family selectors pick the handler, and Run() calls it with a
// lane mask. Registers and predicates are plain arrays the test reads/writes.
#ifndef BARRACUDA_PTX_EMULATOR_TESTS_INTEGER_HARNESS_H_
#define BARRACUDA_PTX_EMULATOR_TESTS_INTEGER_HARNESS_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ptx_emulator/core/handlers.h"
#include "ptx_emulator/core/warp_context.h"
#include "ptx_rewriter/parser.h"

namespace barracuda::emu::testing {

// How a named symbol operand decodes (mov %rd, sym).
struct TestSymbol {
  Opnd::AddrBase base = Opnd::AddrBase::kAbsolute;
  int64_t offset = 0;
};

class OneInst {
 public:
  explicit OneInst(const std::string& text, std::map<std::string, TestSymbol> symbols = {})
      : symbols_(std::move(symbols)) {
    auto ir = ptx::ParseInstruction(text);
    if (!ir.ok()) throw std::runtime_error("parse: " + std::string(ir.status().message()));
    ir_ = *ir;
    inst_.opcode = ir_.op;
    inst_.info = ir_.info;
    inst_.source = &ir_;
    if (ir_.operands.size() > kMaxOperands) throw std::runtime_error("too many operands");
    for (const auto& o : ir_.operands) inst_.ops[inst_.num_ops++] = Decode(o);
    fn_.num_registers = static_cast<uint32_t>(reg_slots_.size());
    fn_.num_predicates = static_cast<uint32_t>(pred_slots_.size());
    regs_.assign((fn_.num_registers + 1) * kLanes, 0);
    preds_.assign(fn_.num_predicates + 1, 0);
    sregs_.assign(static_cast<size_t>(SpecialReg::kCount) * kLanes, 0);
    for (uint32_t l = 0; l < kLanes; ++l) {
      sregs_[static_cast<size_t>(SpecialReg::kLaneId) * kLanes + l] = l;
      sregs_[static_cast<size_t>(SpecialReg::kTidX) * kLanes + l] = 64 + l;
    }
    ctx_.regs = regs_.data();
    ctx_.consts = fn_.constants.data();
    ctx_.sregs = sregs_.data();
    ctx_.preds = preds_.data();
    ctx_.function = &fn_;
    ctx_.active = ctx_.exists = ctx_.live = kFullMask;

    auto r = SelectIntegerOp(ir_, inst_);
    if (r.ok() && !*r) r = SelectBitOp(ir_, inst_);
    if (r.ok() && !*r) r = SelectVideoOp(ir_, inst_);
    if (!r.ok()) status_ = r.status();
    else if (!*r) status_ = absl::NotFoundError("no family selected " + text);
  }

  const absl::Status& status() const { return status_; }
  bool ok() const { return status_.ok() && inst_.fn != nullptr; }
  const Inst& inst() const { return inst_; }
  WarpCtx& ctx() { return ctx_; }

  void Run(uint32_t exec = kFullMask) {
    if (!ok()) throw std::runtime_error("instruction not selected: " + std::string(status_.message()));
    inst_.fn(inst_, ctx_, exec);
  }

  uint64_t& Reg(const std::string& name, uint32_t lane) { return regs_[Slot(name) * kLanes + lane]; }
  void SetAll(const std::string& name, uint64_t v) {
    for (uint32_t l = 0; l < kLanes; ++l) Reg(name, l) = v;
  }
  uint32_t& Pred(const std::string& name) {
    auto it = pred_slots_.find(name);
    if (it == pred_slots_.end()) throw std::runtime_error("no predicate " + name);
    return preds_[it->second];
  }
  bool HasReg(const std::string& name) const { return reg_slots_.count(name) != 0; }

 private:
  uint32_t Slot(const std::string& name) {
    auto it = reg_slots_.find(name);
    if (it == reg_slots_.end()) throw std::runtime_error("no register " + name);
    return it->second;
  }
  uint32_t RegSlot(const std::string& name) {
    auto [it, fresh] = reg_slots_.emplace(name, static_cast<uint32_t>(reg_slots_.size()));
    (void)fresh;
    return it->second;
  }
  uint32_t PredSlot(const std::string& name) {
    auto [it, fresh] = pred_slots_.emplace(name, static_cast<uint32_t>(pred_slots_.size()));
    (void)fresh;
    return it->second;
  }
  ValueRef Constant(uint64_t v) {
    const uint32_t index = static_cast<uint32_t>(fn_.constants.size() / kLanes);
    for (uint32_t l = 0; l < kLanes; ++l) fn_.constants.push_back(v);
    return ConstantRef(index);
  }
  static bool IsPredName(const std::string& n) { return n.rfind("%p", 0) == 0; }
  ValueRef ValueOf(const ptx::Operand& o) {
    using K = ptx::Operand::Kind;
    if (o.kind == K::kImmediate || o.kind == K::kFloat) return Constant(static_cast<uint64_t>(o.value));
    if (o.kind == K::kSink) return RegisterRef(RegSlot("_"));
    if (o.text == "%laneid") return SpecialRef(static_cast<uint32_t>(SpecialReg::kLaneId));
    if (o.text == "%tid.x") return SpecialRef(static_cast<uint32_t>(SpecialReg::kTidX));
    return RegisterRef(RegSlot(o.text));
  }
  Opnd Decode(const ptx::Operand& o) {
    using K = ptx::Operand::Kind;
    Opnd r;
    switch (o.kind) {
      case K::kRegister:
        if (IsPredName(o.text)) {
          r.kind = Opnd::Kind::kPred;
          r.index = PredSlot(o.text);
          r.negated = o.negated;
        } else {
          r.kind = Opnd::Kind::kValue;
          r.ref = ValueOf(o);
        }
        break;
      case K::kImmediate:
      case K::kFloat:
        r.kind = Opnd::Kind::kValue;
        r.ref = ValueOf(o);
        break;
      case K::kSink: r.kind = Opnd::Kind::kSink; break;
      case K::kPredPair:
        r.kind = Opnd::Kind::kPredPair;
        r.index = o.elements[0].kind == K::kSink ? kNoPred : PredSlot(o.elements[0].text);
        r.index2 = o.elements[1].kind == K::kSink ? kNoPred : PredSlot(o.elements[1].text);
        break;
      case K::kVector:
        r.kind = Opnd::Kind::kVector;
        r.index = static_cast<uint32_t>(fn_.vector_refs.size());
        r.count = static_cast<uint8_t>(o.elements.size());
        for (const auto& e : o.elements) fn_.vector_refs.push_back(ValueOf(e));
        break;
      case K::kSymbol: {
        if (o.text.rfind("fn_", 0) == 0) {
          r.kind = Opnd::Kind::kFunction;
          r.index = 7;
          break;
        }
        auto it = symbols_.find(o.text);
        if (it == symbols_.end()) throw std::runtime_error("unknown symbol " + o.text);
        r.kind = Opnd::Kind::kAddress;
        r.base = it->second.base;
        r.offset = it->second.offset + o.offset;
        break;
      }
      case K::kAddress: {
        r.kind = Opnd::Kind::kAddress;
        const ptx::Operand& b = o.elements.at(0);
        if (b.kind == K::kRegister) {
          r.base = Opnd::AddrBase::kRegister;
          r.ref = ValueOf(b);
          r.offset = o.offset;
        } else {
          auto it = symbols_.find(b.text);
          if (it == symbols_.end()) throw std::runtime_error("unknown symbol " + b.text);
          r.base = it->second.base;
          r.offset = it->second.offset + o.offset;
        }
        break;
      }
      default: throw std::runtime_error("operand kind not supported by the harness");
    }
    return r;
  }

  std::map<std::string, TestSymbol> symbols_;
  ptx::Instruction ir_;
  Inst inst_;
  Function fn_;
  std::map<std::string, uint32_t> reg_slots_;
  std::map<std::string, uint32_t> pred_slots_;
  std::vector<uint64_t> regs_;
  std::vector<uint32_t> preds_;
  std::vector<uint64_t> sregs_;
  WarpCtx ctx_;
  absl::Status status_;
};

// Operand values for table tests: the first samples walk all combinations of
// edge values (of every width, so truncation is exercised too), the rest are
// random 64-bit patterns and random small numbers (shift amounts, positions).
class Inputs {
 public:
  explicit Inputs(uint64_t seed = 1) : rng_(seed) {}
  static const std::vector<uint64_t>& Edges() {
    static const std::vector<uint64_t> kEdges = {
        0,          1,          2,          3,          7,           8,          15,         16,
        31,         32,         33,         63,         64,          65,         0x7f,       0x80,
        0xff,       0x7fff,     0x8000,     0xffff,     0x7fffffff,  0x80000000, 0xffffffff, 0x100000000ull,
        0x7fffffffffffffffull,  0x8000000000000000ull,  ~0ull,       ~0ull - 1,  0xfffffffe, 0x12345678,
        0xdeadbeefcafef00dull,  0xffff8000,
    };
    return kEdges;
  }
  // The i-th sample of operand `k` (0..2) of an `arity`-operand instruction.
  uint64_t Get(size_t i, int k, int arity) {
    const auto& e = Edges();
    const size_t n = e.size();
    size_t combos = 1;
    for (int j = 0; j < arity; ++j) combos *= n;
    if (i < combos) {
      size_t idx = i;
      for (int j = 0; j < k; ++j) idx /= n;
      return e[idx % n];
    }
    switch (rng_() % 4) {
      case 0: return rng_() % 80;
      case 1: return rng_() & 0xffffffffu;
      default: return rng_();
    }
  }
  static size_t Samples(int arity) {
    size_t combos = 1;
    for (int j = 0; j < arity; ++j) combos *= Edges().size();
    return std::min<size_t>(combos, 40000) + 2048;
  }

 private:
  std::mt19937_64 rng_;
};

}  // namespace barracuda::emu::testing

#endif  // BARRACUDA_PTX_EMULATOR_TESTS_INTEGER_HARNESS_H_
