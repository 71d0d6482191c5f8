// How an executable carries the CUDA runtime. nvcc and CMake link it
// statically by default (-cudart static): the runtime's functions are then part
// of the executable, reached by direct calls that no replacement library and no
// LD_PRELOAD can intercept. They still have their names in the static symbol
// table (.symtab), which is what the redirection (redirect.h) works from.
#ifndef BARRACUDA_HOST_DETECTOR_STATIC_CUDART_RUNTIME_LINKAGE_H_
#define BARRACUDA_HOST_DETECTOR_STATIC_CUDART_RUNTIME_LINKAGE_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ptx_rewriter/fatbin/elf_reader.h"

namespace barracuda::static_cudart {

struct RuntimeLinkage {
  // The executable defines __cudaRegisterFatBinary itself (and imports no
  // dynamic one): the CUDA runtime is linked in statically.
  bool static_runtime = false;
  // No .symtab: a static runtime can be neither recognised with certainty nor
  // redirected. `static_runtime` is then a guess: a fat-binary wrapper
  // segment (.nvFatBinSegment) and no dynamic registration import.
  bool stripped = false;
  // The executable's functions named like CUDA runtime entry points (cuda*,
  // __cuda*); which of them are redirected is decided by the target runtime's
  // exports (redirect.h).
  std::vector<fatbin::ElfFunction> entry_points;
};

// True for the names the CUDA runtime exports: `cuda...` and `__cuda...`.
bool IsRuntimeEntryName(std::string_view name);

// Reads the linkage from a parsed executable. Errors only for a corrupt
// symbol table.
absl::StatusOr<RuntimeLinkage> InspectRuntimeLinkage(const fatbin::ElfFile& elf);

}  // namespace barracuda::static_cudart

#endif  // BARRACUDA_HOST_DETECTOR_STATIC_CUDART_RUNTIME_LINKAGE_H_
