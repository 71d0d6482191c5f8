// Bounds-checked reading of untrusted binary images (fat binaries, ELF files):
// every read is preceded by an overflow-safe range check, and values are copied
// out with memcpy so unaligned fields are fine.
#ifndef BARRACUDA_PTX_REWRITER_FATBIN_BOUNDED_BYTES_H_
#define BARRACUDA_PTX_REWRITER_FATBIN_BOUNDED_BYTES_H_

#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "absl/strings/str_cat.h"

namespace barracuda::fatbin {

// An offset, address or field for an error message about a malformed image.
inline std::string Hex(uint64_t v) { return absl::StrCat("0x", absl::Hex(v)); }

// True when [off, off+len) lies inside [0, limit), without overflow.
inline bool InRange(uint64_t off, uint64_t len, uint64_t limit) {
  return off <= limit && len <= limit - off;
}

// A T at `off`; the caller has checked InRange(off, sizeof(T), bytes.size()).
template <typename T>
T Load(std::span<const uint8_t> bytes, uint64_t off) {
  T v;
  std::memcpy(&v, bytes.data() + off, sizeof(T));
  return v;
}

}  // namespace barracuda::fatbin

#endif  // BARRACUDA_PTX_REWRITER_FATBIN_BOUNDED_BYTES_H_
