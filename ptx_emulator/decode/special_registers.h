// PTX special register names -> SpecialReg.
#ifndef BARRACUDA_PTX_EMULATOR_DECODE_SPECIAL_REGISTERS_H_
#define BARRACUDA_PTX_EMULATOR_DECODE_SPECIAL_REGISTERS_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "ptx_emulator/core/exec_form.h"

namespace barracuda::emu {

// "%tid.x", "%lanemask_lt", "%envreg7", ... ; nullopt for anything else
// (including a vector register without its component: PTX requires one).
std::optional<SpecialReg> LookupSpecialRegister(std::string_view name);

// The PTX ISA's predefined identifiers that are constants rather than special
// registers: WARP_SZ (32). nullopt for anything else.
std::optional<uint64_t> PredefinedConstant(std::string_view name);

// %clock, %clock64 and %globaltimer*: values the interpreter refreshes per
// instruction (Inst::reads_dynamic_sreg).
bool IsDynamicSpecialRegister(SpecialReg r);

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_DECODE_SPECIAL_REGISTERS_H_
