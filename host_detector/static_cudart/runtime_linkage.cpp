#include "host_detector/static_cudart/runtime_linkage.h"

namespace barracuda::static_cudart {

bool IsRuntimeEntryName(std::string_view name) {
  return name.starts_with("cuda") || name.starts_with("__cuda");
}

absl::StatusOr<RuntimeLinkage> InspectRuntimeLinkage(const fatbin::ElfFile& elf) {
  RuntimeLinkage out;
  const bool imports_registration = elf.ImportsSymbol("__cudaRegisterFatBinary");
  if (!elf.has_symbol_table()) {
    out.stripped = true;
    // Without symbols, a registration wrapper segment and no dynamic
    // registration import say it (a stripped /bin/sh has neither).
    out.static_runtime = !imports_registration && elf.FindSection(".nvFatBinSegment") != nullptr;
    return out;
  }
  absl::StatusOr<std::vector<fatbin::ElfFunction>> functions = elf.DefinedFunctions();
  if (!functions.ok()) return functions.status();
  bool defines_registration = false;
  for (fatbin::ElfFunction& f : *functions) {
    if (!IsRuntimeEntryName(f.name)) continue;
    if (f.name == "__cudaRegisterFatBinary") defines_registration = true;
    out.entry_points.push_back(std::move(f));
  }
  out.static_runtime = defines_registration && !imports_registration;
  if (!out.static_runtime) out.entry_points.clear();
  return out;
}

}  // namespace barracuda::static_cudart
