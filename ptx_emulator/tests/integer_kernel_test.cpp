// End to end: small PTX kernels with integer/bit instructions run through the
// loader and the interpreter (KernelRunner), 64 threads = 2 warps, predicated
// (partial-mask) instructions included; results compared with plain C++.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ptx_emulator/tests/kernel_runner.h"

namespace barracuda::emu::testing {
namespace {

constexpr uint32_t kThreads = 64;
constexpr uint32_t kOps = 24;  // 32-bit results per thread

// Each thread loads a[i], b[i] and writes kOps results to out[i * kOps + k].
const char* const kBody32 = R"(
  .reg .b32 %a, %b, %r<32>;
  .reg .b64 %rd<12>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pout];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd4, %r0, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  ld.global.u32 %a, [%rd5];
  ld.global.u32 %b, [%rd6];
  mul.lo.u32 %r1, %r0, 96;          // kOps * 4 bytes per thread
  cvt.u64.u32 %rd7, %r1;
  add.s64 %rd8, %rd3, %rd7;

  add.s32 %r2, %a, %b;
  st.global.u32 [%rd8+0], %r2;
  sub.s32 %r2, %a, %b;
  st.global.u32 [%rd8+4], %r2;
  mul.lo.s32 %r2, %a, %b;
  st.global.u32 [%rd8+8], %r2;
  mul.hi.u32 %r2, %a, %b;
  st.global.u32 [%rd8+12], %r2;
  mad.lo.s32 %r2, %a, %b, %a;
  st.global.u32 [%rd8+16], %r2;
  div.u32 %r2, %a, %b;
  st.global.u32 [%rd8+20], %r2;
  rem.s32 %r2, %a, %b;
  st.global.u32 [%rd8+24], %r2;
  min.s32 %r2, %a, %b;
  st.global.u32 [%rd8+28], %r2;
  max.u32 %r2, %a, %b;
  st.global.u32 [%rd8+32], %r2;
  and.b32 %r3, %b, 63;
  shl.b32 %r2, %a, %r3;
  st.global.u32 [%rd8+36], %r2;
  shr.s32 %r2, %a, %r3;
  st.global.u32 [%rd8+40], %r2;
  bfe.u32 %r2, %a, %r3, 8;
  st.global.u32 [%rd8+44], %r2;
  prmt.b32 %r2, %a, %b, 0x7531;
  st.global.u32 [%rd8+48], %r2;
  popc.b32 %r2, %a;
  st.global.u32 [%rd8+52], %r2;
  clz.b32 %r2, %b;
  st.global.u32 [%rd8+56], %r2;
  brev.b32 %r2, %a;
  st.global.u32 [%rd8+60], %r2;
  bfind.s32 %r2, %b;
  st.global.u32 [%rd8+64], %r2;
  setp.lt.s32 %p1, %a, %b;
  selp.b32 %r2, 11, 22, %p1;
  st.global.u32 [%rd8+68], %r2;
  lop3.b32 %r2, %a, %b, %r0, 0xe8;
  st.global.u32 [%rd8+72], %r2;
  shf.l.wrap.b32 %r2, %a, %b, %r0;
  st.global.u32 [%rd8+76], %r2;
  add.cc.u32 %r4, %a, %b;
  addc.u32 %r5, %r0, 0;
  st.global.u32 [%rd8+80], %r5;
  mul.wide.s32 %rd9, %a, %b;
  cvt.u32.u64 %r2, %rd9;
  xor.b32 %r6, %r2, %a;
  shr.u64 %rd10, %rd9, 32;
  cvt.u32.u64 %r7, %rd10;
  xor.b32 %r2, %r6, %r7;
  st.global.u32 [%rd8+84], %r2;
  mov.u32 %r2, 0;
  setp.ne.s32 %p2, %r3, 0;
  and.pred %p3, %p1, %p2;
  @%p3 add.s32 %r2, %a, 1;
  @!%p3 sub.s32 %r2, %b, 1;
  st.global.u32 [%rd8+88], %r2;
  mov.b64 %rd11, {%a, %b};
  mov.b64 {%r8, %r9}, %rd11;
  sub.s32 %r2, %r9, %r8;
  st.global.u32 [%rd8+92], %r2;
  ret;
)";

std::vector<uint32_t> Reference32(uint32_t tid, uint32_t a, uint32_t b) {
  const int32_t sa = static_cast<int32_t>(a), sb = static_cast<int32_t>(b);
  const uint32_t n = b & 63;
  std::vector<uint32_t> r;
  r.push_back(a + b);
  r.push_back(a - b);
  r.push_back(a * b);
  r.push_back(static_cast<uint32_t>((uint64_t{a} * b) >> 32));
  r.push_back(a * b + a);
  r.push_back(b == 0 ? 0xffffffffu : a / b);
  r.push_back(b == 0 ? a : (sb == -1 ? 0u : static_cast<uint32_t>(sa % sb)));
  r.push_back(static_cast<uint32_t>(std::min(sa, sb)));
  r.push_back(std::max(a, b));
  r.push_back(n >= 32 ? 0 : a << n);
  r.push_back(static_cast<uint32_t>(sa >> std::min(n, 31u)));
  r.push_back(n >= 32 ? 0 : (a >> n) & 0xff);
  const uint64_t src = uint64_t{b} << 32 | a;
  r.push_back(static_cast<uint32_t>((src >> 8) & 0xff) | static_cast<uint32_t>((src >> 24) & 0xff) << 8 |
              static_cast<uint32_t>((src >> 40) & 0xff) << 16 | static_cast<uint32_t>((src >> 56) & 0xff) << 24);
  r.push_back(static_cast<uint32_t>(std::popcount(a)));
  r.push_back(static_cast<uint32_t>(std::countl_zero(b)));
  uint32_t rev = 0;
  for (int i = 0; i < 32; ++i) rev |= ((a >> i) & 1) << (31 - i);
  r.push_back(rev);
  const uint32_t nb = sb < 0 ? ~b : b;
  r.push_back(nb == 0 ? 0xffffffffu : 31 - static_cast<uint32_t>(std::countl_zero(nb)));
  r.push_back(sa < sb ? 11 : 22);
  r.push_back((a & b) | (a & tid) | (b & tid));  // majority
  const uint32_t s = tid & 31;
  r.push_back(s == 0 ? b : (b << s) | (a >> (32 - s)));
  r.push_back(tid + ((uint64_t{a} + b) >> 32));
  const uint64_t wide = static_cast<uint64_t>(int64_t{sa} * sb);
  r.push_back(static_cast<uint32_t>(wide) ^ a ^ static_cast<uint32_t>(wide >> 32));
  r.push_back((sa < sb && n != 0) ? a + 1 : b - 1);
  r.push_back(b - a);
  return r;
}

TEST_CASE("integer kernel: 24 integer/bit ops over two warps", "[integer][e2e]") {
  KernelRunner runner(WrapKernel("k", ".param .u64 pa, .param .u64 pb, .param .u64 pout", kBody32));
  std::mt19937 rng(42);
  std::vector<uint32_t> a(kThreads), b(kThreads);
  const uint32_t edges[] = {0, 1, 0xffffffff, 0x80000000, 0x7fffffff, 31, 32, 33};
  for (uint32_t i = 0; i < kThreads; ++i) {
    a[i] = i < 8 ? edges[i] : static_cast<uint32_t>(rng());
    b[i] = i >= 8 && i < 16 ? edges[i - 8] : (i % 5 == 0 ? rng() % 70 : static_cast<uint32_t>(rng()));
  }
  auto da = runner.Alloc<uint32_t>(kThreads, a);
  auto db = runner.Alloc<uint32_t>(kThreads, b);
  auto dout = runner.Alloc<uint32_t>(kThreads * kOps);
  auto status = runner.Launch("k", {1, 1, 1}, {kThreads, 1, 1}, da.device, db.device, dout.device);
  INFO(status);
  REQUIRE(status.ok());
  const auto out = runner.Read(dout);
  for (uint32_t t = 0; t < kThreads; ++t) {
    const auto want = Reference32(t, a[t], b[t]);
    REQUIRE(want.size() == kOps);
    for (uint32_t k = 0; k < kOps; ++k) {
      INFO("thread " << t << " op " << k << " a=" << a[t] << " b=" << b[t]);
      CHECK(out[t * kOps + k] == want[k]);
    }
  }
}

// 64-bit ops, float compares (NaN included), set/slct and a 128-bit carry chain.
const char* const kBody64 = R"(
  .reg .b32 %r<8>;
  .reg .f32 %fa, %fb;
  .reg .b64 %a, %b, %x<12>, %rd<12>;
  .reg .pred %p<6>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pf];
  ld.param.u64 %rd3, [pout];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd4, %r0, 16;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.u64 %a, [%rd5];
  ld.global.u64 %b, [%rd5+8];
  mul.wide.u32 %rd6, %r0, 8;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.f32 %fa, [%rd7];
  ld.global.f32 %fb, [%rd7+4];
  mul.wide.u32 %rd8, %r0, 64;
  add.s64 %rd9, %rd3, %rd8;

  add.s64 %x0, %a, %b;
  st.global.u64 [%rd9+0], %x0;
  mul.hi.s64 %x1, %a, %b;
  st.global.u64 [%rd9+8], %x1;
  cvt.u32.u64 %r1, %b;
  and.b32 %r1, %r1, 127;
  shr.s64 %x2, %a, %r1;
  st.global.u64 [%rd9+16], %x2;
  bfi.b64 %x3, %a, %b, %r0, 12;
  st.global.u64 [%rd9+24], %x3;
  setp.ltu.f32 %p1, %fa, %fb;
  setp.gt.and.f32 %p2|%p3, %fa, %fb, %p1;
  selp.u64 %x4, 1, 0, %p1;
  selp.u64 %x5, 2, 0, %p2;
  or.b64 %x4, %x4, %x5;
  selp.u64 %x5, 4, 0, %p3;
  or.b64 %x4, %x4, %x5;
  st.global.u64 [%rd9+32], %x4;
  set.eq.u32.f32 %r2, %fa, %fb;
  cvt.u64.u32 %x6, %r2;
  st.global.u64 [%rd9+40], %x6;
  slct.s64.f32 %x7, %a, %b, %fa;
  st.global.u64 [%rd9+48], %x7;
  add.cc.u64 %x8, %a, %b;
  addc.u64 %x9, %b, %a;
  st.global.u64 [%rd9+56], %x9;
  ret;
)";

TEST_CASE("integer kernel: 64-bit ops, float compares, carry chain", "[integer][e2e]") {
  KernelRunner runner(WrapKernel("k", ".param .u64 pa, .param .u64 pf, .param .u64 pout", kBody64));
  std::mt19937_64 rng(9);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float fvals[] = {0.0f, -0.0f, 1.0f, -1.0f, nan, std::numeric_limits<float>::infinity(), 2.5f, 1e-40f};
  std::vector<uint64_t> ab(2 * kThreads);
  std::vector<float> f(2 * kThreads);
  for (uint32_t i = 0; i < kThreads; ++i) {
    ab[2 * i] = i < 4 ? (i % 2 ? ~0ull : 0x8000000000000000ull) : rng();
    ab[2 * i + 1] = i < 4 ? (i < 2 ? 1 : ~0ull) : (i % 3 == 0 ? rng() % 130 : rng());
    f[2 * i] = fvals[i % 8];
    f[2 * i + 1] = fvals[(i / 8) % 8];
  }
  auto dab = runner.Alloc<uint64_t>(2 * kThreads, ab);
  auto df = runner.Alloc<float>(2 * kThreads, f);
  auto dout = runner.Alloc<uint64_t>(kThreads * 8);
  auto status = runner.Launch("k", {1, 1, 1}, {kThreads, 1, 1}, dab.device, df.device, dout.device);
  INFO(status);
  REQUIRE(status.ok());
  const auto out = runner.Read(dout);
  for (uint32_t t = 0; t < kThreads; ++t) {
    const uint64_t a = ab[2 * t], b = ab[2 * t + 1];
    const float fa = f[2 * t], fb = f[2 * t + 1];
    const bool unordered = std::isnan(fa) || std::isnan(fb);
    const bool p1 = unordered || fa < fb;
    const bool gt = !unordered && fa > fb;
    const uint32_t n = static_cast<uint32_t>(b) & 127;
    uint64_t bfi = b;
    for (uint32_t i = 0; i < 12 && t + i < 64; ++i) bfi = (bfi & ~(1ull << (t + i))) | ((a >> i) & 1) << (t + i);
    const unsigned __int128 wide = (static_cast<unsigned __int128>(b) << 64 | a) + (static_cast<unsigned __int128>(a) << 64 | b);
    const uint64_t want[8] = {
        a + b,
        static_cast<uint64_t>((static_cast<__int128>(static_cast<int64_t>(a)) * static_cast<int64_t>(b)) >> 64),
        static_cast<uint64_t>(static_cast<int64_t>(a) >> std::min(n, 63u)),
        bfi,
        uint64_t{p1} | uint64_t{gt && p1} << 1 | uint64_t{!gt && p1} << 2,
        (!unordered && fa == fb) ? 0xffffffffull : 0,
        fa >= 0.0f ? a : b,
        static_cast<uint64_t>(wide >> 64),
    };
    for (uint32_t k = 0; k < 8; ++k) {
      INFO("thread " << t << " op " << k << " a=" << a << " b=" << b << " fa=" << fa << " fb=" << fb);
      CHECK(out[t * 8 + k] == want[k]);
    }
  }
}

}  // namespace
}  // namespace barracuda::emu::testing
