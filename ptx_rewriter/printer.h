// PTX printer: Module (ir.h) -> PTX text that ptxas accepts.
//
// Layout is normalised (one statement per line, tab-indented bodies, comments
// dropped); meaning is preserved: ParseModule(PrintModule(m)) is SameMeaning
// as m. Modifiers print in their stored order; opaque instructions print
// verbatim; .section bodies print verbatim.
#ifndef BARRACUDA_PTX_REWRITER_PRINTER_H_
#define BARRACUDA_PTX_REWRITER_PRINTER_H_

#include <string>

#include "ptx_rewriter/ir.h"

namespace barracuda::ptx {

std::string PrintModule(const Module& module);

// Pieces, for diagnostics and tests. Appending versions avoid temporaries.
void AppendInstruction(const Instruction& inst, std::string& out);  // no ';', no newline
std::string PrintInstruction(const Instruction& inst);                 // "ld.global.u32 %r1, [%rd1]"
void AppendOperand(const Operand& op, std::string& out);
std::string PrintOperand(const Operand& op);
std::string PrintStatement(const Statement& s);                        // one line, no newline
std::string PrintFunction(const Function& f);

}  // namespace barracuda::ptx

#endif  // BARRACUDA_PTX_REWRITER_PRINTER_H_
