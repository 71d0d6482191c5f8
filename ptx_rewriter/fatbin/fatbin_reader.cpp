#include "ptx_rewriter/fatbin/fatbin_reader.h"

#include <algorithm>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ptx_rewriter/fatbin/bounded_bytes.h"
#include "ptx_rewriter/fatbin/decompress.h"

namespace barracuda::fatbin {
namespace {

absl::Status Malformed(uint64_t at, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("fat binary offset ", Hex(at), ": ", what));
}

// The text before the first NUL (or all of it when there is none).
std::string TextUpToNul(std::span<const uint8_t> bytes) {
  auto end = std::find(bytes.begin(), bytes.end(), uint8_t{0});
  return std::string(bytes.begin(), end);
}

// Reads a string [str_off, str_off+len) that must lie inside the entry header.
absl::StatusOr<std::string> HeaderString(std::span<const uint8_t> header, uint64_t entry_at,
                                         uint64_t str_off, uint64_t len, absl::string_view what) {
  if (str_off < sizeof(EntryHeaderRaw) || !InRange(str_off, len, header.size())) {
    return Malformed(entry_at, absl::StrCat(what, " [", Hex(str_off), ", +", len,
                                            ") lies outside the entry header (", Hex(header.size()),
                                            " bytes)"));
  }
  // Stored NUL-padded; the length may include the padding.
  return TextUpToNul(header.subspan(str_off, len));
}

absl::StatusOr<FatbinEntry> ParseEntry(std::span<const uint8_t> fatbin, uint64_t at, uint64_t end,
                                       const ParseOptions& opts) {
  FatbinEntry e;
  e.offset = at;
  if (!InRange(at, sizeof(EntryHeaderRaw), end)) {
    return Malformed(at, absl::StrCat("truncated entry header: ", end - at, " bytes left, need ",
                                      sizeof(EntryHeaderRaw)));
  }
  e.header = Load<EntryHeaderRaw>(fatbin, at);
  const EntryHeaderRaw& h = e.header;
  if (h.header_size < sizeof(EntryHeaderRaw)) {
    return Malformed(at, absl::StrCat("entry header size ", Hex(h.header_size),
                                      " is smaller than the fixed header (0x40)"));
  }
  if (!InRange(at, h.header_size, end)) {
    return Malformed(at, absl::StrCat("entry header size ", Hex(h.header_size),
                                      " runs past the end of the fat binary"));
  }
  if (!InRange(at + h.header_size, h.payload_size, end)) {
    return Malformed(at, absl::StrCat("entry payload size ", Hex(h.payload_size),
                                      " runs past the end of the fat binary (",
                                      Hex(end - at - h.header_size), " bytes left)"));
  }
  std::span<const uint8_t> header = fatbin.subspan(at, h.header_size);
  e.header_bytes.assign(header.begin(), header.end());

  if (h.options_offset != 0) {
    if (h.options_offset < sizeof(EntryHeaderRaw) ||
        !InRange(h.options_offset, sizeof(OptionsRecordRaw), h.header_size)) {
      return Malformed(at, absl::StrCat("options offset ", Hex(h.options_offset),
                                        " lies outside the entry header (", Hex(h.header_size),
                                        " bytes)"));
    }
    auto rec = Load<OptionsRecordRaw>(header, h.options_offset);
    if (rec.length != 0) {
      auto s = HeaderString(header, at, rec.string_offset, rec.length, "options string");
      if (!s.ok()) return s.status();
      e.options = *std::move(s);
    }
  }
  if (h.ident_offset != 0 || h.ident_size != 0) {
    auto s = HeaderString(header, at, h.ident_offset, h.ident_size, "ident string");
    if (!s.ok()) return s.status();
    e.ident = *std::move(s);
  }

  std::span<const uint8_t> payload = fatbin.subspan(at + h.header_size, h.payload_size);
  const uint64_t comp = h.flags & entry_flags::kCompressionMask;
  if (comp == entry_flags::kCompressionMask) {
    return Malformed(at, "entry flags say both LZ4 and zstd");
  }
  if (comp != 0) {
    e.compression = comp == entry_flags::kZstd ? Compression::kZstd : Compression::kLz4;
    if (h.compressed_size == 0 || h.compressed_size > h.payload_size) {
      return Malformed(at, absl::StrCat("compressed size ", Hex(h.compressed_size),
                                        " is zero or larger than the payload (",
                                        Hex(h.payload_size), ")"));
    }
    if (h.uncompressed_size == 0) {
      return Malformed(at, "compressed entry declares an uncompressed size of 0");
    }
    if (h.uncompressed_size > opts.max_decompressed_size) {
      return Malformed(at, absl::StrCat("declared uncompressed size ", h.uncompressed_size,
                                        " exceeds the limit of ", opts.max_decompressed_size,
                                        " bytes"));
    }
    e.stored_payload = payload.first(h.compressed_size);
  } else {
    e.compression = Compression::kNone;
    e.stored_payload = payload;
  }

  if (e.is_ptx() && opts.decode_ptx) {
    if (e.compression == Compression::kNone) {
      e.ptx = TextUpToNul(payload);
    } else {
      auto decoded = DecodePayload(e, opts);
      if (!decoded.ok()) {
        return Malformed(at, absl::StrCat("PTX payload: ", decoded.status().message()));
      }
      e.ptx = TextUpToNul(*decoded);
    }
  }
  return e;
}

}  // namespace

const char* CompressionName(Compression c) {
  switch (c) {
    case Compression::kNone: return "none";
    case Compression::kZstd: return "zstd";
    case Compression::kLz4: return "lz4";
  }
  return "?";
}

uint64_t FatbinEntry::decoded_size() const {
  return compression == Compression::kNone ? stored_payload.size() : header.uncompressed_size;
}

size_t Fatbin::ptx_count() const {
  size_t n = 0;
  for (const FatbinEntry& e : entries) n += e.is_ptx() ? 1 : 0;
  return n;
}

absl::StatusOr<uint64_t> PeekFatbinSize(std::span<const uint8_t> bytes) {
  if (bytes.size() < sizeof(FatbinHeaderRaw)) {
    return Malformed(0, absl::StrCat("truncated fatbin header: ", bytes.size(),
                                     " bytes, need 16"));
  }
  auto h = Load<FatbinHeaderRaw>(bytes, 0);
  if (h.magic != kFatbinMagic) {
    return Malformed(0, absl::StrCat("bad fatbin magic ", Hex(h.magic), " (expected ",
                                     Hex(kFatbinMagic), ")"));
  }
  if (h.version != kFatbinVersion) {
    return Malformed(0, absl::StrCat("unsupported fatbin version ", h.version, " (expected 1)"));
  }
  if (h.header_size < sizeof(FatbinHeaderRaw)) {
    return Malformed(0, absl::StrCat("fatbin header size ", h.header_size,
                                     " is smaller than 16"));
  }
  if (h.entries_size > UINT64_MAX - h.header_size) {
    return Malformed(0, "fatbin size overflows");
  }
  return uint64_t{h.header_size} + h.entries_size;
}

absl::StatusOr<Fatbin> ParseFatbin(std::span<const uint8_t> bytes, const ParseOptions& opts) {
  auto total = PeekFatbinSize(bytes);
  if (!total.ok()) return total.status();
  auto h = Load<FatbinHeaderRaw>(bytes, 0);
  if (*total > bytes.size()) {
    return Malformed(0, absl::StrCat("fatbin header says ", *total, " bytes (header ",
                                     h.header_size, " + entries ", h.entries_size,
                                     "), only ", bytes.size(), " available"));
  }
  Fatbin fb;
  fb.version = h.version;
  fb.header_size = h.header_size;
  fb.entries_size = h.entries_size;
  const uint64_t end = *total;
  uint64_t at = h.header_size;
  while (at < end) {
    auto e = ParseEntry(bytes, at, end, opts);
    if (!e.ok()) return e.status();
    // Cannot overflow: ParseEntry checked header + payload against end.
    at += e->header.header_size + e->header.payload_size;
    fb.entries.push_back(*std::move(e));
  }
  return fb;
}

absl::StatusOr<std::vector<uint8_t>> DecodePayload(const FatbinEntry& entry,
                                                   const ParseOptions& opts) {
  switch (entry.compression) {
    case Compression::kNone:
      return std::vector<uint8_t>(entry.stored_payload.begin(), entry.stored_payload.end());
    case Compression::kZstd:
    case Compression::kLz4: {
      uint64_t n = entry.header.uncompressed_size;
      if (n > opts.max_decompressed_size) {
        return absl::InvalidArgumentError(absl::StrCat("declared uncompressed size ", n,
                                                       " exceeds the limit"));
      }
      return entry.compression == Compression::kZstd ? DecompressZstd(entry.stored_payload, n)
                                                      : DecompressLz4Block(entry.stored_payload, n);
    }
  }
  return absl::InternalError("unknown compression");
}

absl::StatusOr<RegisteredFatbin> ParseRegisteredFatbin(const void* wrapper,
                                                       const ParseOptions& opts) {
  if (wrapper == nullptr) return absl::InvalidArgumentError("fatbin wrapper pointer is NULL");
  WrapperRaw w;
  std::memcpy(&w, wrapper, sizeof(w));
  if (w.magic != kWrapperMagic) {
    return absl::InvalidArgumentError(absl::StrCat("bad fatbin wrapper magic ", Hex(w.magic),
                                                   " (expected ", Hex(kWrapperMagic), ")"));
  }
  if (w.version != kWrapperVersion && w.version != kWrapperLinkVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported fatbin wrapper version ", w.version, " (expected 1 or 2)"));
  }
  auto parse_at = [&opts](uint64_t addr, absl::string_view what) -> absl::StatusOr<Fatbin> {
    if (addr == 0) return absl::InvalidArgumentError(absl::StrCat(what, " pointer is NULL"));
    const auto* p = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(addr));
    auto size = PeekFatbinSize({p, sizeof(FatbinHeaderRaw)});
    if (!size.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": ", size.status().message()));
    }
    if (*size > kMaxInProcessFatbinSize) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": fatbin header says ", *size,
                                                     " bytes, more than the 4 GiB limit"));
    }
    auto fb = ParseFatbin({p, static_cast<size_t>(*size)}, opts);
    if (!fb.ok()) return absl::InvalidArgumentError(absl::StrCat(what, ": ", fb.status().message()));
    return fb;
  };
  RegisteredFatbin out;
  out.wrapper_version = w.version;
  auto main = parse_at(w.data, "wrapper data");
  if (!main.ok()) return main.status();
  out.fatbin = *std::move(main);
  if (w.version == kWrapperLinkVersion && w.filename_or_fatbins != 0) {
    const auto* list =
        reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(w.filename_or_fatbins));
    for (size_t i = 0;; ++i) {
      if (i == kMaxPrelinkedFatbins) {
        return absl::InvalidArgumentError("prelinked fatbin list is not NULL-terminated");
      }
      uint64_t addr;
      std::memcpy(&addr, list + i * sizeof(uint64_t), sizeof(addr));
      if (addr == 0) break;
      auto fb = parse_at(addr, absl::StrCat("prelinked fatbin ", i));
      if (!fb.ok()) return fb.status();
      out.prelinked.push_back(*std::move(fb));
    }
  }
  return out;
}

std::optional<size_t> ChoosePtxEntry(const Fatbin& fatbin, uint32_t target_sm) {
  std::optional<size_t> below;  // highest sm <= target
  std::optional<size_t> above;  // lowest sm > target
  for (size_t i = 0; i < fatbin.entries.size(); ++i) {
    const FatbinEntry& e = fatbin.entries[i];
    if (!e.is_ptx()) continue;
    uint32_t sm = e.sm_arch();
    if (sm <= target_sm) {
      // Strict comparison keeps the earlier entry on ties.
      if (!below || sm > fatbin.entries[*below].sm_arch()) below = i;
    } else if (!above || sm < fatbin.entries[*above].sm_arch()) {
      above = i;
    }
  }
  return below ? below : above;
}

}  // namespace barracuda::fatbin
