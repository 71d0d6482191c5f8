// Launch errors: a fault becomes an absl::Status whose message starts with the
// fault kind's name ("trap: ...", "deadlock: ..."), so the runtime can map it
// to a cudaError_t (FaultKindOf) and users read what happened first.
// Status codes: kUnsupported -> Unimplemented, every other fault -> Aborted.
#ifndef BARRACUDA_PTX_EMULATOR_EXEC_FAULT_STATUS_H_
#define BARRACUDA_PTX_EMULATOR_EXEC_FAULT_STATUS_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "ptx_emulator/core/warp_context.h"

namespace barracuda::emu {

std::string_view FaultKindName(FaultKind kind);  // "illegal address", "trap", ...
absl::Status FaultStatus(FaultKind kind, std::string_view message);
// The fault kind a launch status reports; nullopt for OK or non-fault errors.
std::optional<FaultKind> FaultKindOf(const absl::Status& status);

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_EXEC_FAULT_STATUS_H_
