// Payload decompression for fat-binary entries: zstd frames and raw LZ4 blocks.
// Both are bounded by the size the entry header declares, which the caller caps.
#ifndef BARRACUDA_PTX_REWRITER_FATBIN_DECOMPRESS_H_
#define BARRACUDA_PTX_REWRITER_FATBIN_DECOMPRESS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace barracuda::fatbin {

// Decompresses one zstd frame that must expand to exactly `expected_size` bytes.
absl::StatusOr<std::vector<uint8_t>> DecompressZstd(std::span<const uint8_t> in,
                                                    uint64_t expected_size);

// Decompresses one raw LZ4 block (no frame) that must expand to exactly
// `expected_size` bytes (LZ4_decompress_safe: never writes past the output).
absl::StatusOr<std::vector<uint8_t>> DecompressLz4Block(std::span<const uint8_t> in,
                                                        uint64_t expected_size);

}  // namespace barracuda::fatbin

#endif  // BARRACUDA_PTX_REWRITER_FATBIN_DECOMPRESS_H_
