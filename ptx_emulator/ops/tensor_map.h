// TMA tensor maps (CUtensorMap) as the emulator encodes them.
//
// A CUtensorMap is an opaque, 64-byte aligned, 128-byte object: the driver's
// encoding is undocumented, so the emulator's cuTensorMapEncodeTiled (the
// replacement runtime hands it out through cudaGetDriverEntryPoint) writes a
// layout of OUR OWN, which only the emulator's cp.async.bulk.tensor reads. A
// map made by NVIDIA's driver, or one the program edits itself (tensormap.
// replace, byte patches), is not understood: its copy faults.
//
// Layout (little-endian, offsets in bytes; unused bytes are zero):
//    0  u32  magic kMagic ("BTM1")
//    4  u8   data type (CUtensorMapDataType value)
//    5  u8   rank, 1..5
//    6  u8   interleave (CUtensorMapInterleave value)
//    7  u8   swizzle (CUtensorMapSwizzle value)
//    8  u8   L2 promotion (CUtensorMapL2promotion value)
//    9  u8   out-of-bound fill (CUtensorMapFloatOOBfill value)
//   10  u8   element size in bytes (0 for the packed sub-byte types)
//   11  u8   mode: 0 tiled (cuTensorMapEncodeTiled), 1 im2col (cuTensorMapEncodeIm2col)
//   12  u8   boxDim[i] - 1, i < 5 (im2col: channelsPerPixel - 1 in [0], the rest 0)
//   17  u8   elementStrides[i], i < 5
//   22  u16  im2col: pixelsPerColumn - 1 (tiled: 0)
//   24  u64  global address
//   32  u32  globalDim[i] - 1, i < 5 (globalDim is at most 2^32)
//   52  u32  reserved
//   56  u64  globalStrides[i], i < 4 (bytes, dimension i + 1)
//   88  s16  im2col: pixelBoxLowerCorner[j], j < 3 (spatial dimension j + 1: W, H, D)
//   94  s16  im2col: pixelBoxUpperCorner[j], j < 3
//  100  ...  reserved up to 128
//
// Validation follows the CUDA driver API documentation of
// cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col (cuda.h, "Tensor Map
// Object Management").
#ifndef BARRACUDA_PTX_EMULATOR_OPS_TENSOR_MAP_H_
#define BARRACUDA_PTX_EMULATOR_OPS_TENSOR_MAP_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace barracuda::emu::tmap {

inline constexpr uint32_t kBytes = 128;
inline constexpr uint32_t kAlign = 64;
inline constexpr uint32_t kMaxRank = 5;
inline constexpr uint32_t kMagic = 0x314d5442u;  // "BTM1"

// The driver API's enumerators, by value (cuda.h; the runtime checks them
// against the toolkit header at compile time).
enum DataType : uint32_t {
  kUint8 = 0, kUint16, kUint32, kInt32, kUint64, kInt64, kFloat16, kFloat32, kFloat64, kBfloat16,
  kFloat32Ftz, kTfloat32, kTfloat32Ftz, k16U4Align8B, k16U4Align16B, k16U6Align16B,
};
enum Interleave : uint32_t { kInterleaveNone = 0, kInterleave16B, kInterleave32B };
enum Swizzle : uint32_t {
  kSwizzleNone = 0, kSwizzle32B, kSwizzle64B, kSwizzle128B, kSwizzle128BAtom32B, kSwizzle128BAtom32BFlip8B,
  kSwizzle128BAtom64B,
};
enum L2Promotion : uint32_t { kL2None = 0, kL2_64B, kL2_128B, kL2_256B };
enum OobFill : uint32_t { kOobFillNone = 0, kOobFillNanRequestZeroFma };

// What cuTensorMapEncodeTiled is given (arrays of `rank` entries, strides of
// rank - 1).
struct TiledArgs {
  uint32_t data_type = 0;
  uint32_t rank = 0;
  const void* global_address = nullptr;
  const uint64_t* global_dim = nullptr;
  const uint64_t* global_strides = nullptr;
  const uint32_t* box_dim = nullptr;
  const uint32_t* element_strides = nullptr;
  uint32_t interleave = 0;
  uint32_t swizzle = 0;
  uint32_t l2_promotion = 0;
  uint32_t oob_fill = 0;
};

// Validates `args` as the driver documents and writes the 128-byte map to
// `out` (64-byte aligned). InvalidArgument names the broken requirement;
// nothing is written then.
absl::Status EncodeTiled(void* out, const TiledArgs& args);

// What cuTensorMapEncodeIm2col is given: the tiled arguments without boxDim
// (rank 3..5), the bounding box's corners (rank - 2 signed offsets each,
// spatial dimensions innermost first: W, H, D; the lower one from the
// tensor's origin, the upper one from its last element) and the box's
// channels per pixel and pixels.
struct Im2colArgs : TiledArgs {
  const int* pixel_box_lower_corner = nullptr;
  const int* pixel_box_upper_corner = nullptr;
  uint32_t channels_per_pixel = 0;
  uint32_t pixels_per_column = 0;
};
absl::Status EncodeIm2col(void* out, const Im2colArgs& args);

// cuTensorMapReplaceAddress: a new global address for a map EncodeTiled
// wrote, with its alignment rule (16 bytes; 32 with INTERLEAVE_32B or the
// packed ALIGN16B types).
absl::Status ReplaceAddress(void* map, const void* global_address);

// A decoded map.
struct TensorMap {
  uint32_t data_type = 0;
  uint32_t rank = 0;
  uint32_t interleave = 0;
  uint32_t swizzle = 0;
  uint32_t l2_promotion = 0;
  uint32_t oob_fill = 0;
  uint32_t element_bytes = 0;
  uint64_t address = 0;
  uint64_t dim[kMaxRank] = {};
  uint64_t stride[kMaxRank] = {};  // bytes; stride[0] = element_bytes
  uint32_t box[kMaxRank] = {};  // im2col: box[0] = channelsPerPixel, the rest 1
  uint32_t element_stride[kMaxRank] = {};
  bool im2col = false;
  uint32_t pixels = 0;  // im2col: pixelsPerColumn
  int32_t lower[kMaxRank - 2] = {}, upper[kMaxRank - 2] = {};  // im2col: the bounding box's corners
};

// Reads a map written by EncodeTiled; InvalidArgument when the bytes are not
// one (another encoder's map, or garbage).
absl::StatusOr<TensorMap> Decode(const uint8_t* bytes);

// Bytes per element in memory for the plain types; 0 for the packed sub-byte
// types (16U4_ALIGN8B, 16U4_ALIGN16B, 16U6_ALIGN16B).
uint32_t ElementBytes(uint32_t data_type);
bool IsFloat(uint32_t data_type);

// The OOB-NaN fill element of a floating-point type (the canonical quiet NaN
// of its format: the PTX ISA names the value only as "OOB-NaN").
uint64_t NanFill(uint32_t data_type);

}  // namespace barracuda::emu::tmap

#endif  // BARRACUDA_PTX_EMULATOR_OPS_TENSOR_MAP_H_
