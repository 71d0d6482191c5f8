#include "ptx_rewriter/fatbin/decompress.h"

#include <limits>

#include <lz4.h>
#include <zstd.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace barracuda::fatbin {

absl::StatusOr<std::vector<uint8_t>> DecompressZstd(std::span<const uint8_t> in,
                                                    uint64_t expected_size) {
  // The frame may state its own content size: a mismatch with the entry header
  // is caught before allocating anything.
  unsigned long long frame_size = ZSTD_getFrameContentSize(in.data(), in.size());
  if (frame_size == ZSTD_CONTENTSIZE_ERROR) {
    return absl::InvalidArgumentError("zstd: not a zstd frame");
  }
  if (frame_size != ZSTD_CONTENTSIZE_UNKNOWN && frame_size != expected_size) {
    return absl::InvalidArgumentError(absl::StrCat("zstd: frame says ", frame_size,
                                                   " bytes, entry header says ", expected_size));
  }
  if (expected_size > std::numeric_limits<size_t>::max()) {
    return absl::InvalidArgumentError("zstd: declared size does not fit in memory");
  }
  std::vector<uint8_t> out(static_cast<size_t>(expected_size));
  size_t got = ZSTD_decompress(out.data(), out.size(), in.data(), in.size());
  if (ZSTD_isError(got)) {
    return absl::InvalidArgumentError(absl::StrCat("zstd: ", ZSTD_getErrorName(got)));
  }
  if (got != expected_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("zstd: got ", got, " bytes, entry header says ", expected_size));
  }
  return out;
}

absl::StatusOr<std::vector<uint8_t>> DecompressLz4Block(std::span<const uint8_t> in,
                                                        uint64_t expected_size) {
  constexpr uint64_t kIntMax = static_cast<uint64_t>(std::numeric_limits<int>::max());
  if (in.size() > kIntMax || expected_size > kIntMax) {
    return absl::InvalidArgumentError("lz4: block larger than 2 GiB");
  }
  std::vector<uint8_t> out(static_cast<size_t>(expected_size));
  int got = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()),
                                reinterpret_cast<char*>(out.data()), static_cast<int>(in.size()),
                                static_cast<int>(out.size()));
  if (got < 0) {
    return absl::InvalidArgumentError("lz4: malformed block");
  }
  if (static_cast<uint64_t>(got) != expected_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("lz4: got ", got, " bytes, entry header says ", expected_size));
  }
  return out;
}

}  // namespace barracuda::fatbin
