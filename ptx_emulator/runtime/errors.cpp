// Error state and error names: per-thread last error, sticky launch errors,
// cudaGetErrorName/String for every cudaError_t value (error_table.inc is
// generated from the toolkit's driver_types.h), and the mapping from a failed
// emulated launch to the cudaError_t a GPU would give.
#include <optional>

#include "absl/status/status.h"
#include "ptx_emulator/core/warp_context.h"
#include "ptx_emulator/exec/fault_status.h"
#include "ptx_emulator/runtime/cuda_api.h"
#include "ptx_emulator/runtime/runtime_state.h"

namespace barracuda::cudart {
namespace {

struct ErrorRow {
  int value;
  const char* name;
  const char* text;
};
constexpr ErrorRow kErrors[] = {
#include "error_table.inc"
};

const ErrorRow* FindError(cudaError_t e) {
  for (const ErrorRow& row : kErrors)
    if (row.value == static_cast<int>(e)) return &row;
  return nullptr;
}

}  // namespace

cudaError_t LaunchErrorFromStatus(const absl::Status& status, bool* sticky) {
  *sticky = false;
  if (status.ok()) return cudaSuccess;
  const std::optional<emu::FaultKind> kind = emu::FaultKindOf(status);
  if (!kind) {
    // Not a fault inside the kernel: the launch itself was rejected.
    if (status.code() == absl::StatusCode::kInvalidArgument) return cudaErrorInvalidConfiguration;
    if (status.code() == absl::StatusCode::kResourceExhausted) return cudaErrorLaunchOutOfResources;
    if (status.code() == absl::StatusCode::kUnimplemented) return cudaErrorNotSupported;
    *sticky = true;
    return cudaErrorLaunchFailure;
  }
  cudaError_t e = cudaErrorLaunchFailure;
  switch (*kind) {
    case emu::FaultKind::kNone: return cudaSuccess;
    case emu::FaultKind::kIllegalAddress: e = cudaErrorIllegalAddress; break;
    case emu::FaultKind::kMisalignedAddress: e = cudaErrorMisalignedAddress; break;
    case emu::FaultKind::kInvalidPc:
    case emu::FaultKind::kTrap: e = cudaErrorIllegalInstruction; break;
    case emu::FaultKind::kAssert: e = cudaErrorAssert; break;
    case emu::FaultKind::kDeadlock:
    case emu::FaultKind::kTimeout: e = cudaErrorLaunchTimeout; break;
    case emu::FaultKind::kStackOverflow: e = cudaErrorHardwareStackError; break;
    // The emulator's own limitation, not a corrupted context.
    case emu::FaultKind::kUnsupported: return cudaErrorNotSupported;
  }
  // Faults inside a kernel corrupt the context on a GPU: every later call fails.
  *sticky = true;
  return e;
}

}  // namespace barracuda::cudart

using barracuda::cudart::Runtime;

CUDART_EXPORT const char* cudaGetErrorName(cudaError_t error) {
  const auto* row = barracuda::cudart::FindError(error);
  return row ? row->name : "unrecognized error code";
}

CUDART_EXPORT const char* cudaGetErrorString(cudaError_t error) {
  const auto* row = barracuda::cudart::FindError(error);
  return row ? row->text : "unrecognized error code";
}

CUDART_EXPORT cudaError_t cudaGetLastError() {
  cudaError_t& last = Runtime::LastError();
  const cudaError_t e = last;
  last = cudaSuccess;
  // A sticky error never clears.
  if (e == cudaSuccess) return Runtime::Get().sticky();
  return e;
}

CUDART_EXPORT cudaError_t cudaPeekAtLastError() {
  const cudaError_t e = Runtime::LastError();
  return e == cudaSuccess ? Runtime::Get().sticky() : e;
}
