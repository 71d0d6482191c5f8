#include "ptx_emulator/core/warp_context.h"

#include <utility>

namespace barracuda::emu {

void WarpCtx::Raise(FaultKind kind, const Inst& inst, uint32_t lane, uint64_t address, std::string what) {
  if (faulted()) return;  // the first fault is the one reported
  fault.kind = kind;
  fault.lane = lane;
  fault.address = address;
  fault.message = std::move(what);
  if (inst.ptx_line != 0) fault.message += " (PTX line " + std::to_string(inst.ptx_line) + ")";
}

}  // namespace barracuda::emu
