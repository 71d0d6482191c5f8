// Device's loading API (core/device.h), implemented by ModuleLoader.
#include "ptx_rewriter/text_concat.h"
#include "ptx_emulator/core/device.h"
#include "ptx_emulator/decode/module_loader.h"

namespace barracuda::emu {

absl::StatusOr<uint32_t> Device::LoadLinkUnit(std::vector<PtxSource> sources, bool fault_unsupported_when_reached) {
  return ModuleLoader(*this).Load(std::move(sources), fault_unsupported_when_reached);
}

absl::StatusOr<uint32_t> Device::FindKernel(uint32_t link_unit, std::string_view name) const {
  std::lock_guard<std::mutex> lock(load_mu_);
  if (link_unit >= unit_functions_.size()) return absl::NotFoundError(ptx::Cat("no link unit ", link_unit));
  const auto& table = unit_functions_[link_unit];
  auto it = table.find(std::string(name));
  if (it == table.end() || !functions_[it->second]->is_entry)
    return absl::NotFoundError(ptx::Cat("no kernel (.entry) named `", name, "` in link unit ", link_unit));
  return it->second;
}

absl::StatusOr<GlobalVariable> Device::FindVariable(uint32_t link_unit, std::string_view name) const {
  std::lock_guard<std::mutex> lock(load_mu_);
  if (link_unit >= unit_variables_.size()) return absl::NotFoundError(ptx::Cat("no link unit ", link_unit));
  const auto& table = unit_variables_[link_unit];
  auto it = table.find(std::string(name));
  if (it == table.end())
    return absl::NotFoundError(ptx::Cat("no .global/.const variable named `", name, "` in link unit ", link_unit));
  return it->second;
}

}  // namespace barracuda::emu
