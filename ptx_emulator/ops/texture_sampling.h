// The arithmetic of a texture fetch, apart from memory: which elements a
// fetch reads with which weights (addressing modes, point and linear
// filtering, normalized coordinates), how an element's bytes become the four
// 32-bit results (channel formats, read modes), and how the taps combine.
// The handlers (texture_ops.cpp) read the elements through device memory
// (memcheck, store buffers, records); the unit tests call these directly.
//
// Semantics: CUDA C++ Programming Guide, "Texture Fetching" appendix.
//  - Coordinates: normalized ones are first scaled by the size (x * N).
//  - Point: element floor(x).
//  - Linear: xB = x - 0.5, elements floor(xB) and floor(xB) + 1 with weights
//    1 - a and a, a = frac(xB); 2D and 3D are the products of the per-axis
//    weights (bilinear: 4 taps, trilinear: 8). The guide says the hardware
//    keeps a "in 9-bit fixed point format with 8 bits of fractional value":
//    here a = floor(frac(xB) * 256 + 0.5) / 256, i.e. rounded to the nearest
//    multiple of 1/256 — the ninth bit exists so that 1.0 (a fraction just
//    below 1 rounded up) is representable, which only rounding to nearest can
//    produce. The sum of weight * element is then evaluated in f32 in tap
//    order (for 2D: (i,j), (i+1,j), (i,j+1), (i+1,j+1)).
//  - Addressing, per axis on element indices: clamp to [0, N-1]; border: an
//    index outside reads the border colour instead of memory; wrap (index mod
//    N) and mirror (period 2N, reflected) only with normalized coordinates —
//    with unnormalized ones CUDA does not support them and the emulator
//    clamps. A layer index is clamped to the layers.
//  - Integer (.s32) coordinates address elements directly, unfiltered. On a
//    linear resource (tex1Dfetch) an index outside [0, width) returns zeros.
//  - Results: a float format (f32, or half converted to f32) or an 8/16-bit
//    integer format read with cudaReadModeNormalizedFloat gives floats
//    (unsigned v / (2^bits - 1), signed max(v / (2^(bits-1) - 1), -1));
//    integer formats read as element type give the integer sign- or
//    zero-extended to 32 bits, unfiltered. Channels the format lacks read
//    (0, 0, 1) for (y, z, w) — the emulator's convention, as in Direct3D and
//    OpenGL.
#ifndef BARRACUDA_PTX_EMULATOR_OPS_TEXTURE_SAMPLING_H_
#define BARRACUDA_PTX_EMULATOR_OPS_TEXTURE_SAMPLING_H_

#include <cstdint>

#include "ptx_emulator/ops/texture_objects.h"

namespace barracuda::emu::tex {

// Element `offset` bytes from the resource's base, weighted; `border`: no
// memory, the sampler's border colour (zeros for a linear resource).
struct Tap {
  uint64_t offset = 0;
  float weight = 1;
  bool border = false;
};
inline constexpr int kMaxTaps = 8;
struct Taps {
  Tap tap[kMaxTaps];
  int count = 0;
};

// The four 32-bit results (f32 bits, or integers).
struct Value {
  uint32_t bits[4] = {0, 0, 0, 0};
};

// The 1.8 fixed-point weight of a fractional part in [0, 1) (see above).
float QuantizeWeight(float fraction);

// Whether fetches return floats (and may be filtered).
bool ReturnsFloat(const Format& f, bool read_normalized);

// Taps of a fetch at float coordinates (x, y, z as the resource's dims use
// them) in layer `layer` (layered resources).
Taps PlanFetch(const Object& o, const float coords[3], int32_t layer);
// Taps of a fetch at integer element coordinates.
Taps PlanIntegerFetch(const Object& o, const int32_t coords[3], int32_t layer);

// One element's bytes as four results.
Value Decode(const Format& f, bool read_normalized, const uint8_t* bytes);
// The fetch's result from its taps' decoded elements (`elements[i]` for tap
// i; border taps' entries are ignored).
Value Combine(const Object& o, const Taps& taps, const Value* elements);

}  // namespace barracuda::emu::tex

#endif  // BARRACUDA_PTX_EMULATOR_OPS_TEXTURE_SAMPLING_H_
