// fp8 conversions (ops/fp_narrow.h, the e4m3x2/e5m2x2 cvt forms).
//
// References, written from the format definitions and independent of the
// emulator's code:
// - decoding: sign, exponent field, fraction field, bias 7 (e4m3) / 15 (e5m2),
//   subnormals 0.m * 2^(1 - bias); e4m3's NaN is S.1111.111, e5m2's exponent
//   field 31 is inf / NaN;
// - encoding: the nearest of all finite decoded codes (ties to the even code),
//   |x| above the largest finite value clamped to it (.satfinite), NaN ->
//   0x7f, .relu: negative (and -0) -> +0.
// Large sweeps count mismatches and print the first few instead of one
// CHECK per value.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ptx_emulator/ops/fp_narrow.h"
#include "ptx_emulator/tests/float_test_harness.h"

namespace barracuda::emu::testing {
namespace {

using fp::Narrow8;

struct Def {
  Narrow8 fmt;
  const char* name;  // PTX type of the pair
  int exp_bits, man_bits, bias;
};
constexpr Def kE4m3{Narrow8::kE4m3, ".e4m3x2", 4, 3, 7};
constexpr Def kE5m2{Narrow8::kE5m2, ".e5m2x2", 5, 2, 15};
// fp6 and fp4 (OCP MX formats): every code finite.
constexpr Def kE2m3{Narrow8::kE2m3, ".e2m3x2", 2, 3, 1};
constexpr Def kE3m2{Narrow8::kE3m2, ".e3m2x2", 3, 2, 3};
constexpr Def kE2m1{Narrow8::kE2m1, ".e2m1x2", 2, 1, 1};
constexpr int Bits(const Def& f) { return 1 + f.exp_bits + f.man_bits; }
constexpr bool Fp8(const Def& f) { return Bits(f) == 8; }

// Value of a code from the definition (NaN as a quiet NaN).
double RefDecode(uint8_t c, const Def& f) {
  const double sign = (c >> (Bits(f) - 1) & 1) ? -1.0 : 1.0;
  const int e = (c >> f.man_bits) & ((1 << f.exp_bits) - 1);
  const int m = c & ((1 << f.man_bits) - 1);
  const int emax_field = (1 << f.exp_bits) - 1;
  if (f.fmt == Narrow8::kE4m3) {
    if (e == emax_field && m == (1 << f.man_bits) - 1) return NAN;
  } else if (f.fmt == Narrow8::kE5m2 && e == emax_field) {
    return m ? NAN : sign * INFINITY;
  }
  double frac = 0;  // 0.m or 1.m
  for (int i = 0; i < f.man_bits; ++i)
    if (m >> (f.man_bits - 1 - i) & 1) frac += std::pow(2.0, -(i + 1));
  if (e == 0) return sign * frac * std::pow(2.0, 1 - f.bias);
  return sign * (1.0 + frac) * std::pow(2.0, e - f.bias);
}

// The finite non-negative codes in increasing value order, and the largest.
struct Table {
  std::vector<std::pair<double, uint8_t>> pos;
  double max = 0;
  uint8_t max_code = 0;
};
Table MakeTable(const Def& f) {
  Table t;
  for (int c = 0; c < (1 << (Bits(f) - 1)); ++c) {
    const double v = RefDecode(static_cast<uint8_t>(c), f);
    if (std::isfinite(v)) t.pos.push_back({v, static_cast<uint8_t>(c)});
  }
  std::sort(t.pos.begin(), t.pos.end());
  t.max = t.pos.back().first;
  t.max_code = t.pos.back().second;
  return t;
}

// NaN: fp8's canonical NaN; fp6/fp4 have none and give their positive
// largest value (cuda_fp6.hpp / cuda_fp4.hpp: "NaN converts to positive
// MAXNORM").
uint8_t RefEncode(double x, const Table& t, bool relu, int bits = 8) {
  if (std::isnan(x)) return bits == 8 ? 0x7f : t.max_code;
  if (relu && std::signbit(x)) return 0;
  const uint8_t sign = std::signbit(x) ? static_cast<uint8_t>(1u << (bits - 1)) : 0;
  const double a = std::fabs(x);
  if (a > t.max) return sign | t.max_code;
  // Nearest: the first entry >= a and the one before it.
  auto it = std::lower_bound(t.pos.begin(), t.pos.end(), std::make_pair(a, uint8_t{0}));
  uint8_t best;
  if (it == t.pos.begin()) {
    best = it->second;
  } else {
    const auto lo = *(it - 1), hi = *it;
    const double dl = a - lo.first, dh = hi.first - a;  // exact in double
    if (dl < dh) best = lo.second;
    else if (dh < dl) best = hi.second;
    else best = (lo.second & 1) == 0 ? lo.second : hi.second;  // tie: even code
  }
  return sign | best;
}

std::string Pfx(const Def& f, bool relu) { return std::string("cvt.rn.satfinite") + (relu ? ".relu" : "") + f.name; }

// Collects mismatches; reports the first few.
struct Mismatches {
  size_t count = 0;
  std::ostringstream first;
  void Add(const std::string& what) {
    if (count++ < 8) first << what << "\n";
  }
  void Check() {
    INFO(first.str());
    CHECK(count == 0);
  }
};

std::string H(uint64_t v) { return Hex(v); }

TEST_CASE("fp8 decode: all 256 codes of e4m3 and e5m2 against the format definition", "[float][cvt][fp8]") {
  for (const Def& f : {kE4m3, kE5m2}) {
    INFO(f.name);
    for (int c = 0; c < 256; ++c) {
      const double want = RefDecode(static_cast<uint8_t>(c), f);
      const float got = fp::Narrow8ToF32(static_cast<uint8_t>(c), f.fmt);
      INFO("code " << c);
      if (std::isnan(want)) {
        CHECK(std::isnan(got));
      } else {
        CHECK(static_cast<double>(got) == want);
        CHECK(std::signbit(got) == std::signbit(want));
      }
    }
    // Spot values from the ISA / OCP tables.
    const Table t = MakeTable(f);
    CHECK(t.max == (f.fmt == Narrow8::kE4m3 ? 448.0 : 57344.0));
    CHECK(t.pos[1].first == (f.fmt == Narrow8::kE4m3 ? 0x1p-9 : 0x1p-16));
  }
}

TEST_CASE("cvt.rn{.relu}.f16x2.{e4m3x2 e5m2x2}: every code pair position", "[float][cvt][fp8]") {
  for (const Def& f : {kE4m3, kE5m2}) {
    for (bool relu : {false, true}) {
      const std::string text = std::string("cvt.rn") + (relu ? ".relu" : "") + ".f16x2" + f.name + " %d, %a";
      INFO(text);
      OneInst inst(text);
      REQUIRE(inst.ok());
      std::vector<std::vector<uint64_t>> rows;
      for (uint64_t c = 0; c < 256; ++c) rows.push_back({c << 8 | (c ^ 0x5a) | 0xffff0000ull});  // junk above 16 bits
      const auto out = inst.Run(rows);
      for (size_t i = 0; i < rows.size(); ++i) {
        const uint8_t hi = static_cast<uint8_t>(i), lo = static_cast<uint8_t>(i ^ 0x5a);
        INFO("codes " << int{hi} << " " << int{lo});
        CHECK((out[i] >> 32) == 0);
        for (int half = 0; half < 2; ++half) {
          const uint8_t c = half ? hi : lo;
          double want = RefDecode(c, f);
          if (relu && !std::isnan(want) && std::signbit(want)) want = 0.0;
          CheckHalf(out[i] >> (16 * half) & 0xffff, want, kF16);
        }
      }
    }
  }
}

// Edge inputs around every pair of neighbouring codes and the range ends.
std::vector<float> EdgeInputs(const Table& t) {
  std::vector<float> v = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, FLT_MAX, FLT_MIN, 0x1p-149f, 1.0f, -1.0f};
  auto around = [&](double x) {
    const float f = static_cast<float>(x);
    if (static_cast<double>(f) != x) return;  // only exact points, and their neighbours
    for (float g : {f, std::nextafter(f, INFINITY), std::nextafter(f, -INFINITY)}) {
      v.push_back(g);
      v.push_back(-g);
    }
  };
  for (size_t i = 0; i < t.pos.size(); ++i) {
    around(t.pos[i].first);
    if (i + 1 < t.pos.size()) around((t.pos[i].first + t.pos[i + 1].first) / 2);  // ties
  }
  const double ulp_top = t.pos.back().first - t.pos[t.pos.size() - 2].first;
  around(t.max + ulp_top / 2);  // the tie above the largest finite value
  around(t.max + ulp_top);
  around(t.max * 2);
  around(t.pos[1].first / 2);  // half the smallest subnormal: ties to 0
  around(t.pos[1].first / 4);
  return v;
}

TEST_CASE("fp8 encode: edge and random f32 values through cvt.rn.satfinite{.relu}.{e4m3x2 e5m2x2}.f32",
          "[float][cvt][fp8]") {
  std::mt19937_64 rng(0x8e4d3);
  for (const Def& f : {kE4m3, kE5m2}) {
    const Table t = MakeTable(f);
    std::vector<float> inputs = EdgeInputs(t);
    const size_t edges = inputs.size();
    for (int i = 0; i < 300000; ++i) {
      uint32_t bits = static_cast<uint32_t>(rng());
      if (i % 2) {  // exponents near the format's range (-25 .. +17)
        const uint32_t e = 127 - 25 + static_cast<uint32_t>(rng() % 43);
        bits = (bits & 0x807fffffu) | e << 23;
      }
      inputs.push_back(std::bit_cast<float>(bits));
    }
    for (bool relu : {false, true}) {
      const std::string text = Pfx(f, relu) + ".f32 %d, %a, %b";
      INFO(text << " (" << edges << " edge inputs)");
      OneInst inst(text);
      REQUIRE(inst.ok());
      std::vector<std::vector<uint64_t>> rows;
      for (size_t i = 0; i < inputs.size(); ++i)  // a: input i, b: input i reversed order
        rows.push_back({B(inputs[i]) | 0xabcd00000000ull, B(inputs[inputs.size() - 1 - i])});
      const auto out = inst.Run(rows);
      Mismatches bad;
      for (size_t i = 0; i < rows.size(); ++i) {
        const float a = inputs[i], b = inputs[inputs.size() - 1 - i];
        const uint64_t want = uint64_t{RefEncode(a, t, relu)} << 8 | RefEncode(b, t, relu);
        if (out[i] != want)
          bad.Add("a " + H(B(a)) + " b " + H(B(b)) + ": got " + H(out[i]) + " want " + H(want));
      }
      bad.Check();
    }
  }
}

TEST_CASE("fp8 encode: a few million random f32 values (direct)", "[float][cvt][fp8]") {
  std::mt19937_64 rng(12345);
  for (const Def& f : {kE4m3, kE5m2}) {
    const Table t = MakeTable(f);
    Mismatches bad;
    for (int i = 0; i < 2000000; ++i) {
      uint32_t bits = static_cast<uint32_t>(rng());
      if (i % 4 != 0) bits = (bits & 0x807fffffu) | (127 - 25 + static_cast<uint32_t>(rng() % 43)) << 23;
      const float x = std::bit_cast<float>(bits);
      const bool relu = i & 1;
      const uint8_t got = fp::F64ToNarrow8(x, f.fmt, relu), want = RefEncode(x, t, relu);
      if (got != want) bad.Add(std::string(f.name) + " x " + H(bits) + ": got " + H(got) + " want " + H(want));
    }
    bad.Check();
  }
}

double F16Value(uint16_t h) { return Decode(h, kF16); }
double Bf16Value(uint16_t h) { return Decode(h, kBf16); }

TEST_CASE("fp8 encode: every f16 and every bf16 value through the x2 source forms", "[float][cvt][fp8]") {
  for (const Def& f : {kE4m3, kE5m2}) {
    const Table t = MakeTable(f);
    for (bool bf : {false, true}) {
      for (bool relu : {false, true}) {
        const std::string text = Pfx(f, relu) + (bf ? ".bf16x2" : ".f16x2") + " %d, %a";
        INFO(text);
        OneInst inst(text);
        REQUIRE(inst.ok());
        std::vector<std::vector<uint64_t>> rows;
        for (uint32_t h = 0; h < 65536; ++h) rows.push_back({uint64_t{h} << 16 | (h * 40503u & 0xffff)});
        const auto out = inst.Run(rows);
        Mismatches bad;
        for (uint32_t h = 0; h < 65536; ++h) {
          const uint16_t hi = static_cast<uint16_t>(h), lo = static_cast<uint16_t>(h * 40503u);
          const double vh = bf ? Bf16Value(hi) : F16Value(hi), vl = bf ? Bf16Value(lo) : F16Value(lo);
          const uint64_t want = uint64_t{RefEncode(vh, t, relu)} << 8 | RefEncode(vl, t, relu);
          if (out[h] != want) bad.Add("a " + H(rows[h][0]) + ": got " + H(out[h]) + " want " + H(want));
        }
        bad.Check();
      }
    }
  }
}

TEST_CASE("fp8 encode: spot values from the ISA rules", "[float][cvt][fp8]") {
  OneInst e4("cvt.rn.satfinite.e4m3x2.f32 %d, %a, %b"), e5("cvt.rn.satfinite.e5m2x2.f32 %d, %a, %b");
  OneInst e4r("cvt.rn.satfinite.relu.e4m3x2.f32 %d, %a, %b");
  REQUIRE((e4.ok() && e5.ok() && e4r.ok()));
  CHECK_BITS(e4.Run1({B(1.0f), B(-2.0f)}), 0x38c0u);         // a in the upper byte
  CHECK_BITS(e4.Run1({B(448.0f), B(464.0f)}), 0x7e7eu);      // 464: tie, even is 448
  CHECK_BITS(e4.Run1({B(1e9f), B(-INFINITY)}), 0x7efeu);     // satfinite, no inf in e4m3
  CHECK_BITS(e4.Run1({B(NAN), B(-NAN)}), 0x7f7fu);
  CHECK_BITS(e4.Run1({B(0x1p-10f), B(0x1.0002p-10f)}), 0x0001u);  // half the smallest subnormal ties to 0
  CHECK_BITS(e4.Run1({B(-0x1p-12f), B(-0.0f)}), 0x8080u);
  CHECK_BITS(e5.Run1({B(57344.0f), B(61440.0f)}), 0x7b7bu);  // 61440: tie to the odd max goes up, then clamps
  CHECK_BITS(e5.Run1({B(INFINITY), B(-INFINITY)}), 0x7bfbu);
  CHECK_BITS(e5.Run1({B(0x1p-16f), B(0x1p-17f)}), 0x0100u);
  CHECK_BITS(e4r.Run1({B(-3.0f), B(-0.0f)}), 0x0000u);
  CHECK_BITS(e4r.Run1({B(NAN), B(3.0f)}), 0x7f44u);
}

// The bits of a value the 16-bit format holds exactly (finite).
uint16_t ExactBits(double v, const Fmt& f) {
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const double a = std::fabs(v);
  if (a == 0) return sign;
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  const int e = std::ilogb(a);
  if (e < 1 - bias) return sign | static_cast<uint16_t>(std::ldexp(a, bias - 1 + f.man_bits));
  return sign | static_cast<uint16_t>((e + bias) << f.man_bits) |
         static_cast<uint16_t>(std::ldexp(std::ldexp(a, -e) - 1.0, f.man_bits));
}
uint64_t EncodeF16(double v) { return ExactBits(v, kF16); }
uint64_t EncodeBf16(double v) { return ExactBits(v, kBf16); }

TEST_CASE("fp6 and fp4: every code decodes, and f32 pairs encode as the definition says", "[float][cvt][fp6]") {
  std::mt19937_64 rng(0xf6f4);
  for (const Def& f : {kE2m3, kE3m2, kE2m1}) {
    const int shift = fp::PairShift(f.fmt);
    const Table t = MakeTable(f);
    // Decode: every pair of codes, with junk above each code's bits ignored.
    for (bool relu : {false, true}) {
      const std::string text = std::string("cvt.rn") + (relu ? ".relu" : "") + ".f16x2" + f.name + " %d, %a";
      INFO(text);
      OneInst inst(text);
      REQUIRE(inst.ok());
      const int n = 1 << Bits(f);
      std::vector<std::vector<uint64_t>> rows;
      for (int hi = 0; hi < n; ++hi)
        for (int lo = 0; lo < n; ++lo) rows.push_back({uint64_t(hi) << shift | uint64_t(lo) | (shift == 8 ? 0xc0c0u : 0)});
      const auto out = inst.Run(rows);
      Mismatches bad;
      for (size_t i = 0; i < rows.size(); ++i) {
        const double vh = RefDecode(static_cast<uint8_t>(i / n), f), vl = RefDecode(static_cast<uint8_t>(i % n), f);
        const auto h = [&](double v) -> uint64_t { return relu && std::signbit(v) ? 0 : EncodeF16(v); };
        const uint64_t want = h(vh) << 16 | h(vl);
        if (out[i] != want) bad.Add("a " + H(rows[i][0]) + ": got " + H(out[i]) + " want " + H(want));
      }
      bad.Check();
    }
    // Encode: edges and random f32 around the range.
    std::vector<float> inputs = EdgeInputs(t);
    for (float v : {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-30f, -1e-30f}) inputs.push_back(v);
    for (int i = 0; i < 200000; ++i) {
      uint32_t bits = static_cast<uint32_t>(rng());
      if (i % 2) bits = (bits & 0x807fffffu) | (127 - 8 + static_cast<uint32_t>(rng() % 14)) << 23;
      inputs.push_back(std::bit_cast<float>(bits));
    }
    for (bool relu : {false, true}) {
      const std::string text = Pfx(f, relu) + ".f32 %d, %a, %b";
      INFO(text);
      OneInst inst(text);
      REQUIRE(inst.ok());
      std::vector<std::vector<uint64_t>> rows;
      for (size_t i = 0; i < inputs.size(); ++i) rows.push_back({B(inputs[i]), B(inputs[inputs.size() - 1 - i])});
      const auto out = inst.Run(rows);
      Mismatches bad;
      for (size_t i = 0; i < rows.size(); ++i) {
        const float a = inputs[i], b = inputs[inputs.size() - 1 - i];
        const uint64_t want = uint64_t{RefEncode(a, t, relu, Bits(f))} << shift | RefEncode(b, t, relu, Bits(f));
        if (out[i] != want) bad.Add("a " + H(B(a)) + " b " + H(B(b)) + ": got " + H(out[i]) + " want " + H(want));
      }
      bad.Check();
    }
  }
}

TEST_CASE("fp6 and fp4: spot values", "[float][cvt][fp6]") {
  OneInst e2m1("cvt.rn.satfinite.e2m1x2.f32 %d, %a, %b"), e2m3("cvt.rn.satfinite.e2m3x2.f32 %d, %a, %b");
  OneInst e3m2("cvt.rn.satfinite.e3m2x2.f32 %d, %a, %b"), e2m1r("cvt.rn.satfinite.relu.e2m1x2.f32 %d, %a, %b");
  REQUIRE((e2m1.ok() && e2m3.ok() && e3m2.ok() && e2m1r.ok()));
  CHECK_BITS(e2m1.Run1({B(1.0f), B(-6.0f)}), 0x2fu);   // a in the upper nibble; 1.0 = 0.01.0, -6 = 1.11.1
  CHECK_BITS(e2m1.Run1({B(5.0f), B(0.25f)}), 0x60u);   // 5: tie between 4 and 6, even code 4; 0.25 ties to 0
  CHECK_BITS(e2m1.Run1({B(NAN), B(-INFINITY)}), 0x7fu);  // no NaN: +6; -inf clamps to -6
  CHECK_BITS(e2m1r.Run1({B(-1.0f), B(NAN)}), 0x07u);
  CHECK_BITS(e2m3.Run1({B(7.5f), B(100.0f)}), 0x1f1fu);
  CHECK_BITS(e2m3.Run1({B(0.125f), B(-0.0625f)}), 0x0120u);  // smallest subnormal; half of it ties to -0
  CHECK_BITS(e3m2.Run1({B(28.0f), B(0.0625f)}), 0x1f01u);    // 0.0625 = 2^-4: smallest subnormal
}

TEST_CASE("ue8m0: every bf16 and f32 edges in both roundings, and every code back", "[float][cvt][ue8m0]") {
  // Reference from the definition: 2^(code - 127) is the largest power of two
  // <= |x| (.rz) or the smallest >= |x| (.rp), code 0 (2^-127) for anything
  // smaller; NaN and results past 2^127 give 0xff, or 0xfe with .satfinite
  // (never for NaN).
  const auto ref = [](double x, bool up, bool sat) -> uint64_t {
    if (std::isnan(x)) return 0xff;
    const double a = std::fabs(x);
    int code;
    if (std::isinf(a)) {
      code = 0xff;
    } else if (a <= 0x1p-127) {
      code = 0;
    } else {
      const int e = std::ilogb(a);  // 2^e <= a < 2^(e+1)
      code = e + 127 + (up && a != std::ldexp(1.0, e) ? 1 : 0);
      code = std::min(code, 0xff);
    }
    if (sat && code == 0xff) code = 0xfe;
    return static_cast<uint64_t>(code);
  };
  for (bool up : {false, true}) {
    for (bool sat : {false, true}) {
      const std::string mode = std::string(up ? "cvt.rp" : "cvt.rz") + (sat ? ".satfinite" : "");
      OneInst bf(mode + ".ue8m0x2.bf16x2 %d, %a"), f32(mode + ".ue8m0x2.f32 %d, %a, %b");
      REQUIRE((bf.ok() && f32.ok()));
      std::vector<std::vector<uint64_t>> rows;
      for (uint32_t h = 0; h < 65536; ++h) rows.push_back({uint64_t{h} << 16 | (h * 40503u & 0xffff)});
      auto out = bf.Run(rows);
      Mismatches bad;
      for (uint32_t h = 0; h < 65536; ++h) {
        const uint64_t want = ref(Bf16Value(static_cast<uint16_t>(h)), up, sat) << 8 |
                              ref(Bf16Value(static_cast<uint16_t>(h * 40503u)), up, sat);
        if (out[h] != want) bad.Add(mode + " bf16x2 " + H(rows[h][0]) + ": got " + H(out[h]) + " want " + H(want));
      }
      std::mt19937 rng(up * 2 + sat);
      rows.clear();
      std::vector<float> xs = {0.0f, -0.0f, 0x1p-127f, 0x1.0002p-127f, 0x1p-149f, 1.0f, 0x1.000002p0f, 0x1.fffffep127f,
                               INFINITY, -INFINITY, NAN, 0x1.00ff00p-1f, 0x1.0000fep3f};
      for (int i = 0; i < 100000; ++i) xs.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
      for (size_t i = 0; i < xs.size(); ++i) rows.push_back({B(xs[i]), B(xs[xs.size() - 1 - i])});
      out = f32.Run(rows);
      for (size_t i = 0; i < xs.size(); ++i) {
        const uint64_t want = ref(xs[i], up, sat) << 8 | ref(xs[xs.size() - 1 - i], up, sat);
        if (out[i] != want) bad.Add(mode + " f32 " + H(B(xs[i])) + "," + H(B(xs[xs.size() - 1 - i])) + ": got " + H(out[i]) + " want " + H(want));
      }
      bad.Check();
    }
  }
  OneInst dec("cvt.rn.bf16x2.ue8m0x2 %d, %a");
  REQUIRE(dec.ok());
  std::vector<std::vector<uint64_t>> rows;
  for (uint32_t c = 0; c < 65536; ++c) rows.push_back({c});
  const auto out = dec.Run(rows);
  Mismatches bad;
  for (uint32_t c = 0; c < 65536; ++c) {
    const auto v = [](uint32_t code) -> uint64_t {
      if (code == 0xff) return 0x7fff;
      return EncodeBf16(std::ldexp(1.0, static_cast<int>(code) - 127));  // exact: 2^-127 is a bf16 subnormal
    };
    const uint64_t want = v(c >> 8) << 16 | v(c & 0xff);
    if (out[c] != want) bad.Add("code " + H(c) + ": got " + H(out[c]) + " want " + H(want));
  }
  bad.Check();
}

TEST_CASE("fp8 cvt forms that stay refused", "[float][cvt][fp8]") {
  for (const char* text : {"cvt.rn.e4m3x2.f32 %d, %a, %b",                 // .satfinite is required
                           "cvt.rz.satfinite.e4m3x2.f32 %d, %a, %b",       // .rn only
                           "cvt.rn.satfinite.e5m2x2.f64 %d, %a",           // no such source
                           "cvt.rn.satfinite.f16x2.e4m3x2 %d, %a",         // no .satfinite on decode
                           "cvt.rn.bf16x2.e4m3x2 %d, %a",                  // f16x2 destination only
                           "cvt.rn.e2m1x2.f32 %d, %a, %b",                 // fp4: .satfinite is required
                           "cvt.rn.satfinite.e3m2x2.f16x2 %d, %a",         // fp6 from f32 pairs only
                           "cvt.rz.f16x2.e2m3x2 %d, %a",                   // .rn only
                           "cvt.rn.satfinite.ue8m0x2.f32 %d, %a, %b",      // ue8m0: .rz or .rp
                           "cvt.rz.bf16x2.ue8m0x2 %d, %a",                 // decode is .rn
                           "cvt.rz.ue8m0x2.f16x2 %d, %a",                  // no such source
                           "cvt.rs.relu.satfinite.e4m3x2.f32 %d, %a, %b, %c"}) {  // stochastic rounding
    INFO(text);
    OneInst inst(text);
    REQUIRE_FALSE(inst.selected().ok());
    CHECK(inst.selected().status().code() == absl::StatusCode::kUnimplemented);
  }
}

}  // namespace
}  // namespace barracuda::emu::testing
