// Placeholder until exec/ lands.
#include "ptx_emulator/core/device.h"

namespace barracuda::emu {

absl::Status Device::Launch(uint32_t, const LaunchConfig&, void* const*) {
  return absl::UnimplementedError("kernel launch: not implemented yet");
}

}  // namespace barracuda::emu
