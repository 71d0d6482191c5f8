// Texture fetch arithmetic (ops/texture_sampling.h) on host buffers: the 1.8
// fixed-point weights, addressing modes, normalized coordinates, channel
// formats and read modes.
#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ptx_emulator/ops/texture_sampling.h"

namespace barracuda::emu::tex {
namespace {

// A width x height f32 texture over `data` (base 0: tap offsets index it).
Object FloatTexture(uint32_t width, uint32_t height, Filter filter, AddressMode mode, bool normalized = false) {
  Object o;
  o.resource.width = width;
  o.resource.height = height;
  o.resource.dims = height > 1 ? 2 : 1;
  o.resource.format = Format{1, 32, ChannelKind::kFloat};
  o.resource.pitch = width * 4;
  o.resource.slice_pitch = o.resource.pitch * height;
  o.sampler.filter = filter;
  o.sampler.address[0] = o.sampler.address[1] = o.sampler.address[2] = mode;
  o.sampler.normalized_coords = normalized;
  o.sampler.border[0] = -7;
  return o;
}

// Runs a fetch on a host copy of the texture's memory; returns result x.
float Sample(const Object& o, const std::vector<float>& data, float x, float y = 0, float z = 0, int layer = 0) {
  const float c[3] = {x, y, z};
  const Taps taps = PlanFetch(o, c, layer);
  Value elements[kMaxTaps];
  for (int i = 0; i < taps.count; ++i)
    if (!taps.tap[i].border)
      elements[i] = Decode(o.resource.format, false,
                           reinterpret_cast<const uint8_t*>(data.data()) + taps.tap[i].offset);
  return std::bit_cast<float>(Combine(o, taps, elements).bits[0]);
}

// T[y][x] = x + 10 y: bilinear interpolation of it is exact.
std::vector<float> Ramp(uint32_t width, uint32_t height) {
  std::vector<float> v(width * height);
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x) v[y * width + x] = static_cast<float>(x + 10 * y);
  return v;
}

TEST_CASE("linear filtering weights are 1.8 fixed point, rounded to nearest", "[texture]") {
  CHECK(QuantizeWeight(0.5f) == 0.5f);
  CHECK(QuantizeWeight(0.3f) == 77.0f / 256);    // 76.8 / 256
  CHECK(QuantizeWeight(0.8f) == 205.0f / 256);   // 204.8 / 256
  CHECK(QuantizeWeight(0.999f) == 1.0f);         // the ninth bit
  CHECK(QuantizeWeight(0.0019f) == 0.0f);        // 0.486 / 256
  CHECK(QuantizeWeight(0.002f) == 1.0f / 256);   // 0.512 / 256
}

TEST_CASE("point and linear filtering, unnormalized and normalized coordinates", "[texture]") {
  const auto data = Ramp(4, 4);
  const Object point = FloatTexture(4, 4, Filter::kPoint, AddressMode::kClamp);
  CHECK(Sample(point, data, 1.9f, 2.1f) == 21.0f);
  const Object linear = FloatTexture(4, 4, Filter::kLinear, AddressMode::kClamp);
  // xB = 0.75, yB = 1.5: exact weights reproduce the ramp.
  CHECK(Sample(linear, data, 1.25f, 2.0f) == 15.75f);
  // xB = 0.8: the weight is 205/256, not 0.8.
  CHECK(Sample(linear, data, 1.3f, 0.5f) == 205.0f / 256);
  const float c[3] = {1.25f, 2.0f, 0};
  CHECK(PlanFetch(linear, c, 0).count == 4);
  const Object normalized = FloatTexture(4, 4, Filter::kPoint, AddressMode::kClamp, true);
  CHECK(Sample(normalized, data, 0.3f, 0.55f) == 1.0f + 20.0f);  // (1.2, 2.2)
}

TEST_CASE("addressing modes", "[texture]") {
  const auto data = Ramp(4, 1);
  CHECK(Sample(FloatTexture(4, 1, Filter::kPoint, AddressMode::kClamp), data, -3.0f) == 0.0f);
  CHECK(Sample(FloatTexture(4, 1, Filter::kPoint, AddressMode::kClamp), data, 9.0f) == 3.0f);
  CHECK(Sample(FloatTexture(4, 1, Filter::kPoint, AddressMode::kBorder), data, 4.0f) == -7.0f);
  CHECK(Sample(FloatTexture(4, 1, Filter::kPoint, AddressMode::kBorder), data, 3.5f) == 3.0f);
  // Wrap and mirror with normalized coordinates: x = 1.25 -> element 5.
  const Object wrap = FloatTexture(4, 1, Filter::kPoint, AddressMode::kWrap, true);
  CHECK(Sample(wrap, data, 1.25f) == 1.0f);
  CHECK(Sample(wrap, data, -0.25f) == 3.0f);
  const Object mirror = FloatTexture(4, 1, Filter::kPoint, AddressMode::kMirror, true);
  CHECK(Sample(mirror, data, 1.25f) == 2.0f);   // 5 -> 8 - 1 - 5
  CHECK(Sample(mirror, data, -0.25f) == 0.0f);  // -1 -> 0
  // Unnormalized coordinates: CUDA has no wrap there; the emulator clamps.
  CHECK(Sample(FloatTexture(4, 1, Filter::kPoint, AddressMode::kWrap), data, 5.0f) == 3.0f);
  // Linear across the border: 0.25 * border + 0.75 * T[0] (xB = -0.25).
  CHECK(Sample(FloatTexture(4, 1, Filter::kLinear, AddressMode::kBorder), data, 0.25f) == 0.25f * -7.0f);
  // Linear wrap blends the last and first elements: xB = 3.5 -> 0.5 * 3 + 0.5 * 0.
  CHECK(Sample(FloatTexture(4, 1, Filter::kLinear, AddressMode::kWrap, true), data, 1.0f) == 1.5f);
}

TEST_CASE("integer fetches: linear resources read zeros outside, arrays clamp", "[texture]") {
  Object o = FloatTexture(4, 1, Filter::kPoint, AddressMode::kClamp);
  o.resource.linear = true;
  const int32_t outside[3] = {4, 0, 0};
  Taps t = PlanIntegerFetch(o, outside, 0);
  REQUIRE(t.count == 1);
  CHECK(t.tap[0].border);
  Value none[1];
  CHECK(Combine(o, t, none).bits[0] == 0);  // not the border colour
  const int32_t inside[3] = {2, 0, 0};
  t = PlanIntegerFetch(o, inside, 0);
  CHECK(!t.tap[0].border);
  CHECK(t.tap[0].offset == 8);
  o.resource.linear = false;
  t = PlanIntegerFetch(o, outside, 0);
  CHECK(t.tap[0].offset == 12);
}

TEST_CASE("layers are clamped and 3D linear filtering has eight taps", "[texture]") {
  Object o = FloatTexture(4, 4, Filter::kPoint, AddressMode::kClamp);
  o.resource.layered = true;
  o.resource.depth = 3;
  const float c[3] = {1, 1, 0};
  CHECK(PlanFetch(o, c, 7).tap[0].offset == 2 * 64 + 16 + 4);
  CHECK(PlanFetch(o, c, -1).tap[0].offset == 16 + 4);
  Object v = FloatTexture(2, 2, Filter::kLinear, AddressMode::kClamp);
  v.resource.dims = 3;
  v.resource.depth = 2;
  const float p[3] = {1, 1, 1};  // the centre: every weight 1/8
  const Taps t = PlanFetch(v, p, 0);
  REQUIRE(t.count == 8);
  for (int i = 0; i < 8; ++i) CHECK(t.tap[i].weight == 0.125f);
  CHECK(t.tap[7].offset == 16 + 8 + 4);
}

TEST_CASE("channel formats and read modes", "[texture]") {
  const uint8_t u8[4] = {255, 128, 0, 7};
  Value v = Decode(Format{4, 8, ChannelKind::kUnsigned}, true, u8);
  CHECK(std::bit_cast<float>(v.bits[0]) == 1.0f);
  CHECK(std::bit_cast<float>(v.bits[1]) == 128.0f / 255);
  CHECK(std::bit_cast<float>(v.bits[3]) == 7.0f / 255);
  v = Decode(Format{4, 8, ChannelKind::kUnsigned}, false, u8);
  CHECK(v.bits[0] == 255);
  CHECK(v.bits[3] == 7);
  const int8_t s8[2] = {-128, -5};
  v = Decode(Format{2, 8, ChannelKind::kSigned}, true, reinterpret_cast<const uint8_t*>(s8));
  CHECK(std::bit_cast<float>(v.bits[0]) == -1.0f);  // -128/127 clamps to -1
  CHECK(std::bit_cast<float>(v.bits[1]) == -5.0f / 127);
  CHECK(v.bits[2] == 0);
  CHECK(std::bit_cast<float>(v.bits[3]) == 1.0f);  // missing w reads 1
  v = Decode(Format{2, 8, ChannelKind::kSigned}, false, reinterpret_cast<const uint8_t*>(s8));
  CHECK(v.bits[1] == 0xfffffffbu);
  CHECK(v.bits[3] == 1);
  const uint16_t u16 = 65535;
  CHECK(std::bit_cast<float>(Decode(Format{1, 16, ChannelKind::kUnsigned}, true,
                                    reinterpret_cast<const uint8_t*>(&u16)).bits[0]) == 1.0f);
  const uint16_t half = 0x3e00;  // 1.5
  CHECK(std::bit_cast<float>(Decode(Format{1, 16, ChannelKind::kFloat}, false,
                                    reinterpret_cast<const uint8_t*>(&half)).bits[0]) == 1.5f);
  // 32-bit integers never normalize.
  CHECK(!ReturnsFloat(Format{1, 32, ChannelKind::kSigned}, true));
  CHECK(ReturnsFloat(Format{1, 16, ChannelKind::kSigned}, true));
}

}  // namespace
}  // namespace barracuda::emu::tex
