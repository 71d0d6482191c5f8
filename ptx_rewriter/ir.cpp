// IR helpers: operand/instruction accessors, lookups, and difference reporting.
#include "ptx_rewriter/ir.h"

#include "ptx_rewriter/printer.h"
#include "ptx_rewriter/text_concat.h"

namespace barracuda::ptx {

Operand Operand::Immediate(int64_t v) {
  Operand o;
  o.kind = Kind::kImmediate;
  o.value = v;
  o.text = std::to_string(v);
  return o;
}

const Operand* Instruction::branch_target() const {
  if (op == Opcode::kBra) return operands.empty() ? nullptr : &operands.back();
  if (op == Opcode::kBrx) return operands.size() < 2 ? nullptr : &operands[1];
  return nullptr;
}

// call operands: [ (rets), ] target [, (args) ] [, prototype-or-targets ]
const Operand* Instruction::call_target() const {
  if (op != Opcode::kCall) return nullptr;
  for (const Operand& o : operands)
    if (o.kind != Operand::Kind::kList) return &o;
  return nullptr;
}

const Operand* Instruction::call_returns() const {
  if (op != Opcode::kCall || operands.empty()) return nullptr;
  return operands[0].kind == Operand::Kind::kList ? &operands[0] : nullptr;
}

const Operand* Instruction::call_arguments() const {
  if (op != Opcode::kCall) return nullptr;
  const Operand* target = call_target();
  if (target == nullptr) return nullptr;
  size_t i = static_cast<size_t>(target - operands.data()) + 1;
  return i < operands.size() && operands[i].kind == Operand::Kind::kList ? &operands[i] : nullptr;
}

const Operand* Instruction::call_prototype() const {
  if (op != Opcode::kCall) return nullptr;
  const Operand* target = call_target();
  if (target == nullptr) return nullptr;
  size_t i = static_cast<size_t>(target - operands.data()) + 1;
  if (i < operands.size() && operands[i].kind == Operand::Kind::kList) ++i;
  return i < operands.size() ? &operands[i] : nullptr;
}

bool Instruction::is_async_proxy_fence() const {
  if (!info.proxy) return false;
  for (const std::string& m : modifiers)
    if (m == ".async" || m.starts_with(".async::")) return true;
  return false;
}

const BranchTargets* Function::FindBranchTargets(std::string_view n) const {
  for (const Statement& s : body)
    if (const auto* bt = std::get_if<BranchTargets>(&s); bt && bt->name == n) return bt;
  return nullptr;
}

const CallPrototype* Function::FindCallPrototype(std::string_view n) const {
  for (const Statement& s : body)
    if (const auto* cp = std::get_if<CallPrototype>(&s); cp && cp->name == n) return cp;
  return nullptr;
}

Function* Module::FindFunction(std::string_view n) {
  Function* decl = nullptr;
  for (ModuleItem& item : items)
    if (auto* f = std::get_if<Function>(&item); f && f->name == n) {
      if (f->has_body) return f;
      if (!decl) decl = f;
    }
  return decl;  // prefer the definition over a forward declaration
}

const Function* Module::FindFunction(std::string_view n) const {
  return const_cast<Module*>(this)->FindFunction(n);
}

const VarDecl* Module::FindGlobal(std::string_view n) const {
  for (const ModuleItem& item : items)
    if (const auto* v = std::get_if<VarDecl>(&item))
      for (const Declarator& d : v->declarators)
        if (d.name == n) return v;
  return nullptr;
}

const FileDirective* Module::FindFile(uint32_t index) const {
  for (const ModuleItem& item : items)
    if (const auto* f = std::get_if<FileDirective>(&item); f && f->index == index) return f;
  return nullptr;
}

std::vector<Function*> Module::Functions() {
  std::vector<Function*> out;
  for (ModuleItem& item : items)
    if (auto* f = std::get_if<Function>(&item)) out.push_back(f);
  return out;
}

std::vector<const Function*> Module::Functions() const {
  std::vector<const Function*> out;
  for (const ModuleItem& item : items)
    if (const auto* f = std::get_if<Function>(&item)) out.push_back(f);
  return out;
}

std::string FormatDebugLoc(const Module& m, const DebugLoc& loc) {
  if (!loc.valid()) return "";
  const FileDirective* f = m.FindFile(loc.file);
  std::string name = f ? f->name : Cat("<file ", loc.file, ">");
  return Cat(name, ":", loc.line, ":", loc.column);
}

namespace {

std::string ItemName(const ModuleItem& item) {
  if (const auto* f = std::get_if<Function>(&item)) return Cat("function ", f->name);
  if (const auto* v = std::get_if<VarDecl>(&item))
    return Cat("variable ", v->declarators.empty() ? "" : v->declarators[0].name);
  if (const auto* f = std::get_if<FileDirective>(&item)) return Cat(".file ", f->index);
  if (const auto* s = std::get_if<SectionDirective>(&item)) return Cat(".section ", s->name);
  if (std::holds_alternative<PragmaDirective>(item)) return ".pragma";
  return ".alias";
}

}  // namespace

std::string DescribeDifference(const Module& a, const Module& b) {
  if (a.version_major != b.version_major || a.version_minor != b.version_minor) return ".version differs";
  if (a.targets != b.targets) return ".target differs";
  if (a.address_size != b.address_size) return ".address_size differs";
  size_t n = std::min(a.items.size(), b.items.size());
  for (size_t i = 0; i < n; ++i) {
    if (a.items[i] == b.items[i]) continue;
    const auto* fa = std::get_if<Function>(&a.items[i]);
    const auto* fb = std::get_if<Function>(&b.items[i]);
    if (fa && fb && fa->name == fb->name) {
      size_t m = std::min(fa->body.size(), fb->body.size());
      for (size_t j = 0; j < m; ++j)
        if (!(fa->body[j] == fb->body[j]))
          return Cat("function ", fa->name, ", statement ", j, ": '", PrintStatement(fa->body[j]),
                              "' vs '", PrintStatement(fb->body[j]), "'");
      if (fa->body.size() != fb->body.size())
        return Cat("function ", fa->name, ": ", fa->body.size(), " vs ", fb->body.size(),
                            " statements");
      return Cat("function ", fa->name, ": header differs");
    }
    return Cat("item ", i, ": ", ItemName(a.items[i]), " vs ", ItemName(b.items[i]));
  }
  if (a.items.size() != b.items.size())
    return Cat(a.items.size(), " vs ", b.items.size(), " top-level items");
  return "";
}

}  // namespace barracuda::ptx
