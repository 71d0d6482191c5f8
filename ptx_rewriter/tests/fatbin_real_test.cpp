// The fat-binary and ELF readers on real nvcc output, built at test time by
// ptx_rewriter/fatbin.cmake (sources in tests/data/fatbin/). Skipped, with a
// warning, when BARRACUDA_CUDA_TESTS is OFF.
#include <catch2/catch.hpp>

#include <elf.h>

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fatbin_test_paths.h"  // generated: kCudaTests, kPtxas, kProgramDir
#include "ptx_rewriter/fatbin/elf_fatbins.h"
#include "ptx_rewriter/fatbin/elf_reader.h"
#include "ptx_rewriter/fatbin/fatbin_reader.h"
#include "ptx_rewriter/fatbin/fatbin_writer.h"

namespace barracuda::fatbin {
namespace {

namespace fs = std::filesystem;

// Catch2 v2 has no SKIP: say so loudly and leave the test case.
#define FATBIN_REQUIRE_CUDA_PROGRAMS()                                                   \
  do {                                                                                   \
    if (!testing::kCudaTests) {                                                          \
      WARN("SKIPPED: needs nvcc-built programs (configure with BARRACUDA_CUDA_TESTS=ON)"); \
      return;                                                                            \
    }                                                                                    \
  } while (0)

struct Program {
  std::vector<uint8_t> bytes;
  std::optional<ElfFile> elf;
  ElfFatbins found;
};

// Loads and fully parses one test program; the returned object must stay put
// (ElfFile and the entries' payload spans point into `bytes`).
std::unique_ptr<Program> Load(const std::string& name) {
  const std::string path = std::string(testing::kProgramDir) + "/" + name;
  INFO("program " << path);
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  auto p = std::make_unique<Program>();
  p->bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  auto elf = ElfFile::Parse(p->bytes);
  REQUIRE(elf.ok());
  p->elf.emplace(*std::move(elf));
  auto found = FindFatbins(*p->elf);
  INFO(found.status().message());
  REQUIRE(found.ok());
  p->found = *std::move(found);
  return p;
}

std::vector<const FatbinEntry*> PtxEntries(const Program& p) {
  std::vector<const FatbinEntry*> out;
  for (const LocatedFatbin& lf : p.found.fatbins) {
    for (const FatbinEntry& e : lf.fatbin.entries) {
      if (e.is_ptx()) out.push_back(&e);
    }
  }
  return out;
}

// Runs ptxas on `ptx`; `extra` e.g. "-c" for relocatable (-rdc) code.
bool PtxasAccepts(const std::string& ptx, uint32_t sm, const std::string& extra = "") {
  const fs::path dir = fs::temp_directory_path();
  const fs::path file = dir / ("barracuda_fatbin_test_" + std::to_string(::getpid()) + "_sm" +
                               std::to_string(sm) + ".ptx");
  const fs::path cubin = fs::path(file).replace_extension(".cubin");
  {
    std::ofstream out(file);
    out << ptx;
  }
  const std::string cmd = std::string(testing::kPtxas) + " -arch=sm_" + std::to_string(sm) + " " +
                          extra + " '" + file.string() + "' -o '" + cubin.string() + "'";
  INFO(cmd);
  int rc = std::system(cmd.c_str());
  fs::remove(file);
  fs::remove(cubin);
  return rc == 0;
}

TEST_CASE("real: zstd, LZ4 and uncompressed builds hold the same PTX", "[fatbin][real]") {
  FATBIN_REQUIRE_CUDA_PROGRAMS();
  auto zstd = Load("fb_zstd");
  auto lz4 = Load("fb_lz4");
  auto none = Load("fb_none");
  for (const Program* p : {zstd.get(), lz4.get(), none.get()}) {
    CHECK(p->elf->type() == ET_DYN);  // PIE
    // Device-link fatbin (ELF only, version-2 wrapper, .bss prelinked list) and
    // the translation unit's own fatbin (ELF + PTX, version-1 wrapper).
    REQUIRE(p->found.fatbins.size() == 2);
    CHECK(p->found.wrapper_count == 2);
    CHECK(p->found.runtime_prelinked_lists == 1);
    CHECK(p->found.fatbins[0].wrapper_version == 2);
    CHECK(p->found.fatbins[0].fatbin.ptx_count() == 0);
    CHECK(p->found.fatbins[1].wrapper_version == 1);
    CHECK(p->found.fatbins[1].section == ".nv_fatbin");
    CHECK(p->elf->ImportsSymbol("__cudaRegisterFatBinary"));
  }
  auto z = PtxEntries(*zstd), l = PtxEntries(*lz4), n = PtxEntries(*none);
  REQUIRE(z.size() == 1);
  REQUIRE(l.size() == 1);
  REQUIRE(n.size() == 1);
  CHECK(z[0]->compression == Compression::kZstd);
  CHECK(l[0]->compression == Compression::kLz4);
  CHECK(n[0]->compression == Compression::kNone);
  for (const FatbinEntry* e : {z[0], l[0], n[0]}) {
    CHECK(e->header.version == 0x0101);
    CHECK(e->sm_arch() == 75);
    CHECK(e->ptx_major() == 9);
    CHECK((e->flags() & (entry_flags::k64Bit | entry_flags::kLinux)) ==
          (entry_flags::k64Bit | entry_flags::kLinux));
    CHECK(e->header.reserved == 0);
    CHECK_THAT(e->options, Catch::Contains("--generate-line-info"));
    CHECK_THAT(e->ident, Catch::Contains("fb_kernel.cu"));
    CHECK(e->header.payload_size % 8 == 0);
    CHECK(e->decoded_size() >= e->ptx.size() + 1);
  }
  CHECK(z[0]->header.uncompressed_size == z[0]->ptx.size() + 1);  // counts the NUL
  CHECK(z[0]->header.compressed_size < z[0]->header.uncompressed_size);
  CHECK(n[0]->header.compressed_size == 0);
  CHECK(n[0]->header.uncompressed_size == 0);
  CHECK(z[0]->ptx == n[0]->ptx);
  CHECK(l[0]->ptx == n[0]->ptx);
  CHECK_THAT(n[0]->ptx, Catch::Contains(".entry _Z8fb_scalePffi"));
  CHECK(PtxasAccepts(z[0]->ptx, 75));
}

TEST_CASE("real: multi-arch build holds two PTX entries, choice is deterministic",
          "[fatbin][real]") {
  FATBIN_REQUIRE_CUDA_PROGRAMS();
  auto p = Load("fb_multi");
  REQUIRE(p->found.fatbins.size() == 2);
  const Fatbin& fb = p->found.fatbins[1].fatbin;
  REQUIRE(fb.ptx_count() == 2);
  auto pick = [&](uint32_t sm) { return fb.entries[ChoosePtxEntry(fb, sm).value()].sm_arch(); };
  CHECK(pick(75) == 75);
  CHECK(pick(86) == 75);
  CHECK(pick(90) == 90);
  CHECK(pick(120) == 90);
  CHECK(pick(50) == 75);
  for (const FatbinEntry* e : PtxEntries(*p)) {
    CHECK_THAT(e->ptx, Catch::Contains(".target sm_" + std::to_string(e->sm_arch())));
    CHECK(PtxasAccepts(e->ptx, e->sm_arch()));
  }
}

TEST_CASE("real: -rdc=true link of two translation units", "[fatbin][real]") {
  FATBIN_REQUIRE_CUDA_PROGRAMS();
  auto p = Load("fb_rdc");
  // .nv_fatbin: the device-linked cubin, registered through the version-2
  // wrapper; __nv_relfatbin: one fatbin per object, listed at run time.
  REQUIRE(p->found.fatbins.size() == 3);
  CHECK(p->found.runtime_prelinked_lists == 1);
  CHECK(p->found.fatbins[0].section == ".nv_fatbin");
  CHECK(p->found.fatbins[0].wrapper_version == 2);
  CHECK(p->found.fatbins[0].fatbin.ptx_count() == 0);
  for (int i : {1, 2}) {
    CHECK(p->found.fatbins[i].section == "__nv_relfatbin");
    CHECK(p->found.fatbins[i].wrapper_version == 1);
    CHECK(p->found.fatbins[i].fatbin.ptx_count() == 1);
  }
  auto ptx = PtxEntries(*p);
  REQUIRE(ptx.size() == 2);
  CHECK_THAT(ptx[0]->ptx, Catch::Contains("fb_kernel_a"));
  CHECK_THAT(ptx[1]->ptx, Catch::Contains("fb_kernel_b"));
  for (const FatbinEntry* e : ptx) CHECK(PtxasAccepts(e->ptx, 75, "-c"));
}

TEST_CASE("real: static vs shared CUDA runtime, PIE, non-PIE and shared object",
          "[fatbin][real]") {
  FATBIN_REQUIRE_CUDA_PROGRAMS();
  auto shared = Load("fb_zstd");
  auto st = Load("fb_static");
  CHECK(shared->elf->ImportsSymbol("__cudaRegisterFatBinary"));
  CHECK_FALSE(st->elf->ImportsSymbol("__cudaRegisterFatBinary"));
  CHECK_FALSE(st->elf->ImportsSymbol("__cudaLaunchKernel"));
  REQUIRE(PtxEntries(*st).size() == 1);  // the fat binary is still there
  // Same source and flags (no -lineinfo) as the sm_75 entry of fb_multi.
  auto multi = Load("fb_multi");
  CHECK(PtxEntries(*st)[0]->ptx == PtxEntries(*multi)[0]->ptx);

  // Plain `nvcc app.cu`: static cudart, and (nvcc 13.0's default -arch=sm_75
  // means code=[sm_75,compute_75]) PTX is embedded after all.
  auto plain = Load("fb_default");
  CHECK_FALSE(plain->elf->ImportsSymbol("__cudaRegisterFatBinary"));
  CHECK(plain->found.ptx_count() >= 1);

  auto nopie = Load("fb_nopie");
  CHECK(nopie->elf->type() == ET_EXEC);
  CHECK(nopie->found.wrapper_count == 2);
  CHECK(nopie->found.fatbins[1].vaddr >= 0x400000);
  REQUIRE(PtxEntries(*nopie).size() == 1);

  auto so = Load("libfb_shared.so");
  CHECK(so->elf->type() == ET_DYN);
  CHECK(so->elf->ImportsSymbol("__cudaRegisterFatBinary"));
  CHECK(so->found.wrapper_count == 2);
  REQUIRE(PtxEntries(*so).size() == 1);
  CHECK_THAT(PtxEntries(*so)[0]->ptx, Catch::Contains("fb_lib_kernel"));

  // -arch=compute_75: PTX only; the device-link fatbin is an empty header.
  auto ptx_only = Load("fb_ptxonly");
  REQUIRE(ptx_only->found.fatbins.size() == 2);
  CHECK(ptx_only->found.fatbins[0].fatbin.entries.empty());
  CHECK(ptx_only->found.fatbins[0].fatbin.total_size() == 16);
  REQUIRE(ptx_only->found.fatbins[1].fatbin.entries.size() == 1);
  CHECK(ptx_only->found.fatbins[1].fatbin.entries[0].is_ptx());

  auto elf_only = Load("fb_elfonly");
  CHECK(elf_only->found.fatbins.size() == 2);
  CHECK(elf_only->found.ptx_count() == 0);
}

TEST_CASE("real: PTX-only rewrite of a real fat binary parses back and passes ptxas",
          "[fatbin][real][writer]") {
  FATBIN_REQUIRE_CUDA_PROGRAMS();
  auto p = Load("fb_multi");
  const Fatbin& fb = p->found.fatbins[1].fatbin;
  auto written = WritePtxOnlyFatbin(fb);
  REQUIRE(written.ok());
  WrapperRaw w = MakeWrapper(written->data());
  auto reg = ParseRegisteredFatbin(&w);
  REQUIRE(reg.ok());
  REQUIRE(reg->fatbin.entries.size() == 2);
  for (const FatbinEntry& e : reg->fatbin.entries) {
    CHECK(e.is_ptx());
    CHECK(e.compression == Compression::kNone);
    CHECK(PtxasAccepts(e.ptx, e.sm_arch()));
  }
  CHECK(reg->fatbin.entries[0].ptx == fb.entries[1].ptx);

  // The real fat binary through the in-process door, from an aligned copy.
  const LocatedFatbin& lf = p->found.fatbins[1];
  std::vector<uint64_t> copy((lf.fatbin.total_size() + 7) / 8);
  std::memcpy(copy.data(), p->bytes.data() + lf.file_offset, lf.fatbin.total_size());
  WrapperRaw orig = MakeWrapper(reinterpret_cast<const uint8_t*>(copy.data()));
  auto reg2 = ParseRegisteredFatbin(&orig);
  REQUIRE(reg2.ok());
  CHECK(reg2->fatbin.entries.size() == fb.entries.size());
  CHECK(reg2->fatbin.ptx_count() == 2);
}

}  // namespace
}  // namespace barracuda::fatbin
