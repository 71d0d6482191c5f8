// Texture and surface objects as the emulator sees them: what a 64-bit
// cudaTextureObject_t / cudaSurfaceObject_t handle stands for, and the
// process-wide registry the runtime fills (cudaCreateTextureObject,
// cudaCreateSurfaceObject) and the tex/suld/sust/txq/suq handlers query.
//
// The handle is an opaque number on a GPU too; here it is a registry key
// (from 1, never reused while the process lives, so a stale handle is never
// another object's). The registry is process-wide rather than per Device
// because the runtime owns exactly one device and handlers have no Device.
//
// Memory layout (the runtime's CUDA arrays, runtime/texture_api.cpp): element
// (x, y, z) of a resource lives at
//   base + z * slice_pitch + y * pitch + x * element_bytes
// — row-major, rows `pitch` bytes apart, 2D slices (or layers) `slice_pitch`
// apart. CUDA arrays use pitch = width * element_bytes (no padding) and
// slice_pitch = height * pitch; pitch2D resources use the program's pitch;
// linear resources are one row. Only the emulator reads this layout.
#ifndef BARRACUDA_PTX_EMULATOR_OPS_TEXTURE_OBJECTS_H_
#define BARRACUDA_PTX_EMULATOR_OPS_TEXTURE_OBJECTS_H_

#include <cstdint>
#include <optional>

namespace barracuda::emu::tex {

// The channel format of one element: `channels` (1, 2 or 4) of `bits` (8, 16
// or 32) each, all of one kind.
enum class ChannelKind : uint8_t { kSigned, kUnsigned, kFloat };  // 16-bit kFloat is half
struct Format {
  uint8_t channels = 1;
  uint8_t bits = 32;
  ChannelKind kind = ChannelKind::kFloat;
  uint32_t element_bytes() const { return uint32_t{channels} * bits / 8; }
};

// What memory the object reads.
struct Resource {
  uint64_t base = 0;          // device address of element (0, 0, 0)
  uint32_t width = 1;         // elements per row
  uint32_t height = 1;        // rows (1 for 1D)
  uint32_t depth = 1;         // 3D slices, or layers of a layered array
  uint64_t pitch = 0;         // bytes between rows
  uint64_t slice_pitch = 0;   // bytes between slices / layers
  uint8_t dims = 1;           // 1, 2 or 3 (a layered array: 1 or 2, with `layered`)
  bool layered = false;
  bool linear = false;        // cudaResourceTypeLinear: integer fetches only (tex1Dfetch)
  Format format;
};

// cudaTextureAddressMode, cudaTextureFilterMode: same order as the runtime's enums.
enum class AddressMode : uint8_t { kWrap, kClamp, kMirror, kBorder };
enum class Filter : uint8_t { kPoint, kLinear };

struct Sampler {
  AddressMode address[3] = {AddressMode::kClamp, AddressMode::kClamp, AddressMode::kClamp};
  Filter filter = Filter::kPoint;
  bool read_normalized = false;    // cudaReadModeNormalizedFloat (8/16-bit integer formats)
  bool normalized_coords = false;  // coordinates in [0, 1) instead of [0, width)
  float border[4] = {0, 0, 0, 0};  // cudaAddressModeBorder's colour
};

struct Object {
  Resource resource;
  Sampler sampler;       // textures only
  bool surface = false;  // a cudaSurfaceObject_t
};

// The registry. Thread-safe; Find copies the object, so a concurrent
// Unregister never leaves a handler with a dangling descriptor.
uint64_t Register(const Object& object);
bool Unregister(uint64_t handle, bool surface);
std::optional<Object> Find(uint64_t handle);

}  // namespace barracuda::emu::tex

#endif  // BARRACUDA_PTX_EMULATOR_OPS_TEXTURE_OBJECTS_H_
