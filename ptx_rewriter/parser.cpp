// PTX parser: recursive descent over the Lexer's tokens, one token of lookahead.
//
// Errors: every Parse* member returns false after recording the first error in
// status_ ("file:line:col: message"); nothing throws, nothing aborts. Recursion
// (nested initializer braces, nested operand vectors) is depth-limited so that
// hostile input cannot exhaust the stack.
//
// Throughput (bench/parse_print_bench.cpp, g++-12 -O2, shared 2-core machine,
// CPU time): ~98 MB/s parse and ~68 MB/s parse+print on a 1.1 MB -lineinfo CUB
// module; ~87 MB/s parse on a 4.0 MB -G CUB module (mostly verbatim DWARF).
#include "ptx_rewriter/parser.h"

#include <charconv>
#include <cstring>
#include <limits>

#include "ptx_rewriter/text_concat.h"
#include "ptx_rewriter/lexer.h"
#include "ptx_rewriter/literals.h"

namespace barracuda::ptx {
namespace {

constexpr int kMaxNesting = 64;

// A video instruction's operand selector: .b0-.b3 / .h0-.h1 (scalar), .hxy /
// .bxyzw (SIMD, digits from 0-3 / 0-7) and the SIMD masks (.h10, .b3210, ...).
bool IsVideoSelector(std::string_view w) {
  if (w.size() < 3 || w[0] != '.' || (w[1] != 'b' && w[1] != 'h')) return false;
  const size_t digits = w.size() - 2;
  const char max = w[1] == 'b' ? '7' : '3';
  if (digits > (w[1] == 'b' ? 4u : 2u)) return false;
  for (size_t i = 2; i < w.size(); ++i)
    if (w[i] < '0' || w[i] > max) return false;
  return true;
}

bool IsLinkage(std::string_view d, Linkage& out) {
  if (d == ".extern") return out = Linkage::kExtern, true;
  if (d == ".visible") return out = Linkage::kVisible, true;
  if (d == ".weak") return out = Linkage::kWeak, true;
  if (d == ".common") return out = Linkage::kCommon, true;
  return false;
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view filename) : lex_(text), filename_(filename) {}

  absl::StatusOr<Module> Run();
  absl::StatusOr<Instruction> RunInstruction();

 private:
  // ---- error plumbing
  bool Fail(const Token& at, std::string_view msg) {
    if (status_.ok()) {
      std::string text = at.kind == TokenKind::kError ? std::string(lex_.error_message()) : std::string(msg);
      status_ = absl::InvalidArgumentError(Cat(filename_, ":", at.line, ":", at.column, ": ", text));
    }
    return false;
  }
  bool Fail(SourcePos at, std::string_view msg) {
    Token t;
    t.line = at.line;
    t.column = at.column;
    return Fail(t, msg);
  }
  bool FailExpected(std::string_view what) {
    const Token& t = lex_.Peek();
    if (t.kind == TokenKind::kError) return Fail(t, "");
    if (t.kind == TokenKind::kEnd) return Fail(t, Cat("expected ", what, ", found end of input"));
    return Fail(t, Cat("expected ", what, ", found '", t.text, "'"));
  }
  bool ExpectPunct(char c) {
    if (!lex_.Peek().is_punct(c)) return FailExpected(Cat("'", std::string_view(&c, 1), "'"));
    lex_.Next();
    return true;
  }
  bool ConsumePunct(char c) {
    if (!lex_.Peek().is_punct(c)) return false;
    lex_.Next();
    return true;
  }
  bool PeekDot(std::string_view d) const { return lex_.Peek().is(TokenKind::kDotWord, d); }
  static SourcePos Pos(const Token& t) { return SourcePos{t.line, t.column}; }

  bool ExpectUnsigned(uint64_t& v, std::string_view what) {
    const Token& t = lex_.Peek();
    if (t.kind != TokenKind::kInteger) return FailExpected(what);
    if (!ParseIntegerText(t.text, v)) return Fail(t, Cat("integer constant out of range: ", t.text));
    lex_.Next();
    return true;
  }
  bool ExpectU32(uint32_t& v, std::string_view what) {
    uint64_t x = 0;
    const Token at = lex_.Peek();
    if (!ExpectUnsigned(x, what)) return false;
    if (x > std::numeric_limits<uint32_t>::max()) return Fail(at, Cat(what, " out of range"));
    v = static_cast<uint32_t>(x);
    return true;
  }
  bool ExpectIdentifier(std::string& out, std::string_view what) {
    const Token& t = lex_.Peek();
    if (t.kind != TokenKind::kIdentifier) return FailExpected(what);
    out.assign(t.text);
    lex_.Next();
    return true;
  }
  bool ExpectString(std::string& out) {
    const Token& t = lex_.Peek();
    if (t.kind != TokenKind::kString) return FailExpected("string constant");
    out.assign(t.text.substr(1, t.text.size() - 2));
    lex_.Next();
    return true;
  }

  // ---- module level
  bool ParseHeaderDirective(Module& m);
  bool ParseTopLevel(Module& m);
  bool ParseFile(Module& m);
  bool ParseSection(Module& m);
  bool ParsePragma(PragmaDirective& p);
  bool ParseAttribute(std::vector<std::string>& attrs);

  // ---- declarations
  bool ParseVarDecl(VarDecl& v, bool allow_init, bool allow_range, bool single = false);
  bool ParseDeclarator(Declarator& d, bool allow_init, bool allow_range);
  bool ParseInitializer(Initializer& init, int depth);
  bool ParseParamList(std::vector<VarDecl>& params);
  bool ParseFunction(Module& m, Linkage linkage, const Token& start);

  // ---- bodies
  bool ParseBody(Function& f);
  bool ParseLoc(LocDirective& loc);
  bool ParseLabelDirective(Function& f, const Token& name);
  bool ParseInstruction(const Token& opcode, Guard guard, Instruction& inst);
  bool ParseOperand(Operand& op, int depth);
  bool ParseOperandList(std::vector<Operand>& out, char close, int depth);
  bool ParseOffset(int64_t& offset);
  bool MakeOpaque(const Token& opcode, Instruction& inst, bool& has_expression);
  bool IsDeclaredRegister(std::string_view name) const;
  void NoteRegisters(const VarDecl& v);

  Lexer lex_;
  std::string_view filename_;
  absl::Status status_;
  DebugLoc loc_;  // .loc in effect
  // Registers declared without a '%' in the current function: name -> range
  // (0 for a plain name). nvcc always uses '%', so this is almost always empty.
  std::vector<std::pair<std::string, uint32_t>> plain_regs_;
  bool resolve_names_ = true;
};

// ------------------------------------------------------------------ module

absl::StatusOr<Module> Parser::Run() {
  Module m;
  m.filename = std::string(filename_);
  if (lex_.source().size() >= std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError(Cat(filename_, ": input larger than 4 GiB"));
  }
  while (lex_.Peek().kind != TokenKind::kEnd) {
    if (!ParseTopLevel(m)) return status_;
  }
  if (!status_.ok()) return status_;
  return m;
}

bool Parser::ParseHeaderDirective(Module& m) {
  Token d = lex_.Next();
  if (d.text == ".version") {
    const Token& t = lex_.Peek();
    std::string_view s = t.text;
    size_t dot = s.find('.');
    uint32_t major = 0, minor = 0;
    auto dec = [](std::string_view x, uint32_t& v) {
      auto [p, ec] = std::from_chars(x.data(), x.data() + x.size(), v, 10);
      return !x.empty() && ec == std::errc() && p == x.data() + x.size() && v < 1000;
    };
    if (t.kind != TokenKind::kFloat || dot == std::string_view::npos || !dec(s.substr(0, dot), major) ||
        !dec(s.substr(dot + 1), minor))
      return FailExpected("version number MAJOR.MINOR");
    m.version_major = major;
    m.version_minor = minor;
    lex_.Next();
    return true;
  }
  if (d.text == ".target") {
    do {
      std::string t;
      if (!ExpectIdentifier(t, "target name")) return false;
      m.targets.push_back(std::move(t));
    } while (ConsumePunct(','));
    return true;
  }
  // .address_size
  return ExpectU32(m.address_size, "address size");
}

bool Parser::ParseTopLevel(Module& m) {
  const Token t = lex_.Peek();
  if (t.kind != TokenKind::kDotWord) return FailExpected("a directive");
  std::string_view d = t.text;
  if (d == ".version" || d == ".target" || d == ".address_size") return ParseHeaderDirective(m);
  if (d == ".file") return ParseFile(m);
  if (d == ".section") return ParseSection(m);
  if (d == ".pragma") {
    PragmaDirective p;
    if (!ParsePragma(p)) return false;
    m.items.emplace_back(std::move(p));
    return true;
  }
  if (d == ".alias") {
    lex_.Next();
    AliasDirective a;
    a.pos = Pos(t);
    if (!ExpectIdentifier(a.alias, "alias name") || !ExpectPunct(',') ||
        !ExpectIdentifier(a.aliasee, "aliased function") || !ExpectPunct(';'))
      return false;
    m.items.emplace_back(std::move(a));
    return true;
  }
  Linkage linkage = Linkage::kNone;
  if (IsLinkage(d, linkage)) lex_.Next();
  const Token& n = lex_.Peek();
  if (n.is(TokenKind::kDotWord, ".entry") || n.is(TokenKind::kDotWord, ".func"))
    return ParseFunction(m, linkage, t);
  if (n.kind == TokenKind::kDotWord && LookupStateSpace(n.text) != StateSpace::kNone) {
    VarDecl v;
    v.pos = Pos(t);
    v.linkage = linkage;
    if (!ParseVarDecl(v, /*allow_init=*/true, /*allow_range=*/false) || !ExpectPunct(';')) return false;
    m.items.emplace_back(std::move(v));
    return true;
  }
  if (linkage != Linkage::kNone) return FailExpected("'.entry', '.func' or a variable declaration");
  return Fail(t, Cat("unknown directive '", d, "'"));
}

bool Parser::ParseFile(Module& m) {
  Token t = lex_.Next();
  FileDirective f;
  f.pos = Pos(t);
  if (!ExpectU32(f.index, "file index") || !ExpectString(f.name)) return false;
  if (ConsumePunct(',')) {
    uint64_t ts = 0, size = 0;
    if (!ExpectUnsigned(ts, "timestamp") || !ExpectPunct(',') || !ExpectUnsigned(size, "file size")) return false;
    f.timestamp = ts;
    f.size = size;
  }
  m.items.emplace_back(std::move(f));
  return true;
}

bool Parser::ParseSection(Module& m) {
  Token t = lex_.Next();
  SectionDirective s;
  s.pos = Pos(t);
  const Token& n = lex_.Peek();
  if (n.kind != TokenKind::kDotWord && n.kind != TokenKind::kIdentifier) return FailExpected("section name");
  s.name.assign(n.text);
  lex_.Next();
  if (!ExpectPunct('{')) return false;
  std::string_view body;
  if (!lex_.SkipBalancedBraces(body)) return Fail(lex_.Peek(), "");
  s.body.assign(body);
  m.items.emplace_back(std::move(s));
  return true;
}

bool Parser::ParsePragma(PragmaDirective& p) {
  Token t = lex_.Next();
  p.pos = Pos(t);
  do {
    std::string s;
    if (!ExpectString(s)) return false;
    p.strings.push_back(std::move(s));
  } while (ConsumePunct(','));
  return ExpectPunct(';');
}

// `.attribute( ... )`: the text inside the parentheses, verbatim (balanced).
bool Parser::ParseAttribute(std::vector<std::string>& attrs) {
  lex_.Next();  // .attribute
  if (!ExpectPunct('(')) return false;
  const uint32_t start = lex_.consumed_end();
  int depth = 1;
  while (true) {
    const Token& t = lex_.Peek();
    if (t.kind == TokenKind::kEnd || t.kind == TokenKind::kError) return FailExpected("')'");
    if (t.is_punct('(')) ++depth;
    if (t.is_punct(')') && --depth == 0) {
      std::string_view inner = lex_.source().substr(start, t.offset - start);
      while (!inner.empty() && (inner.front() == ' ' || inner.front() == '\t')) inner.remove_prefix(1);
      while (!inner.empty() && (inner.back() == ' ' || inner.back() == '\t')) inner.remove_suffix(1);
      attrs.emplace_back(inner);
      lex_.Next();
      return true;
    }
    lex_.Next();
  }
}

// ------------------------------------------------------------------ declarations

// [linkage] space {.attribute(..) | .align N | .vN | type | .ptr [space] [.align N]} declarators
bool Parser::ParseVarDecl(VarDecl& v, bool allow_init, bool allow_range, bool single) {
  bool after_ptr = false;
  bool have_space = v.space != StateSpace::kNone;
  while (lex_.Peek().kind == TokenKind::kDotWord) {
    const Token t = lex_.Peek();
    std::string_view d = t.text;
    Linkage l;
    if (d == ".attribute") {
      if (!ParseAttribute(v.attributes)) return false;
      continue;
    }
    lex_.Next();
    if (d == ".align") {
      uint32_t a = 0;
      if (!ExpectU32(a, "alignment")) return false;
      (after_ptr ? v.ptr_align : v.align) = a;
    } else if (d == ".ptr") {
      v.is_ptr = true;
      after_ptr = true;
    } else if (d == ".v2" || d == ".v4" || d == ".v8") {
      v.vector_width = static_cast<uint8_t>(d[2] - '0');
    } else if (Type ty = LookupType(d); ty != Type::kNone) {
      if (v.type != Type::kNone) return Fail(t, "more than one type in declaration");
      v.type = ty;
    } else if (StateSpace s = LookupStateSpace(d); s != StateSpace::kNone) {
      if (after_ptr) {
        v.ptr_space = s;
      } else {
        if (have_space) return Fail(t, "more than one state space in declaration");
        v.space = s;
        have_space = true;
      }
    } else if (IsLinkage(d, l) && !have_space) {
      v.linkage = l;
    } else {
      return Fail(t, Cat("unexpected '", d, "' in declaration"));
    }
  }
  if (!have_space) return FailExpected("state space");
  if (v.type == Type::kNone) return FailExpected("type");
  do {
    Declarator d;
    if (!ParseDeclarator(d, allow_init, allow_range)) return false;
    v.declarators.push_back(std::move(d));
  } while (!single && ConsumePunct(','));
  return true;
}

bool Parser::ParseDeclarator(Declarator& d, bool allow_init, bool allow_range) {
  if (!ExpectIdentifier(d.name, "name")) return false;
  if (allow_range && lex_.Peek().is_punct('<')) {
    lex_.Next();
    if (!ExpectU32(d.range, "register count") || !ExpectPunct('>')) return false;
    if (d.range == 0) return Fail(lex_.Peek(), "register range of size 0");
  }
  while (lex_.Peek().is_punct('[')) {
    lex_.Next();
    if (lex_.Peek().is_punct(']')) {
      d.dims.push_back(Declarator::kUnsizedDim);
    } else {
      uint64_t n = 0;
      if (!ExpectUnsigned(n, "array size")) return false;
      if (n == Declarator::kUnsizedDim) return Fail(lex_.Peek(), "array size out of range");
      d.dims.push_back(n);
    }
    if (!ExpectPunct(']')) return false;
  }
  if (lex_.Peek().is_punct('=')) {
    if (!allow_init) return Fail(lex_.Peek(), "initializer not allowed here");
    lex_.Next();
    Initializer init;
    if (!ParseInitializer(init, 0)) return false;
    d.init = std::move(init);
  }
  return true;
}

// `+ N`, `- N`, `+ -N` after a symbol or address base; absent -> 0.
bool Parser::ParseOffset(int64_t& offset) {
  offset = 0;
  const Token& t = lex_.Peek();
  if (!t.is_punct('+') && !t.is_punct('-')) return true;
  bool negative = t.is_punct('-');
  lex_.Next();
  if (lex_.Peek().is_punct('-')) {
    negative = !negative;
    lex_.Next();
  }
  const Token at = lex_.Peek();
  uint64_t v = 0;
  if (!ExpectUnsigned(v, "offset")) return false;
  if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return Fail(at, "offset out of range");
  offset = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return true;
}

bool Parser::ParseInitializer(Initializer& init, int depth) {
  if (depth > kMaxNesting) return Fail(lex_.Peek(), "initializer nested too deeply");
  const Token t = lex_.Peek();
  if (t.is_punct('{')) {
    lex_.Next();
    init.kind = Initializer::Kind::kList;
    if (ConsumePunct('}')) return true;
    do {
      Initializer e;
      if (!ParseInitializer(e, depth + 1)) return false;
      init.elements.push_back(std::move(e));
    } while (ConsumePunct(','));
    return ExpectPunct('}');
  }
  bool negative = false;
  if (t.is_punct('-')) {
    negative = true;
    lex_.Next();
  }
  const Token v = lex_.Peek();
  if (v.kind == TokenKind::kInteger || v.kind == TokenKind::kFloat) {
    uint64_t iv = 0;
    int64_t bits = 0;
    if (v.kind == TokenKind::kInteger ? !ParseIntegerText(v.text, iv) : !ParseFloatText(v.text, bits))
      return Fail(v, Cat("malformed constant '", v.text, "'"));
    init.kind = v.kind == TokenKind::kInteger ? Initializer::Kind::kInteger : Initializer::Kind::kFloat;
    init.text = negative ? Cat("-", v.text) : std::string(v.text);
    lex_.Next();
    return true;
  }
  if (negative) return FailExpected("constant");
  if (v.kind != TokenKind::kIdentifier) return FailExpected("initializer");
  lex_.Next();
  init.kind = Initializer::Kind::kSymbol;
  if (v.text == "generic" && lex_.Peek().is_punct('(')) {
    lex_.Next();
    init.generic = true;
    if (!ExpectIdentifier(init.text, "symbol") || !ExpectPunct(')')) return false;
  } else {
    init.text.assign(v.text);
  }
  return ParseOffset(init.offset);
}

bool Parser::ParseParamList(std::vector<VarDecl>& params) {
  if (!ExpectPunct('(')) return false;
  if (ConsumePunct(')')) return true;
  do {
    VarDecl p;
    p.pos = Pos(lex_.Peek());
    if (lex_.Peek().kind != TokenKind::kDotWord) return FailExpected("parameter declaration");
    if (!ParseVarDecl(p, /*allow_init=*/false, /*allow_range=*/false, /*single=*/true)) return false;
    if (p.space != StateSpace::kParam && p.space != StateSpace::kReg)
      return Fail(p.pos, "parameters must be .param or .reg");
    params.push_back(std::move(p));
  } while (ConsumePunct(','));
  return ExpectPunct(')');
}

bool Parser::ParseFunction(Module& m, Linkage linkage, const Token& start) {
  Function f;
  f.pos = Pos(start);
  f.linkage = linkage;
  f.is_entry = lex_.Next().text == ".entry";
  while (PeekDot(".attribute"))
    if (!ParseAttribute(f.attributes)) return false;
  if (!f.is_entry && lex_.Peek().is_punct('(')) {
    f.has_return_list = true;
    if (!ParseParamList(f.returns)) return false;
  }
  if (!ExpectIdentifier(f.name, "function name")) return false;
  if (lex_.Peek().is_punct('(')) {
    f.has_param_list = true;
    if (!ParseParamList(f.params)) return false;
  }
  while (lex_.Peek().kind == TokenKind::kDotWord) {
    PerformanceDirective d;
    d.name.assign(lex_.Next().text);
    if (lex_.Peek().kind == TokenKind::kInteger) {
      do {
        uint64_t v = 0;
        if (!ExpectUnsigned(v, "directive value")) return false;
        d.values.push_back(v);
      } while (ConsumePunct(','));
    }
    f.directives.push_back(std::move(d));
  }
  if (ConsumePunct(';')) {
    m.items.emplace_back(std::move(f));
    return true;
  }
  if (!ExpectPunct('{')) return false;
  f.has_body = true;
  loc_ = DebugLoc{};
  plain_regs_.clear();
  for (const VarDecl& p : f.params) NoteRegisters(p);
  for (const VarDecl& p : f.returns) NoteRegisters(p);
  if (!ParseBody(f)) return false;
  m.items.emplace_back(std::move(f));
  return true;
}

// ------------------------------------------------------------------ bodies

void Parser::NoteRegisters(const VarDecl& v) {
  if (v.space != StateSpace::kReg) return;
  for (const Declarator& d : v.declarators)
    if (!d.name.starts_with('%')) plain_regs_.emplace_back(d.name, d.range);
}

bool Parser::IsDeclaredRegister(std::string_view name) const {
  for (const auto& [n, range] : plain_regs_) {
    if (range == 0) {
      if (n == name) return true;
    } else if (name.size() > n.size() && name.starts_with(n)) {
      std::string_view digits = name.substr(n.size());
      uint64_t idx = 0;
      auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), idx);
      if (ec == std::errc() && p == digits.data() + digits.size() && idx < range &&
          (digits.size() == 1 || digits[0] != '0'))
        return true;
    }
  }
  return false;
}

bool Parser::ParseLoc(LocDirective& l) {
  Token t = lex_.Next();
  l.pos = Pos(t);
  DebugLoc& loc = l.loc;
  if (!ExpectU32(loc.file, "file index") || !ExpectU32(loc.line, "line number")) return false;
  if (lex_.Peek().kind == TokenKind::kInteger && !ExpectU32(loc.column, "column number")) return false;
  if (ConsumePunct(',')) {
    if (!lex_.Peek().is(TokenKind::kIdentifier, "function_name")) return FailExpected("'function_name'");
    lex_.Next();
    if (!ExpectIdentifier(loc.function_name, "function name label")) return false;
    if (ConsumePunct(',')) {
      if (!lex_.Peek().is(TokenKind::kIdentifier, "inlined_at")) return FailExpected("'inlined_at'");
      lex_.Next();
      loc.has_inlined_at = true;
      if (!ExpectU32(loc.inlined_file, "file index") || !ExpectU32(loc.inlined_line, "line number") ||
          !ExpectU32(loc.inlined_column, "column number"))
        return false;
    }
  }
  if (loc.file == 0) return Fail(t, ".loc file index must be at least 1");
  return true;
}

bool Parser::ParseLabelDirective(Function& f, const Token& name) {
  Token d = lex_.Next();
  if (d.text == ".branchtargets" || d.text == ".calltargets") {
    std::vector<std::string> names;
    do {
      std::string n;
      if (!ExpectIdentifier(n, "label")) return false;
      names.push_back(std::move(n));
    } while (ConsumePunct(','));
    if (!ExpectPunct(';')) return false;
    if (d.text == ".branchtargets") {
      f.body.emplace_back(BranchTargets{std::string(name.text), std::move(names), Pos(name)});
    } else {
      f.body.emplace_back(CallTargets{std::string(name.text), std::move(names), Pos(name)});
    }
    return true;
  }
  // .callprototype [(.param ...)] _ (params) [.noreturn];
  CallPrototype p;
  p.name.assign(name.text);
  p.pos = Pos(name);
  if (lex_.Peek().is_punct('(')) {
    p.has_return_list = true;
    if (!ParseParamList(p.returns)) return false;
  }
  if (!lex_.Peek().is(TokenKind::kIdentifier, "_")) return FailExpected("'_'");
  lex_.Next();
  if (lex_.Peek().is_punct('(') && !ParseParamList(p.params)) return false;
  if (PeekDot(".noreturn")) {
    lex_.Next();
    p.noreturn = true;
  }
  if (!ExpectPunct(';')) return false;
  f.body.emplace_back(std::move(p));
  return true;
}

bool Parser::ParseBody(Function& f) {
  int depth = 0;
  while (true) {
    const Token t = lex_.Peek();
    switch (t.kind) {
      case TokenKind::kEnd:
      case TokenKind::kError:
        return FailExpected("'}' closing the function body");
      case TokenKind::kPunct:
        if (t.is_punct('}')) {
          lex_.Next();
          if (depth == 0) return true;
          --depth;
          f.body.emplace_back(ScopeEnd{Pos(t)});
          continue;
        }
        if (t.is_punct('{')) {
          lex_.Next();
          if (++depth > kMaxNesting) return Fail(t, "scopes nested too deeply");
          f.body.emplace_back(ScopeBegin{Pos(t)});
          continue;
        }
        if (t.is_punct('@')) {
          lex_.Next();
          Guard g;
          if (ConsumePunct('!')) g.negated = true;
          if (!ExpectIdentifier(g.reg, "guard predicate")) return false;
          const Token op = lex_.Next();
          if (op.kind != TokenKind::kIdentifier) return Fail(op, "expected an instruction after the guard");
          Instruction inst;
          if (!ParseInstruction(op, std::move(g), inst)) return false;
          f.body.emplace_back(std::move(inst));
          continue;
        }
        return Fail(t, Cat("unexpected '", t.text, "' in function body"));
      case TokenKind::kDotWord: {
        std::string_view d = t.text;
        if (d == ".loc") {
          LocDirective l;
          if (!ParseLoc(l)) return false;
          loc_ = l.loc;
          f.body.emplace_back(std::move(l));
          continue;
        }
        if (d == ".pragma") {
          PragmaDirective p;
          if (!ParsePragma(p)) return false;
          f.body.emplace_back(std::move(p));
          continue;
        }
        if (LookupStateSpace(d) != StateSpace::kNone) {
          VarDecl v;
          v.pos = Pos(t);
          if (!ParseVarDecl(v, /*allow_init=*/true, /*allow_range=*/true) || !ExpectPunct(';')) return false;
          NoteRegisters(v);
          f.body.emplace_back(std::move(v));
          continue;
        }
        return Fail(t, Cat("unexpected directive '", d, "' in function body"));
      }
      case TokenKind::kIdentifier: {
        lex_.Next();
        if (lex_.Peek().is_punct(':')) {
          lex_.Next();
          const Token& n = lex_.Peek();
          if (n.is(TokenKind::kDotWord, ".branchtargets") || n.is(TokenKind::kDotWord, ".callprototype") ||
              n.is(TokenKind::kDotWord, ".calltargets")) {
            if (!ParseLabelDirective(f, t)) return false;
          } else {
            f.body.emplace_back(Label{std::string(t.text), Pos(t)});
          }
          continue;
        }
        Instruction inst;
        if (!ParseInstruction(t, Guard{}, inst)) return false;
        f.body.emplace_back(std::move(inst));
        continue;
      }
      default:
        return Fail(t, Cat("unexpected ", TokenKindName(t.kind), " '", t.text, "' in function body"));
    }
  }
}

bool Parser::ParseInstruction(const Token& opcode, Guard guard, Instruction& inst) {
  inst.pos = Pos(opcode);
  inst.loc = loc_;
  inst.guard = std::move(guard);
  inst.op = LookupOpcode(opcode.text);
  if (inst.op == Opcode::kUnknown) inst.opcode_text.assign(opcode.text);
  while (lex_.Peek().kind == TokenKind::kDotWord && !lex_.Peek().space_before)
    inst.modifiers.emplace_back(lex_.Next().text);
  inst.RefreshInfo();
  if (ConsumePunct(';')) return true;
  bool ok = true;
  do {
    Operand o;
    if (!ParseOperand(o, 0)) {
      ok = false;
      break;
    }
    inst.operands.push_back(std::move(o));
  } while (ConsumePunct(','));
  if (ok) {
    if (ConsumePunct(';')) return true;
    FailExpected("',' or ';'");
  }
  // Syntax we do not model (operand expressions, or an opcode we do not know)
  // is kept verbatim if it is well-bracketed and ends in ';'. A known opcode
  // whose operands are merely malformed keeps the original error.
  absl::Status original = std::move(status_);
  status_ = absl::OkStatus();
  bool has_expression = false;
  if (!MakeOpaque(opcode, inst, has_expression)) return false;
  if (inst.op != Opcode::kUnknown && !has_expression) {
    status_ = std::move(original);
    return false;
  }
  return true;
}

bool Parser::MakeOpaque(const Token& opcode, Instruction& inst, bool& has_expression) {
  // Re-lex from the opcode: the failed operand parse may have stopped anywhere.
  Lexer relex(lex_.source().substr(opcode.offset));
  int depth = 0;
  uint32_t semi = 0;
  inst.verbatim.clear();
  while (true) {
    const Token t = relex.Next();
    const Token at = [&] {
      Token a = t;
      a.line += opcode.line - 1;
      if (t.line == 1) a.column += opcode.column - 1;
      return a;
    }();
    if (t.kind == TokenKind::kError) return Fail(at, Cat(relex.error_message()));
    if (t.kind == TokenKind::kEnd) return Fail(at, "expected ';' ending the instruction, found end of input");
    if (t.kind == TokenKind::kPunct) {
      char c = t.text[0];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if ((c == ')' || c == ']' || c == '}') && --depth < 0)
        return Fail(at, Cat("unbalanced '", t.text, "' in instruction"));
      if (c == ';') {
        if (depth != 0) return Fail(at, "unbalanced brackets in instruction");
        semi = opcode.offset + t.offset;
        break;
      }
      if (c == '@' || c == ':') return Fail(at, Cat("unexpected '", t.text, "' in instruction"));
      // Operators that only occur in constant expressions, which the operand
      // grammar does not model.
      if (c == '*' || c == '/' || c == '&' || c == '~' || c == '^' || c == '?' || c == '<' || c == '>' ||
          c == '=' || c == '%' || (c == '(' && inst.op != Opcode::kCall))
        has_expression = true;
    }
    // Rebuild the text from its tokens (comments dropped, one space where the
    // source had any), so that printing never lets a comment swallow the ';'.
    if (t.space_before && !inst.verbatim.empty()) inst.verbatim.push_back(' ');
    inst.verbatim.append(t.text);
  }
  while (lex_.Peek().offset < semi && lex_.Peek().kind != TokenKind::kEnd &&
         lex_.Peek().kind != TokenKind::kError)
    lex_.Next();
  if (!ExpectPunct(';')) return false;
  inst.opaque = true;
  inst.operands.clear();
  return true;
}

bool Parser::ParseOperandList(std::vector<Operand>& out, char close, int depth) {
  if (ConsumePunct(close)) return true;
  do {
    Operand e;
    if (!ParseOperand(e, depth + 1)) return false;
    out.push_back(std::move(e));
  } while (ConsumePunct(','));
  return ExpectPunct(close);
}

bool Parser::ParseOperand(Operand& op, int depth) {
  if (depth > kMaxNesting) return Fail(lex_.Peek(), "operand nested too deeply");
  const Token t = lex_.Peek();
  switch (t.kind) {
    case TokenKind::kIdentifier: {
      lex_.Next();
      if (t.text == "_") {
        op.kind = Operand::Kind::kSink;
        op.text = "_";
        break;
      }
      op.text.assign(t.text);
      if (t.text[0] == '%') {
        op.kind = Operand::Kind::kRegister;
        // %tid.x, %ctaid.y: the component is part of the special register's name;
        // %r1.b0, %r2.h10: a video instruction's operand selector (no special
        // register has such a component).
        while (lex_.Peek().kind == TokenKind::kDotWord && !lex_.Peek().space_before) {
          const std::string_view w = lex_.Next().text;
          if (IsVideoSelector(w)) {
            op.select.assign(w);
            break;
          }
          op.text.append(w);
        }
      } else if (resolve_names_ && !plain_regs_.empty() && IsDeclaredRegister(t.text)) {
        op.kind = Operand::Kind::kRegister;
      } else {
        op.kind = Operand::Kind::kSymbol;
        if (!ParseOffset(op.offset)) return false;
      }
      break;
    }
    case TokenKind::kInteger:
    case TokenKind::kFloat:
    case TokenKind::kPunct: {
      if (t.is_punct('!')) {
        lex_.Next();
        if (!ParseOperand(op, depth + 1)) return false;
        if (op.kind != Operand::Kind::kRegister && op.kind != Operand::Kind::kSymbol)
          return Fail(t, "'!' applies to predicates only");
        op.negated = true;
        return true;
      }
      if (t.is_punct('[')) {
        lex_.Next();
        op.kind = Operand::Kind::kAddress;
        Operand base;
        const Token b = lex_.Peek();
        if (b.kind == TokenKind::kIdentifier) {
          lex_.Next();
          base.text.assign(b.text);
          if (b.text[0] == '%') {
            base.kind = Operand::Kind::kRegister;
            while (lex_.Peek().kind == TokenKind::kDotWord && !lex_.Peek().space_before)
              base.text.append(lex_.Next().text);
          } else {
            base.kind = resolve_names_ && !plain_regs_.empty() && IsDeclaredRegister(b.text)
                            ? Operand::Kind::kRegister
                            : Operand::Kind::kSymbol;
          }
          if (!ParseOffset(op.offset)) return false;
        } else if (b.kind == TokenKind::kInteger) {
          if (!ParseOperand(base, depth + 1)) return false;
        } else {
          return FailExpected("address");
        }
        op.elements.push_back(std::move(base));
        while (ConsumePunct(',')) {
          Operand e;
          if (!ParseOperand(e, depth + 1)) return false;
          op.elements.push_back(std::move(e));
        }
        return ExpectPunct(']');
      }
      if (t.is_punct('{')) {
        lex_.Next();
        op.kind = Operand::Kind::kVector;
        return ParseOperandList(op.elements, '}', depth);
      }
      if (t.is_punct('(')) {
        lex_.Next();
        op.kind = Operand::Kind::kList;
        return ParseOperandList(op.elements, ')', depth);
      }
      bool negative = false;
      if (t.is_punct('-')) {
        negative = true;
        lex_.Next();
        // vmad's `-%r1`: negation of a register operand.
        if (lex_.Peek().kind == TokenKind::kIdentifier && lex_.Peek().text[0] == '%' && !lex_.Peek().space_before) {
          if (!ParseOperand(op, depth + 1)) return false;
          if (op.kind != Operand::Kind::kRegister || op.minus) return Fail(t, "'-' applies to registers only");
          op.minus = true;
          return true;
        }
      }
      const Token v = lex_.Peek();
      if (v.kind == TokenKind::kInteger) {
        uint64_t u = 0;
        if (!ParseIntegerText(v.text, u)) return Fail(v, Cat("integer constant out of range: ", v.text));
        op.kind = Operand::Kind::kImmediate;
        op.value = negative ? static_cast<int64_t>(0 - u) : static_cast<int64_t>(u);
      } else if (v.kind == TokenKind::kFloat) {
        if (!ParseFloatText(v.text, op.value)) return Fail(v, Cat("malformed constant '", v.text, "'"));
        op.kind = Operand::Kind::kFloat;
        if (negative) {
          // Flip the sign bit of the literal's own width.
          const bool single = v.text.size() > 1 && (v.text[1] == 'f' || v.text[1] == 'F');
          op.value ^= single ? int64_t{1} << 31 : std::numeric_limits<int64_t>::min();
        }
      } else {
        return FailExpected("operand");
      }
      lex_.Next();
      op.text = negative ? Cat("-", v.text) : std::string(v.text);
      break;
    }
    default:
      return FailExpected("operand");
  }
  if (lex_.Peek().is_punct('|') && (op.kind == Operand::Kind::kRegister || op.kind == Operand::Kind::kSink)) {
    lex_.Next();
    Operand second;
    if (!ParseOperand(second, depth + 1)) return false;
    Operand pair;
    pair.kind = Operand::Kind::kPredPair;
    pair.elements.push_back(std::move(op));
    pair.elements.push_back(std::move(second));
    op = std::move(pair);
  }
  return true;
}

absl::StatusOr<Instruction> Parser::RunInstruction() {
  resolve_names_ = false;
  Guard g;
  if (ConsumePunct('@')) {
    if (ConsumePunct('!')) g.negated = true;
    if (!ExpectIdentifier(g.reg, "guard predicate")) return status_;
  }
  const Token op = lex_.Next();
  if (op.kind != TokenKind::kIdentifier) {
    Fail(op, "expected an instruction");
    return status_;
  }
  Instruction inst;
  if (!ParseInstruction(op, std::move(g), inst)) return status_;
  if (lex_.Peek().kind != TokenKind::kEnd) {
    FailExpected("end of instruction");
    return status_;
  }
  return inst;
}

}  // namespace

absl::StatusOr<Module> ParseModule(std::string_view text, std::string_view filename) {
  Parser p(text, filename);
  return p.Run();
}

absl::StatusOr<Instruction> ParseInstruction(std::string_view text) {
  if (text.size() >= std::numeric_limits<uint32_t>::max() - 1)
    return absl::InvalidArgumentError("<instruction>: input larger than 4 GiB");
  // Append the ';' when the caller left it out, so the grammar stays one.
  std::string owned(text);
  size_t end = owned.find_last_not_of(" \t\r\n");
  if (end == std::string::npos || owned[end] != ';') owned.push_back(';');
  Parser p(owned, "<instruction>");
  absl::StatusOr<Instruction> r = p.RunInstruction();
  if (r.ok()) r->pos = SourcePos{};
  return r;
}

}  // namespace barracuda::ptx
