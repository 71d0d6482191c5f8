// PTX parser: text -> Module (ir.h).
//
// Accepts the PTX that nvcc emits (ISA 6.x - 9.0) and hand-written PTX of the
// same grammar. Instructions are parsed generically (opcode, dot-modifiers,
// operands); syntax the parser does not model inside an instruction is kept
// verbatim as an opaque instruction. Malformed input yields an
// absl::InvalidArgumentError "file:line:col: message"; the parser never crashes
// or aborts on any input (fuzzed: fuzz/ptx_parser_fuzzer.cpp).
#ifndef BARRACUDA_PTX_REWRITER_PARSER_H_
#define BARRACUDA_PTX_REWRITER_PARSER_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "ptx_rewriter/ir.h"

namespace barracuda::ptx {

absl::StatusOr<Module> ParseModule(std::string_view text, std::string_view filename);

// One instruction, e.g. "@!%p1 ld.global.nc.v4.u32 {%r1, %r2, _, %r4}, [%rd2+16]"
// (the trailing ';' is optional). For passes that synthesise instructions.
// Names are not resolved against declarations: %-names are registers, others symbols.
absl::StatusOr<Instruction> ParseInstruction(std::string_view text);

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_PARSER_H_
