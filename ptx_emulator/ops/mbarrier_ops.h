// What mbarrier_ops.cpp shares with async_copy_ops.cpp (cp.async.mbarrier.arrive
// arrives on an mbarrier object too).
#ifndef BARRACUDA_PTX_EMULATOR_OPS_MBARRIER_OPS_H_
#define BARRACUDA_PTX_EMULATOR_OPS_MBARRIER_OPS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "device_logger/protocol.h"
#include "ptx_emulator/core/exec_form.h"
#include "ptx_emulator/core/warp_context.h"
#include "ptx_emulator/ops/mem_access.h"

namespace barracuda::emu {

namespace mbar {

// Host pointers and record addresses of the lanes' 8-byte mbarrier objects
// (aligned, in a shared window of the block or its cluster); false after a fault.
bool ResolveObjects(const Inst& inst, WarpCtx& ctx, uint32_t exec, const Opnd& address, mem::Space space,
                    uint8_t** ptr, uint64_t* log);
// One record of an access to the lanes' objects (tracing on), stamped when
// `stamp` (callers of a read-modify-write hold mem::ReleaseMutex()).
void EmitObjectRecord(const Inst& inst, WarpCtx& ctx, uint32_t mask, const uint64_t* log, protocol::Op op,
                      uint8_t flags, protocol::Scope scope, bool stamp);

}  // namespace mbar
}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_OPS_MBARRIER_OPS_H_
