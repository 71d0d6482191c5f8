// PTX printer. Appends into one std::string reserved up front; no streams.
#include "ptx_rewriter/printer.h"

#include "ptx_rewriter/text_concat.h"

namespace barracuda::ptx {
namespace {

void AppendUint(uint64_t v, std::string& out) {
  char buf[24];
  char* p = buf + sizeof buf;
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  out.append(p, static_cast<size_t>(buf + sizeof buf - p));
}

void AppendInt(int64_t v, std::string& out) {
  if (v < 0) {
    out.push_back('-');
    AppendUint(0 - static_cast<uint64_t>(v), out);
  } else {
    AppendUint(static_cast<uint64_t>(v), out);
  }
}

// "+8", "+-8" (the form nvcc emits and ptxas reads); nothing for 0.
void AppendOffset(int64_t off, std::string& out) {
  if (off == 0) return;
  out.push_back('+');
  AppendInt(off, out);
}

std::string_view LinkageName(Linkage l) {
  switch (l) {
    case Linkage::kNone: return "";
    case Linkage::kExtern: return ".extern";
    case Linkage::kVisible: return ".visible";
    case Linkage::kWeak: return ".weak";
    case Linkage::kCommon: return ".common";
  }
  return "";
}

void AppendInitializer(const Initializer& init, std::string& out) {
  switch (init.kind) {
    case Initializer::Kind::kInteger:
    case Initializer::Kind::kFloat:
      out.append(init.text);
      return;
    case Initializer::Kind::kSymbol:
      if (init.generic) {
        out.append("generic(");
        out.append(init.text);
        out.push_back(')');
      } else {
        out.append(init.text);
      }
      AppendOffset(init.offset, out);
      return;
    case Initializer::Kind::kList:
      out.push_back('{');
      for (size_t i = 0; i < init.elements.size(); ++i) {
        if (i) out.append(", ");
        AppendInitializer(init.elements[i], out);
      }
      out.push_back('}');
      return;
  }
}

void AppendVarDecl(const VarDecl& v, std::string& out) {
  auto word = [&out](std::string_view w) {
    if (w.empty()) return;
    if (!out.empty() && out.back() != '\t' && out.back() != '\n' && out.back() != '(') out.push_back(' ');
    out.append(w);
  };
  word(LinkageName(v.linkage));
  word(StateSpaceName(v.space));
  for (const std::string& a : v.attributes) word(Cat(".attribute(", a, ")"));
  if (v.align) word(Cat(".align ", v.align));
  if (v.vector_width) word(Cat(".v", v.vector_width));
  word(TypeName(v.type));
  if (v.is_ptr) {
    word(".ptr");
    word(StateSpaceName(v.ptr_space));
    if (v.ptr_align) word(Cat(".align ", v.ptr_align));
  }
  out.push_back(v.space == StateSpace::kReg || v.space == StateSpace::kLocal ? '\t' : ' ');
  for (size_t i = 0; i < v.declarators.size(); ++i) {
    const Declarator& d = v.declarators[i];
    if (i) out.append(", ");
    out.append(d.name);
    if (d.range) {
      out.push_back('<');
      AppendUint(d.range, out);
      out.push_back('>');
    }
    for (uint64_t dim : d.dims) {
      out.push_back('[');
      if (dim != Declarator::kUnsizedDim) AppendUint(dim, out);
      out.push_back(']');
    }
    if (d.init) {
      out.append(" = ");
      AppendInitializer(*d.init, out);
    }
  }
}

void AppendParamList(const std::vector<VarDecl>& params, bool multiline, std::string& out) {
  out.push_back('(');
  for (size_t i = 0; i < params.size(); ++i) {
    if (multiline) out.append(i ? ",\n\t" : "\n\t");
    else if (i) out.append(", ");
    std::string decl;
    AppendVarDecl(params[i], decl);
    out.append(decl);
  }
  if (multiline && !params.empty()) out.push_back('\n');
  out.push_back(')');
}

void AppendLoc(const DebugLoc& l, std::string& out) {
  out.append(".loc\t");
  AppendUint(l.file, out);
  out.push_back(' ');
  AppendUint(l.line, out);
  out.push_back(' ');
  AppendUint(l.column, out);
  if (!l.function_name.empty()) {
    out.append(", function_name ");
    out.append(l.function_name);
    if (l.has_inlined_at) {
      out.append(", inlined_at ");
      AppendUint(l.inlined_file, out);
      out.push_back(' ');
      AppendUint(l.inlined_line, out);
      out.push_back(' ');
      AppendUint(l.inlined_column, out);
    }
  }
}

void AppendPragma(const PragmaDirective& p, std::string& out) {
  out.append(".pragma ");
  for (size_t i = 0; i < p.strings.size(); ++i) {
    if (i) out.append(", ");
    out.push_back('"');
    out.append(p.strings[i]);
    out.push_back('"');
  }
  out.push_back(';');
}

// One body statement without indentation or newline.
void AppendStatement(const Statement& s, std::string& out) {
  struct Visitor {
    std::string& out;
    void operator()(const Instruction& i) {
      AppendInstruction(i, out);
      out.push_back(';');
    }
    void operator()(const Label& l) {
      out.append(l.name);
      out.push_back(':');
    }
    void operator()(const VarDecl& v) {
      AppendVarDecl(v, out);
      out.push_back(';');
    }
    void operator()(const LocDirective& l) { AppendLoc(l.loc, out); }
    void operator()(const PragmaDirective& p) { AppendPragma(p, out); }
    void operator()(const BranchTargets& b) {
      out.append(b.name);
      out.append(": .branchtargets ");
      for (size_t i = 0; i < b.labels.size(); ++i) {
        if (i) out.append(", ");
        out.append(b.labels[i]);
      }
      out.push_back(';');
    }
    void operator()(const CallTargets& c) {
      out.append(c.name);
      out.append(": .calltargets ");
      for (size_t i = 0; i < c.functions.size(); ++i) {
        if (i) out.append(", ");
        out.append(c.functions[i]);
      }
      out.push_back(';');
    }
    void operator()(const CallPrototype& p) {
      out.append(p.name);
      out.append(" : .callprototype ");
      if (p.has_return_list) {
        AppendParamList(p.returns, false, out);
        out.push_back(' ');
      }
      out.append("_ ");
      AppendParamList(p.params, false, out);
      if (p.noreturn) out.append(" .noreturn");
      out.push_back(';');
    }
    void operator()(const ScopeBegin&) { out.push_back('{'); }
    void operator()(const ScopeEnd&) { out.push_back('}'); }
  };
  std::visit(Visitor{out}, s);
}

void AppendFunction(const Function& f, std::string& out) {
  std::string_view linkage = LinkageName(f.linkage);
  if (!linkage.empty()) {
    out.append(linkage);
    out.push_back(' ');
  }
  out.append(f.is_entry ? ".entry " : ".func ");
  for (const std::string& a : f.attributes) out += Cat(".attribute(", a, ") ");
  if (f.has_return_list) {
    AppendParamList(f.returns, false, out);
    out.push_back(' ');
  }
  out.append(f.name);
  if (f.has_param_list) AppendParamList(f.params, true, out);
  out.push_back('\n');
  for (const PerformanceDirective& d : f.directives) {
    out.append(d.name);
    for (size_t i = 0; i < d.values.size(); ++i) {
      out.append(i ? ", " : " ");
      AppendUint(d.values[i], out);
    }
    out.push_back('\n');
  }
  if (!f.has_body) {
    out.append(";\n");
    return;
  }
  out.append("{\n");
  for (const Statement& s : f.body) {
    if (std::holds_alternative<Label>(s)) {
      out.push_back('\n');
    } else {
      out.push_back('\t');
    }
    AppendStatement(s, out);
    out.push_back('\n');
  }
  out.append("}\n");
}

}  // namespace

void AppendOperand(const Operand& op, std::string& out) {
  if (op.negated) out.push_back('!');
  if (op.minus) out.push_back('-');
  switch (op.kind) {
    case Operand::Kind::kRegister:
      out.append(op.text);
      out.append(op.select);
      return;
    case Operand::Kind::kImmediate:
    case Operand::Kind::kFloat:
    case Operand::Kind::kSink:
      out.append(op.text);
      return;
    case Operand::Kind::kSymbol:
      out.append(op.text);
      AppendOffset(op.offset, out);
      return;
    case Operand::Kind::kAddress:
      out.push_back('[');
      for (size_t i = 0; i < op.elements.size(); ++i) {
        if (i) out.append(", ");
        AppendOperand(op.elements[i], out);
        if (i == 0) AppendOffset(op.offset, out);
      }
      out.push_back(']');
      return;
    case Operand::Kind::kVector:
    case Operand::Kind::kList:
      out.push_back(op.kind == Operand::Kind::kVector ? '{' : '(');
      for (size_t i = 0; i < op.elements.size(); ++i) {
        if (i) out.append(", ");
        AppendOperand(op.elements[i], out);
      }
      out.push_back(op.kind == Operand::Kind::kVector ? '}' : ')');
      return;
    case Operand::Kind::kPredPair:
      for (size_t i = 0; i < op.elements.size(); ++i) {
        if (i) out.push_back('|');
        AppendOperand(op.elements[i], out);
      }
      return;
  }
}

std::string PrintOperand(const Operand& op) {
  std::string s;
  AppendOperand(op, s);
  return s;
}

void AppendInstruction(const Instruction& inst, std::string& out) {
  if (inst.guard.present()) {
    out.push_back('@');
    if (inst.guard.negated) out.push_back('!');
    out.append(inst.guard.reg);
    out.push_back(' ');
  }
  if (inst.opaque) {
    out.append(inst.verbatim);
    return;
  }
  out.append(inst.opcode_name());
  for (const std::string& m : inst.modifiers) out.append(m);
  for (size_t i = 0; i < inst.operands.size(); ++i) {
    out.append(i ? ", " : " \t");
    AppendOperand(inst.operands[i], out);
  }
}

std::string PrintInstruction(const Instruction& inst) {
  std::string s;
  AppendInstruction(inst, s);
  return s;
}

std::string PrintStatement(const Statement& s) {
  std::string out;
  AppendStatement(s, out);
  return out;
}

std::string PrintFunction(const Function& f) {
  std::string out;
  AppendFunction(f, out);
  return out;
}

std::string PrintModule(const Module& m) {
  std::string out;
  out.reserve(4096);
  out.append("//\n// Printed by barracuda-ptx\n//\n\n");
  if (m.version_major || m.version_minor) out += Cat(".version ", m.version_major, ".", m.version_minor, "\n");
  if (!m.targets.empty()) {
    out.append(".target ");
    for (size_t i = 0; i < m.targets.size(); ++i) {
      if (i) out.append(", ");
      out.append(m.targets[i]);
    }
    out.push_back('\n');
  }
  if (m.address_size) out += Cat(".address_size ", m.address_size, "\n");
  struct Visitor {
    std::string& out;
    void operator()(const VarDecl& v) {
      AppendVarDecl(v, out);
      out.append(";\n");
    }
    void operator()(const Function& f) {
      out.push_back('\n');
      AppendFunction(f, out);
    }
    void operator()(const FileDirective& f) {
      out.append("\t.file\t");
      AppendUint(f.index, out);
      out.append(" \"");
      out.append(f.name);
      out.push_back('"');
      if (f.timestamp) {
        out.append(", ");
        AppendUint(*f.timestamp, out);
        out.append(", ");
        AppendUint(f.size.value_or(0), out);
      }
      out.push_back('\n');
    }
    void operator()(const SectionDirective& s) {
      out.append("\t.section\t");
      out.append(s.name);
      out.append("\n\t{");
      out.append(s.body);
      out.append("}\n");
    }
    void operator()(const PragmaDirective& p) {
      AppendPragma(p, out);
      out.push_back('\n');
    }
    void operator()(const AliasDirective& a) { out += Cat(".alias ", a.alias, ", ", a.aliasee, ";\n"); }
  };
  out.push_back('\n');
  for (const ModuleItem& item : m.items) std::visit(Visitor{out}, item);
  return out;
}

}  // namespace barracuda::ptx
