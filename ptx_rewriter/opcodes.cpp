// Opcode, type and state-space spellings.
#include "ptx_rewriter/opcodes.h"

#include <array>

#include "absl/container/flat_hash_map.h"

namespace barracuda::ptx {
namespace {

constexpr std::string_view kOpcodeNames[] = {
    "",
#define BARRACUDA_PTX_OPCODE_NAME(e, s) s,
    BARRACUDA_PTX_OPCODES(BARRACUDA_PTX_OPCODE_NAME)
#undef BARRACUDA_PTX_OPCODE_NAME
};

struct TypeRow {
  std::string_view name;
  uint32_t size;
};
constexpr TypeRow kTypes[] = {
    {"", 0},
#define BARRACUDA_PTX_TYPE_ROW(e, s, b) {s, b},
    BARRACUDA_PTX_TYPES(BARRACUDA_PTX_TYPE_ROW)
#undef BARRACUDA_PTX_TYPE_ROW
};

// Function-local statics: built on first use, never destroyed (no exit-time
// destructor ordering issues).
const absl::flat_hash_map<std::string_view, Opcode>& OpcodeTable() {
  static const auto* table = [] {
    auto* t = new absl::flat_hash_map<std::string_view, Opcode>();
    for (size_t i = 1; i < std::size(kOpcodeNames); ++i) t->emplace(kOpcodeNames[i], static_cast<Opcode>(i));
    return t;
  }();
  return *table;
}

const absl::flat_hash_map<std::string_view, Type>& TypeTable() {
  static const auto* table = [] {
    auto* t = new absl::flat_hash_map<std::string_view, Type>();
    for (size_t i = 1; i < std::size(kTypes); ++i) t->emplace(kTypes[i].name, static_cast<Type>(i));
    return t;
  }();
  return *table;
}

}  // namespace

std::string_view OpcodeName(Opcode op) {
  auto i = static_cast<size_t>(op);
  return i < std::size(kOpcodeNames) ? kOpcodeNames[i] : std::string_view();
}

Opcode LookupOpcode(std::string_view name) {
  const auto& t = OpcodeTable();
  auto it = t.find(name);
  return it == t.end() ? Opcode::kUnknown : it->second;
}

std::string_view TypeName(Type t) {
  auto i = static_cast<size_t>(t);
  return i < std::size(kTypes) ? kTypes[i].name : std::string_view();
}

Type LookupType(std::string_view dotted) {
  if (dotted.size() < 2 || dotted[0] != '.') return Type::kNone;
  const auto& t = TypeTable();
  auto it = t.find(dotted);
  return it == t.end() ? Type::kNone : it->second;
}

uint32_t TypeSize(Type t) {
  auto i = static_cast<size_t>(t);
  return i < std::size(kTypes) ? kTypes[i].size : 0;
}

bool IsSignedInt(Type t) {
  return t == Type::kS8 || t == Type::kS16 || t == Type::kS32 || t == Type::kS64 || t == Type::kS4 ||
         t == Type::kS2;
}
bool IsUnsignedInt(Type t) {
  return t == Type::kU8 || t == Type::kU16 || t == Type::kU32 || t == Type::kU64 || t == Type::kU4 ||
         t == Type::kU2;
}
bool IsBitType(Type t) {
  return t == Type::kB8 || t == Type::kB16 || t == Type::kB32 || t == Type::kB64 || t == Type::kB128 ||
         t == Type::kB1;
}
bool IsFloat(Type t) {
  switch (t) {
    case Type::kF16: case Type::kF16x2: case Type::kBf16: case Type::kBf16x2: case Type::kTf32:
    case Type::kF32: case Type::kF64: case Type::kE4m3: case Type::kE5m2: case Type::kE4m3x2:
    case Type::kE5m2x2: case Type::kE2m1: case Type::kE2m3: case Type::kE3m2: case Type::kUe8m0:
    case Type::kE2m1x2: case Type::kE2m3x2: case Type::kE3m2x2: case Type::kUe8m0x2:
      return true;
    default:
      return false;
  }
}

std::string_view StateSpaceName(StateSpace s) {
  switch (s) {
    case StateSpace::kReg: return ".reg";
    case StateSpace::kSreg: return ".sreg";
    case StateSpace::kConst: return ".const";
    case StateSpace::kGlobal: return ".global";
    case StateSpace::kLocal: return ".local";
    case StateSpace::kParam: return ".param";
    case StateSpace::kShared: return ".shared";
    case StateSpace::kSharedCluster: return ".shared::cluster";
    case StateSpace::kTex: return ".tex";
    case StateSpace::kNone:
    case StateSpace::kGeneric: return "";
  }
  return "";
}

StateSpace LookupStateSpace(std::string_view d) {
  if (d == ".global") return StateSpace::kGlobal;
  if (d == ".shared" || d == ".shared::cta") return StateSpace::kShared;
  if (d == ".shared::cluster") return StateSpace::kSharedCluster;
  if (d == ".local") return StateSpace::kLocal;
  if (d == ".param" || d == ".param::entry" || d == ".param::func") return StateSpace::kParam;
  if (d == ".const") return StateSpace::kConst;
  if (d == ".reg") return StateSpace::kReg;
  if (d == ".sreg") return StateSpace::kSreg;
  if (d == ".tex") return StateSpace::kTex;
  return StateSpace::kNone;
}

}  // namespace barracuda::ptx
