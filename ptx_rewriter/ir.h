// PTX intermediate representation: a plain, editable tree of a PTX module.
//
// Produced by ParseModule (parser.h), printed back by PrintModule (printer.h).
// Consumers (CFG, emulator decoder, instrumentation passes) read and edit it
// directly: every container is a std::vector, nothing is interned, nothing holds
// pointers into the source text. Insert instructions with body.insert(...), add
// functions / globals by pushing ModuleItems.
//
// Equality: every struct has an operator==. SourcePos compares equal to every
// other SourcePos, and Instruction's ignores its derived fields (`info`, `loc`),
// so `a == b` (and SameMeaning) is "same IR ignoring where it came from": the
// round-trip property parse -> print -> parse.
//
// Instructions keep their dot-modifiers as written (`modifiers`, in source
// order, so printing reproduces them) plus `info`, the structured meaning derived
// from opcode + modifiers (instruction_modifiers.h). After editing `op`,
// `opcode_text` or `modifiers`, call RefreshInfo().
#ifndef BARRACUDA_PTX_REWRITER_IR_H_
#define BARRACUDA_PTX_REWRITER_IR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ptx_rewriter/instruction_modifiers.h"
#include "ptx_rewriter/opcodes.h"

namespace barracuda::ptx {

// Where something was in the PTX text (1-based; 0 = synthesised, e.g. by a pass).
// Never part of IR equality.
struct SourcePos {
  uint32_t line = 0;
  uint32_t column = 0;
  friend bool operator==(const SourcePos&, const SourcePos&) { return true; }
};

// ---------------------------------------------------------------- debug info

// `.loc file line column [, function_name LABEL [, inlined_at file line column]]`.
// file == 0 means "no .loc in effect".
struct DebugLoc {
  uint32_t file = 0;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string function_name;  // label naming the inlined function's name string; "" if none
  bool has_inlined_at = false;
  uint32_t inlined_file = 0;
  uint32_t inlined_line = 0;
  uint32_t inlined_column = 0;
  bool valid() const { return file != 0; }
  bool operator==(const DebugLoc&) const = default;
};

// `.file 1 "name" [, timestamp, size]`.
struct FileDirective {
  uint32_t index = 0;
  std::string name;                 // unquoted, escapes kept as written
  std::optional<uint64_t> timestamp;
  std::optional<uint64_t> size;
  SourcePos pos;
  bool operator==(const FileDirective&) const = default;
};

// `.section .debug_xxx { ... }`: contents kept verbatim (text between the braces).
struct SectionDirective {
  std::string name;  // ".debug_str"
  std::string body;  // verbatim, without the enclosing braces
  SourcePos pos;
  bool operator==(const SectionDirective&) const = default;
};

// `.pragma "a", "b";` (module level or in a function body).
struct PragmaDirective {
  std::vector<std::string> strings;  // unquoted
  SourcePos pos;
  bool operator==(const PragmaDirective&) const = default;
};

// `.alias alias, aliasee;`
struct AliasDirective {
  std::string alias;
  std::string aliasee;
  SourcePos pos;
  bool operator==(const AliasDirective&) const = default;
};

// ---------------------------------------------------------------- variables

enum class Linkage : uint8_t { kNone, kExtern, kVisible, kWeak, kCommon };

// Initializer of a global: a scalar constant, a symbol address (`sym`, `sym+8`,
// `generic(sym)+4`), or a brace list (nested for multi-dimensional arrays).
struct Initializer {
  enum class Kind : uint8_t { kInteger, kFloat, kSymbol, kList };
  Kind kind = Kind::kInteger;
  std::string text;     // literal as written ("-1", "0f3F800000", "1.5"), or symbol name
  bool generic = false; // generic(sym)
  int64_t offset = 0;   // sym+offset / sym-offset
  std::vector<Initializer> elements;  // kList
  bool operator==(const Initializer&) const = default;
};

// One name in a declaration: `%r<12>`, `arr[4][8] = {...}`, `smem[]`.
struct Declarator {
  static constexpr uint64_t kUnsizedDim = ~uint64_t{0};  // `[]`
  std::string name;
  uint32_t range = 0;           // `%r<N>` declares %r0..%r(N-1); 0 = plain name
  std::vector<uint64_t> dims;   // array dimensions, outermost first
  std::optional<Initializer> init;
  bool operator==(const Declarator&) const = default;
};

// `.global .align 8 .u64 a, b[4] = {...};`, `.reg .b32 %r<12>;`, a kernel or
// function parameter (`.param .u64 .ptr .global .align 8 p`), `.local`, `.shared`, ...
struct VarDecl {
  Linkage linkage = Linkage::kNone;
  StateSpace space = StateSpace::kNone;
  std::vector<std::string> attributes;  // `.attribute(.managed)` -> ".managed" (verbatim inside)
  uint32_t align = 0;                   // 0 = no .align
  uint8_t vector_width = 0;             // .v2/.v4/.v8 variables; 0 = scalar
  Type type = Type::kNone;
  bool is_ptr = false;                  // parameter `.ptr`
  StateSpace ptr_space = StateSpace::kNone;  // `.ptr .global`
  uint32_t ptr_align = 0;                    // `.ptr .align N`
  std::vector<Declarator> declarators;       // at least one
  SourcePos pos;
  const std::string& name() const { return declarators.front().name; }
  bool operator==(const VarDecl&) const = default;
};

// ---------------------------------------------------------------- operands

struct Operand {
  enum class Kind : uint8_t {
    kRegister,   // %r1, %tid.x, or a declared non-% register name; `negated` for !p
    kImmediate,  // integer literal: `text` as written, `value` its bits
    kFloat,      // 0f3F800000 / 0d... / 1.5: `text` as written, `value` the IEEE bits (f32 in low 32 for 0f)
    kSymbol,     // label, variable, function or .branchtargets/.callprototype name; `offset` for sym+4
    kAddress,    // [ ... ]: elements[0] is the base (register, symbol or immediate) + `offset`;
                 // texture forms [tex, {..}] have more elements
    kVector,     // { a, b, _ }
    kSink,       // `_`
    kList,       // ( a, b ) in call
    kPredPair,   // p|q (setp with two destinations): elements[0], elements[1]
  };
  Kind kind = Kind::kRegister;
  bool negated = false;
  std::string text;       // register/symbol name, or literal spelling
  int64_t value = 0;      // immediate bits
  int64_t offset = 0;     // kSymbol / kAddress displacement
  std::vector<Operand> elements;
  // Video instructions (vadd, vset4, vmad, ...): the byte/half-word selector or
  // mask written after a register, with its dot (".b0", ".h10", ".b3210"); kept
  // apart from `text` so that the register still resolves by name. Empty otherwise.
  std::string select;
  // vmad: `-a`, the arithmetic negation of a register operand (not `!p`).
  bool minus = false;

  static Operand Register(std::string name) {
    Operand o;
    o.kind = Kind::kRegister;
    o.text = std::move(name);
    return o;
  }
  static Operand Symbol(std::string name, int64_t offset = 0) {
    Operand o;
    o.kind = Kind::kSymbol;
    o.text = std::move(name);
    o.offset = offset;
    return o;
  }
  static Operand Immediate(int64_t v);  // text = decimal spelling
  static Operand Vector(std::vector<Operand> elements) {
    Operand o;
    o.kind = Kind::kVector;
    o.elements = std::move(elements);
    return o;
  }
  static Operand List(std::vector<Operand> elements) {  // call ( ... ) lists
    Operand o;
    o.kind = Kind::kList;
    o.elements = std::move(elements);
    return o;
  }
  static Operand Address(Operand base, int64_t offset = 0) {
    Operand o;
    o.kind = Kind::kAddress;
    o.offset = offset;
    o.elements.push_back(std::move(base));
    return o;
  }
  bool is_register() const { return kind == Kind::kRegister; }
  bool is_symbol() const { return kind == Kind::kSymbol; }
  bool is_address() const { return kind == Kind::kAddress; }
  // Base of an address operand ([base+off]); nullptr for other kinds.
  const Operand* address_base() const {
    return kind == Kind::kAddress && !elements.empty() ? &elements[0] : nullptr;
  }
  bool operator==(const Operand&) const = default;
};

// ---------------------------------------------------------------- instructions

// `@p` / `@!p`.
struct Guard {
  std::string reg;   // empty = unguarded
  bool negated = false;
  bool present() const { return !reg.empty(); }
  bool operator==(const Guard&) const = default;
};

struct Instruction {
  Opcode op = Opcode::kUnknown;
  std::string opcode_text;              // only for Opcode::kUnknown: the opcode as written
  std::vector<std::string> modifiers;   // ".global", ".u32", ".L1::evict_last": source order, with dot
  Guard guard;
  std::vector<Operand> operands;
  // Opaque instruction: syntax the parser does not model. `verbatim` is the whole
  // statement text from the opcode up to (not including) ';' and is printed as is;
  // op/modifiers are still filled when they could be read.
  bool opaque = false;
  std::string verbatim;

  ModifierInfo info;   // derived from op + modifiers; see RefreshInfo()
  SourcePos pos;       // PTX line/column of the opcode (guard excluded)
  DebugLoc loc;        // the .loc in effect when the instruction was parsed

  std::string_view opcode_name() const {
    return op == Opcode::kUnknown ? std::string_view(opcode_text) : OpcodeName(op);
  }
  void RefreshInfo() { info = ClassifyModifiers(op, modifiers); }
  bool HasModifier(std::string_view m) const {
    for (const auto& s : modifiers)
      if (s == m) return true;
    return false;
  }

  bool is_uni() const { return info.uni; }
  bool is_return() const { return op == Opcode::kRet; }
  bool is_exit() const { return op == Opcode::kExit; }
  bool is_trap() const { return op == Opcode::kTrap; }
  bool is_branch() const { return op == Opcode::kBra; }            // direct `bra L`
  bool is_indirect_branch() const { return op == Opcode::kBrx; }   // `brx.idx r, $L_tab`
  bool is_call() const { return op == Opcode::kCall; }
  // Ends the thread's execution of the function / kernel (ret, exit, trap).
  bool is_terminator() const { return is_return() || is_exit() || is_trap(); }
  // fence.proxy.async{::generic...}{.space}: orders the thread's generic-proxy
  // accesses against its async-proxy ones (bulk copies, TMA). One test for the
  // emulator and the instrumentation, so that both record the same fences.
  bool is_async_proxy_fence() const;

  // bra: the target label. brx.idx: the .branchtargets name (look it up with
  // Function::FindBranchTargets). nullptr otherwise.
  const Operand* branch_target() const;
  // call: the callee (symbol for direct calls, register for indirect ones).
  const Operand* call_target() const;
  // call: return list `(r)` and argument list `(a, b)`; nullptr when absent.
  const Operand* call_returns() const;
  const Operand* call_arguments() const;
  // call: the prototype label of an indirect call (or the target list symbol); nullptr if none.
  const Operand* call_prototype() const;

  // Builds an instruction with `info` filled in.
  static Instruction Make(Opcode op, std::vector<std::string> modifiers, std::vector<Operand> operands,
                          Guard guard = {}) {
    Instruction i;
    i.op = op;
    i.modifiers = std::move(modifiers);
    i.operands = std::move(operands);
    i.guard = std::move(guard);
    i.RefreshInfo();
    return i;
  }

  bool operator==(const Instruction& o) const {
    // `info` is derived from the modifiers, and `loc` from the LocDirective
    // statements (compared on their own), so an instruction a pass inserted
    // without setting `loc` still equals its re-parsed self. Positions never compare.
    return op == o.op && opcode_text == o.opcode_text && modifiers == o.modifiers &&
           guard == o.guard && operands == o.operands && opaque == o.opaque &&
           verbatim == o.verbatim;
  }
};

// ---------------------------------------------------------------- function bodies

struct Label {
  std::string name;
  SourcePos pos;
  bool operator==(const Label&) const = default;
};

// `.loc ...` inside a body: sets the DebugLoc for the instructions after it.
struct LocDirective {
  DebugLoc loc;
  SourcePos pos;
  bool operator==(const LocDirective&) const = default;
};

// `$L_tab: .branchtargets L1, L2, L3;`
struct BranchTargets {
  std::string name;
  std::vector<std::string> labels;
  SourcePos pos;
  bool operator==(const BranchTargets&) const = default;
};

// `prototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _);`
// and `$L_calltargets: .calltargets f1, f2;`.
struct CallPrototype {
  std::string name;
  bool has_return_list = false;
  std::vector<VarDecl> returns;
  std::vector<VarDecl> params;
  bool noreturn = false;
  SourcePos pos;
  bool operator==(const CallPrototype&) const = default;
};
struct CallTargets {
  std::string name;
  std::vector<std::string> functions;
  SourcePos pos;
  bool operator==(const CallTargets&) const = default;
};

// `{` / `}` nested scopes (nvcc wraps each call sequence in one). Declarations
// after a ScopeBegin are visible until the matching ScopeEnd.
struct ScopeBegin {
  SourcePos pos;
  bool operator==(const ScopeBegin&) const = default;
};
struct ScopeEnd {
  SourcePos pos;
  bool operator==(const ScopeEnd&) const = default;
};

// A statement of a function body, in source order. VarDecl covers .reg, .local,
// .shared, .param and .const declarations inside the body.
using Statement = std::variant<Instruction, Label, VarDecl, LocDirective, PragmaDirective,
                               BranchTargets, CallPrototype, CallTargets, ScopeBegin, ScopeEnd>;

// ---------------------------------------------------------------- functions

// `.maxntid 256, 1, 1`, `.reqntid 64`, `.minnctapersm 2`, `.maxnreg 32`,
// `.noreturn`, `.maxclusterrank 8`, `.reqnctapercluster 2, 1, 1`,
// `.explicitcluster`, ... between the parameter list and the body.
struct PerformanceDirective {
  std::string name;               // ".maxntid"
  std::vector<uint64_t> values;
  bool operator==(const PerformanceDirective&) const = default;
};

struct Function {
  Linkage linkage = Linkage::kNone;
  bool is_entry = false;                     // .entry (kernel) vs .func
  std::vector<std::string> attributes;       // `.attribute(...)` contents
  std::string name;
  bool has_return_list = false;              // `.func (.param .b32 rv) f(...)`
  std::vector<VarDecl> returns;
  bool has_param_list = false;               // `f()` vs `f`
  std::vector<VarDecl> params;
  std::vector<PerformanceDirective> directives;
  bool has_body = false;                     // false: a declaration ending in ';'
  std::vector<Statement> body;
  SourcePos pos;

  // .branchtargets / .callprototype declared anywhere in the body, or nullptr.
  const BranchTargets* FindBranchTargets(std::string_view name) const;
  const CallPrototype* FindCallPrototype(std::string_view name) const;
  bool operator==(const Function&) const = default;
};

// ---------------------------------------------------------------- module

using ModuleItem =
    std::variant<VarDecl, Function, FileDirective, SectionDirective, PragmaDirective, AliasDirective>;

struct Module {
  uint32_t version_major = 0;
  uint32_t version_minor = 0;
  std::vector<std::string> targets;  // "sm_90", "texmode_independent", "debug"
  uint32_t address_size = 0;         // 0 = no .address_size directive
  std::vector<ModuleItem> items;     // source order
  std::string filename;              // as given to ParseModule; not part of equality

  // Lookups by linear scan (modules hold tens to thousands of items).
  Function* FindFunction(std::string_view name);
  const Function* FindFunction(std::string_view name) const;
  const VarDecl* FindGlobal(std::string_view name) const;
  const FileDirective* FindFile(uint32_t index) const;
  std::vector<Function*> Functions();
  std::vector<const Function*> Functions() const;

  bool operator==(const Module& o) const {
    return version_major == o.version_major && version_minor == o.version_minor &&
           targets == o.targets && address_size == o.address_size && items == o.items;
  }
};

// IR equality ignoring source positions and filename (the round-trip property).
inline bool SameMeaning(const Module& a, const Module& b) { return a == b; }

// First difference between two modules as "function f, statement 12: ..."; ""
// when SameMeaning. For diagnostics (print --check-roundtrip, tests).
std::string DescribeDifference(const Module& a, const Module& b);

// "file:line:col" of an instruction with a .loc, via the module's .file table;
// "" if none.
std::string FormatDebugLoc(const Module& m, const DebugLoc& loc);

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_IR_H_
