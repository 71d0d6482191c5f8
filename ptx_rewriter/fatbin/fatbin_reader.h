// Reader for CUDA fat binaries: the fatbin header, its PTX / ELF entries, and the
// `__fatBinC_Wrapper_t` that host code registers. Two front doors:
//  - ParseFatbin(bytes): bounded; every offset and size is checked against the
//    buffer, decompressed sizes are capped; malformed input yields an error that
//    says what is wrong and at which offset (relative to the fatbin header).
//  - ParseRegisteredFatbin(wrapper): in-process, from the pointer handed to
//    __cudaRegisterFatBinary; the fatbin header states its own size, after which
//    the bounded reader does the work.
#ifndef BARRACUDA_PTX_REWRITER_FATBIN_FATBIN_READER_H_
#define BARRACUDA_PTX_REWRITER_FATBIN_FATBIN_READER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ptx_rewriter/fatbin/fatbin_format.h"

namespace barracuda::fatbin {

enum class Compression { kNone, kZstd, kLz4 };
const char* CompressionName(Compression c);

struct ParseOptions {
  // Decompress PTX entries into FatbinEntry::ptx. ELF payloads are left as they
  // are (DecodePayload on demand).
  bool decode_ptx = true;
  // Largest decompressed payload accepted; a larger declared size is an error,
  // never an allocation. 256 MiB is far above any PTX module seen in practice.
  uint64_t max_decompressed_size = uint64_t{256} << 20;
};

struct FatbinEntry {
  uint64_t offset = 0;  // of the entry header, from the start of the fatbin header
  EntryHeaderRaw header{};
  std::vector<uint8_t> header_bytes;  // all header_size bytes (fixed part + ident/options)
  std::string options;                // e.g. "-O1 -lineinfo"; empty when none
  std::string ident;                  // source name with -G / -lineinfo / --ident
  Compression compression = Compression::kNone;
  // The payload as stored (compressed_size bytes when compressed, else the whole
  // padded payload). Points into the parsed buffer: valid while that lives.
  std::span<const uint8_t> stored_payload;
  // PTX text without its NUL terminator (PTX entries, when decode_ptx).
  std::string ptx;

  uint16_t raw_kind() const { return header.kind; }
  bool is_ptx() const { return header.kind == static_cast<uint16_t>(EntryKind::kPtx); }
  bool is_elf() const { return header.kind == static_cast<uint16_t>(EntryKind::kElf); }
  uint32_t sm_arch() const { return header.sm_arch; }
  uint16_t ptx_major() const { return header.major; }
  uint16_t ptx_minor() const { return header.minor; }
  uint64_t flags() const { return header.flags; }
  // Size of the payload once decompressed (the stored size when uncompressed).
  uint64_t decoded_size() const;
};

struct Fatbin {
  uint16_t version = 0;
  uint16_t header_size = 0;
  uint64_t entries_size = 0;
  std::vector<FatbinEntry> entries;

  uint64_t total_size() const { return uint64_t{header_size} + entries_size; }
  size_t ptx_count() const;
};

// Parses one fat binary starting at bytes[0]. Bytes past total_size() are ignored.
absl::StatusOr<Fatbin> ParseFatbin(std::span<const uint8_t> bytes, const ParseOptions& opts = {});

// Reads only the 16-byte fatbin header and returns total_size() (checked).
absl::StatusOr<uint64_t> PeekFatbinSize(std::span<const uint8_t> bytes);

// The payload of any entry, decompressed (uncompressed payloads are returned
// whole, padding included).
absl::StatusOr<std::vector<uint8_t>> DecodePayload(const FatbinEntry& entry,
                                                   const ParseOptions& opts = {});

// A registered wrapper, as seen in-process.
struct RegisteredFatbin {
  uint32_t wrapper_version = 0;
  Fatbin fatbin;                   // the wrapper's own data
  std::vector<Fatbin> prelinked;   // v2 only: the per-object fatbins of an -rdc link
};

// Largest fatbin the in-process reader accepts from a header (it cannot check
// the mapping, so the header's own size is all it has).
inline constexpr uint64_t kMaxInProcessFatbinSize = uint64_t{4} << 30;
inline constexpr size_t kMaxPrelinkedFatbins = 1 << 16;

// `wrapper` is the argument of __cudaRegisterFatBinary. Trusts that the pointers
// it holds are mapped (they come from the loaded program), but checks magics,
// versions and sizes before reading further.
absl::StatusOr<RegisteredFatbin> ParseRegisteredFatbin(const void* wrapper,
                                                       const ParseOptions& opts = {});

// Deterministic choice among the PTX entries: the highest sm <= target_sm, else
// the lowest sm above it; ties go to the earlier entry. Returns an index into
// fatbin.entries, or nullopt when there is no PTX entry.
std::optional<size_t> ChoosePtxEntry(const Fatbin& fatbin, uint32_t target_sm);

}  // namespace barracuda::fatbin

#endif  // BARRACUDA_PTX_REWRITER_FATBIN_FATBIN_READER_H_
