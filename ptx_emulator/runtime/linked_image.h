// The image the replacement driver's JIT linker hands out (cuLinkComplete's
// cubinOut): the emulator runs PTX, so "linking" keeps the inputs (PTX text,
// fat binaries whose PTX the runtime picks) for the runtime to load as one
// link unit, where names are resolved across modules as for an -rdc program
// (decode/module_loader.h). cuModuleLoadData / cuLibraryLoadData of such an
// image (Runtime::AddLibrary) loads every input's PTX.
//
// Layout, 8-byte aligned, native byte order (an image never leaves the
// process): the 8-byte magic, u64 total bytes, u32 input count, u32 0; per
// input u32 kind, u32 name bytes, u64 data bytes, the name, the data, zero
// padding to 8.
#ifndef BARRACUDA_PTX_EMULATOR_RUNTIME_LINKED_IMAGE_H_
#define BARRACUDA_PTX_EMULATOR_RUNTIME_LINKED_IMAGE_H_

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace barracuda::cudart {

inline constexpr char kLinkedImageMagic[8] = {'B', 'R', 'C', 'D', 'L', 'N', 'K', '1'};

enum class LinkedInputKind : uint32_t { kPtx = 1, kFatbin = 2 };

struct LinkedInput {
  LinkedInputKind kind = LinkedInputKind::kPtx;
  std::string name;
  std::string data;
};

inline bool IsLinkedImage(const void* code) {
  return code != nullptr && std::memcmp(code, kLinkedImageMagic, sizeof kLinkedImageMagic) == 0;
}

inline std::vector<uint64_t> EncodeLinkedImage(const std::vector<LinkedInput>& inputs) {
  std::string bytes(kLinkedImageMagic, sizeof kLinkedImageMagic);
  auto put = [&](auto v) { bytes.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(uint64_t{0});  // total, filled in below
  put(static_cast<uint32_t>(inputs.size()));
  put(uint32_t{0});
  for (const LinkedInput& in : inputs) {
    put(static_cast<uint32_t>(in.kind));
    put(static_cast<uint32_t>(in.name.size()));
    put(static_cast<uint64_t>(in.data.size()));
    bytes += in.name;
    bytes += in.data;
    bytes.resize((bytes.size() + 7) / 8 * 8, '\0');
  }
  const uint64_t total = bytes.size();
  std::memcpy(bytes.data() + sizeof kLinkedImageMagic, &total, sizeof total);
  std::vector<uint64_t> image(total / 8);
  std::memcpy(image.data(), bytes.data(), total);
  return image;
}

// The inputs of an image (IsLinkedImage), or nothing when its fields do not
// add up.
inline std::optional<std::vector<LinkedInput>> DecodeLinkedImage(const void* code) {
  const auto* p = static_cast<const char*>(code);
  uint64_t total = 0;
  uint32_t count = 0;
  std::memcpy(&total, p + 8, sizeof total);
  std::memcpy(&count, p + 16, sizeof count);
  std::vector<LinkedInput> inputs;
  uint64_t at = 24;
  for (uint32_t i = 0; i < count; ++i) {
    if (at + 16 > total) return std::nullopt;
    uint32_t kind = 0, name_bytes = 0;
    uint64_t data_bytes = 0;
    std::memcpy(&kind, p + at, 4);
    std::memcpy(&name_bytes, p + at + 4, 4);
    std::memcpy(&data_bytes, p + at + 8, 8);
    at += 16;
    if (name_bytes > total - at || data_bytes > total - at - name_bytes) return std::nullopt;
    if (kind != static_cast<uint32_t>(LinkedInputKind::kPtx) && kind != static_cast<uint32_t>(LinkedInputKind::kFatbin))
      return std::nullopt;
    LinkedInput in;
    in.kind = static_cast<LinkedInputKind>(kind);
    in.name.assign(p + at, name_bytes);
    in.data.assign(p + at + name_bytes, data_bytes);
    at = (at + name_bytes + data_bytes + 7) / 8 * 8;
    inputs.push_back(std::move(in));
  }
  return inputs;
}

}  // namespace barracuda::cudart

#endif  // BARRACUDA_PTX_EMULATOR_RUNTIME_LINKED_IMAGE_H_
