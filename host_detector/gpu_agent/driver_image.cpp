#include "host_detector/gpu_agent/driver_image.h"

#include <cstring>
#include <span>

#include "absl/strings/str_cat.h"
#include "ptx_rewriter/fatbin/fatbin_format.h"
#include "ptx_rewriter/fatbin/fatbin_reader.h"

namespace barracuda::gpu_agent {
namespace {

uint32_t Magic(const void* image) {
  uint32_t m = 0;
  std::memcpy(&m, image, sizeof m);
  return m;
}

// PTX text begins with blanks, comments or a directive (".version" first in
// practice); a NUL-terminated string the driver would parse as PTX.
bool LooksLikePtx(const char* text) {
  const char* p = text;
  for (int guard = 0; guard < 1 << 16; ++guard) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;
    if (p[0] == '/' && p[1] == '/') {
      while (*p != '\0' && *p != '\n') ++p;
    } else if (p[0] == '/' && p[1] == '*') {
      const char* end = std::strstr(p + 2, "*/");
      if (end == nullptr) return false;
      p = end + 2;
    } else {
      return *p == '.';
    }
  }
  return false;
}

}  // namespace

DriverImageKind ClassifyDriverImage(const void* image) {
  if (image == nullptr) return DriverImageKind::kUnknown;
  const auto* bytes = static_cast<const unsigned char*>(image);
  if (bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F') return DriverImageKind::kElf;
  if (bytes[0] != 0 && bytes[1] != 0 && bytes[2] != 0 && bytes[3] != 0) {
    if (Magic(image) == fatbin::kFatbinMagic) return DriverImageKind::kFatbin;
    if (Magic(image) == fatbin::kWrapperMagic) return DriverImageKind::kWrapper;
  }
  return LooksLikePtx(static_cast<const char*>(image)) ? DriverImageKind::kPtxText : DriverImageKind::kUnknown;
}

const char* DriverImageKindName(DriverImageKind kind) {
  switch (kind) {
    case DriverImageKind::kPtxText: return "PTX text";
    case DriverImageKind::kFatbin: return "fat binary";
    case DriverImageKind::kWrapper: return "wrapped fat binary";
    case DriverImageKind::kElf: return "ELF cubin";
    case DriverImageKind::kUnknown: break;
  }
  return "image of an unknown format";
}

absl::StatusOr<InstrumentedModule> InstrumentDriverImage(const void* image, const std::string& label,
                                                         const ptx::Module& logger,
                                                         const ModuleInstrumentOptions& options) {
  const DriverImageKind kind = ClassifyDriverImage(image);
  switch (kind) {
    case DriverImageKind::kPtxText:
      return InstrumentPtxText(static_cast<const char*>(image), absl::StrCat(label, ".ptx"), "", logger, options);
    case DriverImageKind::kWrapper: {
      absl::StatusOr<fatbin::RegisteredFatbin> parsed = fatbin::ParseRegisteredFatbin(image);
      if (!parsed.ok()) return absl::FailedPreconditionError(absl::StrCat("its fat binary cannot be read: ",
                                                                          parsed.status().message()));
      return InstrumentRegisteredFatbin(*parsed, logger, options);
    }
    case DriverImageKind::kFatbin: {
      // The header holds the size; the driver trusts the mapping as we do.
      const auto* bytes = static_cast<const uint8_t*>(image);
      absl::StatusOr<uint64_t> size = fatbin::PeekFatbinSize({bytes, sizeof(fatbin::FatbinHeaderRaw)});
      if (!size.ok() || *size > fatbin::kMaxInProcessFatbinSize)
        return absl::FailedPreconditionError(absl::StrCat(
            "its fat binary cannot be read: ", size.ok() ? "too large" : std::string(size.status().message())));
      absl::StatusOr<fatbin::Fatbin> fb = fatbin::ParseFatbin({bytes, static_cast<size_t>(*size)});
      if (!fb.ok()) return absl::FailedPreconditionError(absl::StrCat("its fat binary cannot be read: ",
                                                                      fb.status().message()));
      fatbin::RegisteredFatbin registered;
      registered.wrapper_version = fatbin::kWrapperVersion;
      registered.fatbin = std::move(*fb);
      return InstrumentRegisteredFatbin(registered, logger, options);
    }
    case DriverImageKind::kElf:
      return absl::FailedPreconditionError(
          "it is an ELF cubin (machine code, no PTX): load PTX text or a fat binary with a compute_XX entry");
    case DriverImageKind::kUnknown: break;
  }
  return absl::FailedPreconditionError("its image is neither PTX text, a fat binary nor an ELF cubin");
}

}  // namespace barracuda::gpu_agent
