#include "ptx_emulator/exec/fault_status.h"


namespace barracuda::emu {

std::string_view FaultKindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kNone: return "no fault";
    case FaultKind::kIllegalAddress: return "illegal address";
    case FaultKind::kMisalignedAddress: return "misaligned address";
    case FaultKind::kInvalidPc: return "invalid pc";
    case FaultKind::kTrap: return "trap";
    case FaultKind::kAssert: return "assert";
    case FaultKind::kUnsupported: return "unsupported";
    case FaultKind::kDeadlock: return "deadlock";
    case FaultKind::kStackOverflow: return "stack overflow";
    case FaultKind::kTimeout: return "timeout";
  }
  return "fault";
}

absl::Status FaultStatus(FaultKind kind, std::string_view message) {
  std::string text = std::string(FaultKindName(kind)) + ": " + std::string(message);
  if (kind == FaultKind::kUnsupported) return absl::UnimplementedError(text);
  return absl::AbortedError(text);
}

std::optional<FaultKind> FaultKindOf(const absl::Status& status) {
  if (status.ok()) return std::nullopt;
  for (FaultKind k : {FaultKind::kIllegalAddress, FaultKind::kMisalignedAddress, FaultKind::kInvalidPc,
                      FaultKind::kTrap, FaultKind::kAssert, FaultKind::kUnsupported, FaultKind::kDeadlock,
                      FaultKind::kStackOverflow, FaultKind::kTimeout}) {
    const std::string prefix = std::string(FaultKindName(k)) + ": ";
    if (std::string_view(status.message().data(), status.message().size()).substr(0, prefix.size()) == prefix) return k;
  }
  return std::nullopt;
}

}  // namespace barracuda::emu
