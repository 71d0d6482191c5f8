// setp / set: every comparison on every integer type (edge pairs + random),
// float comparisons over NaN/inf/zero/subnormal pairs (ordered and unordered
// forms, .ftz), f16/bf16 and the x2 p|q forms, boolean combination with a
// (negated) third predicate, the p|q pair, partial lane masks.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ptx_emulator/tests/integer_table.h"

namespace barracuda::emu::testing {
namespace {

const char* const kIntCmps[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"};
const char* const kFloatCmps[] = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",  "equ",
                                  "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

template <class T>
bool RefIntCmp(const std::string& op, uint64_t ra, uint64_t rb) {
  const T a = static_cast<T>(ra), b = static_cast<T>(rb);
  using U = std::make_unsigned_t<T>;
  const U ua = static_cast<U>(a), ub = static_cast<U>(b);
  if (op == "eq") return a == b;
  if (op == "ne") return a != b;
  if (op == "lt") return a < b;
  if (op == "le") return a <= b;
  if (op == "gt") return a > b;
  if (op == "ge") return a >= b;
  if (op == "lo") return ua < ub;
  if (op == "ls") return ua <= ub;
  if (op == "hi") return ua > ub;
  if (op == "hs") return ua >= ub;
  throw std::logic_error(op);
}

bool RefFloatCmp(const std::string& op, double a, double b) {
  const bool unordered = std::isnan(a) || std::isnan(b);
  if (op == "num") return !unordered;
  if (op == "nan") return unordered;
  const bool u = op.size() == 3 && op.back() == 'u';
  if (unordered) return u;
  const std::string base = u ? op.substr(0, 2) : op;
  if (base == "eq") return a == b;
  if (base == "ne") return a != b;
  if (base == "lt") return a < b;
  if (base == "le") return a <= b;
  if (base == "gt") return a > b;
  if (base == "ge") return a >= b;
  throw std::logic_error(op);
}

// Runs `ptx` (destination %p0, sources %a %b) over all pairs of `values` and
// checks %p0 per lane with `want(a, b)`; lanes outside the mask keep %p0.
template <class Want>
void CheckSetp(const std::string& ptx, const std::vector<uint64_t>& values, Want want) {
  INFO(ptx);
  OneInst x(ptx);
  REQUIRE(x.ok());
  const size_t n = values.size();
  size_t failures = 0;
  for (size_t base = 0, batch = 0; base < n * n; base += kLanes, ++batch) {
    const uint32_t exec = batch % 3 == 2 ? 0x3c3cf00fu : kFullMask;
    for (uint32_t l = 0; l < kLanes; ++l) {
      const size_t i = (base + l) % (n * n);
      x.Reg("%a", l) = values[i % n];
      x.Reg("%b", l) = values[i / n];
    }
    const uint32_t old = 0xa5a5a5a5u ^ static_cast<uint32_t>(batch);
    x.Pred("%p0") = old;
    x.Run(exec);
    uint32_t expect = old & ~exec;
    for (uint32_t l = 0; l < kLanes; ++l)
      if ((exec >> l) & 1) expect |= uint32_t{want(x.Reg("%a", l), x.Reg("%b", l))} << l;
    if (x.Pred("%p0") != expect && failures++ < 3) {
      INFO("batch " << batch << std::hex << " got 0x" << x.Pred("%p0") << " want 0x" << expect);
      CHECK(x.Pred("%p0") == expect);
    }
  }
  CHECK(failures == 0);
}

std::vector<uint64_t> IntValues() {
  std::vector<uint64_t> v = Inputs::Edges();
  Inputs in(5);
  for (int i = 0; i < 32; ++i) v.push_back(in.Get(1 << 30, 0, 1));
  return v;
}

TEST_CASE("setp on integer types, every comparison", "[compare]") {
  const auto values = IntValues();
  struct Ty {
    const char* name;
    bool (*ref)(const std::string&, uint64_t, uint64_t);
  };
  const Ty types[] = {{"u16", &RefIntCmp<uint16_t>}, {"s16", &RefIntCmp<int16_t>}, {"u32", &RefIntCmp<uint32_t>},
                      {"s32", &RefIntCmp<int32_t>},  {"u64", &RefIntCmp<uint64_t>}, {"s64", &RefIntCmp<int64_t>},
                      {"b32", &RefIntCmp<uint32_t>}, {"b64", &RefIntCmp<uint64_t>}};
  for (const Ty& t : types)
    for (const char* op : kIntCmps) {
      if (t.name[0] == 'b' && std::string(op) != "eq" && std::string(op) != "ne") continue;
      CheckSetp(std::string("setp.") + op + "." + t.name + " %p0, %a, %b;", values,
                [&](uint64_t a, uint64_t b) { return t.ref(op, a, b); });
    }
}

std::vector<uint64_t> F32Values() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> f = {0.0f, -0.0f, 1.0f, -1.0f, 1.5f, -2.5f, inf, -inf, std::numeric_limits<float>::max(),
                          std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(),
                          -std::numeric_limits<float>::denorm_min(), 3e-39f, -3e-39f, 1e30f, 123.25f};
  std::vector<uint64_t> v;
  for (float x : f) v.push_back(std::bit_cast<uint32_t>(x));
  v.push_back(0x7fc00000);           // qNaN
  v.push_back(0xffc00001);           // -qNaN with payload
  v.push_back(0x7f800001);           // sNaN
  v.push_back(0xdead00003f800000);   // 1.0f with garbage above bit 31
  return v;
}
double F32Of(uint64_t v, bool ftz) {
  const float f = std::bit_cast<float>(static_cast<uint32_t>(v));
  if (ftz && std::fpclassify(f) == FP_SUBNORMAL) return std::signbit(f) ? -0.0 : 0.0;
  return f;
}

TEST_CASE("setp on f32/f64: ordered, unordered, NaN, .ftz", "[compare][float]") {
  const auto f32 = F32Values();
  for (const char* op : kFloatCmps) {
    CheckSetp(std::string("setp.") + op + ".f32 %p0, %a, %b;", f32,
              [&](uint64_t a, uint64_t b) { return RefFloatCmp(op, F32Of(a, false), F32Of(b, false)); });
    CheckSetp(std::string("setp.") + op + ".ftz.f32 %p0, %a, %b;", f32,
              [&](uint64_t a, uint64_t b) { return RefFloatCmp(op, F32Of(a, true), F32Of(b, true)); });
  }
  const double dinf = std::numeric_limits<double>::infinity();
  std::vector<uint64_t> f64;
  for (double d : {0.0, -0.0, 1.0, -1.0, 1e300, -1e-310, 1e-310, dinf, -dinf, std::nan(""), 0.1, 0.30000000000000004})
    f64.push_back(std::bit_cast<uint64_t>(d));
  for (const char* op : kFloatCmps)
    CheckSetp(std::string("setp.") + op + ".f64 %p0, %a, %b;", f64, [&](uint64_t a, uint64_t b) {
      return RefFloatCmp(op, std::bit_cast<double>(a), std::bit_cast<double>(b));
    });
}

// Halves with their exact values (subnormal flags for .ftz).
struct HalfValue {
  uint16_t bits;
  double value;
  bool subnormal;
};
const HalfValue kHalves[] = {
    {0x0000, 0.0, false},   {0x8000, -0.0, false},        {0x3c00, 1.0, false},          {0xbc00, -1.0, false},
    {0x3e00, 1.5, false},   {0x7bff, 65504.0, false},     {0x0400, 0x1p-14, false},      {0x0001, 0x1p-24, true},
    {0x8001, -0x1p-24, true}, {0x03ff, 1023 * 0x1p-24, true}, {0x7c00, INFINITY, false},  {0xfc00, -INFINITY, false},
    {0x7e00, NAN, false},   {0x3555, 0x1.554p-2, false},
};
double HalfOf(uint64_t bits, bool ftz) {
  for (const auto& h : kHalves)
    if (h.bits == (bits & 0xffff)) return ftz && h.subnormal ? (std::signbit(h.value) ? -0.0 : 0.0) : h.value;
  throw std::logic_error("half not in table");
}

TEST_CASE("setp on f16/bf16 and the x2 p|q forms", "[compare][float]") {
  std::vector<uint64_t> halves;
  for (const auto& h : kHalves) halves.push_back(h.bits);
  for (const char* op : kFloatCmps) {
    CheckSetp(std::string("setp.") + op + ".f16 %p0, %a, %b;", halves,
              [&](uint64_t a, uint64_t b) { return RefFloatCmp(op, HalfOf(a, false), HalfOf(b, false)); });
    CheckSetp(std::string("setp.") + op + ".ftz.f16 %p0, %a, %b;", halves,
              [&](uint64_t a, uint64_t b) { return RefFloatCmp(op, HalfOf(a, true), HalfOf(b, true)); });
  }
  // bf16: the high half of an f32.
  std::vector<uint64_t> bf;
  for (uint64_t v : F32Values()) bf.push_back((v >> 16) & 0xffff);
  for (const char* op : kFloatCmps)
    CheckSetp(std::string("setp.") + op + ".bf16 %p0, %a, %b;", bf, [&](uint64_t a, uint64_t b) {
      return RefFloatCmp(op, F32Of((a & 0xffff) << 16, false), F32Of((b & 0xffff) << 16, false));
    });

  // f16x2 with p|q: p from the low halves, q from the high halves, each combined with c.
  OneInst x("setp.ltu.and.f16x2 %p0|%p1, %a, %b, !%p2;");
  REQUIRE(x.ok());
  const size_t n = std::size(kHalves);
  for (size_t base = 0; base < n * n * n; base += kLanes) {
    for (uint32_t l = 0; l < kLanes; ++l) {
      const size_t i = (base + l) % (n * n * n);
      x.Reg("%a", l) = kHalves[i % n].bits | uint64_t{kHalves[(i / n) % n].bits} << 16;
      x.Reg("%b", l) = kHalves[(i / n / n) % n].bits | uint64_t{kHalves[i % n].bits} << 16;
    }
    x.Pred("%p2") = 0x0f0f0f0f;
    x.Run();
    uint32_t p = 0, q = 0;
    for (uint32_t l = 0; l < kLanes; ++l) {
      const uint64_t a = x.Reg("%a", l), b = x.Reg("%b", l);
      const bool c = !((0x0f0f0f0fu >> l) & 1);
      p |= uint32_t{RefFloatCmp("ltu", HalfOf(a, false), HalfOf(b, false)) && c} << l;
      q |= uint32_t{RefFloatCmp("ltu", HalfOf(a >> 16, false), HalfOf(b >> 16, false)) && c} << l;
    }
    CHECK(x.Pred("%p0") == p);
    CHECK(x.Pred("%p1") == q);
  }
}

TEST_CASE("setp boolean combination and p|q pairs", "[compare]") {
  struct C {
    const char* ptx;
    uint32_t (*p)(uint32_t t, uint32_t c);
    uint32_t (*q)(uint32_t t, uint32_t c);
  };
  const C cases[] = {
      {"setp.lt.s32 %p0|%p1, %a, %b;", [](uint32_t t, uint32_t) { return t; }, [](uint32_t t, uint32_t) { return ~t; }},
      {"setp.lt.and.s32 %p0|%p1, %a, %b, %p2;", [](uint32_t t, uint32_t c) { return t & c; },
       [](uint32_t t, uint32_t c) { return ~t & c; }},
      {"setp.lt.or.s32 %p0|%p1, %a, %b, !%p2;", [](uint32_t t, uint32_t c) { return t | ~c; },
       [](uint32_t t, uint32_t c) { return ~t | ~c; }},
      {"setp.lt.xor.s32 %p0, %a, %b, %p2;", [](uint32_t t, uint32_t c) { return t ^ c; }, nullptr},
      {"setp.lt.and.s32 %p0|_, %a, %b, %p2;", [](uint32_t t, uint32_t c) { return t & c; }, nullptr},
  };
  for (const C& c : cases) {
    INFO(c.ptx);
    OneInst x(c.ptx);
    REQUIRE(x.ok());
    uint32_t t = 0;
    for (uint32_t l = 0; l < kLanes; ++l) {
      x.Reg("%a", l) = static_cast<uint64_t>(static_cast<int64_t>(l) - 16);  // -16..15
      x.Reg("%b", l) = static_cast<uint32_t>((l * 7) % 13) - 6u;             // -6..6 as s32
      t |= uint32_t{static_cast<int32_t>(l) - 16 < static_cast<int32_t>((l * 7) % 13) - 6} << l;
    }
    const uint32_t cval = 0x33cc55aa, exec = 0xfff0000f;
    if (std::string(c.ptx).find("%p2") != std::string::npos) x.Pred("%p2") = cval;
    x.Pred("%p0") = 0x11111111;
    if (c.q) x.Pred("%p1") = 0x22222222;
    x.Run(exec);
    CHECK(x.Pred("%p0") == ((c.p(t, cval) & exec) | (0x11111111u & ~exec)));
    if (c.q) CHECK(x.Pred("%p1") == ((c.q(t, cval) & exec) | (0x22222222u & ~exec)));
  }
}

TEST_CASE("set: integer and float results", "[compare]") {
  struct S {
    const char* ptx;
    uint64_t t, f;
    bool (*cmp)(uint64_t a, uint64_t b);
  };
  const S cases[] = {
      {"set.lt.u32.s32 %d, %a, %b;", 0xffffffff, 0,
       [](uint64_t a, uint64_t b) { return static_cast<int32_t>(a) < static_cast<int32_t>(b); }},
      {"set.hs.s32.u64 %d, %a, %b;", 0xffffffff, 0, [](uint64_t a, uint64_t b) { return a >= b; }},
      {"set.gtu.f32.f32 %d, %a, %b;", 0x3f800000, 0,
       [](uint64_t a, uint64_t b) { return RefFloatCmp("gtu", F32Of(a, false), F32Of(b, false)); }},
      {"set.eq.ftz.u32.f32 %d, %a, %b;", 0xffffffff, 0,
       [](uint64_t a, uint64_t b) { return RefFloatCmp("eq", F32Of(a, true), F32Of(b, true)); }},
  };
  const auto f32 = F32Values();
  for (const S& s : cases) {
    INFO(s.ptx);
    OneInst x(s.ptx);
    REQUIRE(x.ok());
    const size_t n = f32.size();
    for (size_t base = 0; base < n * n; base += kLanes) {
      for (uint32_t l = 0; l < kLanes; ++l) {
        const size_t i = (base + l) % (n * n);
        x.Reg("%a", l) = f32[i % n];
        x.Reg("%b", l) = f32[i / n];
        x.Reg("%d", l) = 77;
      }
      x.Run(0x7fffffff);
      for (uint32_t l = 0; l < kLanes; ++l) {
        const uint64_t want = l == 31 ? 77 : (s.cmp(x.Reg("%a", l), x.Reg("%b", l)) ? s.t : s.f);
        CHECK(x.Reg("%d", l) == want);
      }
    }
  }
  OneInst comb("set.ne.and.u32.u32 %d, %a, %b, %p1;");
  REQUIRE(comb.ok());
  comb.Pred("%p1") = 0xffff0000;
  for (uint32_t l = 0; l < kLanes; ++l) {
    comb.Reg("%a", l) = l;
    comb.Reg("%b", l) = l % 2 ? l : 100;
  }
  comb.Run();
  for (uint32_t l = 0; l < kLanes; ++l) CHECK(comb.Reg("%d", l) == ((l >= 16 && l % 2 == 0) ? 0xffffffffu : 0u));
}

// The half-precision destinations of set (PTX "Half Precision Comparison
// Instructions"): 1.0 (f16 0x3c00, bf16 0x3f80) or all ones (u16), per half
// for the x2 forms; cuda_fp16.hpp's hsin/hexp/__hisnan use them.
TEST_CASE("set: half-precision destinations", "[compare]") {
  struct S {
    const char* ptx;
    uint64_t a, b, want;
  };
  const S cases[] = {
      {"set.eq.f16.f16 %d, %a, %b;", 0x3c00, 0x3c00, 0x3c00},    // 1.0 == 1.0
      {"set.eq.f16.f16 %d, %a, %b;", 0x3c00, 0x4000, 0},         // 1.0 == 2.0
      {"set.nan.f16.f16 %d, %a, %b;", 0x7e00, 0x3c00, 0x3c00},   // NaN
      {"set.lt.u16.f16 %d, %a, %b;", 0x3c00, 0x4000, 0xffff},    // 1.0 < 2.0
      {"set.gt.f16.f32 %d, %a, %b;", 0x40000000, 0x3f800000, 0x3c00},  // 2.0f > 1.0f
      {"set.lt.bf16.bf16 %d, %a, %b;", 0x3f80, 0x4000, 0x3f80},  // 1.0 < 2.0
      {"set.eq.f16x2.f16x2 %d, %a, %b;", 0x3c004000, 0x3c003c00, 0x3c000000},  // hi equal, lo not
      {"set.ne.bf16x2.bf16x2 %d, %a, %b;", 0x3f804000, 0x3f803f80, 0x00003f80},
  };
  for (const S& s : cases) {
    INFO(s.ptx << " a=" << s.a << " b=" << s.b);
    OneInst x(s.ptx);
    REQUIRE(x.ok());
    for (uint32_t l = 0; l < kLanes; ++l) {
      x.Reg("%a", l) = s.a;
      x.Reg("%b", l) = s.b;
      x.Reg("%d", l) = 77;
    }
    x.Run(0x7fffffff);
    CHECK(x.Reg("%d", 0) == s.want);
    CHECK(x.Reg("%d", 31) == 77);
  }
}

TEST_CASE("setp/set selection errors", "[compare][select]") {
  for (const char* text : {"setp.equ.s32 %p0, %a, %b;", "setp.lo.f32 %p0, %a, %b;", "set.lt.f16x2.f32 %d, %a, %b;",
                           "setp.lt.f16x2 %p0, %a, %b;", "setp.lt.s32 %d, %a, %b;"}) {
    OneInst x(text);
    INFO(text << " -> " << x.status());
    CHECK(x.status().code() == absl::StatusCode::kUnimplemented);
  }
}

}  // namespace
}  // namespace barracuda::emu::testing
