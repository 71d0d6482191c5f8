// Integer arithmetic family: table-driven, bit-exact against plain C++
// references over edge values (0, -1, MIN, MAX, carries, every width) and
// random inputs, full and partial lane masks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>

#include "ptx_emulator/tests/integer_table.h"

namespace barracuda::emu::testing {
namespace {

using u128 = unsigned __int128;
using s128 = __int128;

uint64_t U16(uint64_t v) { return v & 0xffff; }
uint64_t U32(uint64_t v) { return v & 0xffffffff; }
int64_t S16(uint64_t v) { return static_cast<int16_t>(v); }
int64_t S32(uint64_t v) { return static_cast<int32_t>(v); }
int64_t S64(uint64_t v) { return static_cast<int64_t>(v); }
uint64_t Z16(int64_t v) { return static_cast<uint64_t>(v) & 0xffff; }
uint64_t Z32(int64_t v) { return static_cast<uint64_t>(v) & 0xffffffff; }
uint64_t Sat32(int64_t v) { return Z32(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX)); }
int64_t Sext24(uint64_t v) { return static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v) << 8) >> 8); }
int64_t Zext24(uint64_t v) { return static_cast<int64_t>(v & 0xffffff); }

TEST_CASE("add/sub/sat on every width", "[integer]") {
  const Row rows[] = {
      {"add.u16 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z16(U16(a) + U16(b)); }},
      {"add.s16 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z16(S16(a) + S16(b)); }},
      {"add.u32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z32(U32(a) + U32(b)); }},
      {"add.s32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z32(S32(a) + S32(b)); }},
      {"add.u64 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return a + b; }},
      {"add.s64 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return a + b; }},
      {"sub.u16 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z16(U16(a) - U16(b)); }},
      {"sub.s32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z32(S32(a) - S32(b)); }},
      {"sub.u32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z32(U32(a) - U32(b)); }},
      {"sub.s64 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return a - b; }},
      {"add.sat.s32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Sat32(S32(a) + S32(b)); }},
      {"sub.sat.s32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Sat32(S32(a) - S32(b)); }},
      {"add.u32 %d, %a, 7;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return Z32(U32(a) + 7); }},
      {"add.s32 %d, %a, -1;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return Z32(S32(a) - 1); }},
      {"sub.s64 %d, 0, %a;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return 0 - a; }},
  };
  for (const Row& r : rows) CheckRow(r);
}

TEST_CASE("mul lo/hi/wide and mad lo/hi/wide/sat", "[integer]") {
  const Row rows[] = {
      {"mul.lo.u16 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z16(U16(a) * U16(b)); }},
      {"mul.lo.s16 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z16(S16(a) * S16(b)); }},
      {"mul.lo.s32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z32(S32(a) * S32(b)); }},
      {"mul.lo.u64 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return a * b; }},
      {"mul.hi.u16 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z16((U16(a) * U16(b)) >> 16); }},
      {"mul.hi.s16 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z16((S16(a) * S16(b)) >> 16); }},
      {"mul.hi.u32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z32((U32(a) * U32(b)) >> 32); }},
      {"mul.hi.s32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z32((S32(a) * S32(b)) >> 32); }},
      {"mul.hi.u64 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return static_cast<uint64_t>((u128{a} * b) >> 64); }},
      {"mul.hi.s64 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return static_cast<uint64_t>((s128{S64(a)} * S64(b)) >> 64); }},
      {"mul.wide.u16 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z32(U16(a) * U16(b)); }},
      {"mul.wide.s16 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z32(S16(a) * S16(b)); }},
      {"mul.wide.u32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return U32(a) * U32(b); }},
      {"mul.wide.s32 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return static_cast<uint64_t>(S32(a) * S32(b)); }},
      {"mad.lo.s32 %d, %a, %b, %c;", 3,
       [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t { return Z32(S32(a) * S32(b) + S32(c)); }},
      {"mad.lo.u16 %d, %a, %b, %c;", 3,
       [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t { return Z16(U16(a) * U16(b) + U16(c)); }},
      {"mad.lo.u64 %d, %a, %b, %c;", 3, [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t { return a * b + c; }},
      {"mad.hi.u32 %d, %a, %b, %c;", 3,
       [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t { return Z32(((U32(a) * U32(b)) >> 32) + U32(c)); }},
      {"mad.hi.s64 %d, %a, %b, %c;", 3,
       [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t {
         return static_cast<uint64_t>((s128{S64(a)} * S64(b)) >> 64) + c;
       }},
      {"mad.wide.u32 %d, %a, %b, %c;", 3, [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t { return U32(a) * U32(b) + c; }},
      {"mad.wide.s32 %d, %a, %b, %c;", 3,
       [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t { return static_cast<uint64_t>(S32(a) * S32(b)) + c; }},
      {"mad.wide.s16 %d, %a, %b, %c;", 3,
       [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t { return Z32(S16(a) * S16(b) + S32(c)); }},
      {"mad.hi.sat.s32 %d, %a, %b, %c;", 3,
       [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t { return Sat32(((S32(a) * S32(b)) >> 32) + S32(c)); }},
  };
  for (const Row& r : rows) CheckRow(r);
}

TEST_CASE("mul24 mad24 sad", "[integer]") {
  const Row rows[] = {
      {"mul24.lo.u32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z32(Zext24(a) * Zext24(b)); }},
      {"mul24.lo.s32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z32(Sext24(a) * Sext24(b)); }},
      {"mul24.hi.u32 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z32((Zext24(a) * Zext24(b)) >> 16); }},
      {"mul24.hi.s32 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z32((Sext24(a) * Sext24(b)) >> 16); }},
      {"mad24.lo.s32 %d, %a, %b, %c;", 3,
       [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t { return Z32(Sext24(a) * Sext24(b) + S32(c)); }},
      {"mad24.hi.u32 %d, %a, %b, %c;", 3,
       [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t { return Z32(((Zext24(a) * Zext24(b)) >> 16) + U32(c)); }},
      {"mad24.hi.sat.s32 %d, %a, %b, %c;", 3,
       [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t {
         return Sat32(S32(static_cast<uint64_t>((Sext24(a) * Sext24(b)) >> 16)) + S32(c));
       }},
      {"sad.u32 %d, %a, %b, %c;", 3,
       [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t { return Z32(U32(c) + (U32(a) > U32(b) ? U32(a) - U32(b) : U32(b) - U32(a))); }},
      {"sad.s32 %d, %a, %b, %c;", 3,
       [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t { return Z32(S32(c) + (S32(a) > S32(b) ? S32(a) - S32(b) : S32(b) - S32(a))); }},
      {"sad.s16 %d, %a, %b, %c;", 3,
       [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t { return Z16(S16(c) + (S16(a) > S16(b) ? S16(a) - S16(b) : S16(b) - S16(a))); }},
      {"sad.u64 %d, %a, %b, %c;", 3, [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t { return c + (a > b ? a - b : b - a); }},
  };
  for (const Row& r : rows) CheckRow(r);
}

// x / 0 = all ones, x % 0 = x, MIN / -1 = MIN, MIN % -1 = 0 (documented in integer_ops.cpp).
TEST_CASE("div and rem, including division by zero and MIN / -1", "[integer]") {
  const Row rows[] = {
      {"div.u32 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return U32(b) == 0 ? 0xffffffffull : U32(a) / U32(b); }},
      {"rem.u32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return U32(b) == 0 ? U32(a) : U32(a) % U32(b); }},
      {"div.s32 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return S32(b) == 0 ? 0xffffffffull : Z32(S32(a) / S32(b)); }},
      {"rem.s32 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return S32(b) == 0 ? U32(a) : Z32(S32(a) % S32(b)); }},
      {"div.s16 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return S16(b) == 0 ? 0xffffull : Z16(S16(a) / S16(b)); }},
      {"rem.u16 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return U16(b) == 0 ? U16(a) : U16(a) % U16(b); }},
      {"div.u64 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return b == 0 ? ~0ull : a / b; }},
      {"div.s64 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
         if (b == 0) return ~0ull;
         if (S64(b) == -1) return 0 - a;
         return static_cast<uint64_t>(S64(a) / S64(b));
       }},
      {"rem.s64 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
         if (b == 0) return a;
         if (S64(b) == -1) return uint64_t{0};
         return static_cast<uint64_t>(S64(a) % S64(b));
       }},
  };
  for (const Row& r : rows) CheckRow(r);
}

TEST_CASE("abs neg min max relu and packed 16x2", "[integer]") {
  auto x2 = [](uint64_t a, uint64_t b, auto op) {
    const uint64_t lo = op(a & 0xffff, b & 0xffff) & 0xffff;
    const uint64_t hi = op((a >> 16) & 0xffff, (b >> 16) & 0xffff) & 0xffff;
    return lo | hi << 16;
  };
  (void)x2;
  const Row rows[] = {
      {"abs.s32 %d, %a;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return Z32(S32(a) < 0 ? -S32(a) : S32(a)); }},
      {"abs.s16 %d, %a;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return Z16(S16(a) < 0 ? -S16(a) : S16(a)); }},
      {"abs.s64 %d, %a;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return S64(a) < 0 ? 0 - a : a; }},
      {"neg.s32 %d, %a;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return Z32(-S32(a)); }},
      {"neg.s64 %d, %a;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return 0 - a; }},
      {"min.u32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return std::min(U32(a), U32(b)); }},
      {"min.s32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z32(std::min(S32(a), S32(b))); }},
      {"max.s16 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z16(std::max(S16(a), S16(b))); }},
      {"max.u64 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return std::max(a, b); }},
      {"min.s64 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return static_cast<uint64_t>(std::min(S64(a), S64(b))); }},
      {"max.relu.s32 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z32(std::max<int64_t>(std::max(S32(a), S32(b)), 0)); }},
      {"min.relu.s32 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z32(std::max<int64_t>(std::min(S32(a), S32(b)), 0)); }},
      {"add.u16x2 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
         return ((a + b) & 0xffff) | (((a >> 16) + (b >> 16)) & 0xffff) << 16;
       }},
      {"sub.s16x2 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
         return ((a - b) & 0xffff) | (((a >> 16) - (b >> 16)) & 0xffff) << 16;
       }},
      {"min.s16x2 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
         return Z16(std::min(S16(a), S16(b))) | Z16(std::min(S16(a >> 16), S16(b >> 16))) << 16;
       }},
      {"max.u16x2 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
         return std::max(U16(a), U16(b)) | std::max(U16(a >> 16), U16(b >> 16)) << 16;
       }},
      {"max.relu.s16x2 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t {
         return Z16(std::max<int64_t>(std::max(S16(a), S16(b)), 0)) |
                Z16(std::max<int64_t>(std::max(S16(a >> 16), S16(b >> 16)), 0)) << 16;
       }},
  };
  for (const Row& r : rows) CheckRow(r);
}

template <bool kSA, bool kSB>
uint64_t RefDp4a(uint64_t a, uint64_t b, uint64_t c) {
  int64_t s = S32(c);
  for (int i = 0; i < 4; ++i) {
    const int64_t x = kSA ? static_cast<int8_t>(a >> (8 * i)) : static_cast<uint8_t>(a >> (8 * i));
    const int64_t y = kSB ? static_cast<int8_t>(b >> (8 * i)) : static_cast<uint8_t>(b >> (8 * i));
    s += x * y;
  }
  return Z32(s);
}
template <bool kSA, bool kSB, int kSel>
uint64_t RefDp2a(uint64_t a, uint64_t b, uint64_t c) {
  int64_t s = S32(c);
  for (int i = 0; i < 2; ++i) {
    const int64_t x = kSA ? static_cast<int16_t>(a >> (16 * i)) : static_cast<uint16_t>(a >> (16 * i));
    const int64_t y = kSB ? static_cast<int8_t>(b >> (8 * (kSel + i))) : static_cast<uint8_t>(b >> (8 * (kSel + i)));
    s += x * y;
  }
  return Z32(s);
}

TEST_CASE("dp4a and dp2a, every signedness", "[integer]") {
  const Row rows[] = {
      {"dp4a.u32.u32 %d, %a, %b, %c;", 3, &RefDp4a<false, false>},
      {"dp4a.u32.s32 %d, %a, %b, %c;", 3, &RefDp4a<false, true>},
      {"dp4a.s32.u32 %d, %a, %b, %c;", 3, &RefDp4a<true, false>},
      {"dp4a.s32.s32 %d, %a, %b, %c;", 3, &RefDp4a<true, true>},
      {"dp2a.lo.u32.u32 %d, %a, %b, %c;", 3, &RefDp2a<false, false, 0>},
      {"dp2a.hi.u32.s32 %d, %a, %b, %c;", 3, &RefDp2a<false, true, 2>},
      {"dp2a.lo.s32.s32 %d, %a, %b, %c;", 3, &RefDp2a<true, true, 0>},
      {"dp2a.hi.s32.u32 %d, %a, %b, %c;", 3, &RefDp2a<true, false, 2>},
  };
  for (const Row& r : rows) CheckRow(r);
}

// The carry chain spans instructions: one OneInst per instruction, the warp's
// carry mask handed from one to the next as the interpreter's WarpCtx would.
TEST_CASE("carry chains: 128-bit add/sub, 96-bit add, 64-bit multiply-add", "[integer][carry]") {
  std::mt19937_64 rng(7);
  const auto& edges = Inputs::Edges();
  auto pick = [&](uint32_t i) { return i < 16 ? edges[(i * 7 + 3) % edges.size()] : rng(); };
  for (int round = 0; round < 64; ++round) {
    OneInst lo("add.cc.u64 %d, %a, %b;"), hi("addc.u64 %e, %f, %g;");
    OneInst slo("sub.cc.u64 %d, %a, %b;"), shi("subc.u64 %e, %f, %g;");
    REQUIRE((lo.ok() && hi.ok() && slo.ok() && shi.ok()));
    u128 a[kLanes], b[kLanes];
    for (uint32_t l = 0; l < kLanes; ++l) {
      a[l] = u128{pick(l)} << 64 | pick(l + round);
      b[l] = u128{pick(l + 5)} << 64 | pick(l * 3 + round);
      for (OneInst* x : {&lo, &slo}) {
        x->Reg("%a", l) = static_cast<uint64_t>(a[l]);
        x->Reg("%b", l) = static_cast<uint64_t>(b[l]);
      }
      for (OneInst* x : {&hi, &shi}) {
        x->Reg("%f", l) = static_cast<uint64_t>(a[l] >> 64);
        x->Reg("%g", l) = static_cast<uint64_t>(b[l] >> 64);
      }
    }
    lo.ctx().carry = static_cast<uint32_t>(rng());  // stale flags must be overwritten
    lo.Run();
    hi.ctx().carry = lo.ctx().carry;
    hi.Run();
    slo.ctx().carry = static_cast<uint32_t>(rng());
    slo.Run();
    shi.ctx().carry = slo.ctx().carry;
    shi.Run();
    for (uint32_t l = 0; l < kLanes; ++l) {
      const u128 sum = a[l] + b[l], diff = a[l] - b[l];
      CHECK(lo.Reg("%d", l) == static_cast<uint64_t>(sum));
      CHECK(hi.Reg("%e", l) == static_cast<uint64_t>(sum >> 64));
      CHECK(slo.Reg("%d", l) == static_cast<uint64_t>(diff));
      CHECK(shi.Reg("%e", l) == static_cast<uint64_t>(diff >> 64));
    }
  }

  // 96-bit add through addc.cc (carry in and out) on 32-bit words.
  OneInst w0("add.cc.u32 %d, %a, %b;"), w1("addc.cc.u32 %d, %a, %b;"), w2("addc.u32 %d, %a, %b;");
  REQUIRE((w0.ok() && w1.ok() && w2.ok()));
  for (int round = 0; round < 64; ++round) {
    u128 a[kLanes], b[kLanes];
    for (uint32_t l = 0; l < kLanes; ++l) {
      a[l] = (u128{pick(l + round)} << 64 | pick(l)) & ((u128{1} << 96) - 1);
      b[l] = (u128{pick(l * 5)} << 64 | pick(l + 2 * round)) & ((u128{1} << 96) - 1);
      if (l < 4) b[l] = ((u128{1} << 96) - 1) - a[l] + (l & 1);  // full carry ripple
      OneInst* w[] = {&w0, &w1, &w2};
      for (int k = 0; k < 3; ++k) {
        w[k]->Reg("%a", l) = static_cast<uint32_t>(a[l] >> (32 * k));
        w[k]->Reg("%b", l) = static_cast<uint32_t>(b[l] >> (32 * k));
      }
    }
    w0.Run();
    w1.ctx().carry = w0.ctx().carry;
    w1.Run();
    w2.ctx().carry = w1.ctx().carry;
    w2.Run();
    for (uint32_t l = 0; l < kLanes; ++l) {
      const u128 sum = a[l] + b[l];
      CHECK(w0.Reg("%d", l) == static_cast<uint32_t>(sum));
      CHECK(w1.Reg("%d", l) == static_cast<uint32_t>(sum >> 32));
      CHECK(w2.Reg("%d", l) == static_cast<uint32_t>(sum >> 64));
    }
  }

  // 32x32 + 64 -> 64 via mad.lo.cc + madc.hi.
  OneInst m0("mad.lo.cc.u32 %d, %a, %b, %c;"), m1("madc.hi.u32 %d, %a, %b, %c;");
  REQUIRE((m0.ok() && m1.ok()));
  for (int round = 0; round < 64; ++round) {
    uint64_t a[kLanes], b[kLanes], c[kLanes];
    for (uint32_t l = 0; l < kLanes; ++l) {
      a[l] = U32(pick(l + round));
      b[l] = U32(pick(l * 3));
      c[l] = pick(l + 7 * round);
      for (OneInst* x : {&m0, &m1}) {
        x->Reg("%a", l) = a[l];
        x->Reg("%b", l) = b[l];
      }
      m0.Reg("%c", l) = U32(c[l]);
      m1.Reg("%c", l) = c[l] >> 32;
    }
    m0.Run();
    m1.ctx().carry = m0.ctx().carry;
    m1.Run();
    for (uint32_t l = 0; l < kLanes; ++l) {
      const uint64_t want = a[l] * b[l] + c[l];
      CHECK(m0.Reg("%d", l) == U32(want));
      CHECK(m1.Reg("%d", l) == want >> 32);
    }
  }
}

TEST_CASE("carry flags of inactive lanes are preserved", "[integer][carry]") {
  OneInst x("add.cc.u32 %d, %a, %b;");
  REQUIRE(x.ok());
  x.SetAll("%a", 0xffffffff);
  x.SetAll("%b", 1);
  x.ctx().carry = 0x0000ff00;
  x.Run(0x00ff00ff);
  CHECK(x.ctx().carry == 0x00ffffff);
  OneInst s("subc.cc.u32 %d, %a, %b;");
  REQUIRE(s.ok());
  s.SetAll("%a", 5);
  s.SetAll("%b", 5);
  s.ctx().carry = 0xf0f0f0f0;  // borrow in: 5 - (5 + 1) borrows again
  s.Run(0x000000ff);
  CHECK(s.ctx().carry == 0xf0f0f0f0);
  CHECK(s.Reg("%d", 4) == 0xffffffffu);
  CHECK(s.Reg("%d", 0) == 0u);
}

TEST_CASE("destination aliasing a source", "[integer]") {
  OneInst x("mad.lo.s32 %a, %a, %b, %a;");
  REQUIRE(x.ok());
  for (uint32_t l = 0; l < kLanes; ++l) {
    x.Reg("%a", l) = l + 3;
    x.Reg("%b", l) = 0xfffffff0u + l;
  }
  x.Run();
  for (uint32_t l = 0; l < kLanes; ++l)
    CHECK(x.Reg("%a", l) == Z32(int64_t(l + 3) * S32(0xfffffff0u + l) + (l + 3)));
}

TEST_CASE("selection: other families' types and refused forms", "[integer][select]") {
  for (const char* text : {"add.f32 %d, %a, %b;", "mul.rn.f64 %d, %a, %b;", "min.f32 %d, %a, %b;",
                           "neg.f16x2 %d, %a;", "abs.bf16 %d, %a;", "div.rn.f32 %d, %a, %b;"}) {
    auto ir = ptx::ParseInstruction(text);
    REQUIRE(ir.ok());
    Inst inst;
    inst.info = ir->info;
    inst.num_ops = 3;
    auto r = SelectIntegerOp(*ir, inst);
    INFO(text);
    REQUIRE(r.ok());
    CHECK_FALSE(*r);
  }
  for (const char* text : {"mul.wide.u64 %d, %a, %b;", "add.sat.u32 %d, %a, %b;", "mad.lo.sat.s32 %d, %a, %b, %c;",
                           "dp2a.u32.u32 %d, %a, %b, %c;", "addc.u16 %d, %a, %b;", "max.relu.u32 %d, %a, %b;"}) {
    OneInst x(text);
    INFO(text << " -> " << x.status());
    CHECK(x.status().code() == absl::StatusCode::kUnimplemented);
    CHECK(x.status().message().find(':') != std::string::npos);
  }
}

}  // namespace
}  // namespace barracuda::emu::testing
