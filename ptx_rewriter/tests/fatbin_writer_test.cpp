// WritePtxFatbin / WritePtxOnlyFatbin: write, then parse back.
#include <catch2/catch.hpp>

#include "ptx_rewriter/fatbin/fatbin_reader.h"
#include "ptx_rewriter/fatbin/fatbin_writer.h"
#include "ptx_rewriter/tests/fatbin_synthetic_test.h"

namespace barracuda::fatbin {
namespace {

using testing::BuildFatbin;
using testing::ElfSpec;
using testing::EntrySpec;
using testing::kSamplePtx;
using testing::PtxSpec;

TEST_CASE("fatbin writer: PTX-only round trip keeps headers, drops ELF and compression",
          "[fatbin][writer]") {
  EntrySpec z = PtxSpec(kSamplePtx, Compression::kZstd, 75);
  z.ident = "app.cu";
  z.options = "-lineinfo";
  EntrySpec l = PtxSpec(kSamplePtx, Compression::kLz4, 90);
  l.minor = 7;
  auto original = BuildFatbin({ElfSpec(75), z, ElfSpec(90), l});
  auto parsed = ParseFatbin(original);
  REQUIRE(parsed.ok());

  auto written = WritePtxOnlyFatbin(*parsed);
  REQUIRE(written.ok());
  CHECK(written->size() % 8 == 0);
  auto back = ParseFatbin(*written);
  REQUIRE(back.ok());
  CHECK(back->version == 1);
  CHECK(back->total_size() == written->size());
  REQUIRE(back->entries.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    const FatbinEntry& in = parsed->entries[i == 0 ? 1 : 3];
    const FatbinEntry& out = back->entries[i];
    CHECK(out.is_ptx());
    CHECK(out.compression == Compression::kNone);
    CHECK((out.flags() & entry_flags::kCompressionMask) == 0);
    CHECK(out.flags() == (in.flags() & ~entry_flags::kCompressionMask));
    CHECK(out.header.compressed_size == 0);
    CHECK(out.header.uncompressed_size == 0);
    CHECK(out.header.payload_size % 8 == 0);
    CHECK(out.sm_arch() == in.sm_arch());
    CHECK(out.ptx_major() == in.ptx_major());
    CHECK(out.ptx_minor() == in.ptx_minor());
    CHECK(out.options == in.options);
    CHECK(out.ident == in.ident);
    CHECK(out.ptx == in.ptx);
    // Bytes after the fixed header (ident, options) are copied verbatim.
    CHECK(std::equal(in.header_bytes.begin() + 0x40, in.header_bytes.end(),
                     out.header_bytes.begin() + 0x40));
  }
  CHECK(back->entries[0].ident == "app.cu");
  CHECK(back->entries[1].ptx_minor() == 7);
}

TEST_CASE("fatbin writer: replaced PTX text, and a wrapper for it", "[fatbin][writer]") {
  auto parsed = ParseFatbin(BuildFatbin({PtxSpec(kSamplePtx, Compression::kZstd)}));
  REQUIRE(parsed.ok());
  const std::string instrumented = std::string(kSamplePtx) + "// instrumented\n";
  PtxEntrySource src{&parsed->entries[0], instrumented};
  auto written = WritePtxFatbin({&src, 1});
  REQUIRE(written.ok());
  WrapperRaw w = MakeWrapper(written->data());
  CHECK(w.magic == kWrapperMagic);
  CHECK(w.version == 1);
  CHECK(w.filename_or_fatbins == 0);
  auto reg = ParseRegisteredFatbin(&w);
  REQUIRE(reg.ok());
  REQUIRE(reg->fatbin.entries.size() == 1);
  CHECK(reg->fatbin.entries[0].ptx == instrumented);
  // PTX of every length hits every padding case.
  for (size_t n = 0; n < 20; ++n) {
    std::string text(n, 'x');
    PtxEntrySource s{&parsed->entries[0], text};
    auto w2 = WritePtxFatbin({&s, 1});
    REQUIRE(w2.ok());
    auto b2 = ParseFatbin(*w2);
    REQUIRE(b2.ok());
    CHECK(b2->entries[0].ptx == text);
  }
}

TEST_CASE("fatbin writer: refuses non-PTX sources and NUL in text", "[fatbin][writer]") {
  auto parsed = ParseFatbin(BuildFatbin({ElfSpec(75), PtxSpec("p", Compression::kNone)}));
  REQUIRE(parsed.ok());
  PtxEntrySource elf{&parsed->entries[0], "x"};
  CHECK_FALSE(WritePtxFatbin({&elf, 1}).ok());
  PtxEntrySource null_src{nullptr, "x"};
  CHECK_FALSE(WritePtxFatbin({&null_src, 1}).ok());
  const std::string with_nul("a\0b", 3);
  PtxEntrySource nul{&parsed->entries[1], with_nul};
  CHECK_FALSE(WritePtxFatbin({&nul, 1}).ok());
  auto empty = WritePtxFatbin({});
  REQUIRE(empty.ok());
  auto back = ParseFatbin(*empty);
  REQUIRE(back.ok());
  CHECK(back->entries.empty());
}

}  // namespace
}  // namespace barracuda::fatbin
