// End to end: a PTX kernel with floating-point and conversion instructions
// runs through the loader and the interpreter (KernelRunner), 64 threads =
// 2 warps, one predicated (partial-mask) instruction and float immediates
// included; results compared with C++ references.
#include <catch2/catch.hpp>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ptx_emulator/tests/kernel_runner.h"

namespace barracuda::emu::testing {
namespace {

constexpr uint32_t kThreads = 64;
constexpr uint32_t kOps = 16;

const char* const kBody = R"(
  .reg .f32 %a, %b, %f<8>;
  .reg .f64 %d<4>;
  .reg .b16 %h<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pout];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd4, %r0, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  ld.global.f32 %a, [%rd5];
  ld.global.f32 %b, [%rd6];
  mul.wide.u32 %rd7, %r0, 64;        // kOps * 4 bytes per thread
  add.s64 %rd8, %rd3, %rd7;

  add.f32 %f1, %a, %b;
  st.global.f32 [%rd8+0], %f1;
  sub.rz.f32 %f1, %a, %b;
  st.global.f32 [%rd8+4], %f1;
  mul.ftz.f32 %f1, %a, %b;
  st.global.f32 [%rd8+8], %f1;
  fma.rn.f32 %f1, %a, %b, 0f3F800000;
  st.global.f32 [%rd8+12], %f1;
  div.rn.f32 %f1, %a, %b;
  st.global.f32 [%rd8+16], %f1;
  abs.f32 %f2, %a;
  sqrt.rn.f32 %f1, %f2;
  st.global.f32 [%rd8+20], %f1;
  min.f32 %f1, %a, %b;
  st.global.f32 [%rd8+24], %f1;
  max.NaN.f32 %f1, %a, %b;
  st.global.f32 [%rd8+28], %f1;
  cvt.rni.s32.f32 %r1, %a;
  st.global.u32 [%rd8+32], %r1;
  mad.lo.s32 %r2, %r0, 3, -50;
  cvt.rn.f32.s32 %f1, %r2;
  st.global.f32 [%rd8+36], %f1;
  testp.notanumber.f32 %p1, %a;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd8+40], %r3;
  cvt.rn.f16x2.f32 %r4, %a, %b;
  add.f16x2 %r5, %r4, %r4;
  st.global.u32 [%rd8+44], %r5;
  mov.f32 %f3, 0f00000000;
  and.b32 %r6, %r0, 1;
  setp.eq.u32 %p2, %r6, 1;
  @%p2 add.f32 %f3, %a, 0f3F800000;
  st.global.f32 [%rd8+48], %f3;
  cvt.rzi.sat.u8.f32 %r7, %a;
  st.global.u32 [%rd8+52], %r7;
  cvt.f64.f32 %d1, %a;
  cvt.f64.f32 %d2, %b;
  mul.rn.f64 %d3, %d1, %d2;
  cvt.rn.f32.f64 %f1, %d3;
  st.global.f32 [%rd8+56], %f1;
  cvt.rn.bf16.f32 %h1, %a;
  cvt.f32.bf16 %f1, %h1;
  st.global.f32 [%rd8+60], %f1;
)";

uint32_t Bits(float f) { return std::bit_cast<uint32_t>(f); }
uint32_t Canon(float f) { return f != f ? 0x7fffffffu : Bits(f); }
float Flush(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }

// f32 -> f16 bits, round to nearest even (values here are in the f16 range or overflow).
uint16_t ToF16(float x) {
  if (std::isnan(x)) return 0x7fff;
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  double v = std::fabs(static_cast<double>(x));
  if (v == 0) return sign;
  int e;
  std::frexp(v, &e);
  const int lead = std::max(e - 1, -14);
  const double q = std::nearbyint(std::ldexp(v, 10 - lead));  // significand in ulps
  const double r = std::ldexp(q, lead - 10);
  if (r > 65504.0) return sign | 0x7c00;
  if (r < 0x1p-14) return sign | static_cast<uint16_t>(std::ldexp(r, 24));
  const int re = std::ilogb(r);
  return sign | static_cast<uint16_t>((re + 15) << 10 | static_cast<int>(std::ldexp(r, -re) * 1024 - 1024));
}
float FromF16(uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const float s = (h & 0x8000) ? -1.0f : 1.0f;
  if (e == 31) return m ? std::numeric_limits<float>::quiet_NaN() : s * std::numeric_limits<float>::infinity();
  return s * (e == 0 ? std::ldexp(static_cast<float>(m), -24) : std::ldexp(static_cast<float>(m + 1024), e - 25));
}

TEST_CASE("float kernel: arithmetic, conversions, predication through the interpreter", "[float][kernel]") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> edges = {0.0f, -0.0f, 1.0f, -1.5f, 2.5f, 3.0f, 0x1p-140f, 1e30f, -1e30f, inf, -inf, nan,
                                    0.1f, 255.7f, 300.0f, -7.25f, 65504.0f, 1e-3f};
  std::vector<float> a(kThreads), b(kThreads);
  for (uint32_t i = 0; i < kThreads; ++i) {
    a[i] = edges[i % edges.size()];
    b[i] = edges[(i * 7 + 3) % edges.size()];
  }
  KernelRunner runner(WrapKernel("k", ".param .u64 pa, .param .u64 pb, .param .u64 pout", kBody));
  auto da = runner.Alloc<float>(kThreads, a), db = runner.Alloc<float>(kThreads, b);
  auto out = runner.Alloc<uint32_t>(kThreads * kOps);
  const absl::Status st = runner.Launch("k", {1, 1, 1}, {kThreads, 1, 1}, da.device, db.device, out.device);
  REQUIRE(st.ok());
  const std::vector<uint32_t> r = runner.Read(out);
  for (uint32_t i = 0; i < kThreads; ++i) {
    const float x = a[i], y = b[i];
    INFO("thread " << i << " a=" << x << " b=" << y);
    const uint32_t* o = &r[i * kOps];
    CHECK(o[0] == Canon(x + y));
    {
      // sub.rz: the exact difference is s + e (TwoSum); truncate it.
      const double s = static_cast<double>(x) - static_cast<double>(y);
      const double bb = s - static_cast<double>(x);
      const double e = (static_cast<double>(x) - (s - bb)) + (-static_cast<double>(y) - bb);
      float want = static_cast<float>(s);
      if (std::isfinite(s)) {
        const bool away = static_cast<double>(want) != s ? std::fabs(static_cast<double>(want)) > std::fabs(s)
                                                         : e != 0 && std::signbit(e) != std::signbit(s);
        if (away) want = std::nextafter(want, 0.0f);
      }
      CHECK(o[1] == Canon(want));
    }
    CHECK(o[2] == Canon(Flush(Flush(x) * Flush(y))));
    CHECK(o[3] == Canon(std::fma(x, y, 1.0f)));
    CHECK(o[4] == Canon(x / y));
    CHECK(o[5] == Canon(std::sqrt(std::fabs(x))));
    {
      float mn = std::isnan(x) ? y : std::isnan(y) ? x : (x == y ? (std::signbit(x) ? x : y) : std::fmin(x, y));
      CHECK(o[6] == Canon(mn));
      const float mx = (std::isnan(x) || std::isnan(y)) ? nan : (x == y ? (std::signbit(x) ? y : x) : std::fmax(x, y));
      CHECK(o[7] == Canon(mx));
    }
    {
      int32_t want = 0;
      if (!std::isnan(x)) {
        const double rx = std::nearbyint(static_cast<double>(x));
        want = rx >= 2147483648.0 ? INT32_MAX : rx <= -2147483648.0 ? INT32_MIN : static_cast<int32_t>(rx);
      }
      CHECK(o[8] == static_cast<uint32_t>(want));
    }
    CHECK(o[9] == Bits(static_cast<float>(static_cast<int32_t>(i * 3) - 50)));
    CHECK(o[10] == (std::isnan(x) ? 1u : 0u));
    {
      const uint16_t hx = ToF16(x), hy = ToF16(y);
      const uint32_t want = uint32_t{ToF16(FromF16(hx) + FromF16(hx))} << 16 | ToF16(FromF16(hy) + FromF16(hy));
      CHECK(o[11] == want);
    }
    CHECK(o[12] == ((i & 1) ? Canon(x + 1.0f) : 0u));
    {
      uint32_t want = 0;
      if (!std::isnan(x)) want = x <= 0 ? 0 : x >= 255 ? 255 : static_cast<uint32_t>(x);
      CHECK(o[13] == want);
    }
    CHECK(o[14] == Canon(static_cast<float>(static_cast<double>(x) * static_cast<double>(y))));
    {
      // bf16 round trip: round the f32 to 8 significant bits, nearest even.
      float want = x;
      if (std::isfinite(x) && x != 0) {
        uint32_t bits = Bits(x);
        bits = (bits + 0x7fff + ((bits >> 16) & 1)) & 0xffff0000u;
        want = std::bit_cast<float>(bits);
      }
      if (std::isnan(x)) CHECK(std::isnan(std::bit_cast<float>(o[15])));
      else CHECK(o[15] == Bits(want));
    }
  }
}

}  // namespace
}  // namespace barracuda::emu::testing
