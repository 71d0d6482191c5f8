// Placeholder until decode/ lands.
#include "ptx_emulator/core/device.h"

namespace barracuda::emu {

absl::StatusOr<uint32_t> Device::LoadLinkUnit(std::vector<PtxSource>) {
  return absl::UnimplementedError("module loading: not implemented yet");
}
absl::StatusOr<uint32_t> Device::FindKernel(uint32_t, std::string_view) const {
  return absl::UnimplementedError("not implemented yet");
}
absl::StatusOr<GlobalVariable> Device::FindVariable(uint32_t, std::string_view) const {
  return absl::UnimplementedError("not implemented yet");
}

DeviceMemory::DeviceMemory(uint64_t) {}
DeviceMemory::~DeviceMemory() = default;

}  // namespace barracuda::emu
