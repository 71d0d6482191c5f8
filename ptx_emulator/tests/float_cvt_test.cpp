// cvt: every int/float pair, rounding, saturation, NaN rules, register
// extension, packed forms, tf32, cvt.pack. References are computed here with
// C++ casts, <utility> integer comparisons and long double.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>

#include "ptx_emulator/tests/float_test_harness.h"

namespace barracuda::emu::testing {
namespace {

template <typename T>
struct Name;
#define BARRACUDA_NAME(T, s) \
  template <>                \
  struct Name<T> {           \
    static constexpr const char* kText = s; \
  };
BARRACUDA_NAME(uint8_t, ".u8")
BARRACUDA_NAME(uint16_t, ".u16")
BARRACUDA_NAME(uint32_t, ".u32")
BARRACUDA_NAME(uint64_t, ".u64")
BARRACUDA_NAME(int8_t, ".s8")
BARRACUDA_NAME(int16_t, ".s16")
BARRACUDA_NAME(int32_t, ".s32")
BARRACUDA_NAME(int64_t, ".s64")
#undef BARRACUDA_NAME

// The 64-bit register image of an integer result: signed types sign-extended.
template <typename D>
uint64_t Image(D v) {
  if constexpr (std::is_signed_v<D>) return static_cast<uint64_t>(static_cast<int64_t>(v));
  else return static_cast<uint64_t>(v);
}

const std::vector<uint64_t> kIntInputs = {0,          1,          0x7f,       0x80,        0xff,       0x100,
                                          0x7fff,     0x8000,     0xffff,     0x12345678,  0x7fffffff, 0x80000000,
                                          0xffffffff, 0x100000000, 0x7fffffffffffffffull, 0x8000000000000000ull,
                                          0xffffffffffffffffull, 0xfedcba9876543210ull, 0xffffffffffffff85ull};

template <typename D, typename S>
void CheckIntPair() {
  for (bool sat : {false, true}) {
    const std::string text = std::string("cvt") + (sat ? ".sat" : "") + Name<D>::kText + Name<S>::kText + " %d, %a";
    INFO(text);
    OneInst inst(text);
    REQUIRE(inst.ok());
    std::vector<std::vector<uint64_t>> rows;
    for (uint64_t v : kIntInputs) rows.push_back({v});
    const auto out = inst.Run(rows);
    for (size_t i = 0; i < rows.size(); ++i) {
      const S s = static_cast<S>(rows[i][0]);  // the low bits, as the source type
      D want = static_cast<D>(s);              // modular conversion
      if (sat) {
        if (std::cmp_less(s, std::numeric_limits<D>::min())) want = std::numeric_limits<D>::min();
        if (std::cmp_greater(s, std::numeric_limits<D>::max())) want = std::numeric_limits<D>::max();
      }
      INFO("input " << Hex(rows[i][0]));
      CHECK_BITS(out[i], Image(want));
    }
  }
}

template <typename D>
void CheckIntFrom() {
  CheckIntPair<D, uint8_t>();
  CheckIntPair<D, uint16_t>();
  CheckIntPair<D, uint32_t>();
  CheckIntPair<D, uint64_t>();
  CheckIntPair<D, int8_t>();
  CheckIntPair<D, int16_t>();
  CheckIntPair<D, int32_t>();
  CheckIntPair<D, int64_t>();
}

TEST_CASE("cvt int -> int: extension, truncation, .sat, for all 64 pairs", "[float][cvt]") {
  CheckIntFrom<uint8_t>();
  CheckIntFrom<uint16_t>();
  CheckIntFrom<uint32_t>();
  CheckIntFrom<uint64_t>();
  CheckIntFrom<int8_t>();
  CheckIntFrom<int16_t>();
  CheckIntFrom<int32_t>();
  CheckIntFrom<int64_t>();
}

// ---------------------------------------------------------------- float -> int

const std::vector<double> kF2IInputs = {0.0,   -0.0,  0.4,    0.5,    -0.5,  1.5,   2.5,        -2.5,  3.5,
                                        -3.7,  127.5, -128.5, 255.5,  256.0, 1e4,   65535.9,    -1e9,  2147483647.0,
                                        2147483648.0, -2147483649.0, 4294967295.5, 1e19, 2e19, -1e19, 1e300,
                                        std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                        std::numeric_limits<double>::quiet_NaN(), 0x1p-1070, -0x1p-149};

// The f16 encoding of a value representable in f16 (NaN -> 0x7e00).
uint16_t EncodeF16(double r) {
  if (std::isnan(r)) return 0x7e00;
  const uint16_t sign = std::signbit(r) ? 0x8000 : 0;
  r = std::fabs(r);
  if (std::isinf(r)) return sign | 0x7c00;
  if (r == 0) return sign;
  const int e = std::ilogb(r);
  if (e < -14) return sign | static_cast<uint16_t>(std::ldexp(r, 24));
  return sign | static_cast<uint16_t>((e + 15) << 10 | static_cast<int>(std::ldexp(r, -e) * 1024 - 1024));
}

template <typename D>
uint64_t RefF2I(long double x, char mode, bool src_f64) {
  constexpr int kBits = sizeof(D) * 8;
  if (std::isnan(x)) return (src_f64 || kBits == 64) ? Image(static_cast<D>(uint64_t{1} << (kBits - 1))) : 0;
  x = mode == 'n' ? std::nearbyint(x) : mode == 'z' ? std::trunc(x) : mode == 'm' ? std::floor(x) : std::ceil(x);
  if (x <= static_cast<long double>(std::numeric_limits<D>::min())) return Image(std::numeric_limits<D>::min());
  if (x >= static_cast<long double>(std::numeric_limits<D>::max())) return Image(std::numeric_limits<D>::max());
  return Image(static_cast<D>(x));
}

template <typename D>
void CheckF2I() {
  for (const char* src : {".f32", ".f64", ".f16"}) {
    for (char mode : {'n', 'z', 'm', 'p'}) {
      const std::string text = std::string("cvt.r") + mode + "i" + Name<D>::kText + src + " %d, %a";
      INFO(text);
      OneInst inst(text);
      REQUIRE(inst.ok());
      std::vector<std::vector<uint64_t>> rows;
      std::vector<long double> values;
      for (double x : kF2IInputs) {
        if (std::string(src) == ".f64") {
          rows.push_back({B(x)});
          values.push_back(x);
        } else if (std::string(src) == ".f32") {
          rows.push_back({B(static_cast<float>(x))});
          values.push_back(static_cast<float>(x));
        } else {
          const double r = std::isnan(x) ? x : RefRound(x, kF16);
          const uint16_t bits = EncodeF16(r);
          rows.push_back({bits});
          values.push_back(r);
        }
      }
      const auto out = inst.Run(rows);
      for (size_t i = 0; i < rows.size(); ++i) {
        INFO("x = " << static_cast<double>(values[i]));
        CHECK_BITS(out[i], RefF2I<D>(values[i], mode, std::string(src) == ".f64"));
      }
    }
  }
}

TEST_CASE("cvt float -> int: integer rounding, saturation, NaN rules", "[float][cvt]") {
  CheckF2I<uint8_t>();
  CheckF2I<uint16_t>();
  CheckF2I<uint32_t>();
  CheckF2I<uint64_t>();
  CheckF2I<int8_t>();
  CheckF2I<int16_t>();
  CheckF2I<int32_t>();
  CheckF2I<int64_t>();
  // The PTX NaN table spelled out.
  OneInst s32f32("cvt.rzi.s32.f32 %d, %a"), s32f64("cvt.rzi.s32.f64 %d, %a"), s64f32("cvt.rzi.s64.f32 %d, %a");
  OneInst u32f64("cvt.rni.u32.f64 %d, %a"), ftz("cvt.rpi.ftz.s32.f32 %d, %a"), noftz("cvt.rpi.s32.f32 %d, %a");
  CHECK_BITS(s32f32.Run1({0x7fc00000u}), 0u);
  CHECK_BITS(s32f64.Run1({B(std::numeric_limits<double>::quiet_NaN())}), 0xffffffff80000000ull);
  CHECK_BITS(s64f32.Run1({0x7fc00000u}), 0x8000000000000000ull);
  CHECK_BITS(u32f64.Run1({B(std::numeric_limits<double>::quiet_NaN())}), 0x80000000u);
  CHECK_BITS(ftz.Run1({B(0x1p-140f)}), 0u);    // flushed before rounding up
  CHECK_BITS(noftz.Run1({B(0x1p-140f)}), 1u);  // a positive subnormal rounds up to 1
  // Float rounding spelled on float->int (lenient): .rn means .rni.
  OneInst rn("cvt.rn.s32.f32 %d, %a");
  REQUIRE(rn.ok());
  CHECK_BITS(rn.Run1({B(2.5f)}), 2u);
}

// ---------------------------------------------------------------- int -> float

template <typename T>
T RoundL(long double exact, char mode) {
  T r = static_cast<T>(exact);  // nearest even
  if (mode == 'n' || static_cast<long double>(r) == exact) return r;
  const bool above = static_cast<long double>(r) > exact;
  constexpr T kInfT = std::numeric_limits<T>::infinity();
  if (mode == 'z' && (exact > 0) == above) r = std::nextafter(r, T(0));
  if (mode == 'm' && above) r = std::nextafter(r, -kInfT);
  if (mode == 'p' && !above) r = std::nextafter(r, kInfT);
  return r;
}

TEST_CASE("cvt int -> float: every rounding mode, every width", "[float][cvt]") {
  std::mt19937_64 rng(17);
  std::vector<uint64_t> inputs = kIntInputs;
  for (int i = 0; i < 200; ++i) inputs.push_back(rng() >> (rng() % 64));
  inputs.push_back(16777217);
  inputs.push_back((uint64_t{1} << 53) + 1);
  inputs.push_back(65519);
  inputs.push_back(65520);
  std::vector<std::vector<uint64_t>> rows;
  for (uint64_t v : inputs) rows.push_back({v});
  for (const char* src : {".s32", ".u32", ".s64", ".u64", ".s16", ".u8"}) {
    for (char mode : {'n', 'z', 'm', 'p'}) {
      for (const char* dst : {".f32", ".f64", ".f16", ".bf16"}) {
        const std::string text = std::string("cvt.r") + mode + dst + src + " %d, %a";
        INFO(text);
        OneInst inst(text);
        REQUIRE(inst.ok());
        const auto out = inst.Run(rows);
        for (size_t i = 0; i < rows.size(); ++i) {
          const uint64_t v = rows[i][0];
          long double x;
          const std::string s(src);
          if (s == ".s32") x = static_cast<int32_t>(v);
          else if (s == ".u32") x = static_cast<uint32_t>(v);
          else if (s == ".s64") x = static_cast<int64_t>(v);
          else if (s == ".u64") x = v;
          else if (s == ".s16") x = static_cast<int16_t>(v);
          else x = static_cast<uint8_t>(v);
          INFO("x = " << static_cast<double>(x));
          const std::string d(dst);
          if (d == ".f32") CHECK_BITS(out[i], B(RoundL<float>(x, mode)));
          else if (d == ".f64") CHECK_BITS(out[i], B(RoundL<double>(x, mode)));
          else {
            // x -> double is exact for the checks (below 2^53) or rounds far
            // below a 16-bit format's precision; RefRound does the rest.
            const double xd = static_cast<double>(x);
            if (static_cast<long double>(xd) != x) continue;
            CheckHalf(out[i], RefRound(xd, d == ".f16" ? kF16 : kBf16, mode), d == ".f16" ? kF16 : kBf16);
          }
        }
      }
    }
  }
  OneInst sat("cvt.rn.sat.f32.s32 %d, %a");
  REQUIRE(sat.ok());
  CHECK_BITS(sat.Run1({5}), B(1.0f));
  CHECK_BITS(sat.Run1({static_cast<uint32_t>(-5)}), B(0.0f));
}

// ---------------------------------------------------------------- float -> float

TEST_CASE("cvt float -> float: narrowing in every mode, widening exact", "[float][cvt]") {
  std::mt19937_64 rng(23);
  std::vector<double> xs = {0.0, -0.0, 1.0, 0.1, -0.1, 1.0 + 0x1p-24, 1.0 + 0x1.8p-24, DBL_MAX, -DBL_MAX, FLT_MAX,
                            0x1.ffffffp127, 0x1p-149, 0x1p-150, 0x1.8p-150, 0x1p-160, -0x1p-1074, 65520.0, 3.0e-8,
                            std::numeric_limits<double>::infinity()};
  for (int i = 0; i < 500; ++i) {
    const double x = std::bit_cast<double>(rng());
    if (!std::isnan(x)) xs.push_back(x);
    xs.push_back(std::ldexp(static_cast<double>(rng() >> 11) * 0x1p-53 + 1.0, static_cast<int>(rng() % 300) - 150));
  }
  std::vector<std::vector<uint64_t>> rows;
  for (double x : xs) rows.push_back({B(x)});
  for (char mode : {'n', 'z', 'm', 'p'}) {
    const std::string r = std::string(".r") + mode;
    OneInst f32("cvt" + r + ".f32.f64 %d, %a"), f16("cvt" + r + ".f16.f64 %d, %a"), bf16("cvt" + r + ".bf16.f64 %d, %a");
    REQUIRE((f32.ok() && f16.ok() && bf16.ok()));
    const auto o32 = f32.Run(rows), o16 = f16.Run(rows), ob = bf16.Run(rows);
    for (size_t i = 0; i < xs.size(); ++i) {
      INFO(r << " x = " << xs[i]);
      CHECK_BITS(o32[i], B(RoundL<float>(xs[i], mode)));
      CheckHalf(o16[i], RefRound(xs[i], kF16, mode), kF16);
      CheckHalf(ob[i], RefRound(xs[i], kBf16, mode), kBf16);
    }
  }
  // f16 <-> bf16 (both need rounding), widening exact.
  OneInst h2b("cvt.rn.bf16.f16 %d, %a"), b2h("cvt.rz.f16.bf16 %d, %a"), h2d("cvt.f64.f16 %d, %a"), f2d("cvt.f64.f32 %d, %a");
  REQUIRE((h2b.ok() && b2h.ok() && h2d.ok() && f2d.ok()));
  for (uint32_t h = 0; h < 0x10000; h += 7) {
    INFO("h = " << Hex(h));
    CheckHalf(h2b.Run1({h}), RefRound(Decode(static_cast<uint16_t>(h), kF16), kBf16), kBf16);
    CheckHalf(b2h.Run1({h}), RefRound(Decode(static_cast<uint16_t>(h), kBf16), kF16, 'z'), kF16);
    const double d = AsD(h2d.Run1({h}));
    const double want = Decode(static_cast<uint16_t>(h), kF16);
    if (std::isnan(want)) CHECK(std::isnan(d));
    else CHECK((d == want && std::signbit(d) == std::signbit(want)));
  }
  CHECK_BITS(f2d.Run1({B(0x1p-149f)}), B(0x1p-149));
  CHECK_BITS(f2d.Run1({0x7fc00001u}), 0x7ff8000020000000ull);  // f64 keeps the payload
  OneInst nan32("cvt.rn.f32.f64 %d, %a");
  CHECK_BITS(nan32.Run1({0x7ff8000000000001ull}), 0x7fffffffu);
}

TEST_CASE("cvt float -> float: integer rounding, .ftz, .sat", "[float][cvt]") {
  const std::vector<float> xs = {0.5f, 1.5f, 2.5f, -2.5f, -0.5f, -0.2f, 3.7f, 1e10f, 0x1p-140f, -0x1p-140f,
                                 std::numeric_limits<float>::infinity()};
  for (char mode : {'n', 'z', 'm', 'p'}) {
    OneInst f32(std::string("cvt.r") + mode + "i.f32.f32 %d, %a"), f64(std::string("cvt.r") + mode + "i.f64.f64 %d, %a");
    OneInst f16(std::string("cvt.r") + mode + "i.f16.f16 %d, %a");
    REQUIRE((f32.ok() && f64.ok() && f16.ok()));
    for (float x : xs) {
      const float want = mode == 'n' ? std::nearbyint(x) : mode == 'z' ? std::trunc(x) : mode == 'm' ? std::floor(x) : std::ceil(x);
      INFO(mode << " x = " << x);
      CHECK_BITS(f32.Run1({B(x)}), B(want));
      CHECK_BITS(f64.Run1({B(static_cast<double>(x))}), B(static_cast<double>(want)));
    }
    // f16 2.5 (0x4100) -> rni 2, rzi 2, rmi 2, rpi 3.
    CheckHalf(f16.Run1({0x4100}), mode == 'p' ? 3.0 : 2.0, kF16);
  }
  OneInst ftz("cvt.ftz.f32.f32 %d, %a"), copy("cvt.f32.f32 %d, %a"), rniftz("cvt.rni.ftz.f32.f32 %d, %a");
  OneInst narrowftz("cvt.rn.ftz.f32.f64 %d, %a"), widenftz("cvt.ftz.f64.f32 %d, %a");
  OneInst sat("cvt.sat.f32.f32 %d, %a"), sat16("cvt.rn.sat.f16.f32 %d, %a"), sat64("cvt.sat.f64.f64 %d, %a");
  REQUIRE((ftz.ok() && copy.ok() && rniftz.ok() && narrowftz.ok() && widenftz.ok() && sat.ok() && sat16.ok() && sat64.ok()));
  CHECK_BITS(ftz.Run1({B(-0x1p-140f)}), B(-0.0f));
  CHECK_BITS(copy.Run1({B(-0x1p-140f)}), B(-0x1p-140f));
  CHECK_BITS(rniftz.Run1({B(-0x1p-140f)}), B(-0.0f));
  CHECK_BITS(narrowftz.Run1({B(0x1p-140)}), B(0.0f));
  CHECK_BITS(widenftz.Run1({B(0x1p-140f)}), B(0.0));
  CHECK_BITS(sat.Run1({B(1.5f)}), B(1.0f));
  CHECK_BITS(sat.Run1({B(-1.5f)}), B(0.0f));
  CHECK_BITS(sat.Run1({0x7fc00000u}), B(0.0f));
  CHECK_BITS(sat.Run1({B(0.25f)}), B(0.25f));
  CHECK_BITS(sat16.Run1({B(7.0f)}), 0x3c00u);
  CHECK_BITS(sat64.Run1({B(-0.0)}), B(0.0));
}

TEST_CASE("cvt tf32 and cvt.pack.sat", "[float][cvt]") {
  OneInst rna("cvt.rna.tf32.f32 %d, %a"), rn("cvt.rn.tf32.f32 %d, %a"), rz("cvt.rz.satfinite.tf32.f32 %d, %a");
  OneInst rnasf("cvt.rna.satfinite.tf32.f32 %d, %a");
  REQUIRE((rna.ok() && rn.ok() && rz.ok() && rnasf.ok()));
  CHECK_BITS(rna.Run1({B(1.0f + 0x1p-11f)}), B(1.0f + 0x1p-10f));  // tie away from zero
  CHECK_BITS(rna.Run1({B(-(1.0f + 0x1p-11f))}), B(-(1.0f + 0x1p-10f)));
  CHECK_BITS(rn.Run1({B(1.0f + 0x1p-11f)}), B(1.0f));  // tie to even
  CHECK_BITS(rna.Run1({B(1.0f + 0x1p-12f)}), B(1.0f));
  CHECK_BITS(rz.Run1({B(1.0f + 0x1.ffp-11f)}), B(1.0f));
  CHECK_BITS(rna.Run1({B(FLT_MAX)}), 0x7f800000u);
  CHECK_BITS(rnasf.Run1({B(FLT_MAX)}), 0x7f7fe000u);
  CHECK_BITS(rna.Run1({0x7fc00123u}), 0x7fffffffu);
  // tf32 keeps f32's exponent range but only 10 fraction bits, so its
  // subnormal grid is 2^-136.
  CHECK_BITS(rna.Run1({B(0x1p-136f)}), B(0x1p-136f));
  CHECK_BITS(rna.Run1({B(0x1p-137f)}), B(0x1p-136f));
  CHECK_BITS(rna.Run1({B(0x1p-140f)}), B(0.0f));

  OneInst p16("cvt.pack.sat.s16.s32 %d, %a, %b"), pu8("cvt.pack.sat.u8.s32.b32 %d, %a, %b, %c");
  OneInst ps4("cvt.pack.sat.s4.s32.b32 %d, %a, %b, %c");
  REQUIRE((p16.ok() && pu8.ok() && ps4.ok()));
  CHECK_BITS(p16.Run1({70000, static_cast<uint32_t>(-70000)}), 0x7fff8000u);
  CHECK_BITS(p16.Run1({1, 2}), 0x00010002u);
  CHECK_BITS(pu8.Run1({300, static_cast<uint32_t>(-3), 0xabcd}), 0xabcdff00u);
  CHECK_BITS(ps4.Run1({static_cast<uint32_t>(-9), 5, 0x1234567}), 0x23456785u);  // c shifted up by 8
}

TEST_CASE("cvt selector: forms it does not implement are reported", "[float][cvt]") {
  for (const char* text : {"cvt.rs.relu.satfinite.e2m1x4.f32 %d, {%a, %b, %c, %e}, %f", "cvt.rn.e3m2.f32 %d, %a",
                           "cvt.rs.relu.satfinite.bf16x2.f32 %d, %a, %b, %c", "cvt.u32 %d, %a"}) {
    INFO(text);
    OneInst inst(text);
    REQUIRE_FALSE(inst.selected().ok());
    CHECK(inst.selected().status().code() == absl::StatusCode::kUnimplemented);
  }
}

}  // namespace
}  // namespace barracuda::emu::testing
