#include "ptx_emulator/ops/texture_sampling.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "ptx_emulator/ops/fp_format.h"

namespace barracuda::emu::tex {
namespace {

// The element indices and weights of one axis (1 tap: point, 2: linear).
struct AxisTaps {
  int64_t index[2] = {0, 0};  // -1: outside, the border colour
  float weight[2] = {1, 1};
  int count = 1;
};

uint32_t AxisSize(const Resource& r, int axis) {
  return axis == 0 ? r.width : axis == 1 ? r.height : r.depth;
}

// Wrap and mirror need normalized coordinates (CUDA does not support them
// otherwise); the emulator clamps instead.
AddressMode EffectiveMode(const Sampler& s, int axis, bool normalized) {
  const AddressMode m = s.address[axis];
  if (!normalized && (m == AddressMode::kWrap || m == AddressMode::kMirror)) return AddressMode::kClamp;
  return m;
}

int64_t Address(int64_t i, int64_t n, AddressMode m) {
  switch (m) {
    case AddressMode::kClamp: return std::clamp<int64_t>(i, 0, n - 1);
    case AddressMode::kBorder: return i < 0 || i >= n ? -1 : i;
    case AddressMode::kWrap: {
      const int64_t r = i % n;
      return r < 0 ? r + n : r;
    }
    case AddressMode::kMirror: {
      int64_t p = i % (2 * n);
      if (p < 0) p += 2 * n;
      return p < n ? p : 2 * n - 1 - p;
    }
  }
  return -1;
}

// floor() as an index; NaN reads element 0 and huge values stay in int64
// range (every address mode then still gives an index or the border).
int64_t FloorIndex(float x) {
  if (std::isnan(x)) return 0;
  return static_cast<int64_t>(std::floor(std::clamp(x, -1e12f, 1e12f)));
}

int32_t LayerIndex(const Resource& r, int32_t layer) {
  return r.layered ? std::clamp<int32_t>(layer, 0, static_cast<int32_t>(r.depth) - 1) : 0;
}

// The taps of the resource's axes, axis 0 fastest.
Taps Product(const Resource& r, const AxisTaps* ax, int axes, int32_t layer) {
  Taps t;
  const uint64_t layer_offset = uint64_t(LayerIndex(r, layer)) * r.slice_pitch;
  const uint64_t stride[3] = {r.format.element_bytes(), r.pitch, r.slice_pitch};
  const int n2 = axes > 2 ? ax[2].count : 1, n1 = axes > 1 ? ax[1].count : 1, n0 = ax[0].count;
  for (int k2 = 0; k2 < n2; ++k2)
    for (int k1 = 0; k1 < n1; ++k1)
      for (int k0 = 0; k0 < n0; ++k0) {
        const int k[3] = {k0, k1, k2};
        Tap& tap = t.tap[t.count++];
        tap.offset = layer_offset;
        tap.weight = 1;
        for (int d = 0; d < axes; ++d) {
          const int64_t i = ax[d].index[k[d]];
          tap.border = tap.border || i < 0;
          tap.offset += uint64_t(i < 0 ? 0 : i) * stride[d];
          tap.weight *= ax[d].weight[k[d]];
        }
        if (tap.border) tap.offset = 0;
      }
  return t;
}

int Axes(const Resource& r) { return std::clamp<int>(r.dims, 1, 3); }

uint64_t Raw(const uint8_t* p, uint32_t bytes) {
  uint64_t v = 0;
  std::memcpy(&v, p, bytes);  // little-endian, as the device
  return v;
}

}  // namespace

float QuantizeWeight(float fraction) { return std::floor(fraction * 256.0f + 0.5f) / 256.0f; }

bool ReturnsFloat(const Format& f, bool read_normalized) {
  return f.kind == ChannelKind::kFloat || (read_normalized && f.bits < 32);
}

Taps PlanFetch(const Object& o, const float coords[3], int32_t layer) {
  const Resource& r = o.resource;
  const bool linear = o.sampler.filter == Filter::kLinear && ReturnsFloat(r.format, o.sampler.read_normalized);
  const int axes = Axes(r);
  AxisTaps ax[3];
  for (int d = 0; d < axes; ++d) {
    const int64_t n = AxisSize(r, d);
    const AddressMode mode = EffectiveMode(o.sampler, d, o.sampler.normalized_coords);
    const float x = o.sampler.normalized_coords ? coords[d] * static_cast<float>(n) : coords[d];
    if (linear) {
      const float xb = x - 0.5f;
      const float f = std::floor(xb);
      const float a = QuantizeWeight(std::isnan(xb) ? 0.0f : xb - f);
      const int64_t i = FloorIndex(xb);
      ax[d].count = 2;
      ax[d].index[0] = Address(i, n, mode);
      ax[d].index[1] = Address(i + 1, n, mode);
      ax[d].weight[0] = 1.0f - a;
      ax[d].weight[1] = a;
    } else {
      ax[d].index[0] = Address(FloorIndex(x), n, mode);
    }
  }
  return Product(r, ax, axes, layer);
}

Taps PlanIntegerFetch(const Object& o, const int32_t coords[3], int32_t layer) {
  const Resource& r = o.resource;
  const int axes = Axes(r);
  AxisTaps ax[3];
  for (int d = 0; d < axes; ++d) {
    const int64_t n = AxisSize(r, d);
    // tex1Dfetch: no addressing modes, an index outside reads zeros.
    const AddressMode mode = r.linear ? AddressMode::kBorder : EffectiveMode(o.sampler, d, false);
    ax[d].index[0] = Address(coords[d], n, mode);
  }
  return Product(r, ax, axes, layer);
}

Value Decode(const Format& f, bool read_normalized, const uint8_t* bytes) {
  Value v;
  const bool as_float = ReturnsFloat(f, read_normalized);
  const uint32_t size = f.bits / 8;
  for (uint32_t k = 0; k < 4; ++k) {
    if (k >= f.channels) {
      // Missing channels: (y, z, w) = (0, 0, 1).
      v.bits[k] = k < 3 ? 0 : as_float ? std::bit_cast<uint32_t>(1.0f) : 1;
      continue;
    }
    const uint64_t raw = Raw(bytes + k * size, size);
    const uint32_t bits = f.bits;
    switch (f.kind) {
      case ChannelKind::kFloat:
        v.bits[k] = bits == 16 ? std::bit_cast<uint32_t>(fp::F16ToF32(static_cast<uint16_t>(raw)))
                               : static_cast<uint32_t>(raw);
        break;
      case ChannelKind::kUnsigned:
        if (as_float) {
          const float max = static_cast<float>((uint64_t{1} << bits) - 1);
          v.bits[k] = std::bit_cast<uint32_t>(static_cast<float>(raw) / max);
        } else {
          v.bits[k] = static_cast<uint32_t>(raw);
        }
        break;
      case ChannelKind::kSigned: {
        const int64_t s = static_cast<int64_t>(raw << (64 - bits)) >> (64 - bits);
        if (as_float) {
          const float max = static_cast<float>((int64_t{1} << (bits - 1)) - 1);
          v.bits[k] = std::bit_cast<uint32_t>(std::max(static_cast<float>(s) / max, -1.0f));
        } else {
          v.bits[k] = static_cast<uint32_t>(static_cast<int32_t>(s));
        }
        break;
      }
    }
  }
  return v;
}

Value Combine(const Object& o, const Taps& taps, const Value* elements) {
  const bool as_float = ReturnsFloat(o.resource.format, o.sampler.read_normalized);
  auto border = [&](int k) -> float { return o.resource.linear ? 0.0f : o.sampler.border[k]; };
  Value v;
  if (taps.count == 1) {
    if (!taps.tap[0].border) return elements[0];
    for (int k = 0; k < 4; ++k)
      v.bits[k] = as_float ? std::bit_cast<uint32_t>(border(k)) : static_cast<uint32_t>(static_cast<int32_t>(border(k)));
    return v;
  }
  for (int k = 0; k < 4; ++k) {
    float acc = 0;
    for (int i = 0; i < taps.count; ++i) {
      const float e = taps.tap[i].border ? border(k) : std::bit_cast<float>(elements[i].bits[k]);
      acc += taps.tap[i].weight * e;
    }
    v.bits[k] = std::bit_cast<uint32_t>(acc);
  }
  return v;
}

}  // namespace barracuda::emu::tex
