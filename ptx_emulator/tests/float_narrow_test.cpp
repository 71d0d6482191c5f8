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

// Value of a code from the definition (NaN as a quiet NaN).
double RefDecode(uint8_t c, const Def& f) {
  const double sign = (c & 0x80) ? -1.0 : 1.0;
  const int e = (c >> f.man_bits) & ((1 << f.exp_bits) - 1);
  const int m = c & ((1 << f.man_bits) - 1);
  const int emax_field = (1 << f.exp_bits) - 1;
  if (f.fmt == Narrow8::kE4m3) {
    if (e == emax_field && m == (1 << f.man_bits) - 1) return NAN;
  } else if (e == emax_field) {
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
  for (int c = 0; c < 128; ++c) {
    const double v = RefDecode(static_cast<uint8_t>(c), f);
    if (std::isfinite(v)) t.pos.push_back({v, static_cast<uint8_t>(c)});
  }
  std::sort(t.pos.begin(), t.pos.end());
  t.max = t.pos.back().first;
  t.max_code = t.pos.back().second;
  return t;
}

uint8_t RefEncode(double x, const Table& t, bool relu) {
  if (std::isnan(x)) return 0x7f;
  if (relu && std::signbit(x)) return 0;
  const uint8_t sign = std::signbit(x) ? 0x80 : 0;
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

TEST_CASE("fp8 cvt forms that stay refused", "[float][cvt][fp8]") {
  for (const char* text : {"cvt.rn.e4m3x2.f32 %d, %a, %b",                 // .satfinite is required
                           "cvt.rz.satfinite.e4m3x2.f32 %d, %a, %b",       // .rn only
                           "cvt.rn.satfinite.e5m2x2.f64 %d, %a",           // no such source
                           "cvt.rn.satfinite.f16x2.e4m3x2 %d, %a",         // no .satfinite on decode
                           "cvt.rn.bf16x2.e4m3x2 %d, %a",                  // f16x2 destination only
                           "cvt.rn.satfinite.e2m1x2.f32 %d, %a, %b",       // fp4
                           "cvt.rn.satfinite.e3m2x2.f32 %d, %a, %b",       // fp6
                           "cvt.rn.f16x2.e2m3x2 %d, %a",
                           "cvt.rz.satfinite.ue8m0x2.f32 %d, %a, %b",      // ue8m0
                           "cvt.rn.bf16x2.ue8m0x2 %d, %a",
                           "cvt.rs.relu.satfinite.e4m3x2.f32 %d, %a, %b, %c"}) {  // stochastic rounding
    INFO(text);
    OneInst inst(text);
    REQUIRE_FALSE(inst.selected().ok());
    CHECK(inst.selected().status().code() == absl::StatusCode::kUnimplemented);
  }
}

}  // namespace
}  // namespace barracuda::emu::testing
