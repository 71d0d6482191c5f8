// Writer for PTX-only fat binaries: how the GPU agent re-registers instrumented
// PTX. Each output entry keeps its original header bytes (kind, sm, PTX ISA,
// ident and options text) with the sizes patched and the compression flags
// cleared; the payload is the PTX text, NUL-terminated, padded to 8 bytes.
// ELF entries are dropped, so the driver must JIT the PTX.
#ifndef BARRACUDA_PTX_REWRITER_FATBIN_FATBIN_WRITER_H_
#define BARRACUDA_PTX_REWRITER_FATBIN_FATBIN_WRITER_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ptx_rewriter/fatbin/fatbin_format.h"
#include "ptx_rewriter/fatbin/fatbin_reader.h"

namespace barracuda::fatbin {

struct PtxEntrySource {
  const FatbinEntry* original;  // a PTX entry; its header is the template
  std::string_view ptx;         // the text to store (must not contain NUL)
};

// Builds a version-1 fat binary holding one uncompressed PTX entry per source.
// The result is what a WrapperRaw::data points at (std::vector storage is
// suitably aligned for the 8-byte fields).
absl::StatusOr<std::vector<uint8_t>> WritePtxFatbin(std::span<const PtxEntrySource> sources);

// Every PTX entry of `fatbin` with its own (decoded) text.
absl::StatusOr<std::vector<uint8_t>> WritePtxOnlyFatbin(const Fatbin& fatbin);

// A version-1 wrapper for fatbin bytes that outlive it.
WrapperRaw MakeWrapper(const uint8_t* fatbin_data);

}  // namespace barracuda::fatbin

#endif  // BARRACUDA_PTX_REWRITER_FATBIN_FATBIN_WRITER_H_
