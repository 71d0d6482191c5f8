// libFuzzer target for the fat-binary reader and the ELF reader: the input is
// parsed both as a fat binary and as an ELF file (with the fat-binary search,
// the import check and the PTX-only writer on whatever parses).
#include <cstddef>
#include <cstdint>
#include <span>

#include "ptx_rewriter/fatbin/elf_fatbins.h"
#include "ptx_rewriter/fatbin/elf_reader.h"
#include "ptx_rewriter/fatbin/fatbin_reader.h"
#include "ptx_rewriter/fatbin/fatbin_writer.h"

namespace {

// Smaller than the default cap so that one input cannot take seconds.
barracuda::fatbin::ParseOptions FuzzOptions() {
  barracuda::fatbin::ParseOptions o;
  o.max_decompressed_size = 1 << 20;
  return o;
}

void CheckRoundTrip(const barracuda::fatbin::Fatbin& fb) {
  auto written = barracuda::fatbin::WritePtxOnlyFatbin(fb);
  if (!written.ok()) return;  // e.g. PTX text with an embedded NUL cannot be rewritten
  auto back = barracuda::fatbin::ParseFatbin(*written, FuzzOptions());
  if (!back.ok() || back->entries.size() != fb.ptx_count()) __builtin_trap();
  size_t j = 0;
  for (const auto& e : fb.entries) {
    if (e.is_ptx() && back->entries[j++].ptx != e.ptx) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace barracuda::fatbin;
  const ParseOptions opts = FuzzOptions();
  std::span<const uint8_t> bytes(data, size);
  if (auto fb = ParseFatbin(bytes, opts); fb.ok()) {
    CheckRoundTrip(*fb);
    for (const FatbinEntry& e : fb->entries) (void)DecodePayload(e, opts);
    (void)ChoosePtxEntry(*fb, 80);
  }
  if (auto elf = ElfFile::Parse(bytes); elf.ok()) {
    (void)elf->ImportsSymbol("__cudaRegisterFatBinary");
    for (const ElfSection& s : elf->sections()) {
      (void)elf->SectionBytes(s);
      (void)elf->ReadPointer(s.addr);
    }
    (void)FindFatbins(*elf, opts);
  }
  return 0;
}
