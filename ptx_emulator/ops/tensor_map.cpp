// cuTensorMapEncodeTiled's validation and the emulator's own tensor-map
// encoding (layout in tensor_map.h).
#include "ptx_emulator/ops/tensor_map.h"

#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace barracuda::emu::tmap {

namespace {

// `im` (im2col only) selects the function named in the messages.
absl::Status Invalid(std::string what, const void* im = nullptr) {
  return absl::InvalidArgumentError(
      absl::StrCat(im != nullptr ? "cuTensorMapEncodeIm2col: " : "cuTensorMapEncodeTiled: ", what));
}

bool IsPacked16B(uint32_t t) { return t == k16U4Align16B || t == k16U6Align16B; }

// Bytes that `n` elements occupy in memory: the packed ALIGN16B types put 16
// values in 16 bytes (with gaps), 16U4_ALIGN8B two values per byte.
uint64_t RunBytes(uint32_t t, uint64_t n) {
  if (t == k16U4Align8B) return n / 2;
  if (IsPacked16B(t)) return n;
  return n * ElementBytes(t);
}

uint32_t SwizzleSpan(uint32_t s) {
  switch (s) {
    case kSwizzle32B: return 32;
    case kSwizzle64B: return 64;
    case kSwizzleNone: return 0;
    default: return 128;  // 128B and its atomicity sub-modes
  }
}

template <typename T>
void Put(uint8_t* p, size_t off, T v) {
  std::memcpy(p + off, &v, sizeof(T));
}
template <typename T>
T Get(const uint8_t* p, size_t off) {
  T v;
  std::memcpy(&v, p + off, sizeof(T));
  return v;
}

}  // namespace

uint32_t ElementBytes(uint32_t t) {
  switch (t) {
    case kUint8: return 1;
    case kUint16: case kFloat16: case kBfloat16: return 2;
    case kUint32: case kInt32: case kFloat32: case kFloat32Ftz: case kTfloat32: case kTfloat32Ftz: return 4;
    case kUint64: case kInt64: case kFloat64: return 8;
    default: return 0;
  }
}

bool IsFloat(uint32_t t) {
  switch (t) {
    case kFloat16: case kFloat32: case kFloat64: case kBfloat16: case kFloat32Ftz: case kTfloat32:
    case kTfloat32Ftz:
      return true;
    default:
      return false;
  }
}

uint64_t NanFill(uint32_t t) {
  switch (t) {
    case kFloat16: return 0x7e00;
    case kBfloat16: return 0x7fc0;
    case kFloat64: return 0x7ff8000000000000ull;
    default: return 0x7fc00000u;  // the 32-bit float types
  }
}

namespace {

// Both encoders: `im` is null for cuTensorMapEncodeTiled (box from a.box_dim)
// and the im2col arguments for cuTensorMapEncodeIm2col (box: channels per
// pixel by pixels per column; a.box_dim is not read).
absl::Status Encode(void* out, const TiledArgs& a, const Im2colArgs* im) {
  auto Invalid = [im](std::string what) { return tmap::Invalid(std::move(what), im); };
  if (out == nullptr) return Invalid("tensorMap is null");
  if (reinterpret_cast<uintptr_t>(out) % kAlign != 0) return Invalid("tensorMap is not 64-byte aligned");
  if (a.data_type > k16U6Align16B) return Invalid(absl::StrCat("unknown tensorDataType ", a.data_type));
  if (a.rank == 0 || a.rank > kMaxRank) return Invalid(absl::StrCat("tensorRank ", a.rank, " is not in 1..5"));
  if (a.interleave > kInterleave32B) return Invalid(absl::StrCat("unknown interleave ", a.interleave));
  if (a.swizzle > kSwizzle128BAtom64B) return Invalid(absl::StrCat("unknown swizzle ", a.swizzle));
  if (a.l2_promotion > kL2_256B) return Invalid(absl::StrCat("unknown l2Promotion ", a.l2_promotion));
  if (a.oob_fill > kOobFillNanRequestZeroFma) return Invalid(absl::StrCat("unknown oobFill ", a.oob_fill));
  if (a.interleave != kInterleaveNone && a.rank < 3) return Invalid("an interleaved layout needs tensorRank >= 3");
  if (im != nullptr && (a.rank < 3 || a.rank > 5))
    return Invalid(absl::StrCat("tensorRank ", a.rank, " is not 3, 4 or 5"));
  if (a.global_dim == nullptr || (im == nullptr && a.box_dim == nullptr) || a.element_strides == nullptr ||
      (a.rank > 1 && a.global_strides == nullptr))
    return Invalid(im == nullptr ? "null globalDim, globalStrides, boxDim or elementStrides"
                                 : "null globalDim, globalStrides or elementStrides");
  uint32_t box0 = im == nullptr ? a.box_dim[0] : im->channels_per_pixel;
  if (im != nullptr) {
    if (im->pixel_box_lower_corner == nullptr || im->pixel_box_upper_corner == nullptr)
      return Invalid("null pixelBoxLowerCorner or pixelBoxUpperCorner");
    if (box0 == 0 || box0 > 256) return Invalid(absl::StrCat("channelsPerPixel = ", box0, " is not in (0, 256]"));
    if (im->pixels_per_column == 0 || im->pixels_per_column > 1024)
      return Invalid(absl::StrCat("pixelsPerColumn = ", im->pixels_per_column, " is not in (0, 1024]"));
    // The corners' range shrinks with the rank: 16, 8 or 5 signed bits.
    const int bits = a.rank == 3 ? 16 : a.rank == 4 ? 8 : 5;
    const int lo = -(1 << (bits - 1)), hi = (1 << (bits - 1)) - 1;
    for (uint32_t j = 0; j + 2 < a.rank; ++j)
      for (const int* corner : {im->pixel_box_lower_corner, im->pixel_box_upper_corner})
        if (corner[j] < lo || corner[j] > hi)
          return Invalid(absl::StrCat(
              corner == im->pixel_box_lower_corner ? "pixelBoxLowerCorner[" : "pixelBoxUpperCorner[", j, "] = ",
              corner[j], " is not in [", lo, ", ", hi, "] for tensorRank ", a.rank));
  }
  const uint32_t t = a.data_type;
  const bool packed16 = IsPacked16B(t);
  const uint64_t address = reinterpret_cast<uintptr_t>(a.global_address);
  const uint64_t address_align = a.interleave == kInterleave32B || packed16 ? 32 : 16;
  if (address % address_align != 0)
    return Invalid(absl::StrCat("globalAddress is not ", address_align, "-byte aligned"));
  for (uint32_t i = 0; i < a.rank; ++i) {
    if (a.global_dim[i] == 0 || a.global_dim[i] > (uint64_t{1} << 32))
      return Invalid(absl::StrCat("globalDim[", i, "] = ", a.global_dim[i], " is not in (0, 2^32]"));
    if (im == nullptr && (a.box_dim[i] == 0 || a.box_dim[i] > 256))
      return Invalid(absl::StrCat("boxDim[", i, "] = ", a.box_dim[i], " is not in (0, 256]"));
    if (a.element_strides[i] == 0 || a.element_strides[i] > 8)
      return Invalid(absl::StrCat("elementStrides[", i, "] = ", a.element_strides[i], " is not in (0, 8]"));
  }
  if (packed16 && a.global_dim[0] % 128 != 0) return Invalid("globalDim[0] must be a multiple of 128 for this type");
  if (t == k16U4Align8B && a.global_dim[0] % 2 != 0) return Invalid("globalDim[0] must be even for 16U4_ALIGN8B");
  const uint64_t stride_align = a.interleave == kInterleave32B || packed16 ? 32 : 16;
  for (uint32_t i = 0; i + 1 < a.rank; ++i) {
    const uint64_t s = a.global_strides[i];
    if (s % stride_align != 0 || s >= (uint64_t{1} << 40))
      return Invalid(absl::StrCat("globalStrides[", i, "] = ", s, " is not a multiple of ", stride_align,
                                  " below 2^40"));
  }
  const char* box0_name = im == nullptr ? "boxDim[0]" : "channelsPerPixel";
  const uint64_t inner = RunBytes(t, box0);
  if (a.interleave == kInterleaveNone && inner % 16 != 0)
    return Invalid(absl::StrCat(box0_name, " * element size = ", inner, " bytes is not a multiple of 16"));
  if (packed16 && box0 != 128) return Invalid(absl::StrCat(box0_name, " must be 128 for this type"));
  if (a.interleave == kInterleaveNone && a.swizzle != kSwizzleNone && inner > SwizzleSpan(a.swizzle))
    return Invalid(absl::StrCat("the box inner dimension (", inner, " bytes) exceeds the swizzle span (",
                                SwizzleSpan(a.swizzle), " bytes)"));
  if (a.interleave == kInterleave32B && a.swizzle != kSwizzle32B)
    return Invalid("INTERLEAVE_32B requires SWIZZLE_32B");
  if (t == k16U6Align16B) {
    if (a.interleave != kInterleaveNone) return Invalid("16U6_ALIGN16B requires INTERLEAVE_NONE");
    if (a.swizzle != kSwizzleNone && a.swizzle != kSwizzle128B && a.swizzle != kSwizzle128BAtom32B &&
        a.swizzle != kSwizzle128BAtom64B)
      return Invalid("swizzle mode not supported for 16U6_ALIGN16B");
  }
  if (t == k16U4Align16B && a.swizzle != kSwizzleNone && a.swizzle != kSwizzle128B &&
      a.swizzle != kSwizzle128BAtom32B)
    return Invalid("swizzle mode not supported for 16U4_ALIGN16B");
  if (a.oob_fill == kOobFillNanRequestZeroFma && !IsFloat(t))
    return Invalid("OOB NaN fill needs a floating-point tensorDataType");

  uint8_t m[kBytes] = {};
  Put<uint32_t>(m, 0, kMagic);
  m[4] = static_cast<uint8_t>(t);
  m[5] = static_cast<uint8_t>(a.rank);
  m[6] = static_cast<uint8_t>(a.interleave);
  m[7] = static_cast<uint8_t>(a.swizzle);
  m[8] = static_cast<uint8_t>(a.l2_promotion);
  m[9] = static_cast<uint8_t>(a.oob_fill);
  m[10] = static_cast<uint8_t>(ElementBytes(t));
  m[11] = im != nullptr ? 1 : 0;
  if (im != nullptr) {
    Put<uint16_t>(m, 22, static_cast<uint16_t>(im->pixels_per_column - 1));
    for (uint32_t j = 0; j + 2 < a.rank; ++j) {
      Put<int16_t>(m, 88 + 2 * j, static_cast<int16_t>(im->pixel_box_lower_corner[j]));
      Put<int16_t>(m, 94 + 2 * j, static_cast<int16_t>(im->pixel_box_upper_corner[j]));
    }
  }
  for (uint32_t i = 0; i < a.rank; ++i) {
    m[12 + i] = static_cast<uint8_t>(im != nullptr ? (i == 0 ? box0 - 1 : 0) : a.box_dim[i] - 1);
    m[17 + i] = static_cast<uint8_t>(a.element_strides[i]);
    Put<uint32_t>(m, 32 + 4 * i, static_cast<uint32_t>(a.global_dim[i] - 1));
  }
  Put<uint64_t>(m, 24, address);
  for (uint32_t i = 0; i + 1 < a.rank; ++i) Put<uint64_t>(m, 56 + 8 * i, a.global_strides[i]);
  std::memcpy(out, m, kBytes);
  return absl::OkStatus();
}

}  // namespace

absl::Status EncodeTiled(void* out, const TiledArgs& a) { return Encode(out, a, nullptr); }

absl::Status EncodeIm2col(void* out, const Im2colArgs& a) { return Encode(out, a, &a); }

absl::Status ReplaceAddress(void* map, const void* global_address) {
  if (map == nullptr || reinterpret_cast<uintptr_t>(map) % kAlign != 0)
    return absl::InvalidArgumentError("cuTensorMapReplaceAddress: tensorMap is null or not 64-byte aligned");
  auto* m = static_cast<uint8_t*>(map);
  auto decoded = Decode(m);
  if (!decoded.ok()) return decoded.status();
  const uint64_t address = reinterpret_cast<uintptr_t>(global_address);
  const uint64_t align =
      decoded->interleave == kInterleave32B || IsPacked16B(decoded->data_type) ? 32 : 16;
  if (address % align != 0)
    return absl::InvalidArgumentError(
        absl::StrCat("cuTensorMapReplaceAddress: globalAddress is not ", align, "-byte aligned"));
  Put<uint64_t>(m, 24, address);
  return absl::OkStatus();
}

absl::StatusOr<TensorMap> Decode(const uint8_t* m) {
  if (Get<uint32_t>(m, 0) != kMagic)
    return absl::InvalidArgumentError(
        "not a tensor map made by the emulator's cuTensorMapEncodeTiled or cuTensorMapEncodeIm2col (the "
        "emulator reads only its own encoding)");
  TensorMap t;
  t.data_type = m[4];
  t.rank = m[5];
  t.interleave = m[6];
  t.swizzle = m[7];
  t.l2_promotion = m[8];
  t.oob_fill = m[9];
  t.element_bytes = m[10];
  t.im2col = m[11] == 1;
  if (m[11] > 1 || (t.im2col && t.rank < 3)) return absl::InvalidArgumentError("corrupt tensor map");
  if (t.im2col) {
    t.pixels = uint32_t{Get<uint16_t>(m, 22)} + 1;
    for (uint32_t j = 0; j + 2 < t.rank; ++j) {
      t.lower[j] = Get<int16_t>(m, 88 + 2 * j);
      t.upper[j] = Get<int16_t>(m, 94 + 2 * j);
    }
  }
  if (t.rank == 0 || t.rank > kMaxRank || t.data_type > k16U6Align16B || t.element_bytes != ElementBytes(t.data_type))
    return absl::InvalidArgumentError("corrupt tensor map");
  t.address = Get<uint64_t>(m, 24);
  for (uint32_t i = 0; i < t.rank; ++i) {
    t.box[i] = uint32_t{m[12 + i]} + 1;
    t.element_stride[i] = m[17 + i];
    t.dim[i] = uint64_t{Get<uint32_t>(m, 32 + 4 * i)} + 1;
    t.stride[i] = i == 0 ? t.element_bytes : Get<uint64_t>(m, 56 + 8 * (i - 1));
  }
  return t;
}

}  // namespace barracuda::emu::tmap
