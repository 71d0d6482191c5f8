#include "ptx_rewriter/fatbin/elf_reader.h"

#include <elf.h>

#include <algorithm>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ptx_rewriter/fatbin/bounded_bytes.h"

namespace barracuda::fatbin {
namespace {

absl::Status Corrupt(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("corrupt ELF file: ", what));
}

// A NUL-terminated string at `off` inside `table`; nullopt when it runs off the end.
std::optional<std::string_view> TableString(std::span<const uint8_t> table, uint64_t off) {
  if (off >= table.size()) return std::nullopt;
  auto rest = table.subspan(off);
  auto nul = std::find(rest.begin(), rest.end(), uint8_t{0});
  if (nul == rest.end()) return std::nullopt;
  return std::string_view(reinterpret_cast<const char*>(rest.data()),
                          static_cast<size_t>(nul - rest.begin()));
}

}  // namespace

bool ElfSection::has_file_bytes() const { return type != SHT_NOBITS && type != SHT_NULL; }

absl::StatusOr<ElfFile> ElfFile::Parse(std::span<const uint8_t> bytes) {
  if (bytes.size() < EI_NIDENT || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) {
    return absl::InvalidArgumentError("not an ELF file (no \\x7fELF magic)");
  }
  if (bytes[EI_CLASS] != ELFCLASS64) {
    return absl::InvalidArgumentError("not a 64-bit ELF file (CUDA 13 supports 64-bit hosts only)");
  }
  if (bytes[EI_DATA] != ELFDATA2LSB) {
    return absl::InvalidArgumentError("big-endian ELF files are not supported");
  }
  if (bytes.size() < sizeof(Elf64_Ehdr)) return Corrupt("truncated ELF header");
  auto eh = Load<Elf64_Ehdr>(bytes, 0);
  ElfFile f;
  f.bytes_ = bytes;
  f.type_ = eh.e_type;
  f.machine_ = eh.e_machine;
  if (absl::Status s = f.ParseSections(); !s.ok()) return s;
  if (absl::Status s = f.ParseSegments(); !s.ok()) return s;
  if (absl::Status s = f.ParseDynamicSymbols(); !s.ok()) return s;
  if (absl::Status s = f.ParseRelativeRelocations(); !s.ok()) return s;
  return f;
}

absl::Status ElfFile::ParseSections() {
  auto eh = Load<Elf64_Ehdr>(bytes_, 0);
  if (eh.e_shoff == 0) return absl::OkStatus();  // stripped of section headers
  if (eh.e_shentsize != sizeof(Elf64_Shdr)) {
    return Corrupt(absl::StrCat("section header entry size ", eh.e_shentsize, " (expected 64)"));
  }
  if (!InRange(eh.e_shoff, sizeof(Elf64_Shdr), bytes_.size())) {
    return Corrupt(absl::StrCat("section header table offset ", Hex(eh.e_shoff),
                                " is past the end of the file"));
  }
  // Extended numbering: counts that do not fit the ELF header live in section 0.
  auto sh0 = Load<Elf64_Shdr>(bytes_, eh.e_shoff);
  uint64_t shnum = eh.e_shnum != 0 ? eh.e_shnum : sh0.sh_size;
  uint64_t shstrndx = eh.e_shstrndx != SHN_XINDEX ? eh.e_shstrndx : sh0.sh_link;
  if (shnum > (bytes_.size() - eh.e_shoff) / sizeof(Elf64_Shdr)) {
    return Corrupt(absl::StrCat("section header table (", shnum,
                                " entries) runs past the end of the file"));
  }
  std::vector<Elf64_Shdr> raw(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    raw[i] = Load<Elf64_Shdr>(bytes_, eh.e_shoff + i * sizeof(Elf64_Shdr));
    if (raw[i].sh_type != SHT_NOBITS && raw[i].sh_type != SHT_NULL &&
        !InRange(raw[i].sh_offset, raw[i].sh_size, bytes_.size())) {
      return Corrupt(absl::StrCat("section ", i, " [", Hex(raw[i].sh_offset), ", +",
                                  Hex(raw[i].sh_size), ") runs past the end of the file"));
    }
  }
  std::span<const uint8_t> names;
  if (shstrndx != SHN_UNDEF) {
    if (shstrndx >= shnum || raw[shstrndx].sh_type == SHT_NOBITS ||
        !InRange(raw[shstrndx].sh_offset, raw[shstrndx].sh_size, bytes_.size())) {
      return Corrupt(absl::StrCat("section name table index ", shstrndx, " is invalid"));
    }
    names = bytes_.subspan(raw[shstrndx].sh_offset, raw[shstrndx].sh_size);
  }
  sections_.reserve(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    ElfSection s;
    if (i != 0 && !names.empty()) {
      auto n = TableString(names, raw[i].sh_name);
      if (!n) return Corrupt(absl::StrCat("name of section ", i, " is outside the name table"));
      s.name = std::string(*n);
    }
    s.type = raw[i].sh_type;
    s.flags = raw[i].sh_flags;
    s.link = raw[i].sh_link;
    s.addr = raw[i].sh_addr;
    s.offset = raw[i].sh_offset;
    s.size = raw[i].sh_size;
    sections_.push_back(std::move(s));
  }
  return absl::OkStatus();
}

absl::Status ElfFile::ParseSegments() {
  auto eh = Load<Elf64_Ehdr>(bytes_, 0);
  if (eh.e_phoff == 0 || eh.e_phnum == 0) return absl::OkStatus();
  if (eh.e_phentsize != sizeof(Elf64_Phdr)) {
    return Corrupt(absl::StrCat("program header entry size ", eh.e_phentsize, " (expected 56)"));
  }
  if (!InRange(eh.e_phoff, uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr), bytes_.size())) {
    return Corrupt("program header table runs past the end of the file");
  }
  for (uint64_t i = 0; i < eh.e_phnum; ++i) {
    auto ph = Load<Elf64_Phdr>(bytes_, eh.e_phoff + i * sizeof(Elf64_Phdr));
    if (ph.p_type != PT_LOAD) continue;
    if (!InRange(ph.p_offset, ph.p_filesz, bytes_.size())) {
      return Corrupt(absl::StrCat("PT_LOAD segment ", i, " [", Hex(ph.p_offset), ", +",
                                  Hex(ph.p_filesz), ") runs past the end of the file"));
    }
    if (ph.p_filesz > ph.p_memsz || ph.p_vaddr > UINT64_MAX - ph.p_memsz) {
      return Corrupt(absl::StrCat("PT_LOAD segment ", i, " has inconsistent sizes"));
    }
    segments_.push_back({ph.p_type, ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz});
  }
  return absl::OkStatus();
}

absl::Status ElfFile::ParseDynamicSymbols() {
  for (const ElfSection& s : sections_) {
    if (s.type != SHT_DYNSYM) continue;
    const uint32_t link = s.link;
    if (link >= sections_.size() || !sections_[link].has_file_bytes()) {
      return Corrupt(absl::StrCat("dynamic symbol table links to invalid string table ", link));
    }
    std::span<const uint8_t> strtab = SectionBytes(sections_[link]);
    std::span<const uint8_t> symtab = SectionBytes(s);
    for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= symtab.size(); off += sizeof(Elf64_Sym)) {
      auto sym = Load<Elf64_Sym>(symtab, off);
      if (sym.st_shndx != SHN_UNDEF || sym.st_name == 0) continue;
      auto name = TableString(strtab, sym.st_name);
      if (!name) return Corrupt("dynamic symbol name is outside the string table");
      imports_.emplace_back(*name);
    }
  }
  return absl::OkStatus();
}

bool ElfFile::has_symbol_table() const {
  return std::any_of(sections_.begin(), sections_.end(), [](const ElfSection& s) { return s.type == SHT_SYMTAB; });
}

absl::StatusOr<std::vector<ElfFunction>> ElfFile::DefinedFunctions() const {
  std::vector<ElfFunction> out;
  for (const ElfSection& s : sections_) {
    if (s.type != SHT_SYMTAB) continue;
    if (s.link >= sections_.size() || !sections_[s.link].has_file_bytes()) {
      return Corrupt(absl::StrCat("symbol table links to invalid string table ", s.link));
    }
    std::span<const uint8_t> strtab = SectionBytes(sections_[s.link]);
    std::span<const uint8_t> symtab = SectionBytes(s);
    for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= symtab.size(); off += sizeof(Elf64_Sym)) {
      auto sym = Load<Elf64_Sym>(symtab, off);
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC) continue;  // not IFUNC: its value is the resolver
      if (sym.st_shndx == SHN_UNDEF || sym.st_name == 0) continue;
      auto name = TableString(strtab, sym.st_name);
      if (!name) return Corrupt("symbol name is outside the string table");
      const unsigned bind = ELF64_ST_BIND(sym.st_info);
      out.push_back(ElfFunction{std::string(*name), sym.st_value, sym.st_size, bind == STB_GLOBAL || bind == STB_WEAK});
    }
  }
  return out;
}

absl::Status ElfFile::ParseRelativeRelocations() {
  uint32_t relative_type = 0;
  if (machine_ == EM_X86_64) relative_type = R_X86_64_RELATIVE;
  else if (machine_ == EM_AARCH64) relative_type = R_AARCH64_RELATIVE;
  if (relative_type == 0 || (type_ != ET_EXEC && type_ != ET_DYN)) return absl::OkStatus();
  for (const ElfSection& s : sections_) {
    if (s.type != SHT_RELA) continue;
    std::span<const uint8_t> table = SectionBytes(s);
    for (uint64_t off = 0; off + sizeof(Elf64_Rela) <= table.size(); off += sizeof(Elf64_Rela)) {
      auto r = Load<Elf64_Rela>(table, off);
      if (ELF64_R_TYPE(r.r_info) == relative_type) {
        relative_relocs_[r.r_offset] = static_cast<uint64_t>(r.r_addend);
      }
    }
  }
  return absl::OkStatus();
}

const ElfSection* ElfFile::FindSection(std::string_view name) const {
  for (const ElfSection& s : sections_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::span<const uint8_t> ElfFile::SectionBytes(const ElfSection& s) const {
  if (!s.has_file_bytes()) return {};
  return bytes_.subspan(s.offset, s.size);  // bounds checked in ParseSections
}

ElfFile::AddrMapping ElfFile::MapAddress(uint64_t vaddr, uint64_t size) const {
  for (const ElfSegment& seg : segments_) {
    if (vaddr < seg.vaddr || !InRange(vaddr - seg.vaddr, size, seg.memsz)) continue;
    uint64_t rel = vaddr - seg.vaddr;
    if (InRange(rel, size, seg.filesz)) return {AddrKind::kFile, seg.offset + rel};
    if (rel >= seg.filesz) return {AddrKind::kZeroFill, 0};
    return {};  // straddles the end of the file image
  }
  if (segments_.empty() && (type_ == ET_EXEC || type_ == ET_DYN)) {
    // No program headers: fall back on the allocated sections.
    for (const ElfSection& s : sections_) {
      if ((s.flags & SHF_ALLOC) == 0 || vaddr < s.addr || !InRange(vaddr - s.addr, size, s.size)) {
        continue;
      }
      if (!s.has_file_bytes()) return {AddrKind::kZeroFill, 0};
      return {AddrKind::kFile, s.offset + (vaddr - s.addr)};
    }
  }
  return {};
}

std::optional<uint64_t> ElfFile::ReadPointer(uint64_t vaddr) const {
  AddrMapping m = MapAddress(vaddr, sizeof(uint64_t));
  if (m.kind == AddrKind::kUnmapped) return std::nullopt;
  if (auto it = relative_relocs_.find(vaddr); it != relative_relocs_.end()) return it->second;
  if (m.kind == AddrKind::kZeroFill) return 0;
  return Load<uint64_t>(bytes_, m.file_offset);
}

bool ElfFile::ImportsSymbol(std::string_view name) const {
  for (const std::string& s : imports_) {
    if (s == name) return true;
  }
  return false;
}

}  // namespace barracuda::fatbin
