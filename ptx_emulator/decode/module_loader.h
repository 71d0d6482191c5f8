// Loads one link unit into a Device: parse every module, number sites, link
// names across the unit (-rdc), allocate and initialise module variables, lay
// out .shared, decode every function. Nothing is committed to the Device until
// the whole unit succeeded (device memory taken on the way is given back).
//
// ModuleLoader is a friend of Device (core/device.h). Tests may pass their own
// selector list to decode without the instruction families.
#ifndef BARRACUDA_PTX_EMULATOR_DECODE_MODULE_LOADER_H_
#define BARRACUDA_PTX_EMULATOR_DECODE_MODULE_LOADER_H_

#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "ptx_emulator/core/device.h"
#include "ptx_emulator/core/handlers.h"

namespace barracuda::emu {

class ModuleLoader {
 public:
  explicit ModuleLoader(Device& device, std::span<const Selector> selectors = kSelectors)
      : device_(device), selectors_(selectors) {}

  // Device::LoadLinkUnit: the new link unit's id.
  absl::StatusOr<uint32_t> Load(std::vector<PtxSource> sources, bool fault_unsupported_when_reached = false);

 private:
  Device& device_;
  std::span<const Selector> selectors_;
};

// Extern functions the emulator implements itself (vprintf, __assertfail,
// malloc, free, cudaGraphSetConditional); Builtin::kNone for any other name.
Builtin LookupBuiltin(std::string_view name);

}  // namespace barracuda::emu

#endif  // BARRACUDA_PTX_EMULATOR_DECODE_MODULE_LOADER_H_
