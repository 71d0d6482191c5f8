// f32/f64 arithmetic, approximate functions, min/max, abs/neg/copysign,
// testp: handlers run directly (float_test_harness.h) and compared with C++
// references computed here, bit-exact where PTX defines the result.
#include <cfloat>
#include <cmath>
#include <limits>
#include <random>

#include "ptx_emulator/tests/float_test_harness.h"

namespace barracuda::emu::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr double kInfD = std::numeric_limits<double>::infinity();

const std::vector<float> kEdges = {
    0.0f,     -0.0f,        1.0f,   -1.0f,  1.5f,          -2.75f,       0x1p-149f,  -0x1p-149f, 0x1.8p-140f,
    0x1p-126f, -0x1p-126f,  0x1.fffffcp-127f, FLT_MAX,     -FLT_MAX,     kInf,       -kInf,      kNan,
    3.1415927f, 1e30f,      -1e-30f, 0x1.000002p0f, 0x1p24f, 0.1f,        0.5f,       0x1.fffffep-1f,
};

uint64_t Canon(float r) { return r != r ? 0x7fffffffu : B(r); }
float Flush(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
float Sat(float x) { return x > 0 ? (x < 1 ? x : 1.0f) : 0.0f; }

std::vector<std::vector<uint64_t>> Pairs(const std::vector<float>& v) {
  std::vector<std::vector<uint64_t>> rows;
  for (float a : v)
    for (float b : v) rows.push_back({B(a), B(b)});
  return rows;
}

TEST_CASE("f32 add/sub/mul/fma .rn are IEEE with the canonical NaN", "[float]") {
  const auto rows = Pairs(kEdges);
  struct Case {
    const char* text;
    float (*ref)(float, float);
  };
  const Case cases[] = {
      {"add.f32 %d, %a, %b", [](float a, float b) { return a + b; }},
      {"add.rn.f32 %d, %a, %b", [](float a, float b) { return a + b; }},
      {"sub.f32 %d, %a, %b", [](float a, float b) { return a - b; }},
      {"mul.rn.f32 %d, %a, %b", [](float a, float b) { return a * b; }},
      {"fma.rn.f32 %d, %a, %b, %a", [](float a, float b) { return std::fma(a, b, a); }},
      {"mad.rn.f32 %d, %a, %b, %b", [](float a, float b) { return std::fma(a, b, b); }},
      {"mad.f32 %d, %a, %b, %b", [](float a, float b) { return std::fma(a, b, b); }},  // sm_1x syntax
      {"div.rn.f32 %d, %a, %b", [](float a, float b) { return a / b; }},
      {"div.full.f32 %d, %a, %b", [](float a, float b) { return a / b; }},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    OneInst inst(c.text);
    REQUIRE(inst.ok());
    std::vector<std::vector<uint64_t>> in = rows;
    if (std::string(c.text).find("fma") != std::string::npos || std::string(c.text).find("mad") != std::string::npos) {
      for (auto& r : in) r.push_back(std::string(c.text).ends_with("%a") ? r[0] : r[1]);
    }
    const auto out = inst.Run(in);
    for (size_t i = 0; i < rows.size(); ++i) {
      INFO("a=" << AsF(rows[i][0]) << " b=" << AsF(rows[i][1]));
      CHECK_BITS(out[i], Canon(c.ref(AsF(rows[i][0]), AsF(rows[i][1]))));
    }
  }
}

TEST_CASE("fma.rn.f32 is fused (one rounding)", "[float]") {
  OneInst fma("fma.rn.f32 %d, %a, %b, %c");
  REQUIRE(fma.ok());
  // (1+2^-12)^2 - 1 = 2^-11 + 2^-24 needs the unrounded product.
  const float a = 1.0f + 0x1p-12f;
  CHECK(AsF(fma.Run1({B(a), B(a), B(-1.0f)})) == 0x1p-11f + 0x1p-24f);
  // Random triples against std::fma.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<std::vector<uint64_t>> rows;
  for (int i = 0; i < 500; ++i) rows.push_back({B(dist(rng)), B(dist(rng)), B(dist(rng))});
  const auto out = fma.Run(rows);
  for (size_t i = 0; i < rows.size(); ++i)
    CHECK_BITS(out[i], B(std::fma(AsF(rows[i][0]), AsF(rows[i][1]), AsF(rows[i][2]))));
}

TEST_CASE("f32 .ftz flushes subnormal inputs and results to signed zero", "[float]") {
  const auto rows = Pairs(kEdges);
  OneInst add("add.ftz.f32 %d, %a, %b"), mul("mul.rz.ftz.f32 %d, %a, %b"), fma("fma.rn.ftz.f32 %d, %a, %b, %c");
  REQUIRE(add.ok());
  REQUIRE(mul.ok());
  REQUIRE(fma.ok());
  const auto out = add.Run(rows);
  for (size_t i = 0; i < rows.size(); ++i) {
    const float a = Flush(AsF(rows[i][0])), b = Flush(AsF(rows[i][1]));
    CHECK_BITS(out[i], Canon(Flush(a + b)));
  }
  // Results: 2^-100 * 2^-30 is subnormal -> +0; with a negative factor -> -0.
  CHECK_BITS(mul.Run1({B(0x1p-100f), B(0x1p-30f)}), B(0.0f));
  CHECK_BITS(mul.Run1({B(-0x1p-100f), B(0x1p-30f)}), B(-0.0f));
  // Subnormal input flushed before the multiply: 2^-140 * 2^100 = 0, not 2^-40.
  CHECK_BITS(mul.Run1({B(0x1p-140f), B(0x1p100f)}), B(0.0f));
  CHECK_BITS(fma.Run1({B(0x1p-140f), B(0x1p100f), B(0x1p-140f)}), B(0.0f));
  // Without .ftz, subnormals are kept.
  OneInst plain("mul.rn.f32 %d, %a, %b");
  CHECK_BITS(plain.Run1({B(0x1p-140f), B(0x1p100f)}), B(0x1p-40f));
}

TEST_CASE("f32 .sat clamps to [0, 1] and maps NaN to +0", "[float]") {
  const auto rows = Pairs(kEdges);
  for (const char* text : {"add.sat.f32 %d, %a, %b", "mul.rn.sat.f32 %d, %a, %b", "fma.rn.sat.f32 %d, %a, %b, %b"}) {
    INFO(text);
    OneInst inst(text);
    REQUIRE(inst.ok());
    std::vector<std::vector<uint64_t>> in = rows;
    const bool fma = std::string(text).starts_with("fma");
    if (fma)
      for (auto& r : in) r.push_back(r[1]);
    const auto out = inst.Run(in);
    for (size_t i = 0; i < rows.size(); ++i) {
      const float a = AsF(rows[i][0]), b = AsF(rows[i][1]);
      const float r = fma ? std::fma(a, b, b) : std::string(text).starts_with("add") ? a + b : a * b;
      CHECK_BITS(out[i], B(Sat(r)));
    }
  }
}

// Directed rounding of an exactly known value to f32, independent of <cfenv>.
// True if x + y == s exactly (TwoSum error is zero).
bool ExactSum(double x, double y, double s) {
  const double bb = s - x;
  return (x - (s - bb)) + (y - bb) == 0;
}

float RoundF32(double exact, char mode) {
  float r = static_cast<float>(exact);
  if (std::isnan(exact) || static_cast<double>(r) == exact) return r;
  const bool above = static_cast<double>(r) > exact;
  if (mode == 'z' && (exact > 0) == above) r = std::nextafter(r, 0.0f);
  if (mode == 'm' && above) r = std::nextafter(r, -kInf);
  if (mode == 'p' && !above) r = std::nextafter(r, kInf);
  return r;
}
double RoundF64(long double exact, char mode) {
  double r = static_cast<double>(exact);
  if (std::isnan(exact) || static_cast<long double>(r) == exact) return r;
  const bool above = static_cast<long double>(r) > exact;
  if (mode == 'z' && (exact > 0) == above) r = std::nextafter(r, 0.0);
  if (mode == 'm' && above) r = std::nextafter(r, -kInfD);
  if (mode == 'p' && !above) r = std::nextafter(r, kInfD);
  return r;
}

TEST_CASE("f32 .rz/.rm/.rp are exactly rounded", "[float]") {
  std::mt19937 rng(11);
  std::uniform_int_distribution<uint32_t> bits;
  std::uniform_int_distribution<int> exp(-10, 10);
  std::vector<std::vector<uint64_t>> rows;
  for (int i = 0; i < 400; ++i) {
    // Operands of nearby magnitude, so that the double sum/product/quotient
    // reference below is exact (checked) and the f32 rounding is exercised.
    const float a = std::ldexp(1.0f + (bits(rng) & 0x7fffff) * 0x1p-23f, exp(rng)) * ((bits(rng) & 1) ? -1 : 1);
    const float b = std::ldexp(1.0f + (bits(rng) & 0x7fffff) * 0x1p-23f, exp(rng)) * ((bits(rng) & 1) ? -1 : 1);
    rows.push_back({B(a), B(b)});
  }
  rows.push_back({B(FLT_MAX), B(FLT_MAX)});    // overflow: rz/rm keep FLT_MAX
  rows.push_back({B(-FLT_MAX), B(-FLT_MAX)});  // negative overflow
  rows.push_back({B(0x1p-149f), B(0.5f)});     // underflow of the product
  rows.push_back({B(1.0f), B(-1.0f)});         // exact zero: -0 under .rm
  for (char mode : {'z', 'm', 'p'}) {
    const std::string r = std::string(".r") + mode;
    OneInst add("add" + r + ".f32 %d, %a, %b"), mul("mul" + r + ".f32 %d, %a, %b");
    OneInst div("div" + r + ".f32 %d, %a, %b"), fma("fma" + r + ".f32 %d, %a, %b, %b");
    OneInst sqrt("sqrt" + r + ".f32 %d, %a"), rcp("rcp" + r + ".f32 %d, %a");
    REQUIRE((add.ok() && mul.ok() && div.ok() && fma.ok() && sqrt.ok() && rcp.ok()));
    std::vector<std::vector<uint64_t>> frows = rows, urows;
    for (auto& row : frows) row.push_back(row[1]);
    for (auto& row : rows) urows.push_back({B(std::fabs(AsF(row[0])))});
    const auto o_add = add.Run(rows), o_mul = mul.Run(rows), o_div = div.Run(rows), o_fma = fma.Run(frows);
    const auto o_sqrt = sqrt.Run(urows), o_rcp = rcp.Run(rows);
    int checked_div = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      const double a = AsF(rows[i][0]), b = AsF(rows[i][1]);
      INFO("mode " << mode << " a=" << a << " b=" << b);
      const double sum = a + b;
      if (ExactSum(a, b, sum) && sum != 0) CHECK_BITS(o_add[i], B(RoundF32(sum, mode)));  // exact in double
      CHECK_BITS(o_mul[i], B(RoundF32(a * b, mode)));                   // always exact in double
      const double fsum = a * b + b;
      if (ExactSum(a * b, b, fsum)) CHECK_BITS(o_fma[i], B(RoundF32(fsum, mode)));
      const double q = a / b;
      if (std::fma(-q, b, a) == 0 && std::isfinite(q)) {  // quotient exact in double
        CHECK_BITS(o_div[i], B(RoundF32(q, mode)));
        ++checked_div;
      } else if (std::isfinite(q)) {
        // The double quotient is within half a double ulp: its f32 rounding
        // equals the exact one unless it sits on an f32 boundary, which
        // the sign of the remainder decides.
        const float lo = RoundF32(q, 'm'), hi = RoundF32(q, 'p');
        const float want = mode == 'm' ? lo : mode == 'p' ? hi : (q > 0 ? lo : hi);
        if (static_cast<double>(lo) != q) CHECK_BITS(o_div[i], B(want));
      }
      const double s = std::sqrt(std::fabs(a));
      if (s * s == std::fabs(a)) CHECK_BITS(o_sqrt[i], B(RoundF32(s, mode)));
      else CHECK_BITS(o_sqrt[i], B(mode == 'p' ? RoundF32(s, 'p') : RoundF32(s, 'm')));
      const double inv = 1.0 / a;
      if (std::fma(-inv, a, 1.0) == 0) CHECK_BITS(o_rcp[i], B(RoundF32(inv, mode)));
    }
    CHECK(checked_div > 0);
  }
  // Signs of exact zeros.
  OneInst add_rm("add.rm.f32 %d, %a, %b"), add_rz("add.rz.f32 %d, %a, %b");
  CHECK_BITS(add_rm.Run1({B(1.0f), B(-1.0f)}), B(-0.0f));
  CHECK_BITS(add_rz.Run1({B(1.0f), B(-1.0f)}), B(0.0f));
}

TEST_CASE("f64 arithmetic: .rn IEEE, .rz/.rm/.rp exactly rounded", "[float]") {
  const std::vector<double> v = {0.0, -0.0, 1.0, -3.0, 0x1p-60, 1.0 + 0x1p-52, -0x1.8p-1074, 0x1p-1022, DBL_MAX,
                                 -DBL_MAX, kInfD, 0.1, 1e300, -1e-300, 7.0};
  std::vector<std::vector<uint64_t>> rows;
  for (double a : v)
    for (double b : v) rows.push_back({B(a), B(b)});
  OneInst add("add.f64 %d, %a, %b"), mul("mul.rn.f64 %d, %a, %b"), div("div.rn.f64 %d, %a, %b");
  OneInst fma("fma.rn.f64 %d, %a, %b, %b"), sqrt("sqrt.rn.f64 %d, %a");
  REQUIRE((add.ok() && mul.ok() && div.ok() && fma.ok() && sqrt.ok()));
  auto frows = rows;
  for (auto& r : frows) r.push_back(r[1]);
  const auto oa = add.Run(rows), om = mul.Run(rows), od = div.Run(rows), of = fma.Run(frows);
  for (size_t i = 0; i < rows.size(); ++i) {
    const double a = AsD(rows[i][0]), b = AsD(rows[i][1]);
    CHECK_BITS(oa[i], B(a + b));
    CHECK_BITS(om[i], B(a * b));
    CHECK_BITS(od[i], B(a / b));
    CHECK_BITS(of[i], B(std::fma(a, b, b)));
  }
  CHECK_BITS(sqrt.Run1({B(2.0)}), B(std::sqrt(2.0)));
  CHECK_BITS(sqrt.Run1({B(-0.0)}), B(-0.0));
  if constexpr (std::numeric_limits<long double>::digits >= 64) {
    for (char mode : {'z', 'm', 'p'}) {
      const std::string r = std::string(".r") + mode;
      OneInst dadd("add" + r + ".f64 %d, %a, %b"), dmul("mul" + r + ".f64 %d, %a, %b");
      REQUIRE((dadd.ok() && dmul.ok()));
      const std::vector<std::vector<uint64_t>> drows = {
          {B(1.0), B(0x1p-60)},  {B(-1.0), B(0x1p-60)}, {B(1.0), B(-0x1p-60)}, {B(DBL_MAX), B(DBL_MAX)},
          {B(0.1), B(0.2)},      {B(-0.1), B(-0.7)},    {B(1.0 + 0x1p-52), B(1.0 + 0x1p-52)}};
      const auto sa = dadd.Run(drows), sm = dmul.Run(drows);
      for (size_t i = 0; i < drows.size(); ++i) {
        const long double a = AsD(drows[i][0]), b = AsD(drows[i][1]);
        INFO("mode " << mode << " row " << i);
        CHECK_BITS(sa[i], B(RoundF64(a + b, mode)));
        if (i != 3 && i != 6) CHECK_BITS(sm[i], B(RoundF64(a * b, mode)));  // products exact in 64 bits
      }
      // Overflow: DBL_MAX * DBL_MAX.
      CHECK_BITS(sm[3], B(mode == 'p' ? kInfD : DBL_MAX));
      // (1 + 2^-52)^2 = 1 + 2^-51 + 2^-104: the 2^-104 decides .rp.
      CHECK_BITS(sm[6], mode == 'p' ? 0x3ff0000000000003ull : 0x3ff0000000000002ull);
    }
  }
}

int64_t UlpDistance(float a, float b) {
  auto key = [](float f) {
    const int32_t i = std::bit_cast<int32_t>(f);
    return i < 0 ? int64_t{INT32_MIN} - i : int64_t{i};
  };
  return std::llabs(key(a) - key(b));
}

TEST_CASE("approximate f32 functions: PTX special values and accuracy bounds", "[float]") {
  struct Special {
    const char* text;
    float in, out;
  };
  const Special specials[] = {
      {"sin.approx.f32 %d, %a", -kInf, kNan}, {"sin.approx.f32 %d, %a", -0.0f, -0.0f},
      {"sin.approx.f32 %d, %a", kInf, kNan},  {"cos.approx.f32 %d, %a", -0.0f, 1.0f},
      {"cos.approx.f32 %d, %a", kInf, kNan},  {"lg2.approx.f32 %d, %a", -0.0f, -kInf},
      {"lg2.approx.f32 %d, %a", 0.0f, -kInf}, {"lg2.approx.f32 %d, %a", -1.0f, kNan},
      {"lg2.approx.f32 %d, %a", kInf, kInf},  {"ex2.approx.f32 %d, %a", -kInf, 0.0f},
      {"ex2.approx.f32 %d, %a", -0.0f, 1.0f}, {"ex2.approx.ftz.f32 %d, %a", kInf, kInf},
      {"tanh.approx.f32 %d, %a", -kInf, -1.0f}, {"tanh.approx.f32 %d, %a", -0.0f, -0.0f},
      {"tanh.approx.f32 %d, %a", 0x1p-140f, 0x1p-140f},  // subnormals pass through
      {"rcp.approx.f32 %d, %a", -kInf, -0.0f}, {"rcp.approx.f32 %d, %a", -0.0f, -kInf},
      {"rcp.approx.ftz.f32 %d, %a", 0x1p-140f, kInf},  // flushed input
      {"sqrt.approx.f32 %d, %a", -0.0f, -0.0f}, {"sqrt.approx.f32 %d, %a", -1.0f, kNan},
      {"sqrt.rn.f32 %d, %a", kInf, kInf},     {"rsqrt.approx.f32 %d, %a", -0.0f, -kInf},
      {"rsqrt.approx.f32 %d, %a", kInf, 0.0f}, {"rsqrt.approx.f32 %d, %a", -2.0f, kNan},
      {"ex2.approx.f32 %d, %a", -140.0f, 0x1p-140f},      // subnormal result kept
      {"ex2.approx.ftz.f32 %d, %a", -140.0f, 0.0f},       // ... or flushed
      {"lg2.approx.ftz.f32 %d, %a", 0x1p-140f, -kInf},
  };
  for (const Special& s : specials) {
    INFO(s.text << " of " << s.in);
    OneInst inst(s.text);
    REQUIRE(inst.ok());
    CHECK_BITS(inst.Run1({B(s.in)}), Canon(s.out));
  }
  // Accuracy over a sweep (2 ulp, or the PTX absolute bound for sin/cos).
  struct Fn {
    const char* text;
    double (*ref)(double);
    float lo, hi;
    double abs_bound;
  };
  const Fn fns[] = {
      {"sin.approx.f32 %d, %a", [](double x) { return std::sin(x); }, -6.2f, 6.2f, std::exp2(-20.5)},
      {"cos.approx.f32 %d, %a", [](double x) { return std::cos(x); }, -6.2f, 6.2f, std::exp2(-20.5)},
      {"lg2.approx.f32 %d, %a", [](double x) { return std::log2(x); }, 1e-3f, 1e3f, 0x1p-22},
      {"ex2.approx.f32 %d, %a", [](double x) { return std::exp2(x); }, -100.0f, 100.0f, 0},
      {"tanh.approx.f32 %d, %a", [](double x) { return std::tanh(x); }, -10.0f, 10.0f, 0},
      {"rsqrt.approx.f32 %d, %a", [](double x) { return 1 / std::sqrt(x); }, 1e-30f, 1e30f, 0},
      {"rcp.approx.ftz.f32 %d, %a", [](double x) { return 1 / x; }, -1e30f, 1e30f, 0},
  };
  std::mt19937 rng(3);
  for (const Fn& f : fns) {
    INFO(f.text);
    OneInst inst(f.text);
    REQUIRE(inst.ok());
    std::uniform_real_distribution<float> dist(f.lo, f.hi);
    std::vector<std::vector<uint64_t>> rows;
    for (int i = 0; i < 300; ++i) rows.push_back({B(dist(rng))});
    const auto out = inst.Run(rows);
    for (size_t i = 0; i < rows.size(); ++i) {
      const double x = AsF(rows[i][0]);
      const double want = f.ref(x);
      const float got = AsF(out[i]);
      INFO("x=" << x << " got " << got << " want " << want);
      const bool within_ulp = UlpDistance(got, static_cast<float>(want)) <= 2;
      const bool within_abs = f.abs_bound > 0 && std::fabs(got - want) <= f.abs_bound;
      CHECK((within_ulp || within_abs));
    }
  }
}

TEST_CASE("div.approx.f32: 2 ulp, and zero for 2^126 < |b| < 2^128", "[float]") {
  OneInst div("div.approx.f32 %d, %a, %b"), divf("div.approx.ftz.f32 %d, %a, %b");
  REQUIRE((div.ok() && divf.ok()));
  CHECK_BITS(div.Run1({B(1.0f), B(0x1p127f)}), B(0.0f));
  CHECK_BITS(div.Run1({B(-1.0f), B(0x1p127f)}), B(-0.0f));
  CHECK_BITS(div.Run1({B(kInf), B(0x1p127f)}), Canon(kNan));
  CHECK(UlpDistance(AsF(div.Run1({B(1.0f), B(3.0f)})), 1.0f / 3.0f) <= 2);
  CHECK_BITS(divf.Run1({B(0x1p-140f), B(1.0f)}), B(0.0f));
}

TEST_CASE("min/max: NaN rules, signed zeros, .NaN, .xorsign.abs, .ftz", "[float]") {
  OneInst mn("min.f32 %d, %a, %b"), mx("max.f32 %d, %a, %b"), mnn("min.NaN.f32 %d, %a, %b");
  OneInst mxa("max.xorsign.abs.f32 %d, %a, %b"), mnf("min.ftz.f32 %d, %a, %b"), mn3("min.f32 %d, %a, %b, %c");
  OneInst dmn("min.f64 %d, %a, %b"), dmx("max.f64 %d, %a, %b");
  REQUIRE((mn.ok() && mx.ok() && mnn.ok() && mxa.ok() && mnf.ok() && mn3.ok() && dmn.ok() && dmx.ok()));
  CHECK_BITS(mn.Run1({B(kNan), B(2.0f)}), B(2.0f));
  CHECK_BITS(mn.Run1({B(2.0f), B(kNan)}), B(2.0f));
  CHECK_BITS(mn.Run1({B(kNan), B(kNan)}), Canon(kNan));
  CHECK_BITS(mn.Run1({B(0.0f), B(-0.0f)}), B(-0.0f));
  CHECK_BITS(mn.Run1({B(-0.0f), B(0.0f)}), B(-0.0f));
  CHECK_BITS(mx.Run1({B(-0.0f), B(0.0f)}), B(0.0f));
  CHECK_BITS(mx.Run1({B(0.0f), B(-0.0f)}), B(0.0f));
  CHECK_BITS(mx.Run1({B(-kInf), B(-FLT_MAX)}), B(-FLT_MAX));
  CHECK_BITS(mnn.Run1({B(kNan), B(2.0f)}), Canon(kNan));
  CHECK_BITS(mnn.Run1({B(1.0f), B(2.0f)}), B(1.0f));
  CHECK_BITS(mxa.Run1({B(-3.0f), B(2.0f)}), B(-3.0f));  // max(|a|,|b|) with sign a^b
  CHECK_BITS(mxa.Run1({B(-3.0f), B(-2.0f)}), B(3.0f));
  CHECK_BITS(mxa.Run1({B(kNan), B(-2.0f)}), B(-2.0f));  // max(|NaN|, 2) = 2, sign 0^1
  CHECK_BITS(mnf.Run1({B(-0x1p-140f), B(1.0f)}), B(-0.0f));
  CHECK_BITS(mn.Run1({B(-0x1p-140f), B(1.0f)}), B(-0x1p-140f));
  CHECK_BITS(mn3.Run1({B(3.0f), B(kNan), B(-1.0f)}), B(-1.0f));
  CHECK_BITS(dmn.Run1({B(std::numeric_limits<double>::quiet_NaN()), B(-2.0)}), B(-2.0));
  CHECK_BITS(dmx.Run1({B(-0.0), B(0.0)}), B(0.0));
  // Sweep against the PTX pseudo-code on the edge list.
  const auto rows = Pairs(kEdges);
  const auto out = mx.Run(rows);
  for (size_t i = 0; i < rows.size(); ++i) {
    const float a = AsF(rows[i][0]), b = AsF(rows[i][1]);
    float want;
    if (std::isnan(a) && std::isnan(b)) want = kNan;
    else if (std::isnan(a)) want = b;
    else if (std::isnan(b)) want = a;
    else if (a == b) want = std::signbit(a) ? b : a;
    else want = a > b ? a : b;
    CHECK_BITS(out[i], Canon(want));
  }
}

TEST_CASE("abs, neg, copysign, testp", "[float]") {
  OneInst abs("abs.f32 %d, %a"), absf("abs.ftz.f32 %d, %a"), neg("neg.f32 %d, %a"), negd("neg.f64 %d, %a");
  OneInst absd("abs.f64 %d, %a"), cs("copysign.f32 %d, %a, %b"), csd("copysign.f64 %d, %a, %b");
  REQUIRE((abs.ok() && absf.ok() && neg.ok() && negd.ok() && absd.ok() && cs.ok() && csd.ok()));
  CHECK_BITS(abs.Run1({B(-2.5f)}), B(2.5f));
  CHECK_BITS(abs.Run1({B(-0x1p-140f)}), B(0x1p-140f));
  CHECK_BITS(absf.Run1({B(-0x1p-140f)}), B(0.0f));
  CHECK_BITS(neg.Run1({B(0.0f)}), B(-0.0f));
  CHECK_BITS(negd.Run1({B(-kInfD)}), B(kInfD));
  const uint64_t dnan = 0xfff8000000000123ull;
  CHECK_BITS(absd.Run1({dnan}), dnan);  // PTX: abs.f64 passes NaN through unchanged
  CHECK_BITS(cs.Run1({B(-1.0f), B(3.0f)}), B(-3.0f));
  CHECK_BITS(cs.Run1({B(1.0f), B(-kInf)}), B(kInf));
  CHECK_BITS(csd.Run1({B(-0.0), B(2.0)}), B(-2.0));

  auto ref = [](const std::string& op, auto x) {
    if (op == "finite") return std::isfinite(x);
    if (op == "infinite") return std::isinf(x);
    if (op == "number") return !std::isnan(x);
    if (op == "notanumber") return std::isnan(x);
    if (op == "normal") return std::isnormal(x) || x == 0;
    return std::fpclassify(x) == FP_SUBNORMAL;
  };
  for (const std::string op : {"finite", "infinite", "number", "notanumber", "normal", "subnormal"}) {
    INFO(op);
    OneInst f32("testp." + op + ".f32 %p, %a");
    OneInst f64("testp." + op + ".f64 %p, %a");
    REQUIRE((f32.ok() && f64.ok()));
    std::vector<std::vector<uint64_t>> rows;
    for (float x : kEdges) rows.push_back({B(x)});
    const auto out = f32.Run(rows);
    for (size_t i = 0; i < rows.size(); ++i) CHECK(out[i] == ref(op, AsF(rows[i][0])));
    const std::vector<double> dv = {0.0, -0x1p-1074, 1.0, kInfD, -kInfD, std::numeric_limits<double>::quiet_NaN()};
    std::vector<std::vector<uint64_t>> drows;
    for (double x : dv) drows.push_back({B(x)});
    const auto dout = f64.Run(drows);
    for (size_t i = 0; i < dv.size(); ++i) CHECK(dout[i] == ref(op, dv[i]));
  }
}

TEST_CASE("rcp/rsqrt.approx.ftz.f64 use the upper word only", "[float]") {
  OneInst rcp("rcp.approx.ftz.f64 %d, %a"), rsq("rsqrt.approx.ftz.f64 %d, %a"), rcpn("rcp.rn.f64 %d, %a");
  REQUIRE((rcp.ok() && rsq.ok() && rcpn.ok()));
  CHECK_BITS(rcp.Run1({B(2.0)}), B(0.5));
  CHECK_BITS(rcp.Run1({B(-0.0)}), B(-kInfD));
  CHECK_BITS(rcp.Run1({B(-0x1p-1030)}), B(-kInfD));  // subnormal upper word flushed
  CHECK_BITS(rcp.Run1({B(kInfD)}), B(0.0));
  CHECK_BITS(rcp.Run1({B(std::numeric_limits<double>::quiet_NaN())}), 0x7fffffff00000000ull);
  CHECK((rcp.Run1({B(3.0)}) & 0xffffffffull) == 0);
  CHECK(std::fabs(AsD(rcp.Run1({B(3.0)})) - 1.0 / 3.0) < 1e-6);
  CHECK_BITS(rsq.Run1({B(4.0)}), B(0.5));
  CHECK_BITS(rsq.Run1({B(-0.0)}), B(-kInfD));
  CHECK(std::isnan(AsD(rsq.Run1({B(-kInfD)}))));
  CHECK_BITS(rcpn.Run1({B(3.0)}), B(1.0 / 3.0));
}

TEST_CASE("float selector: integer forms declined, bad forms rejected", "[float]") {
  for (const char* text : {"add.s32 %d, %a, %b", "min.u16 %d, %a, %b", "mul.lo.s32 %d, %a, %b", "abs.s64 %d, %a",
                           "mov.f32 %d, %a", "setp.lt.f32 %p, %a, %b"}) {
    INFO(text);
    OneInst inst(text);
    REQUIRE(inst.selected().ok());
    CHECK_FALSE(*inst.selected());
  }
  for (const char* text : {"sin.approx.f64 %d, %a", "add.rna.f32 %d, %a, %b", "min.xorsign.f32 %d, %a, %b",
                           "testp.f32 %p, %a", "rsqrt.rn.f32 %d, %a", "add.rz.f16 %d, %a, %b", "div.rn.f16 %d, %a, %b",
                           "fma.rn.oob.f16 %d, %a, %b, %c", "cvt.rs.f16x2.f32 %d, %a, %b, %c"}) {
    INFO(text);
    OneInst inst(text);
    REQUIRE_FALSE(inst.selected().ok());
    CHECK(inst.selected().status().code() == absl::StatusCode::kUnimplemented);
    CHECK(inst.selected().status().message().find(':') != std::string_view::npos);
  }
}

}  // namespace
}  // namespace barracuda::emu::testing
