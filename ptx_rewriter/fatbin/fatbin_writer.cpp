#include "ptx_rewriter/fatbin/fatbin_writer.h"

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace barracuda::fatbin {
namespace {

constexpr uint64_t AlignUp8(uint64_t v) { return (v + 7) & ~uint64_t{7}; }

template <typename T>
void Store(std::vector<uint8_t>& out, size_t at, const T& v) {
  std::memcpy(out.data() + at, &v, sizeof(T));
}

}  // namespace

absl::StatusOr<std::vector<uint8_t>> WritePtxFatbin(std::span<const PtxEntrySource> sources) {
  std::vector<uint8_t> out(sizeof(FatbinHeaderRaw), 0);
  for (size_t i = 0; i < sources.size(); ++i) {
    const PtxEntrySource& src = sources[i];
    if (src.original == nullptr || !src.original->is_ptx()) {
      return absl::InvalidArgumentError(absl::StrCat("source ", i, " is not a PTX entry"));
    }
    if (src.original->header_bytes.size() < sizeof(EntryHeaderRaw)) {
      return absl::InvalidArgumentError(absl::StrCat("source ", i, " has no header bytes"));
    }
    if (src.ptx.find('\0') != std::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat("source ", i, ": PTX text contains NUL"));
    }
    // Header size stays 8-aligned so that the payload (and the next entry) is.
    const uint64_t header_size = AlignUp8(src.original->header_bytes.size());
    const uint64_t payload_size = AlignUp8(src.ptx.size() + 1);
    if (header_size > UINT32_MAX || payload_size > (uint64_t{1} << 40)) {
      return absl::InvalidArgumentError(absl::StrCat("source ", i, " is too large"));
    }
    const size_t at = out.size();
    out.resize(at + header_size + payload_size, 0);
    std::memcpy(out.data() + at, src.original->header_bytes.data(),
                src.original->header_bytes.size());
    EntryHeaderRaw h;
    std::memcpy(&h, out.data() + at, sizeof(h));
    h.header_size = static_cast<uint32_t>(header_size);
    h.payload_size = payload_size;
    h.compressed_size = 0;
    h.uncompressed_size = 0;
    h.flags &= ~entry_flags::kCompressionMask;
    Store(out, at, h);
    std::memcpy(out.data() + at + header_size, src.ptx.data(), src.ptx.size());
  }
  FatbinHeaderRaw fh{kFatbinMagic, kFatbinVersion, sizeof(FatbinHeaderRaw),
                     out.size() - sizeof(FatbinHeaderRaw)};
  Store(out, 0, fh);
  return out;
}

absl::StatusOr<std::vector<uint8_t>> WritePtxOnlyFatbin(const Fatbin& fatbin) {
  std::vector<PtxEntrySource> sources;
  for (const FatbinEntry& e : fatbin.entries) {
    if (e.is_ptx()) sources.push_back({&e, e.ptx});
  }
  return WritePtxFatbin(sources);
}

WrapperRaw MakeWrapper(const uint8_t* fatbin_data) {
  return WrapperRaw{kWrapperMagic, kWrapperVersion,
                    static_cast<uint64_t>(reinterpret_cast<uintptr_t>(fatbin_data)), 0};
}

}  // namespace barracuda::fatbin
