// For exec's own unit tests: run hand-built Functions without the decoder.
#ifndef BARRACUDA_PTX_EMULATOR_EXEC_TESTING_HOOKS_H_
#define BARRACUDA_PTX_EMULATOR_EXEC_TESTING_HOOKS_H_

#include <cstdint>
#include <memory>

#include "ptx_emulator/core/device.h"

namespace barracuda::emu {

// Appends `fn` to the device's function table; returns its index.
uint32_t InstallFunctionForTesting(Device& device, std::unique_ptr<Function> fn);

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_EXEC_TESTING_HOOKS_H_
