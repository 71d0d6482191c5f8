#include "ptx_emulator/decode/function_decoder.h"

#include <algorithm>
#include <bit>
#include <memory>
#include <optional>

#include "ptx_rewriter/text_concat.h"
#include "ptx_emulator/core/warp_context.h"
#include "ptx_emulator/decode/special_registers.h"
#include "ptx_rewriter/cfg.h"
#include "ptx_rewriter/reconvergence.h"
#include "ptx_rewriter/access_record.h"
#include "ptx_rewriter/sync_inference.h"

namespace barracuda::emu {
namespace {

using ptx::Operand;

// What a name declared in the function (or its signature) stands for.
struct Binding {
  enum class Kind : uint8_t { kRegister, kPredicate, kFrame, kParamBuffer, kShared };
  Kind kind = Kind::kRegister;
  uint32_t value = 0;  // slot, predicate slot or offset
  uint32_t size = 0;   // bytes, for kFrame / kParamBuffer
};

// Register slot 0 is the scratch register `_` sinks write to.
constexpr uint32_t kScratchSlot = 0;

std::string InstructionText(const ptx::Instruction& ir) {
  if (ir.opaque) return ir.verbatim;
  std::string s(ir.opcode_name());
  for (const std::string& m : ir.modifiers) s += m;
  return s;
}

uint32_t PackAccess(const ptx::AccessClass& a) {
  const std::optional<protocol::Op> op = ptx::RecordOp(a.kind);
  return PackAccessClass(op ? static_cast<uint8_t>(*op) : static_cast<uint8_t>(kAuxNotLogged),
                         static_cast<uint8_t>(ptx::RecordScope(a.scope)), ptx::RecordFlags(a));
}

bool IsMemorySite(const ptx::Instruction& ir) {
  const auto kind = ptx::ClassifySite(ir);
  if (!kind) return false;
  switch (*kind) {
    case ptx::SiteKind::kLoad:
    case ptx::SiteKind::kStore:
    case ptx::SiteKind::kAtomic:
    case ptx::SiteKind::kReduction:
    case ptx::SiteKind::kAsyncCopy:
    case ptx::SiteKind::kFence:
      return true;
    default:
      return false;
  }
}

// Whether the instruction may talk to other blocks (exec/deterministic_rounds.cpp
// runs it in a round's serial phase): atomics and morally strong loads and
// stores (.relaxed, .acquire, .release, .volatile, .mmio) whose address may be
// global (global or generic space), and the device runtime's printf, malloc
// and free. Weak accesses need no such order: two blocks' weak accesses to one
// location in one round are unordered, i.e. a data race the detector reports.
bool RunsInSerialPhase(const ptx::Instruction& ir, Builtin builtin) {
  if (ir.op == ptx::Opcode::kCall) return builtin != Builtin::kNone;
  const ptx::StateSpace sp = ir.info.space;
  const bool may_be_global =
      sp == ptx::StateSpace::kGlobal || sp == ptx::StateSpace::kNone || sp == ptx::StateSpace::kGeneric;
  if (!may_be_global) return false;
  if (ir.op == ptx::Opcode::kAtom || ir.op == ptx::Opcode::kRed) return true;
  if (ir.op != ptx::Opcode::kLd && ir.op != ptx::Opcode::kSt) return false;
  switch (ir.info.sem) {
    case ptx::MemSemantics::kRelaxed:
    case ptx::MemSemantics::kAcquire:
    case ptx::MemSemantics::kRelease:
    case ptx::MemSemantics::kAcqRel:
    case ptx::MemSemantics::kSc:
    case ptx::MemSemantics::kVolatile:
    case ptx::MemSemantics::kMmio:
      return true;
    default:
      return false;
  }
}

// The CUDA device runtime (libcudadevrt: device-side launches, streams and
// events, for dynamic parallelism) reaches the driver through these extern
// functions, which only the GPU's own linker provides.
bool IsDeviceRuntimeFunction(std::string_view name) {
  return name.starts_with("cnp") || name.starts_with("__cuda_syscall_") || name.starts_with("__cudaCDP") ||
         name.starts_with("cudaLaunchDevice") || name.starts_with("cudaGetParameterBuffer");
}

// A float literal's bits for an operand of type `t`: decimal literals and 0d
// are doubles, 0f is single; PTX converts them to the instruction's type.
uint64_t FloatOperandBits(const Operand& o, ptx::Type t) {
  std::string_view text = o.text;
  if (!text.empty() && text[0] == '-') text.remove_prefix(1);
  const bool single = text.size() > 1 && text[0] == '0' && (text[1] == 'f' || text[1] == 'F');
  const uint64_t v = static_cast<uint64_t>(o.value);
  if (t == ptx::Type::kF32) {
    if (single) return v & 0xffffffffu;
    return std::bit_cast<uint32_t>(static_cast<float>(std::bit_cast<double>(v)));
  }
  if (t == ptx::Type::kF64 && single)
    return std::bit_cast<uint64_t>(static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(v))));
  return single ? (v & 0xffffffffu) : v;
}

class Decoder {
 public:
  Decoder(const ModuleContext& m, const ptx::Function& f, std::span<const Selector> selectors, Function& out)
      : m_(m), f_(f), selectors_(selectors), out_(out) {}

  absl::Status Run();

 private:
  // Function::warp_sync_wrapper, from the decoded code.
  void MarkWarpSyncWrapper();
  absl::Status Error(uint32_t line, std::string_view what) const {
    return absl::InvalidArgumentError(ptx::Cat(m_.name, ":", line, ": ", what));
  }
  absl::Status Unsupported(const ptx::Instruction& ir) const {
    return absl::UnimplementedError(
        ptx::Cat("unsupported PTX instruction `", InstructionText(ir), "` at ", m_.name, ":", ir.pos.line));
  }

  void MapStatements();
  absl::Status LayoutFrame();
  absl::Status Declare(const ptx::VarDecl& decl);
  Inst InstOf(size_t stmt, const ptx::Instruction& ir) const;
  absl::Status DecodeInstruction(size_t stmt, const ptx::Instruction& ir);
  void DecodeAsUnsupported(size_t stmt, const ptx::Instruction& ir, absl::string_view message);
  absl::Status DecodeCall(const ptx::Instruction& ir, Inst& inst);
  absl::StatusOr<Opnd> DecodeOperand(const Operand& o, size_t position, const ptx::Instruction& ir, Inst& inst);
  absl::StatusOr<Opnd> DecodeAddress(const Operand& o, const ptx::Instruction& ir);
  absl::StatusOr<ValueRef> DecodeVectorElement(const Operand& o, size_t position, const ptx::Instruction& ir,
                                               Inst& inst);
  absl::StatusOr<uint32_t> PredicateSlot(const Operand& o, const ptx::Instruction& ir) const;
  absl::StatusOr<const Binding*> FrameSymbol(const Operand& o, const ptx::Instruction& ir) const;
  absl::StatusOr<int32_t> ReconvergencePc(size_t stmt, uint32_t line);
  absl::Status Select(const ptx::Instruction& ir, Inst& inst) const;

  const Binding* Lookup(std::string_view name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto f = it->find(std::string(name)); f != it->end()) return &f->second;
    return nullptr;
  }
  const LinkedSymbol* ModuleSymbol(std::string_view name) const {
    auto it = m_.symbols->find(std::string(name));
    return it == m_.symbols->end() ? nullptr : &it->second;
  }
  // %reserved_smem_offset_{begin,end,cap,0,1}: the system-reserved .shared
  // region the loader set aside (cooperative groups keep grid-sync state there).
  std::optional<uint64_t> ReservedSharedOffset(std::string_view name) const {
    constexpr std::string_view kPrefix = "%reserved_smem_offset_";
    if (name.substr(0, kPrefix.size()) != kPrefix || m_.reserved_shared_bytes == 0) return std::nullopt;
    const std::string_view which = name.substr(kPrefix.size());
    const uint64_t base = m_.reserved_shared_base, half = m_.reserved_shared_bytes / 2;
    if (which == "begin" || which == "0") return base;
    if (which == "1") return base + half;
    if (which == "end") return base + m_.reserved_shared_bytes;
    if (which == "cap") return m_.reserved_shared_bytes;
    return std::nullopt;
  }
  uint32_t Constant(uint64_t v) {
    auto [it, inserted] = constants_.emplace(v, static_cast<uint32_t>(constant_values_.size()));
    if (inserted) constant_values_.push_back(v);
    return it->second;
  }
  ptx::Type OperandType(const ptx::Instruction& ir, size_t position) const {
    // cvt.dst.src / set.cmp.dst.src: sources have the second type.
    if ((ir.op == ptx::Opcode::kCvt || ir.op == ptx::Opcode::kSet) && position > 0 && ir.info.num_types > 1)
      return ir.info.type2();
    return ir.info.type();
  }

  const ModuleContext& m_;
  const ptx::Function& f_;
  std::span<const Selector> selectors_;
  Function& out_;

  std::vector<uint32_t> pc_of_statement_;  // pc of the first instruction at or after statement i
  uint32_t instruction_count_ = 0;
  absl::flat_hash_map<std::string, uint32_t> labels_;
  bool needs_implicit_ret_ = false;
  absl::flat_hash_map<const ptx::Declarator*, Binding> frame_vars_;  // .local and body .param
  std::vector<absl::flat_hash_map<std::string, Binding>> scopes_;
  absl::flat_hash_map<uint64_t, uint32_t> constants_;
  std::vector<uint64_t> constant_values_;
  uint32_t next_slot_ = 1;  // 0 = scratch
  uint32_t next_pred_ = 0;
  std::vector<uint32_t> site_of_statement_;
  std::vector<ptx::AccessClass> access_;
  std::optional<ptx::FunctionCfg> cfg_;
  std::optional<ptx::Reconvergence> reconv_;
};

void Decoder::MapStatements() {
  pc_of_statement_.assign(f_.body.size() + 1, 0);
  uint32_t pc = 0;
  for (size_t i = 0; i < f_.body.size(); ++i) {
    pc_of_statement_[i] = pc;
    if (std::holds_alternative<ptx::Instruction>(f_.body[i])) ++pc;
  }
  pc_of_statement_[f_.body.size()] = pc;
  instruction_count_ = pc;
  for (size_t i = 0; i < f_.body.size(); ++i)
    if (const auto* l = std::get_if<ptx::Label>(&f_.body[i])) labels_.emplace(l->name, pc_of_statement_[i]);

  site_of_statement_.assign(f_.body.size(), protocol::kNoSite);
  if (m_.sites != nullptr)
    if (auto it = m_.sites->find(f_.name); it != m_.sites->end())
      for (const auto& [stmt, id] : it->second)
        if (stmt < site_of_statement_.size()) site_of_statement_[stmt] = m_.site_base + id;
}

absl::Status Decoder::LayoutFrame() {
  uint64_t cursor = 0;
  uint32_t max_align = 16;
  auto place = [&](const ptx::VarDecl& v, const ptx::Declarator& d) -> Binding {
    const uint32_t align = DeclAlign(v);
    max_align = std::max(max_align, align);
    cursor = AlignUp(cursor, align);
    const uint64_t bytes = DeclaratorBytes(v, d);
    Binding b{Binding::Kind::kFrame, static_cast<uint32_t>(cursor), static_cast<uint32_t>(bytes)};
    cursor += bytes;  // checked against the frame limit once laid out
    return b;
  };
  // .local variables first, then the body's .param variables (call arguments).
  // Variables of sibling { } scopes are never live together: each scope starts
  // where its parent's variables end and gives its bytes back at its end, so a
  // body with a call block per instruction (instrumented code: thousands) needs
  // the deepest nesting's bytes, not their sum (ptxas allocates them likewise).
  for (ptx::StateSpace space : {ptx::StateSpace::kLocal, ptx::StateSpace::kParam}) {
    std::vector<uint64_t> scope_start;
    uint64_t high = cursor;
    for (const ptx::Statement& s : f_.body) {
      if (std::holds_alternative<ptx::ScopeBegin>(s)) {
        scope_start.push_back(cursor);
      } else if (std::holds_alternative<ptx::ScopeEnd>(s) && !scope_start.empty()) {
        high = std::max(high, cursor);
        cursor = scope_start.back();
        scope_start.pop_back();
      } else if (const auto* v = std::get_if<ptx::VarDecl>(&s); v && v->space == space) {
        for (const ptx::Declarator& d : v->declarators) frame_vars_[&d] = place(*v, d);
      }
    }
    cursor = std::max(high, cursor);
  }

  scopes_.emplace_back();
  auto bind_signature = [&](const std::vector<ptx::VarDecl>& list, std::vector<Function::Param>& out,
                            uint64_t& at, Binding::Kind kind) -> absl::Status {
    for (const ptx::VarDecl& v : list) {
      if (v.space != ptx::StateSpace::kParam)
        return Error(v.pos.line, ptx::Cat("`.reg` parameter `", v.name(), "` of `", f_.name,
                                               "` is not supported (only .param parameters)"));
      const ptx::Declarator& d = v.declarators.front();
      const uint32_t align = DeclAlign(v);
      at = AlignUp(at, align);
      const uint64_t bytes = DeclaratorBytes(v, d);
      const auto size = static_cast<uint32_t>(bytes);
      out.push_back(Function::Param{static_cast<uint32_t>(at), size, align});
      scopes_.front()[d.name] = Binding{kind, static_cast<uint32_t>(at), size};
      at += bytes;
      if (kind == Binding::Kind::kFrame) max_align = std::max(max_align, align);
    }
    return absl::OkStatus();
  };
  if (f_.is_entry) {
    uint64_t at = 0;
    if (auto s = bind_signature(f_.params, out_.params, at, Binding::Kind::kParamBuffer); !s.ok()) return s;
    if (at > UINT32_MAX / 2) return Error(f_.pos.line, ptx::Cat("the parameters of `", f_.name, "` are too large"));
    out_.param_buffer_bytes = static_cast<uint32_t>(at);
  } else {
    if (auto s = bind_signature(f_.params, out_.params, cursor, Binding::Kind::kFrame); !s.ok()) return s;
    if (auto s = bind_signature(f_.returns, out_.returns, cursor, Binding::Kind::kFrame); !s.ok()) return s;
  }
  if (cursor > UINT32_MAX / 2)
    return Error(f_.pos.line, ptx::Cat("the frame of `", f_.name, "` (.local and .param variables) is too large"));
  out_.frame_align = max_align;
  out_.frame_bytes = static_cast<uint32_t>(AlignUp(cursor, 16));
  return absl::OkStatus();
}

absl::Status Decoder::Declare(const ptx::VarDecl& v) {
  auto& scope = scopes_.back();
  switch (v.space) {
    case ptx::StateSpace::kReg:
      if (v.vector_width != 0)
        return Error(v.pos.line, ptx::Cat("vector register `", v.name(), "` is not supported"));
      for (const ptx::Declarator& d : v.declarators) {
        if (!d.dims.empty()) return Error(v.pos.line, ptx::Cat("register array `", d.name, "` is not supported"));
        const bool pred = v.type == ptx::Type::kPred;
        auto add = [&](std::string name) {
          // Each declaration gets its own slot: an inner scope's %r1 never
          // aliases the outer one.
          const uint32_t slot = pred ? next_pred_++ : next_slot_++;
          scope[std::move(name)] = Binding{pred ? Binding::Kind::kPredicate : Binding::Kind::kRegister, slot, 0};
        };
        if (d.range == 0) {
          add(d.name);
        } else {
          for (uint32_t i = 0; i < d.range; ++i) add(ptx::Cat(d.name, i));
        }
      }
      return absl::OkStatus();
    case ptx::StateSpace::kLocal:
    case ptx::StateSpace::kParam:
      for (const ptx::Declarator& d : v.declarators) scope[d.name] = frame_vars_.at(&d);
      return absl::OkStatus();
    case ptx::StateSpace::kShared:
      for (const ptx::Declarator& d : v.declarators) {
        auto it = m_.body_shared->find(&d);
        if (it == m_.body_shared->end())
          return Error(v.pos.line, ptx::Cat("internal: no layout for .shared `", d.name, "`"));
        scope[d.name] = Binding{Binding::Kind::kShared, it->second, 0};
      }
      return absl::OkStatus();
    default:
      return Error(v.pos.line, ptx::Cat("`", ptx::StateSpaceName(v.space), "` variable `", v.name(),
                                             "` declared in a function body is not supported"));
  }
}

absl::StatusOr<uint32_t> Decoder::PredicateSlot(const Operand& o, const ptx::Instruction& ir) const {
  const Binding* b = Lookup(o.text);
  if (b == nullptr || b->kind != Binding::Kind::kPredicate)
    return Error(ir.pos.line, ptx::Cat("`", o.text, "` is not a declared predicate register"));
  return b->value;
}

absl::StatusOr<const Binding*> Decoder::FrameSymbol(const Operand& o, const ptx::Instruction& ir) const {
  const Binding* b = (o.kind == Operand::Kind::kSymbol || o.kind == Operand::Kind::kRegister) ? Lookup(o.text)
                                                                                               : nullptr;
  if (b == nullptr || b->kind != Binding::Kind::kFrame)
    return Error(ir.pos.line, ptx::Cat("call argument `", o.text, "` is not a .param variable of `", f_.name, "`"));
  return b;
}

absl::StatusOr<ValueRef> Decoder::DecodeVectorElement(const Operand& o, size_t position, const ptx::Instruction& ir,
                                                      Inst& inst) {
  if (o.kind == Operand::Kind::kSink) return RegisterRef(kScratchSlot);
  auto d = DecodeOperand(o, position, ir, inst);
  if (!d.ok()) return d.status();
  if (d->kind != Opnd::Kind::kValue)
    return Error(ir.pos.line, ptx::Cat("vector element `", o.text, "` must be a register or a constant"));
  return d->ref;
}

absl::StatusOr<Opnd> Decoder::DecodeAddress(const Operand& o, const ptx::Instruction& ir) {
  if (o.elements.size() != 1) return Unsupported(ir);  // texture / surface forms
  const Operand& base = o.elements[0];
  Opnd r;
  r.kind = Opnd::Kind::kAddress;
  const int64_t offset = o.offset + base.offset;
  if (base.kind == Operand::Kind::kImmediate) {
    r.base = Opnd::AddrBase::kAbsolute;
    r.offset = base.value + o.offset;
    return r;
  }
  if (base.kind != Operand::Kind::kRegister && base.kind != Operand::Kind::kSymbol)
    return Error(ir.pos.line, "malformed address operand");
  if (const Binding* b = Lookup(base.text)) {
    switch (b->kind) {
      case Binding::Kind::kRegister:
        r.base = Opnd::AddrBase::kRegister;
        r.ref = RegisterRef(b->value);
        r.offset = offset;
        return r;
      case Binding::Kind::kFrame:
        r.base = Opnd::AddrBase::kFrame;
        r.offset = int64_t{b->value} + offset;
        return r;
      case Binding::Kind::kParamBuffer:
      case Binding::Kind::kShared:
        r.base = Opnd::AddrBase::kAbsolute;
        r.offset = int64_t{b->value} + offset;
        return r;
      case Binding::Kind::kPredicate:
        return Error(ir.pos.line, ptx::Cat("predicate `", base.text, "` used as an address"));
    }
  }
  if (const LinkedSymbol* s = ModuleSymbol(base.text)) {
    switch (s->kind) {
      case LinkedSymbol::Kind::kData:
      case LinkedSymbol::Kind::kShared:
        r.base = Opnd::AddrBase::kAbsolute;
        r.offset = static_cast<int64_t>(s->value) + offset;
        return r;
      case LinkedSymbol::Kind::kUnresolved:
        return Error(ir.pos.line, ptx::Cat("unresolved symbol `", base.text, "` (declared at ", s->declared_at,
                                                "): no definition in the link unit"));
      default:
        return Error(ir.pos.line, ptx::Cat("function `", base.text, "` used as an address"));
    }
  }
  if (base.text[0] == '%') return Error(ir.pos.line, ptx::Cat("undeclared register `", base.text, "`"));
  return Error(ir.pos.line, ptx::Cat("undefined symbol `", base.text, "`"));
}

absl::StatusOr<Opnd> Decoder::DecodeOperand(const Operand& o, size_t position, const ptx::Instruction& ir,
                                            Inst& inst) {
  Opnd r;
  switch (o.kind) {
    case Operand::Kind::kImmediate:
      r.kind = Opnd::Kind::kValue;
      r.ref = ConstantRef(Constant(static_cast<uint64_t>(o.value)));
      return r;
    case Operand::Kind::kFloat:
      r.kind = Opnd::Kind::kValue;
      r.ref = ConstantRef(Constant(FloatOperandBits(o, OperandType(ir, position))));
      return r;
    case Operand::Kind::kSink:
      r.kind = Opnd::Kind::kSink;
      r.ref = RegisterRef(kScratchSlot);
      return r;
    case Operand::Kind::kAddress:
      // [tensorMap, {c0, ...}] of cp.async.bulk.tensor: the base address, with
      // the coordinates as a vector (Opnd::kAddress count/index).
      // The same shape for [texobj, {c...}] / [surfobj, {c...}] of tex, tld4,
      // suld and sust (ops/texture_ops.cpp).
      if ((ir.op == ptx::Opcode::kCp || ir.op == ptx::Opcode::kTex || ir.op == ptx::Opcode::kTld4 ||
           ir.op == ptx::Opcode::kSuld || ir.op == ptx::Opcode::kSust) &&
          o.elements.size() == 2 && o.elements[1].kind == Operand::Kind::kVector) {
        Operand base = o;
        base.elements.resize(1);
        auto a = DecodeAddress(base, ir);
        if (!a.ok()) return a.status();
        auto coords = DecodeOperand(o.elements[1], position, ir, inst);
        if (!coords.ok()) return coords.status();
        a->index = coords->index;
        a->count = coords->count;
        return a;
      }
      return DecodeAddress(o, ir);
    case Operand::Kind::kVector: {
      if (o.elements.size() > 255) return Error(ir.pos.line, "vector operand too long");
      std::vector<ValueRef> refs;
      for (const Operand& e : o.elements) {
        auto ref = DecodeVectorElement(e, position, ir, inst);
        if (!ref.ok()) return ref.status();
        refs.push_back(*ref);
      }
      r.kind = Opnd::Kind::kVector;
      r.index = static_cast<uint32_t>(out_.vector_refs.size());
      r.count = static_cast<uint8_t>(refs.size());
      out_.vector_refs.insert(out_.vector_refs.end(), refs.begin(), refs.end());
      return r;
    }
    case Operand::Kind::kPredPair: {
      if (o.elements.size() != 2) return Error(ir.pos.line, "malformed predicate pair");
      r.kind = Opnd::Kind::kPredPair;
      // shfl.sync / match.sync.all / elect.sync `d|p` (added by memory): a value
      // register (or `_`) and a predicate: ref = d (kNoRef for `_`), index =
      // kNoPred, index2 = p (ops/warp_ops.cpp reads it so).
      if (ir.op == ptx::Opcode::kShfl || ir.op == ptx::Opcode::kMatch || ir.op == ptx::Opcode::kElect) {
        r.index = kNoPred;
        r.index2 = kNoPred;
        if (o.elements[0].kind != Operand::Kind::kSink) {
          auto d = DecodeOperand(o.elements[0], position, ir, inst);
          if (!d.ok()) return d.status();
          if (d->kind != Opnd::Kind::kValue || RefKind(d->ref) != kRefRegister)
            return Error(ir.pos.line, ptx::Cat("`", o.elements[0].text, "` is not a register"));
          r.ref = d->ref;
        }
        if (o.elements[1].kind != Operand::Kind::kSink) {
          auto s = PredicateSlot(o.elements[1], ir);
          if (!s.ok()) return s.status();
          r.index2 = *s;
        }
        return r;
      }
      uint32_t slots[2];
      for (int i = 0; i < 2; ++i) {
        if (o.elements[i].kind == Operand::Kind::kSink) {
          slots[i] = kNoPred;
          continue;
        }
        auto s = PredicateSlot(o.elements[i], ir);
        if (!s.ok()) return s.status();
        slots[i] = *s;
      }
      r.index = slots[0];
      r.index2 = slots[1];
      return r;
    }
    case Operand::Kind::kList:
      return Error(ir.pos.line, "unexpected operand list");
    case Operand::Kind::kRegister:
    case Operand::Kind::kSymbol:
      break;
  }

  // A name: the innermost declaration wins, then labels, module symbols and
  // special registers.
  if (const Binding* b = Lookup(o.text)) {
    if (o.negated && b->kind != Binding::Kind::kPredicate)
      return Error(ir.pos.line, ptx::Cat("`!` applied to `", o.text, "`, which is not a predicate"));
    switch (b->kind) {
      case Binding::Kind::kRegister:
        if (o.offset != 0) return Error(ir.pos.line, ptx::Cat("offset applied to register `", o.text, "`"));
        r.kind = Opnd::Kind::kValue;
        r.ref = RegisterRef(b->value);
        return r;
      case Binding::Kind::kPredicate:
        r.kind = Opnd::Kind::kPred;
        r.index = b->value;
        r.negated = o.negated;
        return r;
      case Binding::Kind::kFrame:
        // Its value depends on the running frame: the mov handler adds frame_base.
        r.kind = Opnd::Kind::kAddress;
        r.base = Opnd::AddrBase::kFrame;
        r.offset = int64_t{b->value} + o.offset;
        return r;
      case Binding::Kind::kParamBuffer:
      case Binding::Kind::kShared:
        // The address in its own state space is a constant.
        r.kind = Opnd::Kind::kValue;
        r.ref = ConstantRef(Constant(static_cast<uint64_t>(int64_t{b->value} + o.offset)));
        return r;
    }
  }
  if (o.negated) return Error(ir.pos.line, ptx::Cat("`", o.text, "` is not a declared predicate register"));
  if (auto it = labels_.find(o.text); it != labels_.end()) {
    r.kind = Opnd::Kind::kLabel;
    r.index = it->second;
    if (it->second == instruction_count_) needs_implicit_ret_ = true;
    return r;
  }
  if (const LinkedSymbol* s = ModuleSymbol(o.text)) {
    r.kind = Opnd::Kind::kValue;
    switch (s->kind) {
      case LinkedSymbol::Kind::kData:
      case LinkedSymbol::Kind::kShared:
        r.ref = ConstantRef(Constant(s->value + static_cast<uint64_t>(o.offset)));
        return r;
      case LinkedSymbol::Kind::kFunction:
        r.ref = ConstantRef(Constant(kFunctionPointerTag | s->value));
        return r;
      case LinkedSymbol::Kind::kBuiltin:
        return Error(ir.pos.line, ptx::Cat("the address of built-in function `", o.text, "` cannot be taken"));
      case LinkedSymbol::Kind::kUnresolved:
        return Error(ir.pos.line, ptx::Cat("unresolved symbol `", o.text, "` (declared at ", s->declared_at,
                                                "): no definition in the link unit"));
    }
  }
  if (!o.text.empty() && o.text[0] == '%') {
    if (auto sreg = LookupSpecialRegister(o.text)) {
      if (IsDynamicSpecialRegister(*sreg)) inst.reads_dynamic_sreg = true;
      r.kind = Opnd::Kind::kValue;
      r.ref = SpecialRef(static_cast<uint32_t>(*sreg));
      return r;
    }
    if (auto v = ReservedSharedOffset(o.text)) {
      r.kind = Opnd::Kind::kValue;
      r.ref = ConstantRef(Constant(*v));
      return r;
    }
    return Error(ir.pos.line, ptx::Cat("undeclared register `", o.text, "`"));
  }
  if (auto v = PredefinedConstant(o.text)) {
    r.kind = Opnd::Kind::kValue;
    r.ref = ConstantRef(Constant(*v + static_cast<uint64_t>(o.offset)));
    return r;
  }
  return Error(ir.pos.line, ptx::Cat("undefined symbol `", o.text, "`"));
}

absl::StatusOr<int32_t> Decoder::ReconvergencePc(size_t stmt, uint32_t line) {
  if (!reconv_) {
    auto cfg = ptx::BuildCfg(f_, m_.name);
    if (!cfg.ok()) return cfg.status();
    cfg_ = *std::move(cfg);
    reconv_ = ptx::ComputeReconvergence(*cfg_);
  }
  const ptx::BranchReconvergence* br = reconv_->ForStatement(stmt);
  if (br == nullptr) return Error(line, "internal: branch missing from the reconvergence analysis");
  if (br->at_exit()) return kReconvAtExit;
  // A block of labels only (e.g. before the closing brace) reconverges at the
  // next instruction, or at exit when none follows.
  const size_t at = br->reconvergence_statement
                        ? *br->reconvergence_statement
                        : cfg_->blocks[static_cast<size_t>(br->reconvergence_block)].first_statement;
  const uint32_t pc = pc_of_statement_[at];
  return pc >= instruction_count_ ? kReconvAtExit : static_cast<int32_t>(pc);
}

absl::Status Decoder::DecodeCall(const ptx::Instruction& ir, Inst& inst) {
  const Operand* target = ir.call_target();
  if (target == nullptr) return Error(ir.pos.line, "call without a target");
  Function::CallSite cs;
  Opnd callee;
  const Binding* reg = Lookup(target->text);
  if (target->kind == Operand::Kind::kRegister || (reg != nullptr && reg->kind == Binding::Kind::kRegister)) {
    auto d = DecodeOperand(*target, 0, ir, inst);
    if (!d.ok()) return d.status();
    if (d->kind != Opnd::Kind::kValue)
      return Error(ir.pos.line, ptx::Cat("indirect call target `", target->text, "` is not a register"));
    callee = *d;
    cs.callee_ref = d->ref;
  } else {
    const LinkedSymbol* s = ModuleSymbol(target->text);
    if (s == nullptr) return Error(ir.pos.line, ptx::Cat("call to undefined function `", target->text, "`"));
    switch (s->kind) {
      case LinkedSymbol::Kind::kFunction:
        cs.callee = static_cast<int32_t>(s->value);
        callee.kind = Opnd::Kind::kFunction;
        callee.index = static_cast<uint32_t>(s->value);
        inst.target = cs.callee;
        break;
      case LinkedSymbol::Kind::kBuiltin:
        cs.builtin = s->builtin;
        callee.kind = Opnd::Kind::kFunction;
        callee.index = 0xffffffffu;  // no PTX body: see CallSite::builtin
        break;
      case LinkedSymbol::Kind::kUnresolved:
        if (IsDeviceRuntimeFunction(target->text)) {
          // A device-runtime entry the emulator does not implement (device-side
          // events, async copies, ...; the launches are builtins): loading
          // succeeds, reaching the call faults naming it (cudaErrorNotSupported).
          cs.builtin = Builtin::kDeviceRuntimeUnsupported;
          cs.callee_name = target->text;
          callee.kind = Opnd::Kind::kFunction;
          callee.index = 0xffffffffu;
          break;
        }
        return Error(ir.pos.line, ptx::Cat("unresolved function `", target->text, "` (declared at ",
                                                s->declared_at, "): no definition in the link unit"));
      default:
        return Error(ir.pos.line, ptx::Cat("call target `", target->text, "` is not a function"));
    }
  }
  auto collect = [&](const Operand* list, std::vector<uint32_t>& offsets, std::vector<uint32_t>& sizes) {
    if (list == nullptr) return absl::OkStatus();
    for (const Operand& e : list->elements) {
      auto b = FrameSymbol(e, ir);
      if (!b.ok()) return b.status();
      offsets.push_back((*b)->value + static_cast<uint32_t>(e.offset));
      sizes.push_back((*b)->size);
    }
    return absl::OkStatus();
  };
  if (auto s = collect(ir.call_arguments(), cs.arg_offsets, cs.arg_sizes); !s.ok()) return s;
  if (auto s = collect(ir.call_returns(), cs.ret_offsets, cs.ret_sizes); !s.ok()) return s;
  inst.ops[0] = callee;
  inst.num_ops = 1;
  inst.aux = static_cast<uint32_t>(out_.call_sites.size());
  out_.call_sites.push_back(std::move(cs));
  return absl::OkStatus();
}

absl::Status Decoder::Select(const ptx::Instruction& ir, Inst& inst) const {
  for (Selector select : selectors_) {
    absl::StatusOr<bool> r = select(ir, inst);
    if (!r.ok())
      return absl::Status(r.status().code(), ptx::Cat(std::string(r.status().message()), " at ", m_.name, ":", ir.pos.line));
    if (*r) {
      if (inst.fn == nullptr)
        return absl::InternalError(
            ptx::Cat("selector took `", InstructionText(ir), "` without a handler at ", m_.name, ":", ir.pos.line));
      return absl::OkStatus();
    }
  }
  return Unsupported(ir);
}

// The fields every decoded instruction takes from its statement.
Inst Decoder::InstOf(size_t stmt, const ptx::Instruction& ir) const {
  Inst inst;
  inst.opcode = ir.op;
  inst.info = ir.info;
  inst.ptx_line = ir.pos.line;
  inst.source = &ir;
  inst.site = site_of_statement_[stmt];
  return inst;
}

absl::Status Decoder::DecodeInstruction(size_t stmt, const ptx::Instruction& ir) {
  Inst inst = InstOf(stmt, ir);
  if (ir.opaque || ir.op == ptx::Opcode::kUnknown) return Unsupported(ir);
  if (ir.guard.present()) {
    const Binding* b = Lookup(ir.guard.reg);
    if (b == nullptr || b->kind != Binding::Kind::kPredicate)
      return Error(ir.pos.line, ptx::Cat("guard `", ir.guard.reg, "` is not a declared predicate register"));
    inst.guard = b->value;
    inst.guard_negated = ir.guard.negated;
  }

  switch (ir.op) {
    case ptx::Opcode::kBra: {
      const Operand* t = ir.branch_target();
      if (t == nullptr || !labels_.contains(t->text))
        return Error(ir.pos.line, ptx::Cat("branch to undefined label `", t ? t->text : "", "`"));
      auto d = DecodeOperand(*t, 0, ir, inst);
      if (!d.ok()) return d.status();
      inst.ops[0] = *d;
      inst.num_ops = 1;
      inst.target = static_cast<int32_t>(d->index);
      if (ir.guard.present()) {
        auto pc = ReconvergencePc(stmt, ir.pos.line);
        if (!pc.ok()) return pc.status();
        inst.reconv = *pc;
      }
      break;
    }
    case ptx::Opcode::kBrx: {
      if (ir.operands.size() != 2) return Unsupported(ir);
      auto index = DecodeOperand(ir.operands[0], 0, ir, inst);
      if (!index.ok()) return index.status();
      const ptx::BranchTargets* table = f_.FindBranchTargets(ir.operands[1].text);
      if (table == nullptr)
        return Error(ir.pos.line, ptx::Cat("brx.idx: `", ir.operands[1].text, "` is not a .branchtargets table"));
      Opnd t;
      t.kind = Opnd::Kind::kLabel;
      t.index = static_cast<uint32_t>(out_.jump_tables.size());
      // count saturates for tables of 256+ entries; index2 always holds the size.
      t.count = static_cast<uint8_t>(std::min<size_t>(table->labels.size(), 255));
      t.index2 = static_cast<uint32_t>(table->labels.size());
      for (const std::string& label : table->labels) {
        auto it = labels_.find(label);
        if (it == labels_.end())
          return Error(ir.pos.line, ptx::Cat("brx.idx table `", table->name, "`: undefined label `", label, "`"));
        if (it->second == instruction_count_) needs_implicit_ret_ = true;
        out_.jump_tables.push_back(it->second);
      }
      inst.ops[0] = *index;
      inst.ops[1] = t;
      inst.num_ops = 2;
      auto pc = ReconvergencePc(stmt, ir.pos.line);
      if (!pc.ok()) return pc.status();
      inst.reconv = *pc;
      break;
    }
    case ptx::Opcode::kCall:
      if (auto s = DecodeCall(ir, inst); !s.ok()) return s;
      break;
    case ptx::Opcode::kAlloca:
      out_.uses_alloca = true;  // the launch must give its threads a local window
      [[fallthrough]];
    default: {
      // wgmma.mma_async has up to 8 operands; its last ones are immediates
      // (imm-scale-a/b, imm-trans-a/b), which its selector reads from the IR,
      // so only the first kMaxOperands are decoded.
      size_t decoded = ir.operands.size();
      if (ir.op == ptx::Opcode::kWgmma && decoded <= 8) decoded = std::min<size_t>(decoded, kMaxOperands);
      if (decoded > static_cast<size_t>(kMaxOperands))
        return absl::UnimplementedError(ptx::Cat("unsupported PTX instruction `", InstructionText(ir), "` at ",
                                                     m_.name, ":", ir.pos.line, ": more than ", kMaxOperands,
                                                     " operands"));
      for (size_t i = 0; i < decoded; ++i) {
        auto d = DecodeOperand(ir.operands[i], i, ir, inst);
        if (!d.ok()) return d.status();
        inst.ops[i] = *d;
      }
      inst.num_ops = static_cast<uint8_t>(decoded);
      break;
    }
  }
  if (IsMemorySite(ir)) inst.aux = PackAccess(access_[stmt]);
  if (auto s = Select(ir, inst); !s.ok()) return s;
  inst.serial = RunsInSerialPhase(
      ir, ir.op == ptx::Opcode::kCall && inst.aux < out_.call_sites.size() ? out_.call_sites[inst.aux].builtin
                                                                          : Builtin::kNone);
  if (inst.serial && ir.op != ptx::Opcode::kCall) {
    const int address = ir.op == ptx::Opcode::kLd || ir.op == ptx::Opcode::kAtom ? 1 : 0;
    if (address < inst.num_ops && inst.ops[address].kind != Opnd::Kind::kNone) {
      inst.address_operand = static_cast<uint8_t>(address + 1);
      if (ir.info.space != ptx::StateSpace::kGlobal) inst.serial_address = inst.address_operand;
    }
  }
  out_.code.push_back(inst);
  return absl::OkStatus();
}

// Reaching an instruction the emulator does not implement faults
// (FaultKind::kUnsupported: the launch fails with cudaErrorNotSupported and
// the run is incomplete), naming it. Decoded this way rather than refusing
// the module, so that the module's kernels that never run it still run.
void UnsupportedInstruction(const Inst& inst, WarpCtx& ctx, uint32_t exec) {
  if (exec == 0) return;
  const std::string& what = inst.aux < ctx.function->unsupported.size() ? ctx.function->unsupported[inst.aux]
                                                                          : std::string("unsupported PTX instruction");
  ctx.Raise(FaultKind::kUnsupported, inst, static_cast<uint32_t>(std::countr_zero(exec)), 0, what);
}

void Decoder::DecodeAsUnsupported(size_t stmt, const ptx::Instruction& ir, absl::string_view message) {
  Inst inst = InstOf(stmt, ir);
  if (ir.guard.present())  // lanes whose guard is false do not reach it
    if (const Binding* b = Lookup(ir.guard.reg); b != nullptr && b->kind == Binding::Kind::kPredicate) {
      inst.guard = b->value;
      inst.guard_negated = ir.guard.negated;
    }
  inst.fn = &UnsupportedInstruction;
  inst.aux = static_cast<uint32_t>(out_.unsupported.size());
  out_.unsupported.emplace_back(message);
  out_.code.push_back(inst);
}

void Decoder::MarkWarpSyncWrapper() {
  if (out_.is_entry || out_.params.size() != 1 || out_.params[0].size != 4) return;
  int syncs = 0;
  for (const Inst& in : out_.code) {
    if (in.guard != kNoPred) return;
    if (in.opcode == ptx::Opcode::kBar && in.info.barrier == ptx::BarrierMode::kWarpSync) {
      ++syncs;
    } else if (in.opcode != ptx::Opcode::kRet && in.opcode != ptx::Opcode::kMov &&
               !(in.opcode == ptx::Opcode::kLd && in.info.space == ptx::StateSpace::kParam)) {
      return;
    }
  }
  out_.warp_sync_wrapper = syncs == 1;
}

absl::Status Decoder::Run() {
  out_.name = f_.name;
  out_.is_entry = f_.is_entry;
  out_.module = m_.module_id;
  out_.source = &f_;
  out_.static_shared_bytes = m_.static_shared_bytes;
  for (const ptx::PerformanceDirective& d : f_.directives)
    if ((d.name == ".maxntid" || d.name == ".reqntid") && !d.values.empty()) {
      uint64_t n = 1;
      for (uint64_t v : d.values) n *= v;
      if (n > 0 && n < out_.max_threads) out_.max_threads = static_cast<uint32_t>(n);
    }
  MapStatements();
  if (auto s = LayoutFrame(); !s.ok()) return s;
  access_ = ptx::ClassifyAccesses(f_);
  access_.resize(f_.body.size());
  out_.code.reserve(instruction_count_ + 1);

  for (size_t i = 0; i < f_.body.size(); ++i) {
    const ptx::Statement& s = f_.body[i];
    if (std::holds_alternative<ptx::ScopeBegin>(s)) {
      scopes_.emplace_back();
    } else if (std::holds_alternative<ptx::ScopeEnd>(s)) {
      if (scopes_.size() > 1) scopes_.pop_back();
    } else if (const auto* v = std::get_if<ptx::VarDecl>(&s)) {
      if (auto st = Declare(*v); !st.ok()) return st;
    } else if (const auto* ir = std::get_if<ptx::Instruction>(&s)) {
      if (auto st = DecodeInstruction(i, *ir); !st.ok()) {
        if (st.code() != absl::StatusCode::kUnimplemented || !m_.fault_unsupported_when_reached) return st;
        DecodeAsUnsupported(i, *ir, st.message());
      }
    }
  }

  // Running off the end of the body returns (ptxas treats it so); a label
  // after the last instruction also lands here.
  const bool ends_in_jump = [&] {
    if (out_.code.empty()) return false;
    const Inst& last = out_.code.back();
    if (last.guard != kNoPred) return false;
    switch (last.opcode) {
      case ptx::Opcode::kRet: case ptx::Opcode::kExit: case ptx::Opcode::kTrap:
      case ptx::Opcode::kBra: case ptx::Opcode::kBrx:
        return true;
      default:
        return false;
    }
  }();
  if (needs_implicit_ret_ || !ends_in_jump) {
    static const ptx::Instruction kImplicitRet = ptx::Instruction::Make(ptx::Opcode::kRet, {}, {});
    Inst inst;
    inst.opcode = ptx::Opcode::kRet;
    inst.info = kImplicitRet.info;
    inst.source = &kImplicitRet;
    if (!f_.body.empty()) {
      // The closing brace's line is not kept; the last statement's is close.
      std::visit([&](const auto& st) { inst.ptx_line = st.pos.line; }, f_.body.back());
    }
    if (auto s = Select(kImplicitRet, inst); !s.ok()) return s;
    out_.code.push_back(inst);
  }

  MarkWarpSyncWrapper();
  out_.num_registers = next_slot_;
  out_.num_predicates = next_pred_;
  out_.constants.resize(constant_values_.size() * kLanes);
  for (size_t i = 0; i < constant_values_.size(); ++i)
    std::fill_n(out_.constants.begin() + static_cast<std::ptrdiff_t>(i * kLanes), kLanes, constant_values_[i]);
  return absl::OkStatus();
}

}  // namespace

absl::Status DecodeFunction(const ModuleContext& module, const ptx::Function& function,
                            std::span<const Selector> selectors, Function& out) {
  return Decoder(module, function, selectors, out).Run();
}

}  // namespace barracuda::emu
