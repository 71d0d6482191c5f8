// Writing a module variable's initializer into device memory.
#ifndef BARRACUDA_PTX_EMULATOR_DECODE_INITIALIZERS_H_
#define BARRACUDA_PTX_EMULATOR_DECODE_INITIALIZERS_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "ptx_emulator/decode/symbols.h"
#include "ptx_rewriter/ir.h"

namespace barracuda::emu {

// Writes `d.init` (scalar or nested brace list, flattened in order, one element
// of the declaration's scalar type each) at `dest` (`bytes` long, already
// zero). Integer and float literals are converted to the variable's type;
// symbols (`sym`, `sym+8`, `generic(sym)`) take their linked address, function
// symbols their function-pointer value. Errors: "module:line: ..." naming the
// variable.
absl::Status WriteInitializer(const ptx::VarDecl& decl, const ptx::Declarator& d, uint8_t* dest, uint64_t bytes,
                              const SymbolTable& symbols, std::string_view module);

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_DECODE_INITIALIZERS_H_
