// f16 / bf16 / f16x2 / bf16x2 arithmetic and f32 <-> f16/bf16 conversions,
// against an independent reference: the exact result in double, rounded with
// libm (frexp/ldexp + nearbyint/trunc/floor/ceil) to the format's precision.
#include <cfloat>
#include <cmath>
#include <limits>
#include <random>

#include "ptx_emulator/tests/float_test_harness.h"

namespace barracuda::emu::testing {
namespace {

uint16_t RandomHalf(std::mt19937& rng, const Fmt& f, int min_exp, int max_exp) {
  std::uniform_int_distribution<int> e(min_exp, max_exp), m(0, (1 << f.man_bits) - 1), s(0, 1);
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  return static_cast<uint16_t>(s(rng) << 15 | (e(rng) + bias) << f.man_bits | m(rng));
}

TEST_CASE("cvt.f32.f16 and cvt.f32.bf16 widen every pattern exactly", "[float][half]") {
  OneInst f16("cvt.f32.f16 %d, %a"), bf16("cvt.f32.bf16 %d, %a");
  REQUIRE((f16.ok() && bf16.ok()));
  std::vector<std::vector<uint64_t>> rows;
  for (uint32_t h = 0; h < 0x10000; ++h) rows.push_back({h | 0xabcd0000ull});  // upper bits ignored
  const auto o16 = f16.Run(rows), ob16 = bf16.Run(rows);
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const double want16 = Decode(static_cast<uint16_t>(h), kF16), wantb = Decode(static_cast<uint16_t>(h), kBf16);
    if (std::isnan(want16)) CHECK(std::isnan(AsF(o16[h])));
    else if (!(AsF(o16[h]) == want16 && std::signbit(AsF(o16[h])) == std::signbit(want16))) FAIL_CHECK("f16 " << Hex(h));
    if (std::isnan(wantb)) CHECK(std::isnan(AsF(ob16[h])));
    else if (!(AsF(ob16[h]) == wantb && std::signbit(AsF(ob16[h])) == std::signbit(wantb))) FAIL_CHECK("bf16 " << Hex(h));
  }
}

TEST_CASE("cvt.{rn,rz,rm,rp}.{f16,bf16}.f32 round correctly", "[float][half]") {
  std::mt19937 rng(5);
  std::uniform_int_distribution<uint32_t> bits;
  std::vector<float> xs = {0.0f, -0.0f, 1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 65504.0f, 65519.0f, 65520.0f, -65520.0f,
                           0x1p-24f, 0x1p-25f, 0x1.8p-25f, -0x1p-26f, 0x1p-14f, 0x1.ff8p-15f, 1e10f, FLT_MAX,
                           std::numeric_limits<float>::infinity(), 0x1.fep127f, 0x1.ff8p127f, 0x1p-133f, 0x1p-140f,
                           1.0f + 0x1p-8f, 1.0f + 0x1.8p-8f, 3.14159265f};
  for (int i = 0; i < 2000; ++i) {
    const float x = std::bit_cast<float>(bits(rng));
    if (!std::isnan(x)) xs.push_back(x);
    // Around the f16 range too.
    xs.push_back(std::ldexp(1.0f + (bits(rng) & 0x7fffff) * 0x1p-23f, static_cast<int>(bits(rng) % 48) - 30) *
                 ((bits(rng) & 1) ? -1.0f : 1.0f));
  }
  std::vector<std::vector<uint64_t>> rows;
  for (float x : xs) rows.push_back({B(x)});
  for (char mode : {'n', 'z', 'm', 'p'}) {
    for (const auto* f : {&kF16, &kBf16}) {
      const std::string text =
          std::string("cvt.r") + mode + (f == &kF16 ? ".f16" : ".bf16") + ".f32 %d, %a";
      INFO(text);
      OneInst inst(text);
      REQUIRE(inst.ok());
      const auto out = inst.Run(rows);
      for (size_t i = 0; i < xs.size(); ++i) {
        INFO("x = " << xs[i]);
        CheckHalf(out[i], RefRound(xs[i], *f, mode), *f);
      }
    }
  }
  OneInst nan16("cvt.rn.f16.f32 %d, %a");
  CHECK_BITS(nan16.Run1({0x7fc00001u}), 0x7fffu);
  // .satfinite and .relu.
  OneInst satf("cvt.rn.satfinite.f16.f32 %d, %a"), relu("cvt.rn.relu.f16.f32 %d, %a"), bsatf("cvt.rz.satfinite.bf16.f32 %d, %a");
  REQUIRE((satf.ok() && relu.ok() && bsatf.ok()));
  CHECK_BITS(satf.Run1({B(1e6f)}), 0x7bffu);
  CHECK_BITS(satf.Run1({B(-std::numeric_limits<float>::infinity())}), 0xfbffu);
  CHECK_BITS(satf.Run1({0x7fc00000u}), 0x7fffu);
  CHECK_BITS(relu.Run1({B(-3.0f)}), 0x0000u);
  CHECK_BITS(relu.Run1({B(3.0f)}), 0x4200u);
  CHECK_BITS(relu.Run1({0xffc00000u}), 0x7fffu);
  CHECK_BITS(bsatf.Run1({B(std::numeric_limits<float>::infinity())}), 0x7f7fu);
}

TEST_CASE("cvt.rn.{f16x2,bf16x2}.f32 d, a, b puts a in the upper half", "[float][half]") {
  OneInst h2("cvt.rn.f16x2.f32 %d, %a, %b"), b2("cvt.rz.bf16x2.f32 %d, %a, %b"), r2("cvt.rn.relu.f16x2.f32 %d, %a, %b");
  REQUIRE((h2.ok() && b2.ok() && r2.ok()));
  CHECK_BITS(h2.Run1({B(1.0f), B(-2.0f)}), 0x3c00c000u);
  CHECK_BITS(b2.Run1({B(1.0f + 0x1.fp-8f), B(-1.0f)}), 0x3f80bf80u);  // rz drops the low bits
  CHECK_BITS(r2.Run1({B(-1.0f), B(2.0f)}), 0x00004000u);
}

struct HalfOp {
  const char* name;
  int arity;
  double (*exact)(double, double, double);
};
const HalfOp kOps[] = {
    {"add", 2, [](double a, double b, double) { return a + b; }},
    {"sub", 2, [](double a, double b, double) { return a - b; }},
    {"mul", 2, [](double a, double b, double) { return a * b; }},
    {"fma.rn", 3, [](double a, double b, double c) { return a * b + c; }},
};

// True if the double computation of op was exact (so RefRound of it is the
// correctly rounded result).
bool ExactInDouble(const HalfOp& op, double a, double b, double c) {
  if (op.arity == 2 && op.name[0] == 'm') return true;  // products of halves fit in 53 bits
  const double x = op.arity == 3 ? a * b : a, y = op.arity == 3 ? c : (op.name[0] == 's' ? -b : b);
  const double s = x + y, bb = s - x;
  return (x - (s - bb)) + (y - bb) == 0;
}

void CheckArith(const Fmt& f, const char* type, int min_exp, int max_exp) {
  std::mt19937 rng(9);
  for (const HalfOp& op : kOps) {
    for (bool x2 : {false, true}) {
      const std::string text = std::string(op.name) + type + (x2 ? "x2" : "") + " %d, %a, %b" + (op.arity == 3 ? ", %c" : "");
      INFO(text);
      OneInst inst(text);
      REQUIRE(inst.ok());
      std::vector<std::vector<uint64_t>> rows;
      for (int i = 0; i < 600; ++i) {
        std::vector<uint64_t> row;
        for (int k = 0; k < op.arity; ++k) {
          uint64_t v = RandomHalf(rng, f, min_exp, max_exp);
          if (x2) v |= uint64_t{RandomHalf(rng, f, min_exp, max_exp)} << 16;
          row.push_back(v);
        }
        rows.push_back(row);
      }
      const auto out = inst.Run(rows);
      int checked = 0;
      for (size_t i = 0; i < rows.size(); ++i) {
        for (int half = 0; half < (x2 ? 2 : 1); ++half) {
          auto el = [&](int k) { return Decode(static_cast<uint16_t>(rows[i][k] >> (16 * half)), f); };
          const double a = el(0), b = el(1), c = op.arity == 3 ? el(2) : 0.0;
          if (!ExactInDouble(op, a, b, c)) continue;
          INFO("a=" << a << " b=" << b << " c=" << c << " half " << half);
          const uint64_t got = (out[i] >> (16 * half)) & 0xffff;
          CheckHalf(got, RefRound(op.exact(a, b, c), f), f);
          ++checked;
        }
        if (!x2) CHECK((out[i] >> 16) == 0);
      }
      CHECK(checked > 100);
    }
  }
}

TEST_CASE("f16/f16x2 add sub mul fma are correctly rounded", "[float][half]") {
  CheckArith(kF16, ".f16", -16, 15);  // includes subnormal and overflowing results
  CheckArith(kF16, ".rn.f16", -8, 8);
}
TEST_CASE("bf16/bf16x2 add sub mul fma are correctly rounded", "[float][half]") {
  CheckArith(kBf16, ".bf16", -130, 127);
  CheckArith(kBf16, ".rn.bf16", -10, 10);
}

TEST_CASE("f16 fma is fused: one rounding", "[float][half]") {
  OneInst fma("fma.rn.f16 %d, %a, %b, %c");
  REQUIRE(fma.ok());
  // (1 + 2^-10)(1 + 2^-9) - 1 = 2^-9 + 2^-10 + 2^-19: exact only without an intermediate rounding.
  CheckHalf(fma.Run1({0x3c01, 0x3c02, 0xbc00}), 0x1p-9 + 0x1p-10 + 0x1p-19, kF16);
  // Exact sum far below the product's last place: the sticky bit decides.
  CheckHalf(fma.Run1({0x3c00, 0x3c01, 0x8001}), 1.0 + 0x1p-10, kF16);  // 1+2^-10 - 2^-24 -> rn 1+2^-10
  OneInst fmab("fma.rn.bf16 %d, %a, %b, %c");
  REQUIRE(fmab.ok());
  CheckHalf(fmab.Run1({0x3f80, 0x3f80, 0x3b80}), 1.0, kBf16);           // 1 + 2^-8: a tie, to even
  CheckHalf(fmab.Run1({0x3f80, 0x3f80, 0x3b81}), 1.0 + 0x1p-7, kBf16);  // just above the tie
  // (1+2^-4)^2 = 1 + 2^-3 + 2^-8 is a tie; +-2^-60 (beyond double precision
  // of the sum) decides the direction.
  CheckHalf(fmab.Run1({0x3f88, 0x3f88, 0x0000}), 1.0 + 0x1p-3, kBf16);
  CheckHalf(fmab.Run1({0x3f88, 0x3f88, 0x2180}), 1.0 + 0x1p-3 + 0x1p-7, kBf16);
  CheckHalf(fmab.Run1({0x3f88, 0x3f88, 0xa180}), 1.0 + 0x1p-3, kBf16);
  // Same with the tie below: -(1+2^-3+2^-8) + tiny rounds toward zero.
  CheckHalf(fmab.Run1({0xbf88, 0x3f88, 0x2180}), -(1.0 + 0x1p-3), kBf16);
  CheckHalf(fmab.Run1({0xbf88, 0x3f88, 0xa180}), -(1.0 + 0x1p-3 + 0x1p-7), kBf16);
}

TEST_CASE("half .ftz, .sat, .relu, min/max, neg/abs, ex2/tanh.approx", "[float][half]") {
  OneInst addf("add.ftz.f16 %d, %a, %b"), add("add.f16 %d, %a, %b"), sat("mul.sat.f16x2 %d, %a, %b");
  OneInst relu("fma.rn.relu.bf16 %d, %a, %b, %c"), reluh("fma.rn.relu.f16x2 %d, %a, %b, %c");
  REQUIRE((addf.ok() && add.ok() && sat.ok() && relu.ok() && reluh.ok()));
  CHECK_BITS(add.Run1({0x0001, 0x0001}), 0x0002u);   // subnormals kept
  CHECK_BITS(addf.Run1({0x0001, 0x0001}), 0x0000u);  // flushed inputs
  CHECK_BITS(addf.Run1({0x8400, 0x0401}), 0x0000u);  // -2^-14 + (2^-14+2^-24): subnormal result flushed
  CHECK_BITS(sat.Run1({0x4000bc00u, 0x40003c00u}), 0x3c000000u);  // hi 2*2 -> 1, lo -1*1 -> +0
  CHECK_BITS(sat.Run1({0x7e007e00u, 0x3c003c00u}), 0u);            // NaN -> +0
  CHECK_BITS(relu.Run1({0xbf80, 0x3f80, 0x0000}), 0u);             // -1 -> 0
  CHECK_BITS(relu.Run1({0x7fc1, 0x3f80, 0x0000}), 0x7fffu);        // NaN -> canonical
  CHECK_BITS(reluh.Run1({0x3c00bc00u, 0x3c003c00u, 0u}), 0x3c000000u);

  OneInst mn("min.f16 %d, %a, %b"), mxn("max.NaN.f16x2 %d, %a, %b"), mxa("max.xorsign.abs.bf16 %d, %a, %b");
  OneInst mnb("min.bf16x2 %d, %a, %b"), mnf("min.ftz.f16 %d, %a, %b");
  REQUIRE((mn.ok() && mxn.ok() && mxa.ok() && mnb.ok() && mnf.ok()));
  CHECK_BITS(mn.Run1({0x7e00, 0x3c00}), 0x3c00u);
  CHECK_BITS(mn.Run1({0x7e00, 0x7e01}), 0x7fffu);
  CHECK_BITS(mn.Run1({0x0000, 0x8000}), 0x8000u);
  CHECK_BITS(mxn.Run1({0x7e003c00u, 0x3c004000u}), 0x7fff4000u);
  CHECK_BITS(mxa.Run1({0xc040, 0x3f80}), 0xc040u);  // max(|-3|, |1|) = 3, sign 1^0
  CHECK_BITS(mnb.Run1({0x3f80bf80u, 0x4000c000u}), 0x3f80c000u);
  CHECK_BITS(mnf.Run1({0x8001, 0x3c00}), 0x8000u);

  OneInst neg("neg.f16x2 %d, %a"), abs("abs.bf16 %d, %a"), negf("neg.ftz.f16 %d, %a");
  REQUIRE((neg.ok() && abs.ok() && negf.ok()));
  CHECK_BITS(neg.Run1({0x3c00bc00u}), 0xbc003c00u);
  CHECK_BITS(abs.Run1({0xbf80}), 0x3f80u);
  CHECK_BITS(negf.Run1({0x0001}), 0x8000u);

  OneInst ex2("ex2.approx.f16 %d, %a"), ex2b("ex2.approx.ftz.bf16x2 %d, %a"), tanh("tanh.approx.f16 %d, %a");
  REQUIRE((ex2.ok() && ex2b.ok() && tanh.ok()));
  CHECK_BITS(ex2.Run1({0x4000}), 0x4400u);  // 2^2 = 4
  CHECK_BITS(ex2.Run1({0xfc00}), 0x0000u);  // 2^-inf = +0
  CHECK_BITS(ex2b.Run1({0x00013f80u}), 0x3f804000u);  // subnormal -> 2^0; 2^1
  CHECK_BITS(tanh.Run1({0xfc00}), 0xbc00u);
  CHECK_BITS(tanh.Run1({0x8000}), 0x8000u);
  std::mt19937 rng(1);
  for (int i = 0; i < 200; ++i) {
    const uint16_t h = RandomHalf(rng, kF16, -6, 3);
    const double x = Decode(h, kF16);
    CHECK(std::fabs(Decode(static_cast<uint16_t>(tanh.Run1({h})), kF16) - std::tanh(x)) <= std::exp2(-10.987));
    const double e = Decode(static_cast<uint16_t>(ex2.Run1({h})), kF16);
    CHECK(std::fabs(e - std::exp2(x)) <= std::exp2(-9.9) * std::exp2(x));
  }
}

}  // namespace
}  // namespace barracuda::emu::testing
