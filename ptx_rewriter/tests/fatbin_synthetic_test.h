// Builders for synthetic fat binaries laid out as nvcc 13 lays them out (ident
// string at 0x40, then the options record and string, header padded to 8), for
// the fat-binary reader / writer / ELF tests.
#ifndef BARRACUDA_PTX_REWRITER_TESTS_FATBIN_SYNTHETIC_TEST_H_
#define BARRACUDA_PTX_REWRITER_TESTS_FATBIN_SYNTHETIC_TEST_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <lz4.h>
#include <zstd.h>

#include "ptx_rewriter/fatbin/fatbin_format.h"
#include "ptx_rewriter/fatbin/fatbin_reader.h"

namespace barracuda::fatbin::testing {

inline uint64_t Align8(uint64_t v) { return (v + 7) & ~uint64_t{7}; }

template <typename T>
void Put(std::vector<uint8_t>& b, size_t at, const T& v) {
  if (b.size() < at + sizeof(T)) b.resize(at + sizeof(T));
  std::memcpy(b.data() + at, &v, sizeof(T));
}
template <typename T>
T Get(const std::vector<uint8_t>& b, size_t at) {
  T v;
  std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

struct EntrySpec {
  uint16_t kind = 1;
  uint32_t sm = 75;
  uint16_t major = 9, minor = 0;
  uint64_t flags = entry_flags::k64Bit | entry_flags::kLinux;
  std::string ident;
  std::string options;
  std::vector<uint8_t> stored;  // payload as stored (compressed or raw incl. NUL)
  uint32_t compressed_size = 0;
  uint64_t uncompressed_size = 0;
};

inline EntrySpec PtxSpec(std::string_view ptx, Compression c, uint32_t sm = 75) {
  EntrySpec s;
  s.sm = sm;
  std::string text(ptx);
  const uint8_t* p = reinterpret_cast<const uint8_t*>(text.c_str());
  std::vector<uint8_t> raw(p, p + text.size() + 1);  // with the NUL terminator
  if (c == Compression::kNone) {
    s.stored = raw;
    return s;
  }
  std::vector<uint8_t> out;
  if (c == Compression::kZstd) {
    out.resize(ZSTD_compressBound(raw.size()));
    out.resize(ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), 3));
    s.flags |= entry_flags::kZstd;
  } else {
    out.resize(LZ4_compressBound(static_cast<int>(raw.size())));
    out.resize(LZ4_compress_default(reinterpret_cast<const char*>(raw.data()),
                                    reinterpret_cast<char*>(out.data()),
                                    static_cast<int>(raw.size()), static_cast<int>(out.size())));
    s.flags |= entry_flags::kLz4;
  }
  s.stored = out;
  s.compressed_size = static_cast<uint32_t>(out.size());
  s.uncompressed_size = raw.size();
  return s;
}

inline EntrySpec ElfSpec(uint32_t sm, size_t size = 40) {
  EntrySpec s;
  s.kind = 2;
  s.sm = sm;
  s.major = 1;
  s.minor = 8;
  s.stored.assign(size, 0xCC);
  std::memcpy(s.stored.data(), "\x7f" "ELF", 4);
  return s;
}

inline std::vector<uint8_t> BuildEntry(const EntrySpec& s) {
  std::vector<uint8_t> h(sizeof(EntryHeaderRaw), 0);
  uint32_t ident_off = 0, options_off = 0;
  if (!s.ident.empty()) {
    ident_off = static_cast<uint32_t>(h.size());
    h.insert(h.end(), s.ident.begin(), s.ident.end());
    h.resize(Align8(h.size() + 1), 0);
  }
  if (s.kind == 1) {  // nvcc writes an options record for every PTX entry
    options_off = static_cast<uint32_t>(h.size());
    OptionsRecordRaw rec{static_cast<uint32_t>(h.size() + 8),
                         static_cast<uint32_t>(s.options.size())};
    Put(h, h.size(), rec);
    h.insert(h.end(), s.options.begin(), s.options.end());
    h.resize(Align8(h.size() + 1), 0);
  }
  EntryHeaderRaw e{};
  e.kind = s.kind;
  e.version = 0x0101;
  e.header_size = static_cast<uint32_t>(h.size());
  e.payload_size = Align8(s.stored.size());
  e.compressed_size = s.compressed_size;
  e.options_offset = options_off;
  e.minor = s.minor;
  e.major = s.major;
  e.sm_arch = s.sm;
  e.ident_offset = ident_off;
  e.ident_size = static_cast<uint32_t>(s.ident.size());
  e.flags = s.flags;
  e.uncompressed_size = s.uncompressed_size;
  Put(h, 0, e);
  h.insert(h.end(), s.stored.begin(), s.stored.end());
  h.resize(Align8(h.size()), 0);
  return h;
}

inline std::vector<uint8_t> BuildFatbin(const std::vector<EntrySpec>& specs) {
  std::vector<uint8_t> entries;
  for (const EntrySpec& s : specs) {
    std::vector<uint8_t> e = BuildEntry(s);
    entries.insert(entries.end(), e.begin(), e.end());
  }
  std::vector<uint8_t> b;
  Put(b, 0, FatbinHeaderRaw{kFatbinMagic, 1, 16, entries.size()});
  b.insert(b.end(), entries.begin(), entries.end());
  return b;
}

inline constexpr char kSamplePtx[] =
    ".version 9.0\n.target sm_75\n.address_size 64\n\n"
    ".visible .entry k(\n.param .u64 k_param_0\n)\n{\nret;\n}\n";

}  // namespace barracuda::fatbin::testing

#endif  // BARRACUDA_PTX_REWRITER_TESTS_FATBIN_SYNTHETIC_TEST_H_
