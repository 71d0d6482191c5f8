// Placeholder until the family lands: selects nothing.
#include "ptx_emulator/core/handlers.h"

namespace barracuda::emu {

absl::StatusOr<bool> SelectWarpOp(const ptx::Instruction&, Inst&) { return false; }

}  // namespace barracuda::emu
