// What a module-level name means after linking, and the variable-size helpers
// the loader and the function decoder share.
#ifndef BARRACUDA_PTX_EMULATOR_DECODE_SYMBOLS_H_
#define BARRACUDA_PTX_EMULATOR_DECODE_SYMBOLS_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "ptx_emulator/core/exec_form.h"
#include "ptx_rewriter/ir.h"

namespace barracuda::emu {

// A module-level name resolved across the link unit.
struct LinkedSymbol {
  enum class Kind : uint8_t {
    kData,        // .global/.const variable: `value` = its host (= device) address
    kShared,      // .shared variable: `value` = offset in the block's shared window
    kFunction,    // `value` = program function index
    kBuiltin,     // extern function the emulator implements: `builtin`
    kUnresolved,  // declared but defined nowhere in the unit: an error where used
  };
  Kind kind = Kind::kUnresolved;
  uint64_t value = 0;
  Builtin builtin = Builtin::kNone;
  std::string declared_at;  // kUnresolved: "module:line" of the declaration
};
using SymbolTable = absl::flat_hash_map<std::string, LinkedSymbol>;

constexpr uint64_t AlignUp(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

// Element size of a declaration (type x vector width); 0 for .pred.
inline uint64_t ElementBytes(const ptx::VarDecl& decl) {
  return uint64_t{ptx::TypeSize(decl.type)} * (decl.vector_width ? decl.vector_width : 1);
}
// .align when given, else the element size (at least 1).
inline uint32_t DeclAlign(const ptx::VarDecl& decl) {
  if (decl.align) return decl.align;
  const uint64_t e = ElementBytes(decl);
  return e == 0 ? 1 : static_cast<uint32_t>(e);
}
// Bytes of one declarator: element size x every dimension. An unsized `[]`
// dimension takes its length from a brace initializer; without one it is 0
// (`.extern .shared .b8 smem[]`).
// Saturates at kMaxVariableBytes, which no layout or allocation accepts.
inline constexpr uint64_t kMaxVariableBytes = uint64_t{1} << 40;
uint64_t DeclaratorBytes(const ptx::VarDecl& decl, const ptx::Declarator& d);

// "name:line" for messages.
std::string Where(std::string_view module, uint32_t line);

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_DECODE_SYMBOLS_H_
