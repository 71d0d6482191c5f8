// A small, bounded ELF64 little-endian reader: just what fat-binary extraction
// needs (sections by name, virtual address -> file offset through PT_LOAD,
// RELATIVE relocations for pointers in PIE / shared objects, dynamic imports).
// Every header, table and string is checked against the file size; a corrupt or
// truncated file yields an error, never an out-of-bounds read.
#ifndef BARRACUDA_PTX_REWRITER_FATBIN_ELF_READER_H_
#define BARRACUDA_PTX_REWRITER_FATBIN_ELF_READER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"

namespace barracuda::fatbin {

struct ElfSection {
  std::string name;
  uint32_t type = 0;   // SHT_*
  uint64_t flags = 0;  // SHF_*
  uint32_t link = 0;   // sh_link
  uint64_t addr = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  bool has_file_bytes() const;  // not SHT_NOBITS / SHT_NULL
};

// A defined function of the static symbol table (.symtab).
struct ElfFunction {
  std::string name;
  uint64_t value = 0;  // link-time virtual address (add the load base for PIE)
  uint64_t size = 0;   // st_size: 0 when the assembler did not record it
  bool global = false; // STB_GLOBAL / STB_WEAK, else STB_LOCAL
};

struct ElfSegment {
  uint32_t type = 0;  // PT_*
  uint64_t offset = 0, vaddr = 0, filesz = 0, memsz = 0;
};

class ElfFile {
 public:
  // `bytes` must outlive the ElfFile (sections are views into it).
  static absl::StatusOr<ElfFile> Parse(std::span<const uint8_t> bytes);

  uint16_t type() const { return type_; }        // ET_EXEC, ET_DYN, ET_REL, ...
  uint16_t machine() const { return machine_; }  // EM_X86_64, EM_AARCH64, ...
  std::span<const uint8_t> bytes() const { return bytes_; }
  const std::vector<ElfSection>& sections() const { return sections_; }
  const std::vector<ElfSegment>& segments() const { return segments_; }
  const ElfSection* FindSection(std::string_view name) const;
  // The file bytes of a section (empty for NOBITS).
  std::span<const uint8_t> SectionBytes(const ElfSection& s) const;

  enum class AddrKind { kUnmapped, kFile, kZeroFill };
  struct AddrMapping {
    AddrKind kind = AddrKind::kUnmapped;
    uint64_t file_offset = 0;  // kFile only
  };
  // Maps [vaddr, vaddr+size) through the PT_LOAD segments: kFile when it lies in
  // a segment's file image, kZeroFill when wholly in its .bss tail.
  AddrMapping MapAddress(uint64_t vaddr, uint64_t size) const;
  // A pointer stored at `vaddr` as the loader would see it relative to a load
  // base of 0: the addend of a RELATIVE relocation at that address when there
  // is one (lld leaves the slot itself 0), else the stored 8 bytes; 0 for a
  // zero-fill slot. nullopt when the address is not mapped.
  std::optional<uint64_t> ReadPointer(uint64_t vaddr) const;

  // Undefined symbols of the dynamic symbol table (the imports).
  const std::vector<std::string>& dynamic_imports() const { return imports_; }
  bool ImportsSymbol(std::string_view name) const;

  // Whether the file keeps its static symbol table (`strip` removes it).
  bool has_symbol_table() const;
  // The defined functions of .symtab, in table order; read on demand (large
  // programs have large tables). Empty when stripped.
  absl::StatusOr<std::vector<ElfFunction>> DefinedFunctions() const;

 private:
  ElfFile() = default;
  absl::Status ParseSections();
  absl::Status ParseSegments();
  absl::Status ParseDynamicSymbols();
  absl::Status ParseRelativeRelocations();

  std::span<const uint8_t> bytes_;
  uint16_t type_ = 0;
  uint16_t machine_ = 0;
  std::vector<ElfSection> sections_;
  std::vector<ElfSegment> segments_;
  std::vector<std::string> imports_;
  absl::flat_hash_map<uint64_t, uint64_t> relative_relocs_;  // slot vaddr -> addend
};

}  // namespace barracuda::fatbin

#endif  // BARRACUDA_PTX_REWRITER_FATBIN_ELF_READER_H_
