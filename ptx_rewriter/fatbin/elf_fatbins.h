// Finds the CUDA fat binaries of an ELF executable, shared object or object file.
//
// Two sources, merged: (1) the fatbin data sections (.nv_fatbin, and
// __nv_relfatbin for -rdc builds) scanned as a sequence of 8-aligned fat
// binaries; (2) the `__fatBinC_Wrapper_t` records of .nvFatBinSegment, whose
// pointers are followed through PT_LOAD (and RELATIVE relocations in PIE and
// shared objects), which says which fat binaries host code registers. Order is
// deterministic: data sections in section-table order, then any fat binary
// reachable only through a wrapper.
#ifndef BARRACUDA_PTX_REWRITER_FATBIN_ELF_FATBINS_H_
#define BARRACUDA_PTX_REWRITER_FATBIN_ELF_FATBINS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ptx_rewriter/fatbin/elf_reader.h"
#include "ptx_rewriter/fatbin/fatbin_reader.h"

namespace barracuda::fatbin {

inline constexpr char kFatbinDataSection[] = ".nv_fatbin";
inline constexpr char kFatbinRelocatableSection[] = "__nv_relfatbin";
inline constexpr char kFatbinWrapperSection[] = ".nvFatBinSegment";

struct LocatedFatbin {
  std::string section;           // section that holds the fatbin header
  uint64_t file_offset = 0;
  uint64_t vaddr = 0;            // link-time address (0 in object files)
  uint32_t wrapper_version = 0;  // of the wrapper pointing at it; 0 = none does
  Fatbin fatbin;
};

struct ElfFatbins {
  std::vector<LocatedFatbin> fatbins;
  size_t wrapper_count = 0;
  // Version-2 wrappers whose prelinked list lives in .bss (filled in at run time
  // by __cudaRegisterLinkedBinary_*): the listed fatbins are the per-object ones
  // in __nv_relfatbin, found by the section scan.
  size_t runtime_prelinked_lists = 0;
  size_t ptx_count() const;
};

// Errors name the section and file offset of what is malformed. A file without
// any fat binary is not an error (empty result).
absl::StatusOr<ElfFatbins> FindFatbins(const ElfFile& elf, const ParseOptions& opts = {});

}  // namespace barracuda::fatbin

#endif  // BARRACUDA_PTX_REWRITER_FATBIN_ELF_FATBINS_H_
