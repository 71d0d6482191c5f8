// On-disk layout of CUDA fat binaries (CUDA 13, x86-64/aarch64 Linux, 64-bit
// little-endian only). Layout checked against nvcc 13.0 output; see
// docs/notes/cuda13-runtime-abi.md and ptx_rewriter/README.md.
//
// These structs are read with memcpy from possibly unaligned, untrusted bytes;
// never cast a pointer into a buffer to one of them.
#ifndef BARRACUDA_PTX_REWRITER_FATBIN_FATBIN_FORMAT_H_
#define BARRACUDA_PTX_REWRITER_FATBIN_FATBIN_FORMAT_H_

#include <bit>
#include <cstddef>
#include <cstdint>

namespace barracuda::fatbin {

static_assert(std::endian::native == std::endian::little,
              "fat binaries are read in place: little-endian hosts only");

// `__fatBinC_Wrapper_t` (fatbinary_section.h), section .nvFatBinSegment. This is
// what nvcc-generated host code hands to __cudaRegisterFatBinary.
inline constexpr uint32_t kWrapperMagic = 0x466243B1;
inline constexpr uint32_t kWrapperVersion = 1;      // one translation unit
inline constexpr uint32_t kWrapperLinkVersion = 2;  // -rdc device link / device-link stub

#pragma pack(push, 1)
struct WrapperRaw {
  uint32_t magic;
  uint32_t version;
  uint64_t data;                 // address of the FatbinHeaderRaw
  uint64_t filename_or_fatbins;  // v1: NULL (offline file name); v2: NULL-terminated
                                 // array of fatbin header addresses (__nv_relfatbin)
};

// Fatbin header, section .nv_fatbin or __nv_relfatbin; entries follow at
// header_size.
inline constexpr uint32_t kFatbinMagic = 0xBA55ED50;
inline constexpr uint16_t kFatbinVersion = 1;
struct FatbinHeaderRaw {
  uint32_t magic;
  uint16_t version;
  uint16_t header_size;   // 16 in every sample
  uint64_t entries_size;  // bytes of entries that follow the header
};

// One entry (PTX text or ELF cubin). header_size >= sizeof(EntryHeaderRaw); the
// bytes after the fixed part hold the ident string and the options record.
struct EntryHeaderRaw {
  uint16_t kind;               // EntryKind
  uint16_t version;            // 0x0101
  uint32_t header_size;        // 0x40 ELF, 0x50 PTX, more with ident/options text
  uint64_t payload_size;       // padded (8-aligned); distance to the next entry
  uint32_t compressed_size;    // 0 when uncompressed
  uint32_t options_offset;     // from entry start: {u32 string offset, u32 length}; 0 = none
  uint16_t minor;              // PTX ISA minor (PTX entries)
  uint16_t major;              // PTX ISA major
  uint32_t sm_arch;            // 75, 90, ...
  uint32_t ident_offset;       // from entry start; 0 = none
  uint32_t ident_size;
  uint64_t flags;              // EntryFlags
  uint64_t reserved;           // 0 in every sample
  uint64_t uncompressed_size;  // 0 when uncompressed
};

// The record options_offset points at.
struct OptionsRecordRaw {
  uint32_t string_offset;  // from entry start
  uint32_t length;         // without NUL
};
#pragma pack(pop)

static_assert(sizeof(WrapperRaw) == 24);
static_assert(offsetof(WrapperRaw, data) == 8);
static_assert(offsetof(WrapperRaw, filename_or_fatbins) == 16);
static_assert(sizeof(FatbinHeaderRaw) == 16);
static_assert(offsetof(FatbinHeaderRaw, entries_size) == 8);
static_assert(sizeof(EntryHeaderRaw) == 0x40);
static_assert(offsetof(EntryHeaderRaw, payload_size) == 8);
static_assert(offsetof(EntryHeaderRaw, compressed_size) == 16);
static_assert(offsetof(EntryHeaderRaw, options_offset) == 20);
static_assert(offsetof(EntryHeaderRaw, minor) == 24);
static_assert(offsetof(EntryHeaderRaw, major) == 26);
static_assert(offsetof(EntryHeaderRaw, sm_arch) == 28);
static_assert(offsetof(EntryHeaderRaw, ident_offset) == 32);
static_assert(offsetof(EntryHeaderRaw, flags) == 40);
static_assert(offsetof(EntryHeaderRaw, uncompressed_size) == 56);
static_assert(sizeof(OptionsRecordRaw) == 8);

enum class EntryKind : uint16_t { kPtx = 1, kElf = 2 };

namespace entry_flags {
inline constexpr uint64_t k64Bit = 0x1;
inline constexpr uint64_t kDebug = 0x2;
inline constexpr uint64_t kLinux = 0x10;
inline constexpr uint64_t kLz4 = 0x2000;
inline constexpr uint64_t kZstd = 0x8000;
inline constexpr uint64_t kCompressionMask = kLz4 | kZstd;
}  // namespace entry_flags

}  // namespace barracuda::fatbin

#endif  // BARRACUDA_PTX_REWRITER_FATBIN_FATBIN_FORMAT_H_
