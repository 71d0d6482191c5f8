// ParseFatbin / ParseRegisteredFatbin / ChoosePtxEntry on synthetic fat binaries:
// well-formed ones (every header field) and every malformed case we could think of.
#include <catch2/catch.hpp>

#include <random>

#include "ptx_rewriter/fatbin/fatbin_reader.h"
#include "ptx_rewriter/tests/fatbin_synthetic_test.h"

namespace barracuda::fatbin {
namespace {

using testing::BuildFatbin;
using testing::ElfSpec;
using testing::EntrySpec;
using testing::Get;
using testing::kSamplePtx;
using testing::PtxSpec;
using testing::Put;

// Offsets inside a BuildFatbin result whose first entry is at 0x10.
constexpr size_t kEntry0 = sizeof(FatbinHeaderRaw);
constexpr size_t kPayloadSizeField = kEntry0 + offsetof(EntryHeaderRaw, payload_size);

std::string ErrorOf(const std::vector<uint8_t>& b, const ParseOptions& o = {}) {
  auto r = ParseFatbin(b, o);
  REQUIRE_FALSE(r.ok());
  return std::string(r.status().message());
}

TEST_CASE("fatbin: parses PTX entries in every compression and an ELF entry", "[fatbin]") {
  EntrySpec zstd = PtxSpec(kSamplePtx, Compression::kZstd, 75);
  zstd.options = "-O1 -lineinfo";
  zstd.ident = "kernel.cu";
  EntrySpec lz4 = PtxSpec(kSamplePtx, Compression::kLz4, 80);
  EntrySpec none = PtxSpec(kSamplePtx, Compression::kNone, 90);
  none.minor = 8;
  auto bytes = BuildFatbin({ElfSpec(75), zstd, lz4, none});
  auto fb = ParseFatbin(bytes);
  REQUIRE(fb.ok());
  CHECK(fb->version == 1);
  CHECK(fb->header_size == 16);
  CHECK(fb->total_size() == bytes.size());
  REQUIRE(fb->entries.size() == 4);
  CHECK(fb->ptx_count() == 3);

  const FatbinEntry& elf = fb->entries[0];
  CHECK(elf.is_elf());
  CHECK(elf.offset == 0x10);
  CHECK(elf.compression == Compression::kNone);
  CHECK(elf.ptx.empty());
  CHECK(elf.stored_payload.size() == 40);

  const FatbinEntry& z = fb->entries[1];
  CHECK(z.is_ptx());
  CHECK(z.compression == Compression::kZstd);
  CHECK(z.sm_arch() == 75);
  CHECK(z.ptx_major() == 9);
  CHECK(z.ptx_minor() == 0);
  CHECK(z.options == "-O1 -lineinfo");
  CHECK(z.ident == "kernel.cu");
  CHECK((z.flags() & entry_flags::kZstd) != 0);
  CHECK(z.ptx == kSamplePtx);
  CHECK(z.decoded_size() == std::string_view(kSamplePtx).size() + 1);
  CHECK(z.stored_payload.size() == z.header.compressed_size);
  CHECK(z.header_bytes.size() == z.header.header_size);

  CHECK(fb->entries[2].compression == Compression::kLz4);
  CHECK(fb->entries[2].ptx == kSamplePtx);
  CHECK(fb->entries[2].sm_arch() == 80);
  CHECK(fb->entries[2].options.empty());
  CHECK(fb->entries[3].compression == Compression::kNone);
  CHECK(fb->entries[3].ptx == kSamplePtx);
  CHECK(fb->entries[3].ptx_minor() == 8);
}

TEST_CASE("fatbin: trailing bytes after the declared size are ignored", "[fatbin]") {
  auto bytes = BuildFatbin({PtxSpec(kSamplePtx, Compression::kNone)});
  bytes.resize(bytes.size() + 64, 0xAB);
  auto fb = ParseFatbin(bytes);
  REQUIRE(fb.ok());
  CHECK(fb->entries.size() == 1);
}

TEST_CASE("fatbin: an empty fat binary and an unknown entry kind are accepted", "[fatbin]") {
  auto empty = BuildFatbin({});
  auto fb = ParseFatbin(empty);
  REQUIRE(fb.ok());
  CHECK(fb->entries.empty());

  EntrySpec odd = ElfSpec(75);
  odd.kind = 4;  // a kind newer toolkits may add: kept, neither PTX nor ELF
  auto bytes = BuildFatbin({odd, PtxSpec(kSamplePtx, Compression::kZstd)});
  fb = ParseFatbin(bytes);
  REQUIRE(fb.ok());
  REQUIRE(fb->entries.size() == 2);
  CHECK(fb->entries[0].raw_kind() == 4);
  CHECK_FALSE(fb->entries[0].is_ptx());
  CHECK_FALSE(fb->entries[0].is_elf());
  CHECK(fb->entries[1].ptx == kSamplePtx);
}

TEST_CASE("fatbin: uncompressed PTX stops at the first NUL, or at the payload end", "[fatbin]") {
  EntrySpec s = PtxSpec("abc", Compression::kNone);
  s.stored = {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'};  // no NUL at all
  auto fb = ParseFatbin(BuildFatbin({s}));
  REQUIRE(fb.ok());
  CHECK(fb->entries[0].ptx == "abcdefgh");
}

TEST_CASE("fatbin: bad fatbin headers", "[fatbin][malformed]") {
  auto good = BuildFatbin({PtxSpec(kSamplePtx, Compression::kZstd)});

  CHECK_THAT(ErrorOf({}), Catch::Contains("truncated fatbin header"));
  CHECK_THAT(ErrorOf({good.begin(), good.begin() + 15}), Catch::Contains("truncated fatbin header"));

  auto b = good;
  Put<uint32_t>(b, 0, 0x12345678);
  CHECK_THAT(ErrorOf(b), Catch::Contains("bad fatbin magic 0x12345678"));

  b = good;
  Put<uint16_t>(b, 4, 2);
  CHECK_THAT(ErrorOf(b), Catch::Contains("unsupported fatbin version 2"));

  b = good;
  Put<uint16_t>(b, 6, 8);
  CHECK_THAT(ErrorOf(b), Catch::Contains("fatbin header size 8 is smaller than 16"));

  b = good;
  Put<uint64_t>(b, 8, Get<uint64_t>(b, 8) + 8);
  CHECK_THAT(ErrorOf(b), Catch::Contains("available"));

  b = good;
  Put<uint64_t>(b, 8, UINT64_MAX);
  CHECK_THAT(ErrorOf(b), Catch::Contains("overflows"));

  b = good;
  Put<uint64_t>(b, 8, UINT64_MAX - 16);
  CHECK_THAT(ErrorOf(b), Catch::Contains("available"));
}

TEST_CASE("fatbin: entries that do not fit", "[fatbin][malformed]") {
  auto good = BuildFatbin({PtxSpec(kSamplePtx, Compression::kZstd)});

  SECTION("entries region too short for an entry header") {
    auto b = good;
    Put<uint64_t>(b, 8, 0x20);
    CHECK_THAT(ErrorOf(b), Catch::Contains("fat binary offset 0x10: truncated entry header"));
  }
  SECTION("entry header size below 0x40") {
    auto b = good;
    Put<uint32_t>(b, kEntry0 + 4, 0x3f);
    CHECK_THAT(ErrorOf(b), Catch::Contains("0x3f is smaller than the fixed header"));
    Put<uint32_t>(b, kEntry0 + 4, 0);
    CHECK_THAT(ErrorOf(b), Catch::Contains("smaller than the fixed header"));
  }
  SECTION("entry header size past the end") {
    auto b = good;
    Put<uint32_t>(b, kEntry0 + 4, 0xFFFFFFF0);
    CHECK_THAT(ErrorOf(b), Catch::Contains("entry header size 0xfffffff0 runs past the end"));
  }
  SECTION("payload size past the end, and overflowing") {
    auto b = good;
    Put<uint64_t>(b, kPayloadSizeField, Get<uint64_t>(b, kPayloadSizeField) + 8);
    CHECK_THAT(ErrorOf(b), Catch::Contains("payload size"));
    Put<uint64_t>(b, kPayloadSizeField, UINT64_MAX);
    CHECK_THAT(ErrorOf(b), Catch::Contains("runs past the end"));
    Put<uint64_t>(b, kPayloadSizeField, UINT64_MAX - 0x40);
    CHECK_THAT(ErrorOf(b), Catch::Contains("runs past the end"));
  }
  SECTION("second entry truncated: the offset names it") {
    auto two = BuildFatbin({ElfSpec(75, 48), PtxSpec(kSamplePtx, Compression::kNone)});
    const size_t second = kEntry0 + 0x40 + 48;
    Put<uint32_t>(two, second + 4, 0x10);
    CHECK_THAT(ErrorOf(two), Catch::Contains("fat binary offset 0x80:"));
    CHECK(second == 0x80);
  }
  SECTION("every truncation of a valid fat binary is an error") {
    auto multi = BuildFatbin({ElfSpec(75), PtxSpec(kSamplePtx, Compression::kLz4),
                              PtxSpec(kSamplePtx, Compression::kZstd)});
    for (size_t n = 0; n < multi.size(); ++n) {
      std::vector<uint8_t> cut(multi.begin(), multi.begin() + static_cast<long>(n));
      CHECK_FALSE(ParseFatbin(cut).ok());
    }
  }
}

TEST_CASE("fatbin: options and ident strings out of range", "[fatbin][malformed]") {
  EntrySpec s = PtxSpec(kSamplePtx, Compression::kNone);
  s.ident = "a.cu";
  s.options = "-lineinfo";
  auto good = BuildFatbin({s});
  REQUIRE(ParseFatbin(good).ok());
  const auto h = Get<EntryHeaderRaw>(good, kEntry0);
  const size_t opt_field = kEntry0 + offsetof(EntryHeaderRaw, options_offset);
  const size_t ident_off_field = kEntry0 + offsetof(EntryHeaderRaw, ident_offset);
  const size_t ident_len_field = kEntry0 + offsetof(EntryHeaderRaw, ident_size);

  auto b = good;
  Put<uint32_t>(b, opt_field, h.header_size);  // record starts at the header end
  CHECK_THAT(ErrorOf(b), Catch::Contains("options offset"));
  Put<uint32_t>(b, opt_field, 0x20);  // inside the fixed header
  CHECK_THAT(ErrorOf(b), Catch::Contains("options offset 0x20 lies outside"));
  Put<uint32_t>(b, opt_field, 0xFFFFFFFC);
  CHECK_THAT(ErrorOf(b), Catch::Contains("options offset"));

  b = good;  // the record's string runs past the header
  Put<uint32_t>(b, kEntry0 + h.options_offset + 4, 0x1000);
  CHECK_THAT(ErrorOf(b), Catch::Contains("options string"));
  b = good;
  Put<uint32_t>(b, kEntry0 + h.options_offset, 0xFFFFFFFF);
  CHECK_THAT(ErrorOf(b), Catch::Contains("options string"));

  b = good;
  Put<uint32_t>(b, ident_len_field, 0x1000);
  CHECK_THAT(ErrorOf(b), Catch::Contains("ident string"));
  b = good;
  Put<uint32_t>(b, ident_off_field, 0xFFFFFFFF);
  CHECK_THAT(ErrorOf(b), Catch::Contains("ident string"));
  b = good;
  Put<uint32_t>(b, ident_off_field, 0);  // would read the fixed header as text
  CHECK_THAT(ErrorOf(b), Catch::Contains("ident string"));
}

TEST_CASE("fatbin: compression fields and decompression failures", "[fatbin][malformed]") {
  auto zstd = BuildFatbin({PtxSpec(kSamplePtx, Compression::kZstd)});
  auto lz4 = BuildFatbin({PtxSpec(kSamplePtx, Compression::kLz4)});
  const size_t flags = kEntry0 + offsetof(EntryHeaderRaw, flags);
  const size_t csize = kEntry0 + offsetof(EntryHeaderRaw, compressed_size);
  const size_t usize = kEntry0 + offsetof(EntryHeaderRaw, uncompressed_size);
  const uint64_t real_size = std::string_view(kSamplePtx).size() + 1;

  auto b = zstd;
  Put<uint64_t>(b, flags, Get<uint64_t>(b, flags) | entry_flags::kLz4);
  CHECK_THAT(ErrorOf(b), Catch::Contains("both LZ4 and zstd"));

  b = zstd;
  Put<uint32_t>(b, csize, 0);
  CHECK_THAT(ErrorOf(b), Catch::Contains("compressed size 0x0"));
  Put<uint32_t>(b, csize, 0x100000);
  CHECK_THAT(ErrorOf(b), Catch::Contains("larger than the payload"));

  b = zstd;
  Put<uint64_t>(b, usize, 0);
  CHECK_THAT(ErrorOf(b), Catch::Contains("uncompressed size of 0"));

  SECTION("huge declared sizes are refused before any allocation") {
    b = zstd;
    Put<uint64_t>(b, usize, UINT64_MAX);
    CHECK_THAT(ErrorOf(b), Catch::Contains("exceeds the limit"));
    b = lz4;
    Put<uint64_t>(b, usize, uint64_t{1} << 40);
    CHECK_THAT(ErrorOf(b), Catch::Contains("exceeds the limit"));
    ParseOptions small;
    small.max_decompressed_size = 64;
    CHECK_THAT(ErrorOf(zstd, small), Catch::Contains("exceeds the limit of 64"));
  }
  SECTION("zstd: declared size disagrees with the frame") {
    b = zstd;
    Put<uint64_t>(b, usize, real_size + 1);
    CHECK_THAT(ErrorOf(b), Catch::Contains("zstd: frame says"));
  }
  SECTION("zstd: not a frame / corrupt frame") {
    b = zstd;
    Put<uint32_t>(b, kEntry0 + Get<uint32_t>(b, kEntry0 + 4), 0xdeadbeef);
    CHECK_THAT(ErrorOf(b), Catch::Contains("zstd"));
    b = zstd;
    const size_t payload = kEntry0 + Get<uint32_t>(b, kEntry0 + 4);
    for (size_t i = payload + 6; i < payload + Get<uint32_t>(b, csize); ++i) b[i] ^= 0x5A;
    CHECK_THAT(ErrorOf(b), Catch::Contains("PTX payload: zstd"));
  }
  SECTION("lz4: size mismatch and corrupt block") {
    b = lz4;
    Put<uint64_t>(b, usize, real_size + 100);
    CHECK_THAT(ErrorOf(b), Catch::Contains("lz4"));
    b = lz4;
    Put<uint64_t>(b, usize, real_size - 10);
    CHECK_THAT(ErrorOf(b), Catch::Contains("lz4"));
    b = lz4;
    Put<uint32_t>(b, csize, Get<uint32_t>(b, csize) - 3);  // block cut short
    CHECK_THAT(ErrorOf(b), Catch::Contains("lz4"));
  }
  SECTION("decode_ptx=false defers decompression errors to DecodePayload") {
    b = lz4;
    Put<uint64_t>(b, usize, real_size + 100);
    ParseOptions lazy;
    lazy.decode_ptx = false;
    auto fb = ParseFatbin(b, lazy);
    REQUIRE(fb.ok());
    CHECK(fb->entries[0].ptx.empty());
    CHECK_FALSE(DecodePayload(fb->entries[0]).ok());
    auto good = ParseFatbin(lz4, lazy);
    REQUIRE(good.ok());
    auto decoded = DecodePayload(good->entries[0]);
    REQUIRE(decoded.ok());
    CHECK(decoded->size() == real_size);
  }
}

TEST_CASE("fatbin: random corruption never crashes", "[fatbin][malformed]") {
  const auto base = BuildFatbin({ElfSpec(75), PtxSpec(kSamplePtx, Compression::kZstd),
                                 PtxSpec(kSamplePtx, Compression::kLz4, 90)});
  std::mt19937 rng(12345);
  size_t ok = 0, failed = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    auto b = base;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      // Bias towards headers, where the interesting fields are.
      size_t at = (rng() % 2) ? rng() % 0x70 : rng() % b.size();
      b[at] = static_cast<uint8_t>(rng());
    }
    auto r = ParseFatbin(b);
    (r.ok() ? ok : failed)++;
  }
  CHECK(ok + failed == 3000);
  CHECK(failed > 0);
}

TEST_CASE("fatbin: ChoosePtxEntry is deterministic", "[fatbin]") {
  auto fb = ParseFatbin(BuildFatbin({ElfSpec(75), PtxSpec("a", Compression::kNone, 80),
                                     PtxSpec("b", Compression::kNone, 75),
                                     PtxSpec("c", Compression::kNone, 90),
                                     PtxSpec("d", Compression::kNone, 75)}));
  REQUIRE(fb.ok());
  CHECK(ChoosePtxEntry(*fb, 75) == 2u);   // exact; tie with entry 4 goes to the earlier
  CHECK(ChoosePtxEntry(*fb, 86) == 1u);   // highest <= 86 is 80
  CHECK(ChoosePtxEntry(*fb, 120) == 3u);  // highest overall
  CHECK(ChoosePtxEntry(*fb, 70) == 2u);   // none <= 70: lowest above, earliest tie
  auto only_elf = ParseFatbin(BuildFatbin({ElfSpec(75)}));
  REQUIRE(only_elf.ok());
  CHECK_FALSE(ChoosePtxEntry(*only_elf, 75).has_value());
}

TEST_CASE("fatbin: in-process wrappers, version 1 and 2", "[fatbin]") {
  auto a = BuildFatbin({ElfSpec(75), PtxSpec(kSamplePtx, Compression::kZstd)});
  auto b = BuildFatbin({PtxSpec("b", Compression::kLz4, 90)});
  auto linked = BuildFatbin({ElfSpec(75)});
  // Give the buffers the alignment nvcc gives them (unsigned long long arrays).
  std::vector<uint64_t> a64((a.size() + 7) / 8), b64((b.size() + 7) / 8),
      l64((linked.size() + 7) / 8);
  std::memcpy(a64.data(), a.data(), a.size());
  std::memcpy(b64.data(), b.data(), b.size());
  std::memcpy(l64.data(), linked.data(), linked.size());
  auto addr = [](const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); };

  WrapperRaw w1{kWrapperMagic, 1, addr(a64.data()), 0};
  auto r1 = ParseRegisteredFatbin(&w1);
  REQUIRE(r1.ok());
  CHECK(r1->wrapper_version == 1);
  CHECK(r1->fatbin.entries.size() == 2);
  CHECK(r1->fatbin.entries[1].ptx == kSamplePtx);
  CHECK(r1->prelinked.empty());

  std::vector<uint64_t> list = {addr(a64.data()), addr(b64.data()), 0};
  WrapperRaw w2{kWrapperMagic, 2, addr(l64.data()), addr(list.data())};
  auto r2 = ParseRegisteredFatbin(&w2);
  REQUIRE(r2.ok());
  CHECK(r2->wrapper_version == 2);
  CHECK(r2->fatbin.ptx_count() == 0);
  REQUIRE(r2->prelinked.size() == 2);
  CHECK(r2->prelinked[1].entries[0].ptx == "b");

  WrapperRaw w2_empty{kWrapperMagic, 2, addr(l64.data()), 0};
  REQUIRE(ParseRegisteredFatbin(&w2_empty).ok());

  CHECK_FALSE(ParseRegisteredFatbin(nullptr).ok());
  WrapperRaw bad = w1;
  bad.magic = 0x12345678;
  CHECK_THAT(std::string(ParseRegisteredFatbin(&bad).status().message()),
             Catch::Contains("bad fatbin wrapper magic"));
  bad = w1;
  bad.version = 3;
  CHECK_THAT(std::string(ParseRegisteredFatbin(&bad).status().message()),
             Catch::Contains("unsupported fatbin wrapper version 3"));
  bad = w1;
  bad.data = 0;
  CHECK_FALSE(ParseRegisteredFatbin(&bad).ok());
  // A wrapper whose data is not a fatbin header: checked before reading on.
  uint64_t junk[4] = {0x1111111111111111, 0, 0, 0};
  bad.data = addr(junk);
  CHECK_THAT(std::string(ParseRegisteredFatbin(&bad).status().message()),
             Catch::Contains("bad fatbin magic"));
  // A corrupt prelinked entry is reported with its index.
  std::vector<uint64_t> bad_list = {addr(a64.data()), addr(junk), 0};
  WrapperRaw w2_bad{kWrapperMagic, 2, addr(l64.data()), addr(bad_list.data())};
  CHECK_THAT(std::string(ParseRegisteredFatbin(&w2_bad).status().message()),
             Catch::Contains("prelinked fatbin 1"));
}

}  // namespace
}  // namespace barracuda::fatbin
