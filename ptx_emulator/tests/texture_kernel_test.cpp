// tex / txq / suld / sust / suq run as PTX on the emulator (ops/texture_ops.cpp):
// results, surface out-of-range modes, memcheck faults and the records the
// detector gets (texture reads and surface writes are ordinary global
// accesses).
#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "ptx_emulator/core/record_sink.h"
#include "ptx_emulator/ops/texture_objects.h"
#include "ptx_emulator/tests/kernel_runner.h"

namespace barracuda::emu::testing {
namespace {

tex::Object Array2D(void* base, uint32_t width, uint32_t height, tex::Format format) {
  tex::Object o;
  o.resource.base = reinterpret_cast<uint64_t>(base);
  o.resource.width = width;
  o.resource.height = height;
  o.resource.dims = 2;
  o.resource.format = format;
  o.resource.pitch = uint64_t{width} * format.element_bytes();
  o.resource.slice_pitch = o.resource.pitch * height;
  return o;
}

// A 4 x 4 f32 texture T[y][x] = x + 10 y in device memory.
struct Ramp {
  Buffer<float> texels;
  uint64_t handle = 0;
  std::vector<float> values;
};
Ramp RampTexture(KernelRunner& r) {
  Ramp t;
  t.values.resize(16);
  for (int i = 0; i < 16; ++i) t.values[i] = static_cast<float>(i % 4 + 10 * (i / 4));
  t.texels = r.Alloc<float>(16, t.values);
  t.handle = tex::Register(Array2D(t.texels.device, 4, 4, tex::Format{}));
  return t;
}

// Lane l fetches at (l % 4 + 0.5 + dx, l / 4 + 0.5) and stores result x and
// the texture's width (txq).
const char* kFetch = R"(
  .reg .b32 %r<8>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [out];
  ld.param.f32 %f9, [dx];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  shr.u32 %r3, %r1, 2;
  cvt.rn.f32.u32 %f1, %r2;
  cvt.rn.f32.u32 %f2, %r3;
  add.f32 %f1, %f1, 0f3F000000;
  add.f32 %f1, %f1, %f9;
  add.f32 %f2, %f2, 0f3F000000;
  tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];
  txq.width.b32 %r4, [%rd1];
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f3;
  st.global.u32 [%rd4+4], %r4;
  ret;
)";

TEST_CASE("tex.2d: point and linear fetches, txq, and one read record per tap", "[texture][e2e]") {
  KernelRunner r(WrapKernel("fetch", ".param .u64 tex, .param .u64 out, .param .f32 dx", kFetch));
  const Ramp ramp = RampTexture(r);
  const std::vector<float>& init = ramp.values;
  const Buffer<float>& texels = ramp.texels;
  auto out = r.Alloc<uint32_t>(16 * 2);
  tex::Object o = *tex::Find(ramp.handle);
  const uint64_t point = ramp.handle;
  REQUIRE(r.Launch("fetch", {1, 1, 1}, {16, 1, 1}, point, out.device, 0.0f).ok());
  auto v = r.Read(out);
  for (int l = 0; l < 16; ++l) {
    CHECK(std::bit_cast<float>(v[2 * l]) == init[l]);
    CHECK(v[2 * l + 1] == 4);
  }
  o.sampler.filter = tex::Filter::kLinear;
  const uint64_t linear = tex::Register(o);
  CollectingSink sink;
  r.device().SetSink(&sink);
  // dx = 0.25: a quarter of the way to the next column, clamped at the edge.
  REQUIRE(r.Launch("fetch", {1, 1, 1}, {16, 1, 1}, linear, out.device, 0.25f).ok());
  v = r.Read(out);
  for (int l = 0; l < 16; ++l) {
    const float expect = (l % 4 == 3 ? 3.0f : l % 4 + 0.25f) + 10 * (l / 4);
    CHECK(std::bit_cast<float>(v[2 * l]) == expect);
  }
  std::vector<protocol::Record> reads;
  for (const auto& rec : sink.Flatten(0))
    if (protocol::OpOf(rec.header) == protocol::Op::kRead) reads.push_back(rec);
  REQUIRE(reads.size() == 4);  // the bilinear footprint, one record per tap
  CHECK(reads[0].header.active_mask == 0xffffu);
  CHECK(reads[0].header.access_size == 4);
  CHECK(reads[0].addr[5] == reinterpret_cast<uint64_t>(texels.device + 5));
  CHECK(reads[1].addr[5] == reinterpret_cast<uint64_t>(texels.device + 6));
  CHECK(reads[0].header.site_id != protocol::kNoSite);  // a load site of the site table
  CHECK(tex::Unregister(point, false));
  CHECK(tex::Unregister(linear, false));
  CHECK_FALSE(tex::Unregister(linear, false));
}

TEST_CASE("tex on a destroyed texture object faults", "[texture][e2e]") {
  KernelRunner r(WrapKernel("fetch", ".param .u64 tex, .param .u64 out, .param .f32 dx", kFetch));
  auto texels = r.Alloc<float>(16);
  auto out = r.Alloc<uint32_t>(32);
  const uint64_t h = tex::Register(Array2D(texels.device, 4, 4, tex::Format{}));
  REQUIRE(tex::Unregister(h, false));
  CHECK_FALSE(r.Launch("fetch", {1, 1, 1}, {16, 1, 1}, h, out.device, 0.0f).ok());
}

// Lane l copies element (l, y) of surface `src` to `dst` with the .b32 load
// and store of the given out-of-range mode, x = 4 l bytes.
std::string SurfaceCopy(const std::string& mode) {
  return R"(
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [dst];
  ld.param.u32 %r5, [y];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  suld.b.2d.b32)" + mode + R"( {%r3}, [%rd1, {%r2, %r5}];
  add.u32 %r3, %r3, 100;
  sust.b.2d.b32)" + mode + R"( [%rd2, {%r2, %r5}], {%r3};
  suq.height.b32 %r6, [%rd1];
  ret;
)";
}

TEST_CASE("suld / sust: trap faults, zero drops, clamp clamps, writes are recorded", "[texture][e2e][surface]") {
  const tex::Format u32{1, 32, tex::ChannelKind::kUnsigned};
  for (const std::string mode : {".trap", ".zero", ".clamp"}) {
    DYNAMIC_SECTION(mode) {
      KernelRunner r(WrapKernel("copy", ".param .u64 src, .param .u64 dst, .param .u32 y", SurfaceCopy(mode)));
      std::vector<uint32_t> init(8);
      for (uint32_t i = 0; i < 8; ++i) init[i] = i;
      auto a = r.Alloc<uint32_t>(8, init);
      auto b = r.Alloc<uint32_t>(8);
      tex::Object sa = Array2D(a.device, 4, 2, u32), sb = Array2D(b.device, 4, 2, u32);
      sa.surface = sb.surface = true;
      const uint64_t ha = tex::Register(sa), hb = tex::Register(sb);
      CollectingSink sink;
      r.device().SetSink(&sink);
      // Row 1, lanes 0..4: lane 4 is one element past the row.
      const absl::Status s = r.Launch("copy", {1, 1, 1}, {5, 1, 1}, ha, hb, 1u);
      auto v = r.Read(b);
      if (mode == ".trap") {
        CHECK_FALSE(s.ok());
        REQUIRE(r.device().last_fault().has_value());
        CHECK(r.device().last_fault()->fault.memory == MemoryError::kOutOfBounds);
      } else {
        REQUIRE(s.ok());
        for (uint32_t x = 0; x < 4; ++x) CHECK(v[4 + x] == (mode == ".clamp" && x == 3 ? 107u : 104u + x));
        std::vector<protocol::Record> writes;
        for (const auto& rec : sink.Flatten(0))
          if (protocol::OpOf(rec.header) == protocol::Op::kWrite) writes.push_back(rec);
        REQUIRE(writes.size() == 1);
        // .zero drops lane 4's store; .clamp stores it to the last element.
        CHECK(writes[0].header.active_mask == (mode == ".zero" ? 0xfu : 0x1fu));
        CHECK(writes[0].addr[1] == reinterpret_cast<uint64_t>(b.device + 5));
        // Distinct values: no single value; where .clamp makes lanes 3 and 4
        // collide they store the same one.
        CHECK((writes[0].header.flags & protocol::kFlagSameValue) != 0);
        CHECK((writes[0].header.flags & protocol::kFlagValue) == 0);
      }
      tex::Unregister(ha, true);
      tex::Unregister(hb, true);
    }
  }
}

TEST_CASE("a texture read of freed memory is a use-after-free", "[texture][e2e]") {
  KernelRunner r(WrapKernel("fetch", ".param .u64 tex, .param .u64 out, .param .f32 dx", kFetch));
  auto texels = r.Alloc<float>(16);
  auto out = r.Alloc<uint32_t>(32);
  const uint64_t h = tex::Register(Array2D(texels.device, 4, 4, tex::Format{}));
  REQUIRE(r.device().memory().Free(texels.device).ok());
  CHECK_FALSE(r.Launch("fetch", {1, 1, 1}, {16, 1, 1}, h, out.device, 0.0f).ok());
  REQUIRE(r.device().last_fault().has_value());
  CHECK(r.device().last_fault()->fault.memory == MemoryError::kUseAfterFree);
  tex::Unregister(h, false);
}

TEST_CASE("tld4 gathers the bilinear footprint counter-clockwise from the lower left", "[texture][e2e]") {
  KernelRunner r(WrapKernel("gather", ".param .u64 tex, .param .u64 out", R"(
  .reg .f32 %f<8>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [out];
  mov.f32 %f1, 0f3F800000;
  tld4.r.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f1}];
  st.global.v4.f32 [%rd2], {%f3, %f4, %f5, %f6};
  ret;
)"));
  const uint64_t h = RampTexture(r).handle;
  auto out = r.Alloc<float>(4);
  // (1, 1): xB = yB = 0.5, the footprint is elements (0..1, 0..1); y grows downwards.
  REQUIRE(r.Launch("gather", {1, 1, 1}, {1, 1, 1}, h, out.device).ok());
  CHECK(r.Read(out) == std::vector<float>{10, 11, 1, 0});
  tex::Unregister(h, false);
}

TEST_CASE("sust of one value by every lane carries it (kFlagValue), as st does", "[texture][e2e][surface]") {
  KernelRunner r(WrapKernel("fill", ".param .u64 dst", R"(
  .reg .b32 %r<5>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [dst];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, 0;
  mov.u32 %r4, 7;
  sust.b.2d.b32.trap [%rd1, {%r2, %r3}], {%r4};
  ret;
)"));
  auto b = r.Alloc<uint32_t>(4, std::vector<uint32_t>{9, 9, 9, 9});
  tex::Object o = Array2D(b.device, 4, 1, tex::Format{1, 32, tex::ChannelKind::kUnsigned});
  o.surface = true;
  const uint64_t h = tex::Register(o);
  CollectingSink sink;
  r.device().SetSink(&sink);
  REQUIRE(r.Launch("fill", {1, 1, 1}, {4, 1, 1}, h).ok());
  CHECK(r.Read(b) == std::vector<uint32_t>{7, 7, 7, 7});
  std::vector<protocol::Record> writes;
  for (const auto& rec : sink.Flatten(0))
    if (protocol::OpOf(rec.header) == protocol::Op::kWrite) writes.push_back(rec);
  REQUIRE(writes.size() == 1);
  CHECK((writes[0].header.flags & protocol::kFlagValue) != 0);
  CHECK(protocol::StoredValue(writes[0]) == 7);
  tex::Unregister(h, true);
}

TEST_CASE("tex.level and tex.grad read level 0 (no mipmaps)", "[texture][e2e]") {
  KernelRunner r(WrapKernel("lod", ".param .u64 tex, .param .u64 out", R"(
  .reg .f32 %f<16>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [out];
  mov.f32 %f1, 0f40200000;
  mov.f32 %f2, 0f3FC00000;
  mov.f32 %f3, 0f40400000;
  tex.level.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2}], %f3;
  tex.grad.2d.v4.f32.f32 {%f8, %f9, %f10, %f11}, [%rd1, {%f1, %f2}], {%f3, %f2}, {%f2, %f3};
  st.global.v2.f32 [%rd2], {%f4, %f8};
  ret;
)"));
  const uint64_t h = RampTexture(r).handle;
  auto out = r.Alloc<float>(2);
  // (2.5, 1.5): the centre of element (2, 1) whatever the LOD or gradients.
  REQUIRE(r.Launch("lod", {1, 1, 1}, {1, 1, 1}, h, out.device).ok());
  CHECK(r.Read(out) == std::vector<float>{12, 12});
  tex::Unregister(h, false);
}

}  // namespace
}  // namespace barracuda::emu::testing
