// ElfFile and FindFatbins on synthetic ELF64 files: non-PIE, PIE with the
// pointer only in a RELATIVE relocation (lld style), version-2 wrappers with a
// run-time (.bss) prelinked list, imports, and corrupt / truncated files.
#include <catch2/catch.hpp>

#include <elf.h>

#include <random>

#include "ptx_rewriter/fatbin/elf_fatbins.h"
#include "ptx_rewriter/fatbin/elf_reader.h"
#include "ptx_rewriter/tests/fatbin_synthetic_test.h"

namespace barracuda::fatbin {
namespace {

using testing::Align8;
using testing::BuildFatbin;
using testing::ElfSpec;
using testing::Get;
using testing::kSamplePtx;
using testing::PtxSpec;
using testing::Put;

struct ElfOptions {
  uint16_t type = ET_DYN;
  bool pointers_in_relocations_only = false;  // lld without -z apply-dynamic-relocs
  bool import_register = true;
  bool v2_wrapper = true;  // device-link wrapper with a .bss prelinked list
  std::vector<std::vector<uint8_t>> fatbins;
};

struct BuiltElf {
  std::vector<uint8_t> bytes;
  size_t shoff = 0;
  size_t fatbin_offset = 0;   // file offset of the first fatbin
  size_t wrapper_offset = 0;  // file offset of .nvFatBinSegment
};

// Layout: ehdr | phdr (one PT_LOAD over the whole file + .bss) | section data | shdrs.
BuiltElf BuildElf(const ElfOptions& o) {
  const uint64_t base = o.type == ET_EXEC ? 0x400000 : 0;
  std::vector<uint8_t> b(sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr), 0);
  struct Sec {
    std::string name;
    uint32_t type;
    uint64_t flags;
    uint64_t off, size;
    uint32_t link = 0;
    uint64_t entsize = 0;
  };
  std::vector<Sec> secs = {{"", SHT_NULL, 0, 0, 0}};
  auto add = [&](const std::string& name, uint32_t type, uint64_t flags,
                 const std::vector<uint8_t>& data, uint32_t link = 0, uint64_t entsize = 0) {
    b.resize(Align8(b.size()), 0);
    secs.push_back({name, type, flags, b.size(), data.size(), link, entsize});
    b.insert(b.end(), data.begin(), data.end());
    return secs.size() - 1;
  };
  BuiltElf out;
  std::vector<uint8_t> fb_data;
  std::vector<uint64_t> fb_vaddrs;
  for (const auto& f : o.fatbins) {
    fb_data.resize(Align8(fb_data.size()), 0);
    fb_vaddrs.push_back(fb_data.size());
    fb_data.insert(fb_data.end(), f.begin(), f.end());
  }
  size_t fb_sec = add(".nv_fatbin", SHT_PROGBITS, SHF_ALLOC, fb_data);
  out.fatbin_offset = secs[fb_sec].off;
  for (uint64_t& v : fb_vaddrs) v += base + secs[fb_sec].off;

  // .dynstr / .dynsym with one import (optional) and one defined symbol.
  std::string dynstr("\0__cudaRegisterFatBinary\0my_defined\0", 37);
  std::vector<uint8_t> strs(dynstr.begin(), dynstr.end());
  size_t str_sec = add(".dynstr", SHT_STRTAB, SHF_ALLOC, strs);
  std::vector<uint8_t> syms(sizeof(Elf64_Sym), 0);
  Elf64_Sym imp{};
  imp.st_name = 1;
  imp.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
  imp.st_shndx = o.import_register ? SHN_UNDEF : static_cast<uint16_t>(fb_sec);
  Put(syms, syms.size(), imp);
  Elf64_Sym def{};
  def.st_name = 25;
  def.st_shndx = static_cast<uint16_t>(fb_sec);
  Put(syms, syms.size(), def);
  add(".dynsym", SHT_DYNSYM, SHF_ALLOC, syms, static_cast<uint32_t>(str_sec), sizeof(Elf64_Sym));

  // Wrappers; slots for pointers are patched once their addresses are known.
  const size_t nwrap = o.fatbins.size() + (o.v2_wrapper ? 1 : 0);
  std::vector<uint8_t> wraps(nwrap * sizeof(WrapperRaw), 0);
  size_t wrap_sec = add(".nvFatBinSegment", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, wraps);
  out.wrapper_offset = secs[wrap_sec].off;
  const uint64_t wrap_vaddr = base + secs[wrap_sec].off;
  std::vector<Elf64_Rela> relas;
  size_t rela_sec = add(".rela.dyn", SHT_RELA, SHF_ALLOC,
                        std::vector<uint8_t>(nwrap * 2 * sizeof(Elf64_Rela), 0),
                        static_cast<uint32_t>(str_sec), sizeof(Elf64_Rela));
  b.resize(Align8(b.size()), 0);
  const uint64_t file_end_before_shdrs = b.size();
  const uint64_t bss_vaddr = base + file_end_before_shdrs;  // NOBITS after the file image
  secs.push_back({".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, file_end_before_shdrs, 64});

  auto set_pointer = [&](uint64_t slot_vaddr, uint64_t value) {
    if (o.pointers_in_relocations_only || o.type == ET_DYN) {
      Elf64_Rela r{};
      r.r_offset = slot_vaddr;
      r.r_info = ELF64_R_INFO(0, R_X86_64_RELATIVE);
      r.r_addend = static_cast<int64_t>(value);
      relas.push_back(r);
    }
    if (!o.pointers_in_relocations_only) Put(b, slot_vaddr - base, value);
  };
  size_t w = 0;
  if (o.v2_wrapper) {
    const uint64_t slot = wrap_vaddr;
    Put(b, slot - base, WrapperRaw{kWrapperMagic, 2, 0, 0});
    set_pointer(slot + 8, fb_vaddrs.empty() ? 0 : fb_vaddrs[0]);
    set_pointer(slot + 16, bss_vaddr);
    ++w;
  }
  for (size_t i = 0; i < o.fatbins.size(); ++i, ++w) {
    const uint64_t slot = wrap_vaddr + w * sizeof(WrapperRaw);
    Put(b, slot - base, WrapperRaw{kWrapperMagic, 1, 0, 0});
    set_pointer(slot + 8, fb_vaddrs[i]);
  }
  for (size_t i = 0; i < relas.size(); ++i) {
    Put(b, secs[rela_sec].off + i * sizeof(Elf64_Rela), relas[i]);
  }

  // Section name table, then section headers.
  std::vector<uint8_t> names(1, 0);
  std::vector<uint32_t> name_off;
  for (const Sec& s : secs) {
    name_off.push_back(s.name.empty() ? 0 : static_cast<uint32_t>(names.size()));
    if (!s.name.empty()) {
      names.insert(names.end(), s.name.begin(), s.name.end());
      names.push_back(0);
    }
  }
  name_off.push_back(static_cast<uint32_t>(names.size()));
  const std::string shstr = ".shstrtab";
  names.insert(names.end(), shstr.begin(), shstr.end());
  names.push_back(0);
  b.resize(Align8(b.size()), 0);
  secs.push_back({shstr, SHT_STRTAB, 0, b.size(), names.size()});
  b.insert(b.end(), names.begin(), names.end());
  b.resize(Align8(b.size()), 0);
  out.shoff = b.size();
  for (size_t i = 0; i < secs.size(); ++i) {
    Elf64_Shdr sh{};
    sh.sh_name = name_off[i];
    sh.sh_type = secs[i].type;
    sh.sh_flags = secs[i].flags;
    sh.sh_addr = (secs[i].flags & SHF_ALLOC) ? base + secs[i].off : 0;
    sh.sh_offset = secs[i].off;
    sh.sh_size = secs[i].size;
    sh.sh_link = secs[i].link;
    sh.sh_entsize = secs[i].entsize;
    Put(b, b.size(), sh);
  }
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = o.type;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_phoff = sizeof(Elf64_Ehdr);
  eh.e_shoff = out.shoff;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = 1;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = static_cast<uint16_t>(secs.size());
  eh.e_shstrndx = static_cast<uint16_t>(secs.size() - 1);
  Put(b, 0, eh);
  Elf64_Phdr ph{};
  ph.p_type = PT_LOAD;
  ph.p_offset = 0;
  ph.p_vaddr = base;
  ph.p_filesz = file_end_before_shdrs;
  ph.p_memsz = file_end_before_shdrs + 64;  // .bss
  Put(b, sizeof(Elf64_Ehdr), ph);
  out.bytes = std::move(b);
  return out;
}

std::vector<std::vector<uint8_t>> TwoFatbins() {
  return {BuildFatbin({ElfSpec(75)}),
          BuildFatbin({ElfSpec(75), PtxSpec(kSamplePtx, Compression::kZstd, 75)})};
}

TEST_CASE("elf: finds fat binaries in PIE and non-PIE files", "[fatbin][elf]") {
  for (uint16_t type : {uint16_t{ET_EXEC}, uint16_t{ET_DYN}}) {
    for (bool relocs_only : {false, true}) {
      ElfOptions o;
      o.type = type;
      o.pointers_in_relocations_only = relocs_only;
      o.fatbins = TwoFatbins();
      BuiltElf built = BuildElf(o);
      auto elf = ElfFile::Parse(built.bytes);
      REQUIRE(elf.ok());
      CHECK(elf->type() == type);
      CHECK(elf->ImportsSymbol("__cudaRegisterFatBinary"));
      CHECK_FALSE(elf->ImportsSymbol("my_defined"));
      REQUIRE(elf->FindSection(".nv_fatbin") != nullptr);
      auto found = FindFatbins(*elf);
      REQUIRE(found.ok());
      REQUIRE(found->fatbins.size() == 2);
      CHECK(found->wrapper_count == 3);
      CHECK(found->runtime_prelinked_lists == 1);
      CHECK(found->ptx_count() == 1);
      CHECK(found->fatbins[0].file_offset == built.fatbin_offset);
      CHECK(found->fatbins[0].wrapper_version == 2);
      CHECK(found->fatbins[1].wrapper_version == 1);
      CHECK(found->fatbins[0].section == ".nv_fatbin");
      CHECK(found->fatbins[1].fatbin.entries[1].ptx == kSamplePtx);
    }
  }
}

TEST_CASE("elf: pointers, zero-fill and unmapped addresses", "[fatbin][elf]") {
  ElfOptions o;
  o.type = ET_EXEC;
  o.fatbins = TwoFatbins();
  BuiltElf built = BuildElf(o);
  auto elf = ElfFile::Parse(built.bytes);
  REQUIRE(elf.ok());
  const uint64_t base = 0x400000;
  auto p = elf->ReadPointer(base + built.wrapper_offset + 8);
  REQUIRE(p.has_value());
  CHECK(*p == base + built.fatbin_offset);
  const ElfSection* bss = elf->FindSection(".bss");
  REQUIRE(bss != nullptr);
  CHECK(elf->MapAddress(bss->addr, 8).kind == ElfFile::AddrKind::kZeroFill);
  CHECK(elf->ReadPointer(bss->addr) == 0u);
  CHECK(elf->MapAddress(0x10, 8).kind == ElfFile::AddrKind::kUnmapped);
  CHECK_FALSE(elf->ReadPointer(UINT64_MAX - 3).has_value());
  CHECK(elf->MapAddress(bss->addr - 4, 8).kind == ElfFile::AddrKind::kUnmapped);  // straddles
}

TEST_CASE("elf: static-runtime style file has no __cudaRegisterFatBinary import", "[fatbin][elf]") {
  ElfOptions o;
  o.import_register = false;
  o.fatbins = TwoFatbins();
  BuiltElf built = BuildElf(o);
  auto elf = ElfFile::Parse(built.bytes);
  REQUIRE(elf.ok());
  CHECK_FALSE(elf->ImportsSymbol("__cudaRegisterFatBinary"));
  CHECK(elf->dynamic_imports().empty());
}

TEST_CASE("elf: no fat binary is an empty result, not an error", "[fatbin][elf]") {
  ElfOptions o;
  o.v2_wrapper = false;
  BuiltElf built = BuildElf(o);
  auto elf = ElfFile::Parse(built.bytes);
  REQUIRE(elf.ok());
  auto found = FindFatbins(*elf);
  REQUIRE(found.ok());
  CHECK(found->fatbins.empty());
}

TEST_CASE("elf: rejects non-ELF, 32-bit, big-endian and truncated headers", "[fatbin][elf]") {
  auto msg = [](const std::vector<uint8_t>& b) {
    auto r = ElfFile::Parse(b);
    REQUIRE_FALSE(r.ok());
    return std::string(r.status().message());
  };
  CHECK_THAT(msg({}), Catch::Contains("not an ELF file"));
  CHECK_THAT(msg({'#', '!', '/', 'b', 'i', 'n', '/', 's', 'h', '\n', 0, 0, 0, 0, 0, 0}),
             Catch::Contains("not an ELF file"));
  ElfOptions o;
  o.fatbins = TwoFatbins();
  const BuiltElf built = BuildElf(o);
  auto b = built.bytes;
  b[EI_CLASS] = ELFCLASS32;
  CHECK_THAT(msg(b), Catch::Contains("64-bit"));
  b = built.bytes;
  b[EI_DATA] = ELFDATA2MSB;
  CHECK_THAT(msg(b), Catch::Contains("big-endian"));
  b.assign(built.bytes.begin(), built.bytes.begin() + 40);
  CHECK_THAT(msg(b), Catch::Contains("truncated ELF header"));
}

TEST_CASE("elf: corrupt tables are errors with a reason", "[fatbin][elf][malformed]") {
  ElfOptions o;
  o.fatbins = TwoFatbins();
  const BuiltElf built = BuildElf(o);
  auto msg = [](const std::vector<uint8_t>& b) {
    auto r = ElfFile::Parse(b);
    REQUIRE_FALSE(r.ok());
    return std::string(r.status().message());
  };
  auto b = built.bytes;
  Put<uint64_t>(b, offsetof(Elf64_Ehdr, e_shoff), b.size() + 100);
  CHECK_THAT(msg(b), Catch::Contains("section header table offset"));
  b = built.bytes;
  Put<uint16_t>(b, offsetof(Elf64_Ehdr, e_shnum), 0xFFFF);
  CHECK_THAT(msg(b), Catch::Contains("runs past the end"));
  b = built.bytes;
  Put<uint16_t>(b, offsetof(Elf64_Ehdr, e_shentsize), 40);
  CHECK_THAT(msg(b), Catch::Contains("section header entry size"));
  b = built.bytes;
  Put<uint16_t>(b, offsetof(Elf64_Ehdr, e_shstrndx), 200);
  CHECK_THAT(msg(b), Catch::Contains("section name table index"));
  b = built.bytes;  // section 1 (.nv_fatbin) size past the end of the file
  Put<uint64_t>(b, built.shoff + sizeof(Elf64_Shdr) + offsetof(Elf64_Shdr, sh_size), 1u << 30);
  CHECK_THAT(msg(b), Catch::Contains("section 1"));
  b = built.bytes;  // section name offset outside the name table
  Put<uint32_t>(b, built.shoff + sizeof(Elf64_Shdr) + offsetof(Elf64_Shdr, sh_name), 0xFFFFFF);
  CHECK_THAT(msg(b), Catch::Contains("outside the name table"));
  b = built.bytes;
  Put<uint64_t>(b, sizeof(Elf64_Ehdr) + offsetof(Elf64_Phdr, p_filesz), UINT64_MAX);
  CHECK_THAT(msg(b), Catch::Contains("PT_LOAD"));
  b = built.bytes;
  Put<uint16_t>(b, offsetof(Elf64_Ehdr, e_phnum), 0xFFFF);
  CHECK_THAT(msg(b), Catch::Contains("program header table"));
}

TEST_CASE("elf: corrupt fat binary or wrapper inside a valid ELF", "[fatbin][elf][malformed]") {
  ElfOptions o;
  o.type = ET_EXEC;
  o.fatbins = TwoFatbins();
  const BuiltElf built = BuildElf(o);
  auto find_error = [](const std::vector<uint8_t>& b) {
    auto elf = ElfFile::Parse(b);
    REQUIRE(elf.ok());
    auto r = FindFatbins(*elf);
    REQUIRE_FALSE(r.ok());
    return std::string(r.status().message());
  };
  auto b = built.bytes;
  Put<uint32_t>(b, built.fatbin_offset, 0x11111111);
  CHECK_THAT(find_error(b), Catch::Contains("section .nv_fatbin, file offset"));
  CHECK_THAT(find_error(b), Catch::Contains("bad fatbin magic"));
  b = built.bytes;
  Put<uint64_t>(b, built.fatbin_offset + 8, 1u << 20);  // entries past the section
  CHECK_THAT(find_error(b), Catch::Contains("available"));
  b = built.bytes;
  Put<uint32_t>(b, built.wrapper_offset, 0x12345678);
  CHECK_THAT(find_error(b), Catch::Contains("bad fatbin wrapper magic"));
  b = built.bytes;
  Put<uint32_t>(b, built.wrapper_offset + 4, 7);
  CHECK_THAT(find_error(b), Catch::Contains("wrapper version 7"));
  b = built.bytes;
  Put<uint64_t>(b, built.wrapper_offset + 8, 0x10);  // data pointer to nowhere
  CHECK_THAT(find_error(b), Catch::Contains("does not map"));
  b = built.bytes;
  Put<uint64_t>(b, built.wrapper_offset + 8, 0);
  CHECK_THAT(find_error(b), Catch::Contains("no data pointer"));
}

TEST_CASE("elf: truncations and random corruption never crash", "[fatbin][elf][malformed]") {
  ElfOptions o;
  o.fatbins = TwoFatbins();
  const BuiltElf built = BuildElf(o);
  for (size_t n = 0; n < built.bytes.size(); n += 7) {
    std::vector<uint8_t> cut(built.bytes.begin(), built.bytes.begin() + static_cast<long>(n));
    auto elf = ElfFile::Parse(cut);
    if (elf.ok()) (void)FindFatbins(*elf);
  }
  std::mt19937 rng(99);
  size_t parsed = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    auto b = built.bytes;
    for (int f = 0; f < 3; ++f) b[rng() % b.size()] = static_cast<uint8_t>(rng());
    auto elf = ElfFile::Parse(b);
    if (!elf.ok()) continue;
    ++parsed;
    (void)elf->ImportsSymbol("__cudaRegisterFatBinary");
    (void)FindFatbins(*elf);
  }
  CHECK(parsed > 0);
}

}  // namespace
}  // namespace barracuda::fatbin
