#include "ptx_emulator/core/warp_context.h"

#include <utility>

namespace barracuda::emu {

void WarpCtx::Raise(FaultKind kind, const Inst& inst, uint32_t lane, uint64_t address, std::string what) {
  if (faulted()) return;  // the first fault is the one reported
  fault.kind = kind;
  fault.lane = lane;
  fault.address = address;
  fault.message = std::move(what);
  fault.site = inst.site;
  fault.ptx_line = inst.ptx_line;
  if (inst.ptx_line != 0) fault.message += " (PTX line " + std::to_string(inst.ptx_line) + ")";
}

void WarpCtx::RaiseMemory(MemoryError error, const Inst& inst, uint32_t lane, uint64_t address, uint32_t size,
                          uint8_t space, AccessKind access, std::string what) {
  if (faulted()) return;
  Raise(error == MemoryError::kMisaligned ? FaultKind::kMisalignedAddress : FaultKind::kIllegalAddress, inst, lane,
        address, std::move(what));
  fault.memory = error;
  fault.size = size;
  fault.space = space;
  fault.access = access;
}

}  // namespace barracuda::emu
