// Bit family: logic, lop3 (all 256 LUTs), shifts past the width, shf, bfe/bfi
// (literal PTX bit loops as references), bfind brev clz popc, prmt (every
// mode, against the ISA's tables), bmsk szext, mov forms, selp slct.
#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <cstring>

#include "ptx_emulator/tests/integer_table.h"

namespace barracuda::emu::testing {
namespace {

uint64_t U16(uint64_t v) { return v & 0xffff; }
uint64_t U32(uint64_t v) { return v & 0xffffffff; }
int64_t S16(uint64_t v) { return static_cast<int16_t>(v); }
int64_t S32(uint64_t v) { return static_cast<int32_t>(v); }
int64_t S64(uint64_t v) { return static_cast<int64_t>(v); }
uint64_t Z16(int64_t v) { return static_cast<uint64_t>(v) & 0xffff; }
uint64_t Z32(int64_t v) { return static_cast<uint64_t>(v) & 0xffffffff; }
uint64_t Bit(uint64_t v, uint32_t i) { return (v >> i) & 1; }

TEST_CASE("logic ops on b16/b32/b64", "[bit]") {
  const Row rows[] = {
      {"and.b32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return U32(a & b); }},
      {"or.b16 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return U16(a | b); }},
      {"xor.b64 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return a ^ b; }},
      {"not.b32 %d, %a;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return U32(~a); }},
      {"not.b16 %d, %a;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return U16(~a); }},
      {"cnot.b32 %d, %a;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return uint64_t{U32(a) == 0}; }},
      {"cnot.b64 %d, %a;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return uint64_t{a == 0}; }},
      {"and.b32 %d, %a, 0xff00;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return a & 0xff00; }},
  };
  for (const Row& r : rows) CheckRow(r);
}

TEST_CASE("predicate logic and mov.pred", "[bit]") {
  struct P {
    const char* ptx;
    uint32_t (*ref)(uint32_t a, uint32_t b);
  };
  const P cases[] = {
      {"and.pred %p0, %p1, %p2;", [](uint32_t a, uint32_t b) { return a & b; }},
      {"or.pred %p0, %p1, %p2;", [](uint32_t a, uint32_t b) { return a | b; }},
      {"xor.pred %p0, %p1, %p2;", [](uint32_t a, uint32_t b) { return a ^ b; }},
      {"not.pred %p0, %p1;", [](uint32_t a, uint32_t) { return ~a; }},
      {"mov.pred %p0, %p1;", [](uint32_t a, uint32_t) { return a; }},
      {"and.pred %p0, %p1, !%p2;", [](uint32_t a, uint32_t b) { return a & ~b; }},
  };
  for (const P& c : cases) {
    OneInst x(c.ptx);
    INFO(c.ptx);
    REQUIRE(x.ok());
    const uint32_t a = 0xf0f0cc33, b = 0xff00aa55, exec = 0x0ff0f00f;
    x.Pred("%p1") = a;
    if (std::strstr(c.ptx, "%p2")) x.Pred("%p2") = b;
    x.Pred("%p0") = 0x12345678;
    x.Run(exec);
    CHECK(x.Pred("%p0") == ((c.ref(a, b) & exec) | (0x12345678u & ~exec)));
  }
  OneInst one("mov.pred %p0, 1;"), zero("mov.pred %p0, 0;");
  REQUIRE((one.ok() && zero.ok()));
  one.Pred("%p0") = 0;
  one.Run(0x00ff00ff);
  CHECK(one.Pred("%p0") == 0x00ff00ffu);
  zero.Pred("%p0") = ~0u;
  zero.Run();
  CHECK(zero.Pred("%p0") == 0u);
}

// Reference lop3: OR of the minterms the LUT selects, one bit at a time.
uint32_t RefLop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut) {
  uint32_t d = 0;
  for (int i = 0; i < 32; ++i) {
    const uint32_t idx = static_cast<uint32_t>(Bit(a, i) << 2 | Bit(b, i) << 1 | Bit(c, i));
    d |= ((lut >> idx) & 1) << i;
  }
  return d;
}

TEST_CASE("lop3.b32 for all 256 LUTs", "[bit]") {
  Inputs in(3);
  for (uint32_t lut = 0; lut < 256; ++lut) {
    OneInst x("lop3.b32 %d, %a, %b, %c, " + std::to_string(lut) + ";");
    REQUIRE(x.ok());
    for (int round = 0; round < 4; ++round) {
      for (uint32_t l = 0; l < kLanes; ++l) {
        x.Reg("%a", l) = in.Get(100000 + l, 0, 3);
        x.Reg("%b", l) = in.Get(100000 + l, 1, 3);
        x.Reg("%c", l) = in.Get(100000 + l, 2, 3);
      }
      x.Run();
      for (uint32_t l = 0; l < kLanes; ++l)
        REQUIRE(x.Reg("%d", l) == RefLop3(U32(x.Reg("%a", l)), U32(x.Reg("%b", l)), U32(x.Reg("%c", l)), lut));
    }
  }
  OneInst reg_lut("lop3.b32 %d, %a, %b, %c, %e;");
  CHECK(reg_lut.status().code() == absl::StatusCode::kUnimplemented);
}

TEST_CASE("shl/shr clamp shift amounts past the width", "[bit]") {
  const Row rows[] = {
      {"shl.b32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return U32(b) >= 32 ? 0 : U32(a << U32(b)); }},
      {"shl.b16 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return U32(b) >= 16 ? 0 : U16(a << U32(b)); }},
      {"shl.b64 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return U32(b) >= 64 ? 0 : a << U32(b); }},
      {"shr.u32 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return U32(b) >= 32 ? 0 : U32(a) >> U32(b); }},
      {"shr.b64 %d, %a, %b;", 2, [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return U32(b) >= 64 ? 0 : a >> U32(b); }},
      {"shr.s32 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z32(S32(a) >> std::min<uint64_t>(U32(b), 31)); }},
      {"shr.s16 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return Z16(S16(a) >> std::min<uint64_t>(U32(b), 15)); }},
      {"shr.s64 %d, %a, %b;", 2,
       [](uint64_t a, uint64_t b, uint64_t) -> uint64_t { return static_cast<uint64_t>(S64(a) >> std::min<uint64_t>(U32(b), 63)); }},
      {"shl.b32 %d, %a, 33;", 1, [](uint64_t, uint64_t, uint64_t) -> uint64_t { return uint64_t{0}; }},
      {"shr.s32 %d, %a, 4;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return Z32(S32(a) >> 4); }},
  };
  for (const Row& r : rows) CheckRow(r);
}

template <bool kLeft, bool kClamp>
uint64_t RefShf(uint64_t a, uint64_t b, uint64_t c) {
  const uint32_t n = kClamp ? static_cast<uint32_t>(std::min<uint64_t>(U32(c), 32)) : U32(c) & 0x1f;
  const uint64_t lo = U32(a), hi = U32(b);
  // The ISA's formula with the n == 0 / n == 32 shifts made explicit.
  if (kLeft) return n == 0 ? hi : n == 32 ? lo : U32((hi << n) | (lo >> (32 - n)));
  return n == 0 ? lo : n == 32 ? hi : U32((hi << (32 - n)) | (lo >> n));
}

TEST_CASE("shf funnel shifts", "[bit]") {
  const Row rows[] = {
      {"shf.l.wrap.b32 %d, %a, %b, %c;", 3, &RefShf<true, false>},
      {"shf.l.clamp.b32 %d, %a, %b, %c;", 3, &RefShf<true, true>},
      {"shf.r.wrap.b32 %d, %a, %b, %c;", 3, &RefShf<false, false>},
      {"shf.r.clamp.b32 %d, %a, %b, %c;", 3, &RefShf<false, true>},
  };
  for (const Row& r : rows) CheckRow(r);
}

// bfe / bfi: the ISA's bit loops, literally.
template <int kN, bool kSigned>
uint64_t RefBfe(uint64_t a, uint64_t b, uint64_t c) {
  const uint32_t msb = kN - 1, pos = U32(b) & 0xff, len = U32(c) & 0xff;
  const uint64_t sbit = (!kSigned || len == 0) ? 0 : Bit(a, std::min(pos + len - 1, msb));
  uint64_t d = 0;
  for (uint32_t i = 0; i <= msb; ++i) d |= ((i < len && pos + i <= msb) ? Bit(a, pos + i) : sbit) << i;
  return d;
}
template <int kN>
uint64_t RefBfi(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  const uint32_t msb = kN - 1, pos = U32(c) & 0xff, len = U32(d) & 0xff;
  uint64_t f = kN == 32 ? U32(b) : b;
  for (uint32_t i = 0; i < len && pos + i <= msb; ++i) f = (f & ~(uint64_t{1} << (pos + i))) | Bit(a, i) << (pos + i);
  return f;
}

TEST_CASE("bfe and bfi", "[bit]") {
  const Row rows[] = {
      {"bfe.u32 %d, %a, %b, %c;", 3, &RefBfe<32, false>},
      {"bfe.s32 %d, %a, %b, %c;", 3, &RefBfe<32, true>},
      {"bfe.u64 %d, %a, %b, %c;", 3, &RefBfe<64, false>},
      {"bfe.s64 %d, %a, %b, %c;", 3, &RefBfe<64, true>},
  };
  for (const Row& r : rows) CheckRow(r);

  for (int width : {32, 64}) {
    OneInst x(width == 32 ? "bfi.b32 %d, %a, %b, %c, %e;" : "bfi.b64 %d, %a, %b, %c, %e;");
    REQUIRE(x.ok());
    Inputs in(11);
    for (size_t base = 0; base < 20000; base += kLanes) {
      for (uint32_t l = 0; l < kLanes; ++l) {
        x.Reg("%a", l) = in.Get(base + l, 0, 2);
        x.Reg("%b", l) = in.Get(base + l, 1, 2);
        x.Reg("%c", l) = in.Get(50000 + base + l, 0, 1) % 80;
        x.Reg("%e", l) = (base + l) % 3 == 0 ? in.Get(50000 + base + l, 0, 1) : (base + l) % 70;
      }
      x.Run();
      for (uint32_t l = 0; l < kLanes; ++l) {
        const uint64_t want = width == 32 ? RefBfi<32>(x.Reg("%a", l), x.Reg("%b", l), x.Reg("%c", l), x.Reg("%e", l))
                                          : RefBfi<64>(x.Reg("%a", l), x.Reg("%b", l), x.Reg("%c", l), x.Reg("%e", l));
        REQUIRE(x.Reg("%d", l) == want);
      }
    }
  }
}

template <int kN, bool kSigned, bool kShiftAmt>
uint64_t RefBfind(uint64_t a, uint64_t, uint64_t) {
  uint64_t v = kN == 32 ? U32(a) : a;
  if (kSigned && Bit(v, kN - 1)) v = ~v & (kN == 32 ? 0xffffffffull : ~0ull);
  for (int i = kN - 1; i >= 0; --i)
    if (Bit(v, i)) return kShiftAmt ? static_cast<uint64_t>(kN - 1 - i) : static_cast<uint64_t>(i);
  return 0xffffffffull;
}
template <int kN>
uint64_t RefBrev(uint64_t a, uint64_t, uint64_t) {
  uint64_t d = 0;
  for (int i = 0; i < kN; ++i) d |= Bit(a, i) << (kN - 1 - i);
  return d;
}
template <int kN>
uint64_t RefClz(uint64_t a, uint64_t, uint64_t) {
  uint64_t n = 0;
  for (int i = kN - 1; i >= 0 && !Bit(a, i); --i) ++n;
  return n;
}
template <int kN>
uint64_t RefPopc(uint64_t a, uint64_t, uint64_t) {
  uint64_t n = 0;
  for (int i = 0; i < kN; ++i) n += Bit(a, i);
  return n;
}

TEST_CASE("bfind brev clz popc", "[bit]") {
  const Row rows[] = {
      {"bfind.u32 %d, %a;", 1, &RefBfind<32, false, false>},
      {"bfind.s32 %d, %a;", 1, &RefBfind<32, true, false>},
      {"bfind.u64 %d, %a;", 1, &RefBfind<64, false, false>},
      {"bfind.s64 %d, %a;", 1, &RefBfind<64, true, false>},
      {"bfind.shiftamt.u32 %d, %a;", 1, &RefBfind<32, false, true>},
      {"bfind.shiftamt.s64 %d, %a;", 1, &RefBfind<64, true, true>},
      {"brev.b32 %d, %a;", 1, &RefBrev<32>},
      {"brev.b64 %d, %a;", 1, &RefBrev<64>},
      {"clz.b32 %d, %a;", 1, &RefClz<32>},
      {"clz.b64 %d, %a;", 1, &RefClz<64>},
      {"popc.b32 %d, %a;", 1, &RefPopc<32>},
      {"popc.b64 %d, %a;", 1, &RefPopc<64>},
  };
  for (const Row& r : rows) CheckRow(r);
}

// prmt: the selector tables of the PTX ISA, written out (d.b3 d.b2 d.b1 d.b0).
uint64_t PrmtFrom(uint64_t a, uint64_t b, const int sel[4]) {
  const uint64_t src = U32(b) << 32 | U32(a);
  uint64_t d = 0;
  for (int i = 0; i < 4; ++i) d |= ((src >> (8 * sel[3 - i])) & 0xff) << (8 * i);
  return d;
}
template <int kMode>
uint64_t RefPrmt(uint64_t a, uint64_t b, uint64_t c) {
  static const int kTables[6][4][4] = {
      {{3, 2, 1, 0}, {4, 3, 2, 1}, {5, 4, 3, 2}, {6, 5, 4, 3}},  // f4e
      {{5, 6, 7, 0}, {6, 7, 0, 1}, {7, 0, 1, 2}, {0, 1, 2, 3}},  // b4e
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // rc8
      {{3, 2, 1, 0}, {3, 2, 1, 1}, {3, 2, 2, 2}, {3, 3, 3, 3}},  // ecl
      {{0, 0, 0, 0}, {1, 1, 1, 0}, {2, 2, 1, 0}, {3, 2, 1, 0}},  // ecr
      {{1, 0, 1, 0}, {3, 2, 3, 2}, {1, 0, 1, 0}, {3, 2, 3, 2}},  // rc16
  };
  if (kMode < 0) {  // generic: four 4-bit selectors, msb = sign replicate
    const uint64_t src = U32(b) << 32 | U32(a);
    uint64_t d = 0;
    for (int i = 0; i < 4; ++i) {
      const uint64_t s = (c >> (4 * i)) & 0xf;
      uint64_t byte = (src >> (8 * (s & 7))) & 0xff;
      if (s & 8) byte = (byte & 0x80) ? 0xff : 0;
      d |= byte << (8 * i);
    }
    return d;
  }
  return PrmtFrom(a, b, kTables[kMode][c & 3]);
}

TEST_CASE("prmt in every mode", "[bit]") {
  const Row rows[] = {
      {"prmt.b32 %d, %a, %b, %c;", 3, &RefPrmt<-1>},
      {"prmt.b32.f4e %d, %a, %b, %c;", 3, &RefPrmt<0>},
      {"prmt.b32.b4e %d, %a, %b, %c;", 3, &RefPrmt<1>},
      {"prmt.b32.rc8 %d, %a, %b, %c;", 3, &RefPrmt<2>},
      {"prmt.b32.ecl %d, %a, %b, %c;", 3, &RefPrmt<3>},
      {"prmt.b32.ecr %d, %a, %b, %c;", 3, &RefPrmt<4>},
      {"prmt.b32.rc16 %d, %a, %b, %c;", 3, &RefPrmt<5>},
      {"prmt.b32 %d, %a, %b, 0x3210;", 2, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return U32(a); }},
      {"prmt.b32 %d, %a, %b, 0x8880;", 2,
       [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return (a & 0xff) | ((a & 0x80) ? 0xffffff00ull : 0); }},
  };
  for (const Row& r : rows) CheckRow(r);
}

// bmsk / szext: the ISA's semantics, literally.
template <bool kClamp>
uint64_t RefBmsk(uint64_t a64, uint64_t b64, uint64_t) {
  const uint32_t a = U32(a64), b = U32(b64);
  uint64_t d = 0;
  // Bit i is set iff start <= i < start + width, with clamp/wrap applied to each.
  const uint64_t start = kClamp ? std::min<uint32_t>(a, 32) : (a & 31);
  const uint64_t width = kClamp ? std::min<uint32_t>(b, 32) : (b & 31);
  for (uint64_t i = 0; i < 32; ++i) d |= uint64_t{i >= start && i < start + width} << i;
  return d;
}
template <bool kClamp, bool kSigned>
uint64_t RefSzext(uint64_t a64, uint64_t b64, uint64_t) {
  const uint32_t a = U32(a64), b = U32(b64);
  const uint32_t n = kClamp ? std::min<uint32_t>(b, 32) : (b & 31);
  if (n == 0) return 0;
  if (n == 32) return a;
  const uint64_t low = a & ((1u << n) - 1);
  if (kSigned && Bit(a, n - 1)) return U32(low | ~((uint64_t{1} << n) - 1));
  return low;
}

TEST_CASE("bmsk and szext", "[bit]") {
  const Row rows[] = {
      {"bmsk.clamp.b32 %d, %a, %b;", 2, &RefBmsk<true>},
      {"bmsk.wrap.b32 %d, %a, %b;", 2, &RefBmsk<false>},
      {"szext.clamp.u32 %d, %a, %b;", 2, &RefSzext<true, false>},
      {"szext.clamp.s32 %d, %a, %b;", 2, &RefSzext<true, true>},
      {"szext.wrap.u32 %d, %a, %b;", 2, &RefSzext<false, false>},
      {"szext.wrap.s32 %d, %a, %b;", 2, &RefSzext<false, true>},
      {"bmsk.wrap.b32 %d, 1, 2;", 0, [](uint64_t, uint64_t, uint64_t) -> uint64_t { return uint64_t{6}; }},
  };
  for (const Row& r : rows) CheckRow(r);
}

TEST_CASE("mov: values, truncation, special registers, immediates", "[bit][mov]") {
  const Row rows[] = {
      {"mov.u32 %d, %a;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return U32(a); }},
      {"mov.b64 %d, %a;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return a; }},
      {"mov.u16 %d, %a;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return U16(a); }},
      {"mov.f32 %d, %a;", 1, [](uint64_t a, uint64_t, uint64_t) -> uint64_t { return U32(a); }},
      {"mov.s32 %d, -5;", 0, [](uint64_t, uint64_t, uint64_t) -> uint64_t { return uint64_t{0xfffffffb}; }},
      {"mov.f32 %d, 0f3F800000;", 0, [](uint64_t, uint64_t, uint64_t) -> uint64_t { return uint64_t{0x3f800000}; }},
      {"mov.f64 %d, 0d3FF0000000000000;", 0, [](uint64_t, uint64_t, uint64_t) -> uint64_t { return uint64_t{0x3ff0000000000000}; }},
  };
  for (const Row& r : rows) CheckRow(r);
  OneInst lane("mov.u32 %d, %laneid;"), tid("mov.u32 %d, %tid.x;");
  REQUIRE((lane.ok() && tid.ok()));
  lane.Run();
  tid.Run(0xffff0000);
  for (uint32_t l = 0; l < kLanes; ++l) {
    CHECK(lane.Reg("%d", l) == l);
    CHECK(tid.Reg("%d", l) == (l >= 16 ? 64 + l : 0));
  }
}

TEST_CASE("mov: vector pack and unpack", "[bit][mov]") {
  OneInst pack("mov.b64 %d, {%a, %b};"), unpack("mov.b64 {%a, %b}, %d;");
  OneInst pack16("mov.b32 %d, {%a, %b};"), unpack16("mov.b32 {%a, %b}, %d;");
  OneInst pack4("mov.b64 %d, {%a, %b, %c, %e};"), unpack_sink("mov.b64 {_, %b}, %d;");
  for (OneInst* x : {&pack, &unpack, &pack16, &unpack16, &pack4, &unpack_sink}) REQUIRE(x->ok());
  for (uint32_t l = 0; l < kLanes; ++l) {
    for (OneInst* x : {&pack, &pack16, &pack4}) {
      x->Reg("%a", l) = 0xaaaa0000'11110000ull + l;  // high garbage must be dropped
      x->Reg("%b", l) = 0xbbbb0000'22220000ull + l;
    }
    pack4.Reg("%c", l) = 0x3333;
    pack4.Reg("%e", l) = 0x1234'4444;
    for (OneInst* x : {&unpack, &unpack16, &unpack_sink}) x->Reg("%d", l) = 0x01234567'89abcdefull ^ l;
  }
  pack.Run();
  pack16.Run();
  pack4.Run();
  unpack.Run();
  unpack16.Run(0x0000ffff);
  unpack_sink.Run();
  for (uint32_t l = 0; l < kLanes; ++l) {
    CHECK(pack.Reg("%d", l) == ((0x22220000ull + l) << 32 | (0x11110000ull + l)));
    CHECK(pack16.Reg("%d", l) == ((l & 0xffff) << 16 | (l & 0xffff)));
    CHECK(pack4.Reg("%d", l) == (0x4444ull << 48 | 0x3333ull << 32 | uint64_t{l} << 16 | l));
    const uint64_t v = 0x01234567'89abcdefull ^ l;
    CHECK(unpack.Reg("%a", l) == U32(v));
    CHECK(unpack.Reg("%b", l) == v >> 32);
    CHECK(unpack_sink.Reg("%b", l) == v >> 32);
    if (l < 16) {
      CHECK(unpack16.Reg("%a", l) == U16(v));
      CHECK(unpack16.Reg("%b", l) == U16(v >> 16));
    } else {
      CHECK(unpack16.Reg("%a", l) == 0);  // inactive: untouched
    }
  }
}

TEST_CASE("mov: symbol and function addresses", "[bit][mov]") {
  std::map<std::string, TestSymbol> syms = {
      {"gvar", {Opnd::AddrBase::kAbsolute, 0x7f0000001000}},
      {"lvar", {Opnd::AddrBase::kFrame, 48}},
  };
  OneInst g("mov.u64 %d, gvar;", syms), g8("mov.u64 %d, gvar+8;", syms), loc("mov.u64 %d, lvar;", syms);
  OneInst f("mov.u64 %d, fn_callee;");
  for (OneInst* x : {&g, &g8, &loc, &f}) REQUIRE(x->ok());
  loc.ctx().frame_base = 256;
  g.Run();
  g8.Run();
  loc.Run(0x1);
  f.Run();
  CHECK(g.Reg("%d", 31) == 0x7f0000001000u);
  CHECK(g8.Reg("%d", 0) == 0x7f0000001008u);
  CHECK(loc.Reg("%d", 0) == 256u + 48);
  CHECK(loc.Reg("%d", 1) == 0u);
  CHECK(f.Reg("%d", 5) == (kFunctionPointerTag | 7));
}

TEST_CASE("selp and slct", "[bit]") {
  OneInst s32("selp.b32 %d, %a, %b, %p1;"), s64("selp.u64 %d, %a, %b, !%p1;"), sf("selp.f32 %d, %a, 0f00000000, %p1;");
  OneInst ci("slct.u32.s32 %d, %a, %b, %c;"), cf("slct.b64.f32 %d, %a, %b, %c;"), cftz("slct.ftz.s32.f32 %d, %a, %b, %c;");
  for (OneInst* x : {&s32, &s64, &sf, &ci, &cf, &cftz}) REQUIRE(x->ok());
  const uint32_t p = 0x5a5aa5a5;
  for (OneInst* x : {&s32, &s64, &sf}) x->Pred("%p1") = p;
  const uint32_t fc[] = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7fc00000, 0xffc00000, 0x00000001, 0x80000001,
                         0x7f800000, 0xff800000};
  for (uint32_t l = 0; l < kLanes; ++l) {
    for (OneInst* x : {&s32, &s64, &sf, &ci, &cf, &cftz}) {
      x->Reg("%a", l) = 0x1111111100000000ull + l;
      if (x->HasReg("%b")) x->Reg("%b", l) = 0x2222222200000000ull + 100 + l;
    }
    ci.Reg("%c", l) = l < 16 ? static_cast<uint64_t>(-static_cast<int64_t>(l)) : 0xffffffff00000000ull + l;
    cf.Reg("%c", l) = fc[l % 10];
    cftz.Reg("%c", l) = fc[l % 10];
  }
  for (OneInst* x : {&s32, &s64, &sf, &ci, &cf, &cftz}) x->Run();
  for (uint32_t l = 0; l < kLanes; ++l) {
    const bool pl = (p >> l) & 1;
    CHECK(s32.Reg("%d", l) == (pl ? l : 100 + l));
    CHECK(s64.Reg("%d", l) == (pl ? 0x2222222200000000ull + 100 + l : 0x1111111100000000ull + l));
    CHECK(sf.Reg("%d", l) == (pl ? l : 0));
    const bool ci_a = l == 0 || l >= 16;  // -(l) < 0 for 1..15; high garbage ignored
    CHECK(ci.Reg("%d", l) == (ci_a ? l : 100 + l));
    const float c = std::bit_cast<float>(fc[l % 10]);
    const bool cf_a = c >= 0.0f;  // -0 selects a, NaN selects b
    CHECK(cf.Reg("%d", l) == (cf_a ? 0x1111111100000000ull + l : 0x2222222200000000ull + 100 + l));
    const bool subnormal = (fc[l % 10] & 0x7f800000u) == 0;
    const bool cftz_a = subnormal || cf_a;  // flushed to +-0, which selects a
    CHECK(cftz.Reg("%d", l) == (cftz_a ? l : 100 + l));
  }
}

}  // namespace
}  // namespace barracuda::emu::testing
